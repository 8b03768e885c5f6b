package model

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// Layer is one block: the attention and feed-forward parts the architecture chose for it, with the norms
// around them. Absent norms are nil.
type Layer struct {
	AttnNorm     accel.Weight
	Attn         Attention
	PostAttnNorm accel.Weight // norm of the attention output before the residual (gemma)
	FFNNorm      accel.Weight
	FFN          FFN
	PostFFNNorm  accel.Weight // norm of the FFN output before the residual (gemma)
}

// Transformer is the pre-norm decoder the llama family shares. An architecture loads its weights into one
// and sets the few fields in which it differs.
type Transformer struct {
	HP              *HParams
	Embd            accel.Weight // token_embd [vocab, embd]
	OutNorm, Output accel.Weight // Output may be Embd (tied)
	RoPEFactors     accel.Weight // rope_freqs [dims/2] (llama 3 scaling), or nil
	// RoPELong and RoPEShort are phi3's factors, chosen by whether the context exceeds the original one.
	RoPELong, RoPEShort accel.Weight
	Layers              []Layer

	EmbedScale float32 // scales the embeddings (gemma: sqrt(embd), granite: embedding_scale); 0 for none
	// ResidualScale, when nonzero, scales the attention's and the FFN's outputs before each residual add
	// (granite's residual_scale).
	ResidualScale float32
	// LogitScale, when nonzero, scales the logits (granite: 1/logit_scale).
	LogitScale float32
	// QScale, when nonzero, scales q after RoPE and the attention itself then scales by 1 (gemma3, phi3), as
	// llama.cpp's graphs for those architectures do; otherwise attention scales by HP.AttnScale.
	QScale float32
}

// HParams returns the hyperparameters.
func (m *Transformer) HParams() *HParams { return m.HP }

// Forward is the whole pass: embeddings, the blocks, the output head.
func (m *Transformer) Forward(b *accel.Builder, in Inputs) accel.Tensor {
	x := b.Name(b.GetRows(b.Weight(m.Embd), in.Tokens), "inp_embd", -1)
	if m.EmbedScale != 0 {
		x = b.Name(b.Scale(x, m.EmbedScale), "inp_scaled", -1)
	}
	for l := range m.Layers {
		x = m.block(b, l, x, in)
	}
	return m.head(b, x, in)
}

// block is one layer: x + attn(norm(x)), then + ffn(norm(·)), with optional pre- and post-norms and residual
// scale.
func (m *Transformer) block(b *accel.Builder, l int, x accel.Tensor, in Inputs) accel.Tensor {
	ly := &m.Layers[l]
	h := ly.Attn.Forward(b, m, l, m.optNorm(b, x, ly.AttnNorm, "attn_norm", l), in)
	if ly.PostAttnNorm != nil {
		h = m.norm(b, h, ly.PostAttnNorm, "attn_post_norm", l)
	}
	x = b.Name(b.Add(m.residual(b, h), x), "ffn_inp", l)
	h = ly.FFN.Forward(b, m, l, m.optNorm(b, x, ly.FFNNorm, "ffn_norm", l))
	if ly.PostFFNNorm != nil {
		h = m.norm(b, h, ly.PostFFNNorm, "ffn_post_norm", l)
	}
	return b.Name(b.Add(m.residual(b, h), x), "l_out", l)
}

// residual scales a part's output before its residual add, if the architecture does.
func (m *Transformer) residual(b *accel.Builder, h accel.Tensor) accel.Tensor {
	if m.ResidualScale != 0 {
		return b.Scale(h, m.ResidualScale)
	}
	return h
}

// norm is RMS normalisation times a weight.
func (m *Transformer) norm(b *accel.Builder, x accel.Tensor, w accel.Weight, name string, l int) accel.Tensor {
	return b.Name(b.Mul(b.RMSNorm(x, m.HP.NormEps), b.Weight(w)), name, l)
}

// optNorm is norm, or x itself where the layer has no such norm (olmo2 has only post-norms).
func (m *Transformer) optNorm(b *accel.Builder, x accel.Tensor, w accel.Weight, name string, l int) accel.Tensor {
	if w == nil {
		return x
	}
	return m.norm(b, x, w, name, l)
}

// proj is a projection with an optional bias.
func proj(b *accel.Builder, w, bias accel.Weight, x accel.Tensor) accel.Tensor {
	y := b.MatMul(b.Weight(w), x)
	if bias != nil {
		y = b.Add(y, b.Weight(bias))
	}
	return y
}

