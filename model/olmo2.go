package model

import "github.com/forma-llm/forma/accel"

// olmo2: no norms before attention and FFN, RMS norms after them instead (post_attention_norm, post_ffw_norm);
// q and k normalised over the whole projection before being split into heads; NeoX RoPE; an untied output.
// A file with a sliding window (OLMo 3) uses it on all but every sliding_window_pattern-th layer (default 4),
// those windowed layers rotating without the context extension.
func init() { Register("olmo2", loadOLMo2) }

const olmo2SWAPattern = 4 // llama.cpp's default

func loadOLMo2(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENeoX
	if hp.Window > 0 {
		if err := hp.swaPattern(ld.File, olmo2SWAPattern); err != nil {
			return nil, err
		}
	}
	m := loadTransformer(ld, layerSpec{noPreNorms: true, postNorms: true, attn: func(ld *Loader, l int) Attention {
		a := loadGQA(ld, l, gqaSpec{qkNormWhole: true})
		if hp.SWALayers[l] { // the model's base, without the context extension (no YaRN ramp or magnitude)
			a.RoPE = hp.RoPE
			a.RoPE.FreqScale, a.RoPE.ExtFactor, a.RoPE.AttnFactor = 1, 0, 1
		}
		return a
	}})
	if !ld.Has("output.weight") && ld.Err() == nil {
		return nil, errMissingTensor("output.weight")
	}
	return m, ld.Err()
}
