// Package bundle writes and finds a GGUF model carried inside a forma executable: one file to download that
// chats with its model when started.
//
// # Layout
//
// A bundle is a forma executable with the model's bytes at an offset aligned to osmem.MapAlign (64 KiB, so the
// running program maps them straight from its own file: no copy, no temporary file) and a 64-byte trailer right
// after the model's region:
//
//	magic   [16]byte  "forma bundle v1\n"
//	offset  uint64    of the GGUF in the file (little-endian)
//	size    uint64    of the GGUF in bytes
//	sha256  [32]byte  of the GGUF's bytes
//
// Where the region goes depends on the executable format:
//   - ELF (Linux) and PE (Windows): after the image, ending the file (PE calls it the overlay; a PE signed after
//     bundling keeps its certificate table last, and the trailer is looked for just before it).
//   - Mach-O (macOS): every arm64 executable needs a code signature that covers all of the file before it, and
//     bytes after the signature break it. The region becomes a segment of its own, __FORMA, placed before
//     __LINKEDIT (not mapped by the loader: its VM size is zero, as for the __DWARF segment the Go linker
//     writes), __LINKEDIT moves after it, and the ad-hoc signature is computed again over the whole file, as the
//     Go linker computes one (see codesign.go). The trailer is the segment's last 64 bytes. Mach-O's signature
//     offsets are 32-bit, so a macOS bundle must stay under 4 GiB.
//
// # Finding
//
// Find reads the trailer of an executable. A file that carries no model gives (nil, nil). A file whose bytes run
// past its executable image without a valid trailer (a truncated download), or whose trailer contradicts the file
// (a damaged one), gives an error naming the problem; Payload.Open checks the model's SHA-256 before mapping it,
// so corrupted weights are refused too.
package bundle
