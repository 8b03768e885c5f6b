package model

import "github.com/forma-llm/forma/accel"

// qwen2: the llama block with biases on the q, k and v projections and NeoX-ordered RoPE.
func init() { Register("qwen2", loadQwen2) }

func loadQwen2(ld *Loader) (Model, error) {
	ld.HP.RoPE.Mode = accel.RoPENeoX
	m := loadTransformer(ld, layerSpec{})
	return m, ld.Err()
}
