package model

import "github.com/forma-llm/forma/accel"

// llama: Llama 1–3 and Mistral-style GGUFs. RoPE rotates adjacent pairs; optional rope_freqs carry Llama 3's
// frequency scaling; optional q/k/v biases are used when present.
func init() { Register("llama", loadLlama) }

func loadLlama(ld *Loader) (Model, error) {
	ld.HP.RoPE.Mode = accel.RoPENormal
	m := loadTransformer(ld, layerSpec{})
	return m, ld.Err()
}
