package synth

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
)

// Options choose what to write.
type Options struct {
	Preset        string
	Type          quant.Type // of the matrices and the embeddings; any type quant.CanQuantize supports
	Seed          uint64
	NumLayers     int // overrides the preset's layer count when > 0
	ContextLength int // overrides the preset's context length when > 0
	// Experts, ExpertFF and VocabSize override the preset's when > 0: a model with a preset's attention (and
	// so its KV cache) but small experts and vocabulary, for tests of what attention alone decides.
	Experts, ExpertFF, VocabSize int
	// Denormals (BF16 only) makes a model for the numerics of denormal weights: an eighth of every matrix's
	// values scaled by 2^-128 (denormal in BF16, or zero for the smallest), and the output head rescaled so
	// that denormals decide the logits: output_norm's weights times 2^122 and output.weight's times 2^-122,
	// where about two thirds of them are denormal. The logits keep their usual size; VDPBF16PS, the reference
	// build's BF16 dot, takes those weights as zero.
	Denormals bool
}

// Write writes a random-weight model to path. Tensors are generated and quantized one at a time, in chunks of
// rows, so memory stays small whatever the model's size.
func Write(path string, opts Options) error {
	spec, err := Spec(opts)
	if err != nil {
		return err
	}
	return gguf.WriteFile(path, spec)
}

// Spec returns the model as a gguf.Spec whose tensors generate their bytes when written.
func Spec(opts Options) (gguf.Spec, error) {
	p, err := Lookup(opts.Preset)
	if err != nil {
		return gguf.Spec{}, err
	}
	if !quant.CanQuantize(opts.Type) {
		return gguf.Spec{}, fmt.Errorf("synth: cannot write weights of type %s", opts.Type)
	}
	if opts.NumLayers < 0 || opts.ContextLength < 0 || opts.Experts < 0 || opts.ExpertFF < 0 || opts.VocabSize < 0 {
		return gguf.Spec{}, fmt.Errorf("synth: negative override in %+v", opts)
	}
	if opts.Experts > 0 {
		p.Experts = opts.Experts
		p.ExpertsUsed = min(p.ExpertsUsed, p.Experts)
	}
	if opts.ExpertFF > 0 {
		p.ExpertFF = opts.ExpertFF
	}
	if opts.VocabSize > 0 {
		p.VocabSize = opts.VocabSize
	}
	if opts.NumLayers > 0 {
		p.Layers = opts.NumLayers
	}
	if opts.ContextLength > 0 {
		p.ContextLength = opts.ContextLength
	}
	v, err := makeVocab(p)
	if err != nil {
		return gguf.Spec{}, err
	}
	if opts.Denormals && (opts.Type != quant.BF16 || p.Tied || p.Arch == LFM2) {
		return gguf.Spec{}, fmt.Errorf("synth: denormals need BF16 weights and an untied output_norm and output (%s %s)", p.Name, opts.Type)
	}
	b := &builder{p: p, typ: opts.Type, seed: opts.Seed, denormals: opts.Denormals}
	b.tensors()
	return gguf.Spec{KV: append(b.metadata(), v.kv(p)...), Tensors: b.out}, nil
}

// builder collects the tensors of one model.
type builder struct {
	p    Preset
	typ  quant.Type
	seed uint64
	out  []gguf.WriteTensor
	// denormals: Options.Denormals
	denormals bool
}

// Kinds of tensor content.
type fill int

const (
	matrix fill = iota // N(0, 1/row)
	norm               // 1 + N(0, 0.05²)
	bias               // N(0, 0.02²)
	sink               // N(0, 1): attention sinks, logits of the order of the scores
)

