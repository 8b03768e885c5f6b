package model

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
)

// RoPEScaling is the context-extension method of a model (GGUF ARCH.rope.scaling.type).
type RoPEScaling uint8

const (
	RoPEScalingNone RoPEScaling = iota
	RoPEScalingLinear
	RoPEScalingYaRN
	RoPEScalingLongRoPE
)

var ropeScalingNames = map[string]RoPEScaling{"none": RoPEScalingNone, "linear": RoPEScalingLinear,
	"yarn": RoPEScalingYaRN, "longrope": RoPEScalingLongRoPE}

func (s RoPEScaling) String() string {
	for k, v := range ropeScalingNames {
		if v == s {
			return k
		}
	}
	return "unknown"
}

// Default values, as llama.cpp's loader assumes them when a key is absent.
const (
	defaultRoPEBase     = 10000
	defaultYaRNBetaFast = 32
	defaultYaRNBetaSlow = 1
)

// HParams are the hyperparameters of a decoder-only transformer, read once from the GGUF metadata with
// llama.cpp's defaults. Architectures adjust the fields that differ (RoPE mode, sliding windows, scales).
type HParams struct {
	Arch      string
	Pooling   Pooling // ARCH.pooling_type: how an embedding pools (PoolNone when absent)
	CtxTrain  int     // ARCH.context_length
	Embd      int     // ARCH.embedding_length
	Layers    int     // ARCH.block_count
	Heads     int     // ARCH.attention.head_count
	KVHeads   int     // ARCH.attention.head_count_kv (default Heads)
	HeadDim   int     // ARCH.attention.key_length (default Embd/Heads)
	HeadDimV  int     // ARCH.attention.value_length (default Embd/Heads)
	FF        int     // ARCH.feed_forward_length
	Vocab     int     // tokenizer.ggml.tokens length, else ARCH.vocab_size, else token_embd rows
	NormEps   float32
	RoPE      accel.RoPEParams // Mode set by the architecture
	Scaling   RoPEScaling
	Window    int    // sliding window (0: none)
	SWALayers []bool // per layer: uses the sliding window
	// RoPEBaseSWA and RoPEScaleSWA replace the base and scale on sliding-window layers (gemma3).
	RoPEBaseSWA  float32
	RoPEScaleSWA float32
	AttnSoftCap  float32 // ARCH.attn_logit_softcapping (0: none)
	FinalSoftCap float32 // ARCH.final_logit_softcapping (0: none)
	AttnScale    float32 // scale of q·k; default 1/sqrt(HeadDim)

	// Per layer: ARCH.attention.head_count, head_count_kv and feed_forward_length, which a file may give as an
	// array (one value per layer) or as one value for all. Heads, KVHeads and FF are layer 0's.
	HeadsL, KVHeadsL, FFL []int

	MoE MoEParams
	MLA MLAParams
	// KV describes each layer's cache; loadTransformer sets it from the attention each layer has.
	KV []KVShape

	ropeAttnFactor float32 // ARCH.rope.scaling.attn_factor
}

// Gating is how a router turns its logits into expert weights (ARCH.expert_gating_func).
type Gating uint8

const (
	GatingSoftmax Gating = iota // softmax over all experts, then the top k (llama.cpp's default)
	GatingSigmoid               // an independent sigmoid per expert (DeepSeek V3, GLM-4.5)
	// GatingSoftmaxWeight chooses by the raw logits and takes the softmax of the chosen ones (gpt-oss).
	GatingSoftmaxWeight
)

// MoEParams are the mixture-of-experts hyperparameters; all zero for a dense model.
type MoEParams struct {
	Experts, Used int     // ARCH.expert_count, expert_used_count
	FF            int     // ARCH.expert_feed_forward_length (0: FF / Used, llama.cpp's fallback)
	Shared        int     // ARCH.expert_shared_count: experts every token goes through
	SharedFF      int     // ARCH.expert_shared_feed_forward_length (0: FF · Shared)
	DenseLead     int     // ARCH.leading_dense_block_count: the first layers keep a dense FFN
	Scale         float32 // ARCH.expert_weights_scale: the chosen weights are scaled by it (0 or 1: not)
	Norm          bool    // ARCH.expert_weights_norm: the chosen weights are divided by their sum
	Gating        Gating  // ARCH.expert_gating_func
}

// MLAParams are multi-head latent attention's hyperparameters (deepseek2); zero elsewhere.
type MLAParams struct {
	QLoraRank, KVLoraRank  int     // ARCH.attention.q_lora_rank (0: no compression of q), kv_lora_rank
	KeyLength, ValueLength int     // ARCH.attention.key_length_mla, value_length_mla: per head once decompressed
	YaRNLogMul             float32 // ARCH.rope.scaling.yarn_log_multiplier
}

