// Package runtime runs a loaded model: Model (shared, read-only) and Session (one conversation).
//
// Load maps a GGUF file, uploads its weights to a backend (a CPU backend it creates and owns when none is
// given), and reads the tokenizer (whose size must equal the embedding's rows), the chat template and the
// sampling defaults (general.sampling.* keys, else llama.cpp's). A Model is safe for concurrent use; Close frees
// the backend it created, then the file mapping.
//
// A Session owns a KV cache and the list of tokens in it. Generate (text) and GenerateTokens (ids) keep the
// longest common prefix of the prompt with the cache, evaluate the rest in batches (SessionOptions.Batch), and
// stream the generated tokens as an iter.Seq2[Token, error]; Chat renders the whole conversation with the
// template and does the same, so that a new turn evaluates only its new tokens. Generation stops at an
// end-of-generation token, GenerateOptions.MaxTokens, a stop string (matched across token boundaries: text that
// may begin one is held back until settled, and the match is not returned), a full context (or, with
// SessionOptions.ContextShift, drops the oldest half of the tokens after the first Keep ones, as llama.cpp does,
// and re-evaluates the kept ones at their new positions), or when the context.Context is cancelled or the
// caller leaves the loop, within one token. The session stays usable after any of these. A prompt longer than
// the context is ErrContextFull unless context shift is on.
//
// Ownership and allocation: a Session is used by one goroutine at a time and frees its cache on Close. The
// per-token loop allocates nothing: forward passes run compiled programs (one per distinct batch length; prompt
// remainders are split into power-of-two passes so a session compiles at most log2(batch)+2), the sampler and
// the stop matcher reuse their buffers, and Token.Text strings are carved from 4 KiB chunks.
//
// The sampler chain is package sample; the same seed gives the same tokens (sample.RandomSeed draws one, which
// Stats reports).
//
// Output constraints: GenerateOptions.Grammar (GBNF), JSONSchema or JSON confine the output to a grammar
// (package grammar; a schema through grammar/jsonschema). A constraint that cannot be used is an error wrapping
// ErrConstraint before any token is generated. The generation loop masks the logits of the tokens the grammar
// does not allow before sampling, lets the matcher accept (or, under its budget, replace) the token sampled,
// allows end-of-generation tokens only when the output is complete, and stops when nothing can follow. The
// budget is MaxTokens (or the room left in the context), so a generation cut short still ends complete when it
// can. The model's grammar vocabulary is built on first use and caches compiled grammars with their masks.
package runtime
