package model

import "github.com/forma-llm/forma/accel"

// phi3: fused q/k/v and gate/up projections, NeoX RoPE with optional long/short frequency factors (LongRoPE),
// q scaled by 1/sqrt(head size) before attention. Like llama.cpp, the sliding window some phi3 files declare
// is not applied.
func init() { Register("phi3", loadPhi3) }

func loadPhi3(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENeoX
	hp.Window = 0
	m := loadTransformer(ld, layerSpec{gqaSpec: gqaSpec{fusedQKV: true}, fusedFFN: true})
	m.RoPELong = ld.Optional("rope_factors_long.weight", hp.RoPE.Dims/2)
	m.RoPEShort = ld.Optional("rope_factors_short.weight", hp.RoPE.Dims/2)
	m.QScale = invSqrtf(hp.HeadDim)
	return m, ld.Err()
}
