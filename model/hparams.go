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
		// Per-layer arrays (e.g. head_count): accepted when every layer has the same value.
		if vals, aerr := k.f.Ints(k.key(name)); aerr == nil && len(vals) > 0 {
			for _, x := range vals[1:] {
				if x != vals[0] {
					return 0, fmt.Errorf("%s differs per layer (%v); per-layer values are not supported", k.key(name), vals)
				}
			}
			v, err = vals[0], nil
		} else {
			return 0, err
		}
	}
	if v < 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s = %d is out of range", k.key(name), v)
	}
	return int(v), nil
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
	geti(&hp.FF, "feed_forward_length", 0, false)
	geti(&hp.Heads, "attention.head_count", 0, true)
	if err != nil {
		return nil, err
	}
	if hp.Embd == 0 || hp.Layers == 0 || hp.Heads == 0 || hp.CtxTrain == 0 {
		return nil, fmt.Errorf("%s: embedding_length, block_count, attention.head_count and context_length must be positive", arch)
	}
	geti(&hp.KVHeads, "attention.head_count_kv", hp.Heads, false)
	geti(&hp.HeadDim, "attention.key_length", hp.Embd/hp.Heads, false)
	geti(&hp.HeadDimV, "attention.value_length", hp.Embd/hp.Heads, false)
	geti(&hp.RoPE.Dims, "rope.dimension_count", hp.HeadDim, false)
	geti(&hp.RoPE.OrigCtx, "rope.scaling.original_context_length", hp.CtxTrain, false)
	geti(&hp.Window, "attention.sliding_window", 0, false)
	if err != nil {
		return nil, err
	}
	if hp.KVHeads == 0 || hp.Heads%hp.KVHeads != 0 || hp.HeadDim == 0 || hp.HeadDimV == 0 {
		return nil, fmt.Errorf("%s: %d heads, %d kv heads, head size %d/%d do not form a valid attention", arch,
			hp.Heads, hp.KVHeads, hp.HeadDim, hp.HeadDimV)
	}
	if err := hp.readFloats(k); err != nil {
		return nil, err
	}
	if err := hp.readVocab(f, arch, embdRows); err != nil {
		return nil, err
	}
	hp.SWALayers = make([]bool, hp.Layers)
	return hp, nil
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
	getf(&hp.RoPE.AttnFactor, "rope.scaling.attn_factor", 1)
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
