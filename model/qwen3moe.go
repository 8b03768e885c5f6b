package model

import "github.com/forma-llm/forma/accel"

// qwen3moe: qwen3's attention (per-head q/k RMS norms, NeoX RoPE) with a mixture of experts in every layer: a
// softmax router, the top expert_used_count experts, their weights divided by their sum (norm_topk_prob),
// SwiGLU experts.
func init() { Register("qwen3moe", loadQwen3MoE) }

func loadQwen3MoE(ld *Loader) (Model, error) {
	ld.HP.RoPE.Mode = accel.RoPENeoX
	if err := ld.HP.needExperts(); err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{gqaSpec: gqaSpec{qkNorm: true}, ffn: func(ld *Loader, l int) FFN {
		return loadMoE(ld, l, moeSpec{gating: GatingSoftmax, norm: true})
	}})
	return m, ld.Err()
}
