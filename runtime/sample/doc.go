// Package sample turns logits into the next token: a chain of small samplers applied in llama.cpp's order —
// logit bias, repetition/frequency/presence penalties, top-k, typical-p, top-p, min-p, temperature — then a
// seeded random draw, or the most likely token at temperature 0.
//
// A Sampler owns its buffers: after the first call with a vocabulary size, Sample allocates nothing. Each stage
// is also a plain function on a Candidates list, so a custom chain can be composed from them.
package sample
