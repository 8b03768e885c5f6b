package model

import "github.com/forma-llm/forma/accel"

// qwen3: the llama block with per-head RMS norms of q and k before RoPE, NeoX-ordered RoPE, no biases.
func init() { Register("qwen3", loadQwen3) }

func loadQwen3(ld *Loader) (Model, error) {
	ld.HP.RoPE.Mode = accel.RoPENeoX
	m := loadTransformer(ld, layerSpec{gqaSpec: gqaSpec{qkNorm: true}})
	return m, ld.Err()
}
