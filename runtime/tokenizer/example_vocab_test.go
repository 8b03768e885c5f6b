package tokenizer_test

import (
	"bytes"
	"encoding/binary"
	"math"
)

// tinySPM encodes a GGUF v3 file with a nine-token SentencePiece vocabulary.
func tinySPM() []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0)) // tensors
	w(uint64(4)) // key-value pairs
	str("tokenizer.ggml.model")
	w(uint32(8))
	str("llama")
	toks := []string{"<unk>", "<s>", "</s>", "▁", "h", "i", "!", "▁h", "▁hi"}
	str("tokenizer.ggml.tokens")
	w(uint32(9))
	w(uint32(8))
	w(uint64(len(toks)))
	for _, t := range toks {
		str(t)
	}
	str("tokenizer.ggml.scores")
	w(uint32(9))
	w(uint32(6))
	w(uint64(len(toks)))
	for _, s := range []float32{0, 0, 0, -5, -5, -5, -5, -2, -1} {
		w(math.Float32bits(s))
	}
	str("tokenizer.ggml.token_type")
	w(uint32(9))
	w(uint32(5))
	w(uint64(len(toks)))
	for _, t := range []int32{2, 3, 3, 1, 1, 1, 1, 1, 1} {
		w(t)
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}
