package model

import "github.com/forma-llm/forma/accel"

// mistral3 (Ministral 3, Devstral Small 2): the llama block, whose RoPE undoes the magnitude YaRN would add
// (attention factor 1/(1 + 0.1·ln(factor)), so q and k keep their size), q·k scaled by attention.scale when
// the file has it.
func init() { Register("mistral3", loadMistral3) }

func loadMistral3(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENormal
	if err := hp.readAttnScale(ld.File); err != nil {
		return nil, err
	}
	hp.RoPE.AttnFactor = 1 / onePlus(0.1, logf32(1/hp.RoPE.FreqScale))
	m := loadTransformer(ld, layerSpec{})
	return m, ld.Err()
}