func (b *builder) tensors() {
	p := b.p
	if p.Arch.encoder() {
		b.encoderTensors()
		return
	}
	b.mat("token_embd.weight", p.Embd, p.VocabSize)
	if p.Llama3Rope {
		b.add("rope_freqs.weight", quant.F32, ropeFreqs(p), p.HeadDim/2)
	}
	for l := 0; l < p.Layers; l++ {
		pre := fmt.Sprintf("blk.%d.", l)
		if p.Arch != OLMo2 { // olmo2 normalises after attention and FFN only
			b.vec(pre+"attn_norm.weight", norm, p.Embd)
		}
		switch {
		case p.Arch == DeepSeek2:
			b.latentAttention(pre)
		case p.convLayer(l):
			b.shortConv(pre)
		default:
			b.attention(pre)
		}
		switch {
		case p.Arch == GPTOSS:
			b.vec(pre+"post_attention_norm.weight", norm, p.Embd) // the norm before the FFN
			b.experts(pre, true)
		case p.Experts > 0 && l >= p.DenseLead:
			b.vec(pre+"ffn_norm.weight", norm, p.Embd)
			b.experts(pre, false)
			if p.SharedExperts > 0 {
				ff := p.ExpertFF * p.SharedExperts
				b.mat(pre+"ffn_gate_shexp.weight", p.Embd, ff)
				b.mat(pre+"ffn_up_shexp.weight", p.Embd, ff)
				b.mat(pre+"ffn_down_shexp.weight", ff, p.Embd)
			}
		default:
			if p.Arch != OLMo2 {
				b.vec(pre+"ffn_norm.weight", norm, p.Embd)
			}
			b.denseFFN(pre)
		}
	}
	outNorm := "output_norm.weight"
	if p.Arch == LFM2 {
		outNorm = "token_embd_norm.weight" // llama.cpp's name for lfm2's final norm
	}
	b.vec(outNorm, norm, p.Embd)
	if !p.Tied {
		b.mat("output.weight", p.Embd, p.VocabSize)
	}
}

// attention adds a layer's grouped-query attention with the optional tensors of its architecture.
func (b *builder) attention(pre string) {
	p := b.p
	q, kv := p.Heads*p.HeadDim, p.KVHeads*p.HeadDim
	if p.Arch == Phi3 {
		b.mat(pre+"attn_qkv.weight", p.Embd, q+2*kv)
	} else {
		b.mat(pre+"attn_q.weight", p.Embd, q)
		b.mat(pre+"attn_k.weight", p.Embd, kv)
		b.mat(pre+"attn_v.weight", p.Embd, kv)
	}
	if p.Arch == Qwen2 || p.Arch == GPTOSS {
		b.vec(pre+"attn_q.bias", bias, q)
		b.vec(pre+"attn_k.bias", bias, kv)
		b.vec(pre+"attn_v.bias", bias, kv)
	}
	if p.Arch == Qwen3 || p.Arch == Gemma3 || p.Arch == Qwen3MoE || p.Arch == LFM2 {
		b.vec(pre+"attn_q_norm.weight", norm, p.HeadDim)
		b.vec(pre+"attn_k_norm.weight", norm, p.HeadDim)
	}
	if p.Arch == OLMo2 { // over the whole projections
		b.vec(pre+"attn_q_norm.weight", norm, q)
		b.vec(pre+"attn_k_norm.weight", norm, kv)
	}
	b.mat(pre+"attn_output.weight", q, p.Embd)
	if p.Arch == GPTOSS {
		b.vec(pre+"attn_output.bias", bias, p.Embd)
		b.vec(pre+"attn_sinks.weight", sink, p.Heads)
	}
	if p.Arch == Gemma3 || p.Arch == Gemma2 || p.Arch == OLMo2 {
		b.vec(pre+"post_attention_norm.weight", norm, p.Embd)
	}
}

// shortConv adds lfm2's short-convolution block: in_proj to b, c and x, the kernel (F32: llama.cpp's
// quantizer keeps it, and ggml_ssm_conv reads only F32), out_proj.
func (b *builder) shortConv(pre string) {
	p := b.p
	b.mat(pre+"shortconv.in_proj.weight", p.Embd, 3*p.Embd)
	b.add(pre+"shortconv.conv.weight", quant.F32, b.random(pre+"shortconv.conv.weight", matrix, quant.F32, p.ConvTaps, p.Embd),
		p.ConvTaps, p.Embd)
	b.mat(pre+"shortconv.out_proj.weight", p.Embd, p.Embd)
}

