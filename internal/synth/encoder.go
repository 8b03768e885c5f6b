package synth

import (
	"fmt"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
)

// addEmbeddingPresets adds the embedding models and rerankers: real shapes, and tiny variants for tests.
func addEmbeddingPresets() {
	bert := func(p Preset) Preset {
		p.Arch, p.Vocab, p.Tied, p.KVHeads = Bert, WPM, true, p.Heads
		if p.TokenTypes == 0 {
			p.TokenTypes = 2
		}
		if p.NormEps == 0 {
			p.NormEps = 1e-12
		}
		return p
	}
	nomic := func(p Preset) Preset {
		p = bert(p)
		p.Arch = NomicBert
		return p
	}
	qwen3Embedding := func(p Preset) Preset {
		p.Arch, p.Vocab, p.Pre, p.Specials, p.Tied = Qwen3, BPE, "qwen2", qwenSpecials, true
		p.BOS, p.EOS, p.AddEOS, p.Pooling, p.WriteHeadDim, p.RopeBase, p.RMSEps = "<|endoftext|>", "<|endoftext|>", true, "last", true, 1e6, 1e-6
		return p
	}
	add(bert(Preset{Name: "bge-small-en-v1.5", Embd: 384, Layers: 12, Heads: 12, FFN: 1536, VocabSize: 30522,
		ContextLength: 512, Pooling: "cls"}))
	add(bert(Preset{Name: "all-minilm-l6-v2", Embd: 384, Layers: 6, Heads: 12, FFN: 1536, VocabSize: 30522,
		ContextLength: 512, Pooling: "mean"}))
	add(nomic(Preset{Name: "nomic-embed-text-v1.5", Embd: 768, Layers: 12, Heads: 12, FFN: 3072, VocabSize: 30522,
		ContextLength: 2048, RopeBase: 1000, Pooling: "mean"}))
	add(qwen3Embedding(Preset{Name: "qwen3-embedding-0.6b", Embd: 1024, Layers: 28, Heads: 16, KVHeads: 8,
		HeadDim: 128, FFN: 3072, VocabSize: 151669, ContextLength: 32768}))
	// bge-reranker-v2-m3 is XLM-RoBERTa large; its real vocabulary is SentencePiece unigram (tokenizer.ggml.model
	// "t5"), which forma does not read: this preset has its shapes with a WordPiece vocabulary.
	add(bert(Preset{Name: "bge-reranker-v2-m3", Embd: 1024, Layers: 24, Heads: 16, FFN: 4096, VocabSize: 250002,
		ContextLength: 8192, NormEps: 1e-5, TokenTypes: 1, Pooling: "rank", RankHead: true}))

	add(bert(Preset{Name: "tiny-bert", Embd: 256, Layers: 2, Heads: 4, FFN: 512, VocabSize: 1024,
		ContextLength: 512, Pooling: "mean"}))
	add(bert(Preset{Name: "tiny-bert-cls", Embd: 256, Layers: 2, Heads: 4, FFN: 512, VocabSize: 1024,
		ContextLength: 512, Pooling: "cls"}))
	add(nomic(Preset{Name: "tiny-nomic-bert", Embd: 256, Layers: 2, Heads: 4, FFN: 512, VocabSize: 1024,
		ContextLength: 2048, RopeBase: 1000, Pooling: "mean"}))
	add(bert(Preset{Name: "tiny-bert-reranker", Embd: 256, Layers: 2, Heads: 4, FFN: 512, VocabSize: 1024,
		ContextLength: 512, NormEps: 1e-5, TokenTypes: 1, Pooling: "rank", RankHead: true}))
	add(qwen3Embedding(Preset{Name: "tiny-qwen3-embedding", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64,
		FFN: 768, VocabSize: 2048, ContextLength: 4096}))
}

// poolingTypes are llama.cpp's enum llama_pooling_type values.
var poolingTypes = map[string]uint32{"none": 0, "mean": 1, "cls": 2, "last": 3, "rank": 4}

