package model

import "github.com/forma-llm/forma/accel"

// smollm3: the llama block whose every 4th layer (3, 7, …) attends without RoPE (llama.cpp's
// n_no_rope_layer_step); optional q/k/v and output biases.
func init() { Register("smollm3", loadSmolLM3) }

const smolLM3NoRoPEStep = 4

func loadSmolLM3(ld *Loader) (Model, error) {
	ld.HP.RoPE.Mode = accel.RoPENormal
	m := loadTransformer(ld, layerSpec{attn: func(ld *Loader, l int) Attention {
		a := loadGQA(ld, l, gqaSpec{})
		a.NoRoPE = (l+1)%smolLM3NoRoPEStep == 0
		return a
	}})
	return m, ld.Err()
}
