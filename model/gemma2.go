package model

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// gemma2: embeddings scaled by sqrt(embd); norms after attention and FFN as well as before; GeGLU; NeoX RoPE; a
// sliding window (default 4096) on every other layer (the even ones); attention scores soft-capped at
// attn_logit_softcapping (default 50) and logits at final_logit_softcapping (default 30); q scaled by
// 1/sqrt(head size) (27B: by 1/sqrt(embd/heads)) before attention.
func init() { Register("gemma2", loadGemma2) }

// llama.cpp's defaults for gemma2.
const (
	gemma2Window       = 4096
	gemma2SWAPattern   = 2
	gemma2AttnSoftCap  = 50
	gemma2FinalSoftCap = 30
	gemma2Layers27B    = 46
)

func loadGemma2(ld *Loader) (Model, error) {
	hp, f := ld.HP, ld.File
	hp.RoPE.Mode = accel.RoPENeoX
	if !f.Has(hp.Arch + ".attention.sliding_window") {
		hp.Window = gemma2Window
	}
	if !f.Has(hp.Arch + ".attn_logit_softcapping") {
		hp.AttnSoftCap = gemma2AttnSoftCap
	}
	if !f.Has(hp.Arch + ".final_logit_softcapping") {
		hp.FinalSoftCap = gemma2FinalSoftCap
	}
	// llama.cpp's gemma2 rotates windowed layers like the others.
	hp.RoPEBaseSWA, hp.RoPEScaleSWA = hp.RoPE.Base, hp.RoPE.FreqScale
	if err := hp.swaPattern(f, gemma2SWAPattern); err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{postNorms: true, act: GeGLU})
	m.EmbedScale = float32(math.Sqrt(float64(hp.Embd)))
	m.QScale = invSqrtf(hp.HeadDim)
	if hp.Layers == gemma2Layers27B {
		m.QScale = invSqrtf(hp.Embd / hp.Heads)
	}
	return m, ld.Err()
}