// encoderTensors adds a BERT-style encoder's tensors with the names and shapes llama.cpp loads: position and
// token-type embeddings kept in F32 (as convert_hf_to_gguf and llama-quantize keep them), biases everywhere for
// bert, none for nomic-bert (fused q/k/v, SwiGLU), and a reranker's classifier.
func (b *builder) encoderTensors() {
	p := b.p
	e, ff := p.Embd, p.FFN
	b.mat("token_embd.weight", e, p.VocabSize)
	b.add("token_types.weight", quant.F32, b.random("token_types.weight", matrix, quant.F32, e, p.TokenTypes), e, p.TokenTypes)
	if p.Arch == Bert {
		b.add("position_embd.weight", quant.F32, b.random("position_embd.weight", matrix, quant.F32, e, p.ContextLength), e, p.ContextLength)
	}
	b.vec("token_embd_norm.weight", norm, e)
	b.vec("token_embd_norm.bias", bias, e)
	biased := p.Arch == Bert
	matb := func(name string, row, rows int) {
		b.mat(name+".weight", row, rows)
		if biased {
			b.vec(name+".bias", bias, rows)
		}
	}
	for l := 0; l < p.Layers; l++ {
		pre := fmt.Sprintf("blk.%d.", l)
		if p.Arch == NomicBert {
			b.mat(pre+"attn_qkv.weight", e, 3*e)
		} else {
			matb(pre+"attn_q", e, e)
			matb(pre+"attn_k", e, e)
			matb(pre+"attn_v", e, e)
		}
		matb(pre+"attn_output", e, e)
		b.vec(pre+"attn_output_norm.weight", norm, e)
		b.vec(pre+"attn_output_norm.bias", bias, e)
		matb(pre+"ffn_up", e, ff)
		if p.Arch == NomicBert {
			b.mat(pre+"ffn_gate.weight", e, ff)
		}
		matb(pre+"ffn_down", ff, e)
		b.vec(pre+"layer_output_norm.weight", norm, e)
		b.vec(pre+"layer_output_norm.bias", bias, e)
	}
	if p.RankHead {
		b.mat("cls.weight", e, e)
		b.vec("cls.bias", bias, e)
		b.mat("cls.output.weight", e, 1)
		b.vec("cls.output.bias", bias, 1)
	}
}

// encoderMetadata returns the ARCH.* keys convert_hf_to_gguf writes for a BERT-style encoder.
func (b *builder) encoderMetadata(kv []gguf.KV) []gguf.KV {
	p := b.p
	a := string(p.Arch) + "."
	u32 := func(k string, x int) { kv = append(kv, gguf.KV{Key: a + k, Value: gguf.NewUint32(uint32(x))}) }
	u32("context_length", p.ContextLength)
	u32("embedding_length", p.Embd)
	u32("feed_forward_length", p.FFN)
	u32("block_count", p.Layers)
	u32("attention.head_count", p.Heads)
	kv = append(kv, gguf.KV{Key: a + "attention.layer_norm_epsilon", Value: gguf.NewFloat32(float32(p.NormEps))},
		gguf.KV{Key: a + "attention.causal", Value: gguf.NewBool(false)})
	if p.Arch == NomicBert {
		kv = append(kv, gguf.KV{Key: a + "rope.freq_base", Value: gguf.NewFloat32(float32(p.RopeBase))})
	}
	return kv
}

// poolingKV returns ARCH.pooling_type, if the preset names one.
func (p Preset) poolingKV() []gguf.KV {
	if p.Pooling == "" {
		return nil
	}
	return []gguf.KV{{Key: string(p.Arch) + ".pooling_type", Value: gguf.NewUint32(poolingTypes[p.Pooling])}}
}

// wpmSymbols are the characters that stand alone as words (BERT splits punctuation and ASCII symbols off),
// and digits, which also continue words; all get a word-start token, digits a continuation too.
const (
	wpmSymbols = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	wpmDigits  = "0123456789"
)

// wpmVocab: [PAD] 0, [unused0…98] 1–99, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103 (the five special ones
// CONTROL), symbols and digits, a few accented letters and CJK ideographs, then word starts "▁w" and
// continuations "w" (BERT's "##w" as convert_hf_to_gguf writes it) over a-z in length-then-lexicographic order.
func wpmVocab(n int) *vocab {
	v := &vocab{}
	addTok := func(s string, typ int32) {
		v.tokens = append(v.tokens, s)
		v.types = append(v.types, typ)
	}
	addTok("[PAD]", tokControl)
	for i := 0; i < 99; i++ {
		addTok(fmt.Sprintf("▁[unused%d]", i), tokNormal)
	}
	for _, s := range []string{"[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		addTok(s, tokControl)
	}
	for _, c := range wpmSymbols {
		addTok("▁"+string(c), tokNormal)
	}
	for _, c := range wpmDigits {
		addTok("▁"+string(c), tokNormal)
		addTok(string(c), tokNormal)
	}
	for _, s := range []string{"é", "ß", "ø", "中", "文", "日"} {
		addTok("▁"+s, tokNormal)
		addTok(s, tokNormal)
	}
	for i := 0; len(v.tokens) < n; i++ {
		w := word(i / 2)
		if i%2 == 0 {
			w = "▁" + w
		}
		addTok(w, tokNormal)
	}
	return v
}