// kv reads ARCH.* keys of one file.
type kv struct {
	f    *gguf.File
	arch string
}

func (k kv) key(name string) string { return k.arch + "." + name }

func (k kv) int(name string, def int, required bool) (int, error) {
	v, err := k.f.Int(k.key(name))
	if gguf.IsNotFound(err) && !required {
		return def, nil
	}
	if err != nil {
		return 0, err
	}
	if v < 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s = %d is out of range", k.key(name), v)
	}
	return int(v), nil
}

// perLayer reads a key that may be one value or an array of one value per layer; def fills every layer when
// the key is absent and not required.
func (k kv) perLayer(name string, layers int, def []int, required bool) ([]int, error) {
	out := make([]int, layers)
	if vals, err := k.f.Ints(k.key(name)); err == nil {
		if len(vals) != layers {
			return nil, fmt.Errorf("%s has %d values for %d layers", k.key(name), len(vals), layers)
		}
		for l, v := range vals {
			if v < 0 || v > math.MaxInt32 {
				return nil, fmt.Errorf("%s[%d] = %d is out of range", k.key(name), l, v)
			}
			out[l] = int(v)
		}
		return out, nil
	}
	v, err := k.int(name, -1, required)
	if err != nil {
		return nil, err
	}
	for l := range out {
		if v >= 0 {
			out[l] = v
		} else {
			out[l] = def[l]
		}
	}
	return out, nil
}

func (k kv) float(name string, def float32) (float32, error) {
	v, err := k.f.Float(k.key(name))
	if gguf.IsNotFound(err) {
		return def, nil
	}
	return float32(v), err
}

// ReadHParams reads the hyperparameters shared by the llama family. vocab is the tokenizer's size (0 if the
// file has none); embdRows the rows of token_embd.weight.
func ReadHParams(f *gguf.File, arch string, embdRows int) (*HParams, error) {
	k := kv{f, arch}
	hp := &HParams{Arch: arch}
	var err error
	geti := func(dst *int, name string, def int, required bool) {
		if err == nil {
			*dst, err = k.int(name, def, required)
		}
	}
	geti(&hp.CtxTrain, "context_length", 0, true)
	geti(&hp.Embd, "embedding_length", 0, true)
	geti(&hp.Layers, "block_count", 0, true)
	if err != nil {
		return nil, err
	}
	if hp.Embd == 0 || hp.Layers == 0 || hp.CtxTrain == 0 || hp.Layers > maxLayers {
		return nil, fmt.Errorf("%s: embedding_length, block_count (at most %d) and context_length must be positive", arch, maxLayers)
	}
	if err := hp.readLayerArrays(k); err != nil {
		return nil, err
	}
	geti(&hp.HeadDim, "attention.key_length", hp.Embd/hp.Heads, false)
	geti(&hp.HeadDimV, "attention.value_length", hp.Embd/hp.Heads, false)
	geti(&hp.RoPE.Dims, "rope.dimension_count", hp.HeadDim, false)
	geti(&hp.RoPE.OrigCtx, "rope.scaling.original_context_length", hp.CtxTrain, false)
	geti(&hp.Window, "attention.sliding_window", 0, false)
	if err != nil {
		return nil, err
	}
	for l := range hp.HeadsL {
		if hp.KVHeadsL[l] == 0 { // a layer without attention (lfm2's short convolutions); loadGQA refuses it
			continue
		}
		if hp.HeadsL[l] == 0 || hp.HeadsL[l]%hp.KVHeadsL[l] != 0 || hp.HeadDim == 0 || hp.HeadDimV == 0 {
			return nil, fmt.Errorf("%s: layer %d: %d heads, %d kv heads, head size %d/%d do not form a valid attention", arch,
				l, hp.HeadsL[l], hp.KVHeadsL[l], hp.HeadDim, hp.HeadDimV)
		}
	}
	if err := hp.readFloats(k); err != nil {
		return nil, err
	}
	if err := hp.readMoE(k); err != nil {
		return nil, err
	}
	hp.setYaRNAttnFactor(1)
	if err := hp.readVocab(f, arch, embdRows); err != nil {
		return nil, err
	}
	hp.SWALayers = make([]bool, hp.Layers)
	return hp, nil
}

// maxLayers bounds block_count (llama.cpp's LLAMA_MAX_LAYERS), so that a corrupt file cannot ask for huge arrays.
const maxLayers = 512

