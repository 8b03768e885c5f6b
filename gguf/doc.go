// Package gguf reads and writes GGUF files, the model format of llama.cpp.
//
// Open maps a file read-only and validates everything it declares before use: every length and count is checked
// against the file size, tensor shapes against overflow, and every tensor's bytes against the data section, so a
// corrupt or hostile file yields an error, never a panic or a read outside the mapping. Tensor bytes are slices of
// the mapping (nothing is copied onto the Go heap) and stay valid until Close, which unmaps.
//
// Dimensions are in ggml order: Dims[0] is the row length. Multi-byte fields are little-endian; GGUF v1 and
// big-endian files are refused. Metadata arrays are decoded on access. Tensor element types and their block
// formats live in the subpackage quant.
package gguf
