package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// deepseek2: multi-head latent attention with a compressed cache (MLA), normal-ordered RoPE with YaRN on the
// rotated part, the first leading_dense_block_count layers with a dense FFN and the others with a mixture of
// experts (the file's gating, optional normalisation and scale, optional selection bias) plus shared experts.
func init() { Register("deepseek2", loadDeepSeek2) }

func loadDeepSeek2(ld *Loader) (Model, error) {
	hp := ld.HP
	hp.RoPE.Mode = accel.RoPENormal
	if err := hp.needExperts(); err != nil {
		return nil, err
	}
	mp := &hp.MLA
	if mp.KVLoraRank == 0 || mp.KeyLength == 0 || mp.ValueLength == 0 || mp.KeyLength <= hp.RoPE.Dims ||
		hp.HeadDim != mp.KVLoraRank+hp.RoPE.Dims || hp.HeadDimV != mp.KVLoraRank {
		return nil, fmt.Errorf("deepseek2 needs the compressed-cache form (attention.kv_lora_rank, key_length_mla, "+
			"value_length_mla, key_length = kv_lora_rank + rope dims, value_length = kv_lora_rank): got %+v, head sizes %d/%d",
			*mp, hp.HeadDim, hp.HeadDimV)
	}
	// llama.cpp reads yarn_log_multiplier as convert_hf_to_gguf wrote it, 0.1·mscale_all_dim, and divides
	// by 0.1; its YaRN attention factor then uses mscale = mscale_all_dim.
	if mp.YaRNLogMul != 0 {
		mp.YaRNLogMul /= 0.1
		hp.setYaRNAttnFactor(mp.YaRNLogMul)
	}
	scale := mlaScale(hp)
	m := loadTransformer(ld, layerSpec{
		attn: func(ld *Loader, l int) Attention { return loadMLA(ld, l, scale) },
		ffn: func(ld *Loader, l int) FFN {
			if l < hp.MoE.DenseLead {
				return loadDense(ld, l, hp.FFL[l], false, SwiGLU, "")
			}
			return loadMoE(ld, l, moeSpec{gating: hp.MoE.Gating, selectBias: true, sharedSuffix: true})
		}})
	return m, ld.Err()
}