// readLayerArrays reads the per-layer head counts and FFN sizes.
func (hp *HParams) readLayerArrays(k kv) error {
	var err error
	zero := make([]int, hp.Layers)
	if hp.HeadsL, err = k.perLayer("attention.head_count", hp.Layers, zero, true); err != nil {
		return err
	}
	if hp.KVHeadsL, err = k.perLayer("attention.head_count_kv", hp.Layers, hp.HeadsL, false); err != nil {
		return err
	}
	if hp.FFL, err = k.perLayer("feed_forward_length", hp.Layers, zero, false); err != nil {
		return err
	}
	hp.Heads, hp.KVHeads, hp.FF = hp.HeadsL[0], hp.KVHeadsL[0], hp.FFL[0]
	if hp.Heads == 0 {
		return fmt.Errorf("%s: attention.head_count must be positive", hp.Arch)
	}
	return nil
}

// readMoE reads the mixture-of-experts and multi-head latent attention keys (absent in dense models).
func (hp *HParams) readMoE(k kv) error {
	var err error
	geti := func(dst *int, name string) {
		if err == nil {
			*dst, err = k.int(name, 0, false)
		}
	}
	mp := &hp.MoE
	geti(&mp.Experts, "expert_count")
	geti(&mp.Used, "expert_used_count")
	geti(&mp.FF, "expert_feed_forward_length")
	geti(&mp.Shared, "expert_shared_count")
	geti(&mp.SharedFF, "expert_shared_feed_forward_length")
	geti(&mp.DenseLead, "leading_dense_block_count")
	gating := 0
	geti(&gating, "expert_gating_func")
	geti(&hp.MLA.QLoraRank, "attention.q_lora_rank")
	geti(&hp.MLA.KVLoraRank, "attention.kv_lora_rank")
	geti(&hp.MLA.KeyLength, "attention.key_length_mla")
	geti(&hp.MLA.ValueLength, "attention.value_length_mla")
	if err != nil {
		return err
	}
	if mp.Scale, err = k.float("expert_weights_scale", 0); err != nil {
		return err
	}
	if hp.MLA.YaRNLogMul, err = k.float("rope.scaling.yarn_log_multiplier", 0); err != nil {
		return err
	}
	if v, berr := k.f.Bool(k.key("expert_weights_norm")); berr == nil {
		mp.Norm = v
	} else if !gguf.IsNotFound(berr) {
		return berr
	}
	switch gating { // llama_expert_gating_func_type: 0 none (softmax), 1 softmax, 2 sigmoid, 3 softmax of the chosen
	case 0, 1:
		mp.Gating = GatingSoftmax
	case 2:
		mp.Gating = GatingSigmoid
	case 3:
		mp.Gating = GatingSoftmaxWeight
	default:
		return fmt.Errorf("%s: unknown expert gating function %d", k.key("expert_gating_func"), gating)
	}
	if mp.Experts > 0 && (mp.Used == 0 || mp.Used > mp.Experts || mp.DenseLead > hp.Layers) {
		return fmt.Errorf("%s: %d experts, %d used per token, %d dense leading layers do not form a mixture of experts",
			hp.Arch, mp.Experts, mp.Used, mp.DenseLead)
	}
	if mp.FF == 0 && mp.Used > 0 {
		mp.FF = hp.FF / mp.Used
	}
	return nil
}

func (hp *HParams) readFloats(k kv) error {
	var err error
	getf := func(dst *float32, name string, def float32) {
		if err == nil {
			*dst, err = k.float(name, def)
		}
	}
	getf(&hp.NormEps, "attention.layer_norm_rms_epsilon", 0)
	if hp.NormEps == 0 {
		getf(&hp.NormEps, "attention.layer_norm_epsilon", 1e-5)
	}
	getf(&hp.RoPE.Base, "rope.freq_base", defaultRoPEBase)
	var factor float32
	getf(&factor, "rope.scaling.factor", 0)
	if factor == 0 {
		getf(&factor, "rope.scale_linear", 0)
	}
	getf(&hp.ropeAttnFactor, "rope.scaling.attn_factor", 1)
	getf(&hp.RoPE.BetaFast, "rope.scaling.yarn_beta_fast", defaultYaRNBetaFast)
	getf(&hp.RoPE.BetaSlow, "rope.scaling.yarn_beta_slow", defaultYaRNBetaSlow)
	getf(&hp.RoPEBaseSWA, "rope.freq_base_swa", hp.RoPE.Base)
	getf(&hp.AttnSoftCap, "attn_logit_softcapping", 0)
	getf(&hp.FinalSoftCap, "final_logit_softcapping", 0)
	if err != nil {
		return err
	}
	hp.Scaling = RoPEScalingLinear // llama.cpp's default when the key is absent
	if s, serr := k.f.String(k.key("rope.scaling.type")); serr == nil {
		t, ok := ropeScalingNames[s]
		if !ok {
			return fmt.Errorf("%s: unknown RoPE scaling type %q", k.key("rope.scaling.type"), s)
		}
		hp.Scaling = t
	}
	hp.RoPE.FreqScale = 1
	if factor != 0 && hp.Scaling != RoPEScalingNone {
		hp.RoPE.FreqScale = 1 / factor
	}
	if hp.Scaling == RoPEScalingYaRN {
		hp.RoPE.ExtFactor = 1
	}
	hp.RoPEScaleSWA = hp.RoPE.FreqScale
	if hp.NormEps <= 0 || hp.RoPE.Base <= 0 {
		return fmt.Errorf("%s: norm epsilon %g and RoPE base %g must be positive", hp.Arch, hp.NormEps, hp.RoPE.Base)
	}
	return nil
}

