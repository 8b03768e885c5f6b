// Package synth writes random-weight GGUF models with the real shapes of named model families (TinyLlama,
// Llama 3.2, Qwen2/3, Gemma 3, Phi-3; the embedding models bge-small, all-MiniLM, nomic-embed-text and
// Qwen3-Embedding, and a reranker of bge-reranker-v2-m3's shape) and small variants for tests, for benchmarks
// and tests that need a model of a given shape without downloading one.
//
// A model has the tensor names, shapes and metadata keys llama.cpp expects for its architecture, and a
// generated vocabulary of the right size that llama.cpp accepts: SentencePiece-style (<unk>, <s>, </s>, the 256
// byte tokens, scored pieces), GPT-2 byte-level BPE with consistent merges, or WordPiece as BERT's converted
// vocabularies are (special tokens at BERT's ids, word starts "▁w" and continuations "w"). Weights are deterministic for a
// seed: matrices ~ N(0, 1/row length), norm weights ~ 1 + N(0, 0.05²), biases ~ N(0, 0.02²). Matrices and the
// token embedding are stored in the requested type (rows that are not whole blocks of it fall back to Q8_0 or
// F16, as llama.cpp's quantizer does); vectors are F32.
//
// Tensors are generated and quantized while the file is written, a few chunks of rows at a time, so memory
// stays at a few megabytes even for a 1B-parameter model. The output does not depend on GOMAXPROCS.
package synth
