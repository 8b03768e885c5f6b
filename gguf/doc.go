// Package gguf reads and writes GGUF files, the model format of llama.cpp.
//
// # Reading
//
// Open maps a file read-only and validates everything it declares before use: every length and count is checked
// against the file size (and no memory is reserved for a count before its entries are read), tensor shapes
// against overflow (at most 4 dimensions, none zero), each tensor's type and block size, and every tensor's bytes
// against the data section: offsets aligned to general.alignment, inside the section, no two tensors
// overlapping, no duplicate names. A corrupt or hostile file yields an error naming the file and the field or
// tensor at fault, never a panic or a read outside the mapping. GGUF versions 2 and 3 are read; version 1 and
// big-endian files are refused with errors that say so. A path named NAME-00001-of-0000N.gguf opens every part
// of a split model as one File.
//
// Memory: tensor bytes are slices of the mapping (nothing is copied onto the Go heap) and stay valid until
// Close, which unmaps; a File holds no finalizer. Metadata scalars are decoded when the file is opened;
// arrays (a vocabulary of 150k strings) stay encoded in the mapping and are decoded by the accessor that
// asks for them, so they too must not be used after Close.
//
// Dimensions are in ggml order: Dims[0] is the row length. Multi-byte fields are little-endian. Tensor element
// types and their block formats live in the subpackage quant.
//
// # Writing
//
// Write and WriteFile produce a file from metadata (built with NewString, NewUint32, NewStrings, NewArray, …,
// or taken from an open File) and tensor descriptions whose bytes come from a callback per tensor, called in
// order while the file is written: a model is streamed, never held in memory. The layout is llama.cpp's
// (offsets in order, each tensor padded with zeros to the alignment), so a file read and written back with
// the same metadata and tensors is byte-for-byte the original.
package gguf