// latentAttention adds deepseek2's multi-head latent attention in the form llama.cpp runs with a compressed
// cache: q directly (no q compression), the compressed key/value row and the shared rotated key, its norm, and
// the per-head key and value up-projections (k_b, v_b) that the attention absorbs.
func (b *builder) latentAttention(pre string) {
	p := b.p
	b.mat(pre+"attn_q.weight", p.Embd, p.Heads*(p.QKNope+p.QKRope))
	b.mat(pre+"attn_kv_a_mqa.weight", p.Embd, p.KVLoraRank+p.QKRope)
	b.vec(pre+"attn_kv_a_norm.weight", norm, p.KVLoraRank)
	b.mat3(pre+"attn_k_b.weight", p.QKNope, p.KVLoraRank, p.Heads)
	b.mat3(pre+"attn_v_b.weight", p.KVLoraRank, p.VHead, p.Heads)
	b.mat(pre+"attn_output.weight", p.Heads*p.VHead, p.Embd)
}

// denseFFN adds a layer's gated FFN.
func (b *builder) denseFFN(pre string) {
	p := b.p
	if p.Arch == Phi3 {
		b.mat(pre+"ffn_up.weight", p.Embd, 2*p.FFN) // gate and up, fused
	} else {
		b.mat(pre+"ffn_gate.weight", p.Embd, p.FFN)
		b.mat(pre+"ffn_up.weight", p.Embd, p.FFN)
	}
	b.mat(pre+"ffn_down.weight", p.FFN, p.Embd)
	if p.Arch == Gemma3 || p.Arch == Gemma2 || p.Arch == OLMo2 {
		b.vec(pre+"post_ffw_norm.weight", norm, p.Embd)
	}
}

// experts adds a layer's router (F32, as llama.cpp's quantizer keeps it) and expert matrices, with gpt-oss's
// biases.
func (b *builder) experts(pre string, biases bool) {
	p := b.p
	b.add(pre+"ffn_gate_inp.weight", quant.F32, b.random(pre+"ffn_gate_inp.weight", matrix, quant.F32, p.Embd, p.Experts),
		p.Embd, p.Experts)
	if biases {
		b.vec(pre+"ffn_gate_inp.bias", bias, p.Experts)
	}
	b.mat3(pre+"ffn_gate_exps.weight", p.Embd, p.ExpertFF, p.Experts)
	b.mat3(pre+"ffn_up_exps.weight", p.Embd, p.ExpertFF, p.Experts)
	b.mat3(pre+"ffn_down_exps.weight", p.ExpertFF, p.Embd, p.Experts)
	if biases {
		b.add(pre+"ffn_gate_exps.bias", quant.F32, b.random(pre+"ffn_gate_exps.bias", bias, quant.F32, p.ExpertFF, p.Experts),
			p.ExpertFF, p.Experts)
		b.add(pre+"ffn_up_exps.bias", quant.F32, b.random(pre+"ffn_up_exps.bias", bias, quant.F32, p.ExpertFF, p.Experts),
			p.ExpertFF, p.Experts)
		b.add(pre+"ffn_down_exps.bias", quant.F32, b.random(pre+"ffn_down_exps.bias", bias, quant.F32, p.Embd, p.Experts),
			p.Embd, p.Experts)
	}
}

// mat3 adds a 3-D tensor of n matrices of rows rows of length row (GGUF dims [row, rows, n]): one matrix per
// expert or head.
func (b *builder) mat3(name string, row, rows, n int) {
	typ := matrixType(b.typ, row)
	b.add(name, typ, b.random(name, matrix, typ, row, rows*n), row, rows, n)
}

// mat adds a matrix of rows of length row, in the requested type or, where rows are not whole blocks of it,
// the type llama.cpp's quantizer falls back to. MXFP4 is for expert matrices only: the others are F16, as
// convert_hf_to_gguf writes gpt-oss (its experts ship in MXFP4, the rest in 16 bits).
func (b *builder) mat(name string, row, rows int) {
	t := b.typ
	if t == quant.MXFP4 {
		t = quant.F16
	}
	typ := matrixType(t, row)
	b.add(name, typ, b.random(name, matrix, typ, row, rows), row, rows)
}

func (b *builder) vec(name string, f fill, n int) {
	b.add(name, quant.F32, b.random(name, f, quant.F32, n, 1), n)
}

func (b *builder) add(name string, typ quant.Type, data func(io.Writer) error, dims ...int) {
	d := make([]uint64, len(dims))
	for i, x := range dims {
		d[i] = uint64(x)
	}
	b.out = append(b.out, gguf.WriteTensor{Name: name, Type: typ, Dims: d, Data: data})
}

