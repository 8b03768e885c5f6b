package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// granite: the llama block with four multipliers: the embeddings times embedding_scale, each attention and FFN
// output times residual_scale before its residual add, q·k times attention.scale (instead of 1/sqrt(head
// size)), and the logits divided by logit_scale. rope.scaling.finetuned = false turns RoPE off.
func init() { Register("granite", loadGranite) }

func loadGranite(ld *Loader) (Model, error) {
	hp, f := ld.HP, ld.File
	hp.RoPE.Mode = accel.RoPENormal
	if err := hp.readAttnScale(f); err != nil {
		return nil, err
	}
	logit, err := hp.optFloat(f, "logit_scale", 0)
	if err != nil {
		return nil, err
	}
	if logit == 0 { // required, as in llama.cpp; the logits are divided by it
		return nil, fmt.Errorf("%s.logit_scale is missing or 0", hp.Arch)
	}
	residual, err := hp.optFloat(f, "residual_scale", 0)
	if err != nil {
		return nil, err
	}
	embed, err := hp.optFloat(f, "embedding_scale", 0)
	if err != nil {
		return nil, err
	}
	rope, err := hp.optBool(f, "rope.scaling.finetuned", true)
	if err != nil {
		return nil, err
	}
	m := loadTransformer(ld, layerSpec{attn: func(ld *Loader, l int) Attention {
		a := loadGQA(ld, l, gqaSpec{})
		a.NoRoPE = !rope
		return a
	}})
	m.EmbedScale, m.ResidualScale, m.LogitScale = embed, residual, 1/logit
	return m, ld.Err()
}
