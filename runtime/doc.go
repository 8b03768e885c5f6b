// Package runtime runs a loaded model: Model (shared, read-only) and Session (one conversation).
//
// Load maps a GGUF file, uploads its weights to the backend given in Options (the forma package picks the CPU
// by default), and reads the tokenizer (whose size must equal the embedding's rows), the chat template and the
// sampling defaults (general.sampling.* keys, else llama.cpp's). A Model is safe for concurrent use; Close stops
// its engines, closes the backend if Options.CloseBackend is set, then the file mapping.
//
// A Session is a sequence in the Model's engine (one per KV cache type): a goroutine that batches the tokens of
// every session into shared forward passes over one paged KV pool, with a prefix tree that lets sessions with a
// common prefix share its pages (see engine.go and docs/architecture.md). A row's result does not depend on
// what else shares its pass, so a session gets the same bits alone or under load. Generate (text) and
// GenerateTokens (ids) keep the longest common prefix of the prompt with the cache (and the engine reuses any
// cached pages beyond it), evaluate the rest in passes of at most SessionOptions.Batch tokens, and stream the
// generated tokens as an iter.Seq2[Token, error]; Chat renders the whole conversation with the template and
// does the same, so that a new turn evaluates only its new tokens. Generation stops at an end-of-generation
// token, GenerateOptions.MaxTokens, a stop string (matched across token boundaries: text that may begin one is
// held back until settled, and the match is not returned), a full context (or, with SessionOptions.ContextShift,
// drops the oldest half of the tokens after the first Keep ones, as llama.cpp does, and re-evaluates the kept
// ones at their new positions), or when the context.Context is cancelled or the caller leaves the loop, within
// one pass. The session stays usable after any of these. A prompt longer than the context is ErrContextFull
// unless context shift is on; a request beyond the engine's queue is ErrBusy.
//
// Ownership and allocation: a Session is used by one goroutine at a time; Close gives its pages back (full ones
// stay cached for others). The per-token loop allocates nothing: passes run compiled programs (one per pass
// size; the engine cuts each pass to a size it compiles rather than padding), the sampler and the stop matcher
// reuse their buffers, and Token.Text strings are carved from 4 KiB chunks.
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
