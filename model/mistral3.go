package model

import "github.com/forma-llm/forma/accel"

// mistral3 (Ministral 3, Devstral Small 2): the llama block (YaRN with its yarn_log_multiplier as deepseek2
// reads it), q·k scaled by attention.scale when the file has it, and, with attention.temperature_scale, q scaled
// after RoPE by its position's temperature (steps of rope.scaling.original_context_length positions).
func init() { Register("mistral3", loadMistral3) }

func loadMistral3(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENormal
	if err := hp.readAttnScale(ld.File); err != nil {
		return nil, err
	}
	temp, err := hp.optFloat(ld.File, "attention.temperature_scale", 0)
	if err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{attn: func(ld *Loader, l int) Attention {
		a := loadGQA(ld, l, gqaSpec{})
		a.TempScale, a.TempFloor = temp, hp.RoPE.OrigCtx
		return a
	}})
	return m, ld.Err()
}
