package model

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// gemma3: embeddings scaled by sqrt(embd); q/k norms; norms after attention and FFN as well as before; GeGLU;
// sliding-window attention on all but every sliding_window_pattern-th layer, those layers with their own RoPE
// base; q scaled by 1/sqrt(head size) (27B: by 1/sqrt(embd/heads)) before attention.
func init() { Register("gemma3", loadGemma3) }

const (
	gemma3SWAPattern  = 6     // llama.cpp's default when the file does not say
	gemma3RoPEBaseSWA = 10000 // likewise for rope.freq_base_swa
	gemma3Layers27B   = 62
)

func loadGemma3(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENeoX
	if !ld.File.Has(hp.Arch + ".rope.freq_base_swa") {
		hp.RoPEBaseSWA = gemma3RoPEBaseSWA
	}
	hp.RoPEScaleSWA = 1
	if err := hp.swaPattern(ld.File, gemma3SWAPattern); err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{gqaSpec: gqaSpec{qkNorm: true}, postNorms: true, act: GeGLU})
	m.EmbedScale = float32(math.Sqrt(float64(hp.Embd)))
	m.QScale = invSqrtf(hp.HeadDim)
	if hp.Layers == gemma3Layers27B {
		m.QScale = invSqrtf(hp.Embd / hp.Heads)
	}
	return m, ld.Err()
}
