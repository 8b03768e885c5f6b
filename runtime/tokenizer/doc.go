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
// Memory and load time: the texts are copied out of the file into one string with offsets, indexed by an
// open-addressing table that keeps each text's first 8 bytes in its slot; BPE merges are resolved in batches (in
// parallel for long lists) into an open-addressing table on pairs of ids. There is no Go string or map entry per
// token: a 151k-token vocabulary holds about 12 MiB and loads in milliseconds. The rendered pieces that decoding
// needs are built by the first decode, not by Load.
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
// The API in short:
//
//	tk, err := tokenizer.Load(f)                 // f *gguf.File
//	ids, err := tk.Encode(text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
//	tk.Len()                                     // vocabulary size, to check against the embedding rows
//	tk.BOS(), tk.EOS(), tk.EOT(), tk.IsEOG(id), tk.IsControl(id), tk.Piece(id)
//	text := tk.Detokenize(ids, tokenizer.DecodeOptions{Special: true})
//	d := tk.NewDecoder(tokenizer.DecodeOptions{}); chunk := d.Add(id) // complete UTF-8 only; no allocation per id
//
// Deviations from llama.cpp, where it would abort or throw: an SPM byte with neither a <0xXX> token nor a
// one-byte token becomes the unknown token; ids outside the vocabulary render as nothing; a UTF-8 sequence
// decoding past U+10FFFF is read as U+FFFD. Not supported (Load refuses them with an error naming them): the
// "t5" (Unigram), "rwkv", "plamo2" and "gemma4" tokenizer models and the kimi-k2, whitespace and hybriddna
// pre-tokenizers.
//
// Token ids are int32, as in llama.cpp; None (-1) marks an absent special token.
package tokenizer
