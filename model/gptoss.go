package model

import "github.com/forma-llm/forma/accel"

// gpt-oss: attention with q, k, v and output biases and a learned sink per head, NeoX RoPE with YaRN, a sliding
// window on every other layer (the even ones, unless the file gives a pattern); a mixture of experts in every
// layer whose router has a bias, chooses by the raw logits and weighs the chosen experts by the softmax of
// their logits, with biased experts and the clamped SwiGLU; the norm before the FFN is post_attention_norm.
func init() { Register("gpt-oss", loadGPTOSS) }

const gptOSSSWAPattern = 2 // llama.cpp's default for gpt-oss

func loadGPTOSS(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENeoX
	if err := hp.needExperts(); err != nil {
		return nil, err
	}
	if err := hp.swaPattern(ld.File, gptOSSSWAPattern); err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{gqaSpec: gqaSpec{sinks: true}, ffnNorm: "post_attention_norm",
		ffn: func(ld *Loader, l int) FFN {
			return loadMoE(ld, l, moeSpec{gating: GatingSoftmaxWeight, act: SwiGLUOAI, biases: true})
		}})
	return m, ld.Err()
}
