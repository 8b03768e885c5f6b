// Package modelinfo summarizes a GGUF model: architecture, size, shapes, RoPE settings, tokenizer, and an
// estimate of the memory needed to run it at a given context length. forma info prints it; other commands
// reuse it to describe a model or to check that it fits.
//
// Everything is read from metadata and tensor descriptions only; no tensor bytes are touched.
package modelinfo
