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
	f32("attention.layer_norm_rms_epsilon", p.RMSEps)
	f32("rope.freq_base", p.RopeBase)
	if p.Arch == DeepSeek2 {
		// Latent attention as one query head group over a compressed cache row: keys of kv_lora_rank +
		// rope elements whose first kv_lora_rank are the value; per head once decompressed, the _mla sizes.
		u32("attention.head_count_kv", 1)
		u32("rope.dimension_count", p.QKRope)
		u32("attention.key_length", p.KVLoraRank+p.QKRope)
		u32("attention.value_length", p.KVLoraRank)
		u32("attention.key_length_mla", p.QKNope+p.QKRope)
		u32("attention.value_length_mla", p.VHead)
		u32("attention.kv_lora_rank", p.KVLoraRank)
		u32("attention.q_lora_rank", 0) // q is not compressed (V2-Lite); llama.cpp wants the key unless 27 layers
	} else if p.Arch == LFM2 {
		kvHeads := make([]int32, p.Layers)
		for l := range kvHeads {
			if !p.convLayer(l) {
				kvHeads[l] = int32(p.KVHeads)
			}
		}
		kv = append(kv, gguf.KV{Key: a + "attention.head_count_kv", Value: gguf.NewInt32s(kvHeads)})
		u32("rope.dimension_count", p.HeadDim)
		u32("shortconv.l_cache", p.ConvTaps)
	} else {
		u32("attention.head_count_kv", p.KVHeads)
		u32("rope.dimension_count", p.HeadDim)
		if p.WriteHeadDim {
			u32("attention.key_length", p.HeadDim)
			u32("attention.value_length", p.HeadDim)
		}
	}
	if p.Experts > 0 {
		u32("expert_count", p.Experts)
		u32("expert_used_count", p.ExpertsUsed)
		u32("expert_feed_forward_length", p.ExpertFF)
	}
	if p.Arch == DeepSeek2 {
		u32("leading_dense_block_count", p.DenseLead)
		u32("expert_shared_count", p.SharedExperts)
		f32("expert_weights_scale", p.ExpertWeightsScale)
		kv = append(kv, gguf.KV{Key: a + "expert_weights_norm", Value: gguf.NewBool(p.ExpertWeightsNorm)})
		u32("expert_gating_func", 1) // softmax
	}
	if p.YaRNFactor > 0 {
		kv = append(kv, gguf.KV{Key: a + "rope.scaling.type", Value: gguf.NewString("yarn")})
		f32("rope.scaling.factor", p.YaRNFactor)
		u32("rope.scaling.original_context_length", p.YaRNOrigCtx)
		if p.YaRNLogMul > 0 {
			f32("rope.scaling.yarn_log_multiplier", p.YaRNLogMul)
		}
	}
	if p.SlidingWindow > 0 {
		u32("attention.sliding_window", p.SlidingWindow)
	}
	for _, k := range []struct {
		key string
		v   float64
	}{{"embedding_scale", p.EmbeddingScale}, {"residual_scale", p.ResidualScale}, {"attention.scale", p.AttentionScale},
		{"logit_scale", p.LogitScale}, {"attn_logit_softcapping", p.AttnSoftCap},
		{"final_logit_softcapping", p.FinalSoftCap}, {"attention.temperature_scale", p.TemperatureScale}} {
		if k.v > 0 {
			f32(k.key, k.v)
		}
	}
	if p.SWAPattern > 0 {
		u32("attention.sliding_window_pattern", p.SWAPattern)
		f32("rope.freq_base_swa", p.RopeBaseSWA)
	}
	return kv
}
