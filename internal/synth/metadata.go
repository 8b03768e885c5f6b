package synth

import (
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
)

// fileTypes maps a weight type to llama.cpp's general.file_type (enum llama_ftype; the K-quants as their
// "_M" mixes, the name llama.cpp gives a file mostly of that type).
var fileTypes = map[quant.Type]uint32{
	quant.F32: 0, quant.F16: 1, quant.Q4_0: 2, quant.Q4_1: 3, quant.Q8_0: 7, quant.Q5_0: 8, quant.Q5_1: 9,
	quant.Q2_K: 10, quant.Q3_K: 12, quant.Q4_K: 15, quant.Q5_K: 17, quant.Q6_K: 18, quant.IQ4_NL: 25,
	quant.IQ4_XS: 30, quant.BF16: 32, quant.MXFP4: 38,
}

// quantizationVersion is general.quantization_version: the version of the quantized block layouts.
const quantizationVersion = 2

// metadata returns the general.* and ARCH.* keys llama.cpp reads for the preset's architecture.
func (b *builder) metadata() []gguf.KV {
	p := b.p
	a := string(p.Arch) + "."
	kv := []gguf.KV{
		{Key: gguf.KeyArchitecture, Value: gguf.NewString(string(p.Arch))},
		{Key: "general.name", Value: gguf.NewString("forma-synth " + p.Name)},
	}
	if ft, ok := fileTypes[b.typ]; ok {
		kv = append(kv, gguf.KV{Key: "general.file_type", Value: gguf.NewUint32(ft)})
	}
	kv = append(kv, gguf.KV{Key: "general.quantization_version", Value: gguf.NewUint32(quantizationVersion)})
	kv = append(kv, p.poolingKV()...)
	if p.Arch.encoder() {
		return b.encoderMetadata(kv)
	}
	u32 := func(k string, x int) { kv = append(kv, gguf.KV{Key: a + k, Value: gguf.NewUint32(uint32(x))}) }
	f32 := func(k string, x float64) { kv = append(kv, gguf.KV{Key: a + k, Value: gguf.NewFloat32(float32(x))}) }
	u32("vocab_size", p.VocabSize)
	u32("context_length", p.ContextLength)
	u32("embedding_length", p.Embd)
	u32("block_count", p.Layers)
	u32("feed_forward_length", p.FFN)
	u32("attention.head_count", p.Heads)
	u32("attention.head_count_kv", p.KVHeads)
	f32("attention.layer_norm_rms_epsilon", p.RMSEps)
	f32("rope.freq_base", p.RopeBase)
	u32("rope.dimension_count", p.HeadDim)
	if p.WriteHeadDim {
		u32("attention.key_length", p.HeadDim)
		u32("attention.value_length", p.HeadDim)
	}
	if p.SlidingWindow > 0 {
		u32("attention.sliding_window", p.SlidingWindow)
		u32("attention.sliding_window_pattern", p.SWAPattern)
		f32("rope.freq_base_swa", p.RopeBaseSWA)
	}
	return kv
}
