package modelinfo

import (
	"errors"
	"fmt"
	"sort"

	"strings"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/model"
)

// Info is the summary of one model. Fields not stated by the file are zero ("" or 0), or -1 for token ids.
type Info struct {
	Paths        []string `json:"paths"`
	FileSize     int64    `json:"file_size"`
	Version      uint32   `json:"gguf_version"`
	Architecture string   `json:"architecture"`
	Name         string   `json:"name,omitempty"`

	Params uint64 `json:"params"` // sum of tensor elements, as llama_model_n_params
	// ActiveParams are the parameters one token reads: Params less the experts it does not use (of each
	// *_exps tensor, whose outermost dimension is the experts, the fraction (Experts-ExpertsUsed)/Experts).
	// Params where the model has no experts.
	ActiveParams uint64      `json:"active_params"`
	Experts      int         `json:"experts,omitempty"`      // expert_count: experts per MoE layer
	ExpertsUsed  int         `json:"experts_used,omitempty"` // expert_used_count: experts each token uses
	TensorCount  int         `json:"tensor_count"`           // tensors in the file(s)
	WeightBytes  uint64      `json:"weight_bytes"`           // sum of tensor bytes
	TypeMix      []TypeCount `json:"type_mix"`               // by bytes, largest first

	ContextLength int   `json:"context_length"`
	Embedding     int   `json:"embedding_length"`
	Layers        int   `json:"layers"`
	FeedForward   int   `json:"feed_forward_length,omitempty"` // the largest, where it varies by layer
	Heads         int   `json:"heads"`                         // the largest, where it varies by layer
	KVHeads       int   `json:"kv_heads"`                      // the largest, where it varies by layer
	KVHeadsLayer  []int `json:"kv_heads_per_layer,omitempty"`  // only where it varies by layer
	HeadDim       int   `json:"head_dim"`                      // key_length, else embedding/heads
	HeadDimV      int   `json:"head_dim_v"`                    // value_length, else HeadDim
	// KV is each layer's cache as the architecture loads it (model.Describe): latent attention's compressed
	// rows, sliding windows. Nil where forma cannot load the architecture: the estimate then assumes plain
	// attention from the keys.
	KV []model.KVShape `json:"kv_cache_layers,omitempty"`

	RoPE RoPE `json:"rope"`

	VocabSize       int    `json:"vocab_size"`
	VocabSource     string `json:"vocab_source"` // which of the three sources gave VocabSize
	TokenizerModel  string `json:"tokenizer_model,omitempty"`
	TokenizerPre    string `json:"tokenizer_pre,omitempty"`
	BOS             int64  `json:"bos_token_id"`
	EOS             int64  `json:"eos_token_id"`
	HasChatTemplate bool   `json:"has_chat_template"`

	Tensors []gguf.TensorInfo `json:"-"` // in file order
}

// TypeCount is how many tensors of one type a model holds and their bytes.
type TypeCount struct {
	Type  quant.Type `json:"-"`
	Name  string     `json:"type"`
	Count int        `json:"count"`
	Bytes uint64     `json:"bytes"`
}

// RoPE holds the rotary position embedding settings, with llama.cpp's defaults where the file states none.
type RoPE struct {
	FreqBase    float64 `json:"freq_base"`
	FreqScale   float64 `json:"freq_scale"`   // 1 / scaling factor
	Dims        int     `json:"dims"`         // rotated dimensions per head
	ScalingType string  `json:"scaling_type"` // none, linear, yarn, longrope, ...
	FreqFactors bool    `json:"freq_factors"` // per-dimension frequency factors in rope_freqs.weight (Llama 3)
}

// Defaults llama.cpp applies when a file states no value.
const (
	defaultFreqBase = 10000
	noToken         = -1
)

// Read summarizes an open model.
func Read(f *gguf.File) (*Info, error) {
	arch, err := f.Architecture()
	if err != nil {
		return nil, err
	}
	in := &Info{Paths: f.Paths, FileSize: f.Size, Version: f.Version, Architecture: arch, BOS: noToken,
		EOS: noToken, Tensors: f.Tensors, TensorCount: len(f.Tensors)}
	in.Name, _ = f.String("general.name")
	in.readTensors()
	k := keys{f: f, arch: arch}
	in.ContextLength = k.int("context_length")
	in.Embedding = k.int("embedding_length")
	in.Layers = k.int("block_count")
	in.FeedForward = maxOf(k.perLayer("feed_forward_length", in.Layers))
	in.Heads = maxOf(k.perLayer("attention.head_count", in.Layers))
	kv := k.perLayer("attention.head_count_kv", in.Layers)
	if len(kv) == 0 {
		kv = k.perLayer("attention.head_count", in.Layers) // llama.cpp: no GQA unless stated
	}
	in.KVHeads = maxOf(kv)
	if !allEqual(kv) {
		in.KVHeadsLayer = kv
	}
	in.HeadDim = k.int("attention.key_length")
	if in.HeadDim == 0 && in.Heads > 0 {
		in.HeadDim = in.Embedding / in.Heads
	}
	in.HeadDimV = k.int("attention.value_length")
	if in.HeadDimV == 0 {
		in.HeadDimV = in.HeadDim
	}
	in.readRoPE(k)
	in.RoPE.FreqFactors = f.HasTensor("rope_freqs.weight")
	in.readVocab(f, k)
	in.Experts, in.ExpertsUsed = k.int("expert_count"), k.int("expert_used_count")
	if k.err != nil {
		return nil, k.err
	}
	in.ActiveParams = in.Params - in.unusedExpertParams()
	if hp, err := model.Describe(f); err == nil {
		in.KV = hp.KV
	}
	return in, nil
}