// ropeFactors returns the frequency factors for this context, or an invalid tensor for none.
func (m *Transformer) ropeFactors(b *accel.Builder, in Inputs) accel.Tensor {
	w := m.RoPEFactors
	if m.RoPELong != nil && in.NCtx > m.HP.RoPE.OrigCtx {
		w = m.RoPELong
	} else if m.RoPEShort != nil {
		w = m.RoPEShort
	}
	if w == nil {
		return accel.Tensor{}
	}
	return b.Weight(w)
}

// head keeps the rows in.Out names, normalises and projects to the vocabulary.
func (m *Transformer) head(b *accel.Builder, x accel.Tensor, in Inputs) accel.Tensor {
	if in.Out.Valid() {
		x = b.GetRows(x, in.Out)
	}
	x = m.norm(b, x, m.OutNorm, "result_norm", -1)
	logits := b.MatMul(b.Weight(m.Output), x)
	if m.LogitScale != 0 {
		logits = b.Scale(logits, m.LogitScale)
	}
	if m.HP.FinalSoftCap > 0 {
		logits = b.SoftCap(logits, m.HP.FinalSoftCap)
	}
	return b.Name(logits, "result_output", -1)
}

// layerSpec says how an architecture's layers are built: which attention and FFN each layer has and which
// optional tensors they carry.
type layerSpec struct {
	gqaSpec
	postNorms  bool // post_attention_norm, post_ffw_norm (required)
	noPreNorms bool // no attn_norm and no norm before the FFN (olmo2: post-norms only)
	fusedFFN   bool // ffn_up is [2·FF, Embd], no ffn_gate
	act        Activation
	// attn and ffn, when set, load layer l's parts instead of grouped-query attention and a dense FFN.
	attn func(ld *Loader, l int) Attention
	ffn  func(ld *Loader, l int) FFN
	// ffnNorm names the norm before the FFN ("ffn_norm" when empty).
	ffnNorm string
	// outNorm names the final norm ("output_norm" when empty).
	outNorm string
}

// invSqrtf is llama.cpp's 1.0f/sqrtf(float(n)): the square root rounded to float32 before the float32
// division. (The correctly rounded 1/√n differs from it in the last bit for some n, head size 96 among them.)
func invSqrtf(n int) float32 { return 1 / float32(math.Sqrt(float64(float32(n)))) }

// loadTransformer loads the tensors every llama-family architecture shares and each layer's parts, per spec,
// and records each layer's cache in the hyperparameters.
func loadTransformer(ld *Loader, spec layerSpec) *Transformer {
	hp := ld.HP
	e := hp.Embd
	if hp.AttnScale == 0 {
		hp.AttnScale = invSqrtf(hp.HeadDim)
	}
	m := &Transformer{HP: hp, Layers: make([]Layer, hp.Layers)}
	m.Embd = ld.Tensor("token_embd.weight", hp.Vocab, e)
	outNorm := spec.outNorm
	if outNorm == "" {
		outNorm = "output_norm"
	}
	m.OutNorm = ld.Tensor(outNorm+".weight", e)
	if m.Output = ld.Optional("output.weight", hp.Vocab, e); m.Output == nil {
		m.Output = m.Embd
	}
	m.RoPEFactors = ld.Optional("rope_freqs.weight", hp.RoPE.Dims/2)
	ffnNorm := spec.ffnNorm
	if ffnNorm == "" {
		ffnNorm = "ffn_norm"
	}
	hp.KV = make([]KVShape, hp.Layers)
	for l := range m.Layers {
		ly := &m.Layers[l]
		if !spec.noPreNorms {
			ly.AttnNorm = ld.Tensor(blk(l, "attn_norm"), e)
		}
		if spec.attn != nil {
			ly.Attn = spec.attn(ld, l)
		} else {
			ly.Attn = loadGQA(ld, l, spec.gqaSpec)
		}
		if spec.postNorms {
			ly.PostAttnNorm, ly.PostFFNNorm = ld.Tensor(blk(l, "post_attention_norm"), e), ld.Tensor(blk(l, "post_ffw_norm"), e)
		}
		if !spec.noPreNorms {
			ly.FFNNorm = ld.Tensor(blk(l, ffnNorm), e)
		}
		if spec.ffn != nil {
			ly.FFN = spec.ffn(ld, l)
		} else {
			ly.FFN = loadDense(ld, l, hp.FFL[l], spec.fusedFFN, spec.act, "")
		}
		if ld.Err() != nil {
			return m
		}
		hp.KV[l] = ly.Attn.KV()
	}
	return m
}
