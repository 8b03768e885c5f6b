// Package sample turns logits into the next token: a chain of small samplers applied in llama.cpp's order —
// logit bias, repetition/frequency/presence penalties, DRY, top-n-σ, top-k, typical-p, top-p, min-p, XTC,
// temperature — then a seeded random draw, or the most likely token at temperature 0. Mirostat (1 or 2.0)
// replaces that chain with logit bias, temperature and its own draw, as in llama.cpp.
//
// Options holds the parameters; Params is their one table: each parameter's llama.cpp flag, REPL/Ollama/HTTP
// field name, GGUF key, type, range and help, from which the command line, the REPL, the model defaults and the
// HTTP servers derive.
//
// A Sampler owns its buffers: after the first call with a vocabulary size, Sample allocates nothing (DRY's
// window grows with the history, by doubling). Each stage is also a plain function on a Candidates list, so a
// custom chain can be composed from them.
package sample