// matrixType returns want if a row of n elements is whole blocks of it, else Q8_0 or F16 as llama.cpp's
// quantizer falls back.
func matrixType(want quant.Type, n int) quant.Type {
	switch {
	case n%want.BlockElems() == 0:
		return want
	case n%quant.QK == 0:
		return quant.Q8_0
	}
	return quant.F16
}

// random returns a Data function generating the tensor's rows from a generator seeded by the model seed, the
// tensor's name and the chunk of rows, so the output is the same whatever the number of workers.
func (b *builder) random(name string, f fill, typ quant.Type, row, rows int) func(io.Writer) error {
	h := fnv.New64a()
	h.Write([]byte(name))
	key := b.seed ^ h.Sum64()
	std, scale := 1/math.Sqrt(float64(row)), 1.0
	if b.denormals {
		switch name {
		case "output_norm.weight":
			scale = 0x1p122
		case "output.weight":
			scale = 0x1p-122
		}
	}
	gen := func(chunk uint64, dst []float32) {
		rng := rand.New(rand.NewPCG(key, chunk))
		for i := range dst {
			x := rng.NormFloat64()
			switch f {
			case matrix:
				dst[i] = float32(x * std * scale)
				if b.denormals && scale == 1 && rng.IntN(8) == 0 {
					dst[i] = float32(x * std * 0x1p-128)
				}
			case norm:
				dst[i] = float32((1 + 0.05*x) * scale)
			case bias:
				dst[i] = float32(0.02 * x)
			case sink:
				dst[i] = float32(x)
			}
		}
	}
	return func(w io.Writer) error { return streamRows(w, typ, row, rows, gen) }
}

// chunkElems is about how many elements one worker generates and quantizes at a time.
const chunkElems = 1 << 18

// streamRows writes rows rows of row elements, generated by gen chunk by chunk (in parallel, written in
// order), converted to typ.
func streamRows(w io.Writer, typ quant.Type, row, rows int, gen func(chunk uint64, dst []float32)) error {
	rowBytes, err := typ.RowBytes(row)
	if err != nil {
		return err
	}
	per := max(1, chunkElems/row) // rows per chunk
	chunks := (rows + per - 1) / per
	workers := min(runtime.GOMAXPROCS(0), chunks)
	type buf struct {
		f   []float32
		q   []byte
		err error
	}
	bufs := make([]buf, workers)
	for i := range bufs {
		bufs[i] = buf{f: make([]float32, per*row), q: make([]byte, per*rowBytes)}
	}
	for first := 0; first < chunks; first += workers {
		var wg sync.WaitGroup
		n := min(workers, chunks-first)
		for k := 0; k < n; k++ {
			c := first + k
			nr := min(per, rows-c*per)
			wg.Add(1)
			go func(bb *buf) {
				defer wg.Done()
				gen(uint64(c), bb.f[:nr*row])
				bb.err = quant.Quantize(typ, bb.f[:nr*row], bb.q[:nr*rowBytes])
			}(&bufs[k])
		}
		wg.Wait()
		for k := 0; k < n; k++ {
			if bufs[k].err != nil {
				return bufs[k].err
			}
			nr := min(per, rows-(first+k)*per)
			if _, err := w.Write(bufs[k].q[:nr*rowBytes]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ropeFreqs returns Llama 3's RoPE frequency factors (rope_scaling type "llama3": factor 32, low 1, high 4,
// original context 8192), as convert_hf_to_gguf writes them into rope_freqs.weight.
func ropeFreqs(p Preset) func(io.Writer) error {
	const factor, low, high, origCtx = 32.0, 1.0, 4.0, 8192.0
	n := p.HeadDim / 2
	vals := make([]float32, n)
	for i := range vals {
		freq := 1 / math.Pow(p.RopeBase, float64(2*i)/float64(p.HeadDim))
		wavelen := 2 * math.Pi / freq
		switch {
		case wavelen < origCtx/high:
			vals[i] = 1
		case wavelen > origCtx/low:
			vals[i] = factor
		default:
			smooth := (origCtx/wavelen - low) / (high - low)
			vals[i] = float32(1 / ((1-smooth)/factor + smooth))
		}
	}
	b := make([]byte, 4*n)
	quant.QuantizeF32(vals, b)
	return gguf.BytesData(b)
}