// unusedExpertParams counts the elements of experts a token does not use: of every tensor named *_exps.* whose
// outermost dimension is the experts (weights [experts, out, in], biases [experts, out]), all but ExpertsUsed.
func (in *Info) unusedExpertParams() uint64 {
	e, u := uint64(in.Experts), uint64(in.ExpertsUsed)
	if e == 0 || u >= e {
		return 0
	}
	var n uint64
	for _, t := range in.Tensors {
		if strings.Contains(t.Name, "_exps.") && len(t.Dims) >= 2 && t.Dims[len(t.Dims)-1] == e {
			n += t.Elements() / e * (e - u)
		}
	}
	return n
}

func (in *Info) readTensors() {
	mix := map[quant.Type]*TypeCount{}
	for _, t := range in.Tensors {
		in.Params += t.Elements()
		in.WeightBytes += t.Size
		c := mix[t.Type]
		if c == nil {
			c = &TypeCount{Type: t.Type, Name: t.Type.String()}
			mix[t.Type] = c
		}
		c.Count++
		c.Bytes += t.Size
	}
	for _, c := range mix {
		in.TypeMix = append(in.TypeMix, *c)
	}
	sort.Slice(in.TypeMix, func(i, j int) bool {
		a, b := in.TypeMix[i], in.TypeMix[j]
		return a.Bytes > b.Bytes || a.Bytes == b.Bytes && a.Type < b.Type
	})
}

func (in *Info) readRoPE(k keys) {
	in.RoPE = RoPE{FreqBase: defaultFreqBase, FreqScale: 1, Dims: in.HeadDim, ScalingType: "none"}
	if v, ok := k.float("rope.freq_base"); ok {
		in.RoPE.FreqBase = v
	}
	if d := k.int("rope.dimension_count"); d > 0 {
		in.RoPE.Dims = d
	}
	factor, ok := k.float("rope.scaling.factor")
	if !ok {
		factor, ok = k.float("rope.scale_linear") // the older key
	}
	if ok && factor != 0 && factor != 1 {
		in.RoPE.FreqScale = 1 / factor
		in.RoPE.ScalingType = "linear"
	}
	if s, err := k.f.String(k.arch + ".rope.scaling.type"); err == nil {
		in.RoPE.ScalingType = s
	}
}

func (in *Info) readVocab(f *gguf.File, k keys) {
	in.TokenizerModel, _ = f.String("tokenizer.ggml.model")
	in.TokenizerPre, _ = f.String("tokenizer.ggml.pre")
	if v, ok := f.Value("tokenizer.ggml.tokens"); ok {
		if _, n, isArr := v.ArrayType(); isArr {
			in.VocabSize, in.VocabSource = n, "tokenizer.ggml.tokens"
		}
	}
	if in.VocabSize == 0 {
		if n := k.int("vocab_size"); n > 0 {
			in.VocabSize, in.VocabSource = n, k.arch+".vocab_size"
		}
	}
	if in.VocabSize == 0 {
		if t, err := f.Tensor("token_embd.weight"); err == nil && len(t.Dims) >= 2 {
			in.VocabSize, in.VocabSource = int(t.Dims[1]), "token_embd.weight rows"
		}
	}
	if id, err := f.Int("tokenizer.ggml.bos_token_id"); err == nil {
		in.BOS = id
	}
	if id, err := f.Int("tokenizer.ggml.eos_token_id"); err == nil {
		in.EOS = id
	}
	in.HasChatTemplate = f.Has("tokenizer.chat_template")
}

// keys reads ARCH.* metadata, remembering the first value of a wrong type (a missing key is not an error).
type keys struct {
	f    *gguf.File
	arch string
	err  error
}

func (k *keys) note(err error) {
	if err != nil && !gguf.IsNotFound(err) && k.err == nil {
		k.err = err
	}
}

func (k *keys) int(name string) int {
	v, err := k.f.Int(k.arch + "." + name)
	k.note(err)
	if v < 0 || v > 1<<40 {
		k.note(fmt.Errorf("%s.%s = %d is out of range", k.arch, name, v))
		return 0
	}
	return int(v)
}

func (k *keys) float(name string) (float64, bool) {
	v, err := k.f.Float(k.arch + "." + name)
	k.note(err)
	return v, err == nil
}

// perLayer reads a value that is either one integer for all layers or an array with one per layer.
func (k *keys) perLayer(name string, layers int) []int {
	key := k.arch + "." + name
	v, ok := k.f.Value(key)
	if !ok {
		return nil
	}
	if _, _, isArr := v.ArrayType(); !isArr {
		n := k.int(name)
		out := make([]int, layers)
		for i := range out {
			out[i] = n
		}
		return out
	}
	xs, err := k.f.Ints(key)
	k.note(err)
	if err == nil && len(xs) != layers {
		k.note(fmt.Errorf("%s has %d entries for %d layers", key, len(xs), layers))
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		if x < 0 || x > 1<<30 {
			k.note(errors.New(key + " holds an out-of-range value"))
			return nil
		}
		out[i] = int(x)
	}
	return out
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func allEqual(xs []int) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}