func (hp *HParams) readVocab(f *gguf.File, arch string, embdRows int) error {
	if v, ok := f.Value("tokenizer.ggml.tokens"); ok {
		if _, n, isArr := v.ArrayType(); isArr {
			hp.Vocab = n
		}
	}
	if hp.Vocab == 0 {
		n, err := (kv{f, arch}).int("vocab_size", embdRows, false)
		if err != nil {
			return err
		}
		hp.Vocab = n
	}
	if hp.Vocab != embdRows {
		return fmt.Errorf("the vocabulary has %d tokens but token_embd.weight has %d rows", hp.Vocab, embdRows)
	}
	return nil
}

// swaPattern sets SWALayers from ARCH.attention.sliding_window_pattern: an integer n (layer l uses the window
// when l % n < n-1; llama.cpp's set_swa_pattern) or a per-layer bool array. def is the architecture's default n.
func (hp *HParams) swaPattern(f *gguf.File, def int) error {
	key := hp.Arch + ".attention.sliding_window_pattern"
	n := def
	if v, err := f.Int(key); err == nil {
		n = int(v)
	} else if arr, aerr := f.Ints(key); aerr == nil {
		if len(arr) != hp.Layers {
			return fmt.Errorf("%s has %d entries for %d layers", key, len(arr), hp.Layers)
		}
		for l, x := range arr {
			hp.SWALayers[l] = x != 0
		}
		return nil
	} else if !gguf.IsNotFound(err) {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("%s = %d must be positive", key, n)
	}
	for l := range hp.SWALayers {
		hp.SWALayers[l] = hp.Window > 0 && l%n < n-1
	}
	return nil
}

// layerRoPE returns the RoPE parameters of layer l (sliding-window layers may use another base).
func (hp *HParams) layerRoPE(l int) accel.RoPEParams {
	p := hp.RoPE
	if hp.SWALayers[l] {
		p.Base, p.FreqScale = hp.RoPEBaseSWA, hp.RoPEScaleSWA
	}
	return p
}

// layerWindow returns the attention window of layer l (0 for full attention).
func (hp *HParams) layerWindow(l int) int {
	if hp.SWALayers[l] {
		return hp.Window
	}
	return 0
}

// needExperts reports an error unless the file describes a mixture of experts.
func (hp *HParams) needExperts() error {
	if hp.MoE.Experts == 0 || hp.MoE.Used == 0 {
		return fmt.Errorf("%s.expert_count and expert_used_count must be positive", hp.Arch)
	}
	return nil
}

// yarnAttnFactor is the part of llama.cpp's cparams.yarn_attn_factor that YaRN contributes (1 without YaRN):
// the magnitude scale 0.1·mscale·ln(factor) + 1 (with a yarn_log_multiplier, its ratio to the same with the
// multiplier), divided by the 1 + 0.1·ln(factor) that ggml's RoPE multiplies in again, all in float32 as
// llama_context computes it. mscale is 1 except for deepseek2.
func (hp *HParams) yarnAttnFactor(mscale float32) float32 {
	if hp.RoPE.ExtFactor == 0 {
		return 1
	}
	factor := 1 / hp.RoPE.FreqScale
	get := func(scale, m float32) float32 {
		if scale <= 1 {
			return 1
		}
		return onePlus(float32(0.1*m), logf32(scale))
	}
	var af float32
	if logMul := hp.MLA.YaRNLogMul; logMul != 0 {
		af = get(factor, mscale) / get(factor, logMul)
	} else {
		af = get(factor, 1)
	}
	return af * float32(1/onePlus(0.1, logf32(factor)))
}

func logf32(x float32) float32 { return float32(math.Log(float64(x))) }

// onePlus is 1 + a·b in float32 as llama.cpp's build computes it: the product rounded, then the sum (the
// reference build does not contract the two into a fused multiply-add; deepseek2's kq_scale shows it).
func onePlus(a, b float32) float32 { return 1 + float32(a*b) }

// setYaRNAttnFactor sets the RoPE attention factor as llama_context does: YaRN's part (yarnAttnFactor) times
// rope.scaling.attn_factor.
func (hp *HParams) setYaRNAttnFactor(mscale float32) {
	hp.RoPE.AttnFactor = hp.yarnAttnFactor(mscale) * hp.ropeAttnFactor
}
