// Package tokenizer turns text into token ids and back exactly as llama.cpp does, for every vocabulary kind a
// GGUF file carries in its tokenizer.* keys: SentencePiece-style (tokenizer.ggml.model = "llama"), byte-level
// BPE ("gpt2", with the pre-tokenizer named by tokenizer.ggml.pre), WordPiece ("bert"), and none ("no_vocab",
// which knows its size but refuses to tokenize).
//
// Load reads the vocabulary once and applies llama.cpp's load-time rules (special tokens recognized by their
// text and made CONTROL, the end-of-generation set, per-model strip attributes); a malformed vocabulary is an
// error naming the problem. The Tokenizer is then read-only and safe for concurrent use; each call takes its
// working memory from a pool owned by the Tokenizer, so there is no global mutable state.
//
// Encode is llama_tokenize(text, add_special, parse_special): special and user-defined tokens are cut out of the
// text first (longest first), then each text fragment goes through the vocabulary's algorithm. Detokenize is
// llama_detokenize; Decoder streams text one id at a time without splitting UTF-8 characters; AppendPiece is
// llama_token_to_piece.
//
// Pre-tokenizers: the patterns llama.cpp writes by hand (GPT-2, Llama 3, Qwen2, Qwen3.5, newline runs, digit
// groups) are written by hand here too, in the same way; every other pattern runs on github.com/dlclark/regexp2
// (a backtracking engine with look-ahead, which Go's regexp lacks) over the same "collapsed" text llama.cpp
// feeds std::regex, so that Unicode classes resolve from llama.cpp's tables (Unicode 15.1; built from Go's
// unicode package plus the 15.1 additions) rather than the regex engine's.
//
// Token ids are int32, as in llama.cpp; None (-1) marks an absent special token.
package tokenizer
