// Package osmem maps files and allocates memory outside the Go heap.
//
// Mappings and allocations are released only by the matching Unmap or Free call, never by a finalizer:
// the owner (a gguf.File, a backend buffer) calls it from its Close method.
package osmem
