package model

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// Layer holds one block's weights ([out, in] matrices, [n] vectors). Absent tensors are nil.
type Layer struct {
	AttnNorm     accel.Weight
	Q, K, V, O   accel.Weight
	QKV          accel.Weight // fused [q; k; v] projection (phi3), instead of Q, K, V
	BQ, BK, BV   accel.Weight // projection biases (qwen2)
	QNorm, KNorm accel.Weight // per-head RMS norms of q and k (qwen3, gemma3)
	PostAttnNorm accel.Weight // norm of the attention output before the residual (gemma)
	FFNNorm      accel.Weight
	Gate, Up     accel.Weight // Up is [2·FF, Embd] and Gate nil when gate and up are fused (phi3)
	Down         accel.Weight
	PostFFNNorm  accel.Weight // norm of the FFN output before the residual (gemma)
}

// Activation is the gated activation of the feed-forward network.
type Activation uint8

const (
	SwiGLU Activation = iota // silu(gate) ⊙ up
	GeGLU                    // gelu(gate) ⊙ up
)

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

	EmbedScale float32    // scales the embeddings (gemma: sqrt(embd)); 0 for none
	Act        Activation // the FFN's activation
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

// block is one layer: x + attn(norm(x)), then + ffn(norm(·)), with optional post-norms.
func (m *Transformer) block(b *accel.Builder, l int, x accel.Tensor, in Inputs) accel.Tensor {
	ly := &m.Layers[l]
	h := m.attention(b, l, m.norm(b, x, ly.AttnNorm, "attn_norm", l), in)
	if ly.PostAttnNorm != nil {
		h = m.norm(b, h, ly.PostAttnNorm, "attn_post_norm", l)
	}
	x = b.Name(b.Add(h, x), "ffn_inp", l)
	h = m.ffn(b, l, m.norm(b, x, ly.FFNNorm, "ffn_norm", l))
	if ly.PostFFNNorm != nil {
		h = m.norm(b, h, ly.PostFFNNorm, "ffn_post_norm", l)
	}
	return b.Name(b.Add(h, x), "l_out", l)
}

// norm is RMS normalisation times a weight.
func (m *Transformer) norm(b *accel.Builder, x accel.Tensor, w accel.Weight, name string, l int) accel.Tensor {
	return b.Name(b.Mul(b.RMSNorm(x, m.HP.NormEps), b.Weight(w)), name, l)
}

// proj is a projection with an optional bias.
func proj(b *accel.Builder, w, bias accel.Weight, x accel.Tensor) accel.Tensor {
	y := b.MatMul(b.Weight(w), x)
	if bias != nil {
		y = b.Add(y, b.Weight(bias))
	}
	return y
}

func (m *Transformer) attention(b *accel.Builder, l int, x accel.Tensor, in Inputs) accel.Tensor {
	hp, ly := m.HP, &m.Layers[l]
	n := b.Shape(in.Tokens)[0]
	var q, k, v accel.Tensor
	if ly.QKV != nil {
		qkv := b.MatMul(b.Weight(ly.QKV), x)
		q = b.Slice(qkv, 0, hp.Heads*hp.HeadDim)
		k = b.Slice(qkv, hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim)
		v = b.Slice(qkv, (hp.Heads+hp.KVHeads)*hp.HeadDim, hp.KVHeads*hp.HeadDimV)
	} else {
		q, k, v = proj(b, ly.Q, ly.BQ, x), proj(b, ly.K, ly.BK, x), proj(b, ly.V, ly.BV, x)
	}
	q = b.Reshape(q, n, hp.Heads, hp.HeadDim)
	k = b.Reshape(k, n, hp.KVHeads, hp.HeadDim)
	v = b.Reshape(v, n, hp.KVHeads, hp.HeadDimV)
	if ly.QNorm != nil {
		q = m.norm(b, q, ly.QNorm, "Qcur_normed", l)
		k = m.norm(b, k, ly.KNorm, "Kcur_normed", l)
	}
	rope, factors := hp.layerRoPE(l), m.ropeFactors(b, in)
	q = b.Name(b.RoPE(q, in.Pos, rope, factors), "Qcur", l)
	k = b.Name(b.RoPE(k, in.Pos, rope, factors), "Kcur", l)
	scale := hp.AttnScale
	if m.QScale != 0 {
		q, scale = b.Scale(q, m.QScale), 1
	}
	kc := b.KVStore(in.KV[l].K, k, in.slots())
	vc := b.KVStore(in.KV[l].V, v, in.slots())
	a := in.attention(b, q, kc, vc, accel.AttentionParams{Scale: scale, SoftCap: hp.AttnSoftCap, Window: hp.layerWindow(l)})
	return b.Name(b.MatMul(b.Weight(ly.O), b.Name(a, "kqv_out", l)), "attn_out", l)
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

func (m *Transformer) ffn(b *accel.Builder, l int, x accel.Tensor) accel.Tensor {
	ly := &m.Layers[l]
	var gate, up accel.Tensor
	if ly.Gate == nil {
		gu := b.MatMul(b.Weight(ly.Up), x)
		gate, up = b.Slice(gu, 0, m.HP.FF), b.Slice(gu, m.HP.FF, m.HP.FF)
	} else {
		gate, up = b.MatMul(b.Weight(ly.Gate), x), b.MatMul(b.Weight(ly.Up), x)
	}
	var h accel.Tensor
	if m.Act == GeGLU {
		h = b.GeGLU(gate, up)
	} else {
		h = b.SwiGLU(gate, up)
	}
	return b.Name(b.MatMul(b.Weight(ly.Down), h), "ffn_out", l)
}

// head keeps the rows in.Out names, normalises and projects to the vocabulary.
func (m *Transformer) head(b *accel.Builder, x accel.Tensor, in Inputs) accel.Tensor {
	if in.Out.Valid() {
		x = b.GetRows(x, in.Out)
	}
	x = m.norm(b, x, m.OutNorm, "result_norm", -1)
	logits := b.MatMul(b.Weight(m.Output), x)
	if m.HP.FinalSoftCap > 0 {
		logits = b.SoftCap(logits, m.HP.FinalSoftCap)
	}
	return b.Name(logits, "result_output", -1)
}

// layerSpec says which optional parts an architecture's layers have.
type layerSpec struct {
	fusedQKV  bool // attn_qkv instead of attn_q, attn_k, attn_v
	qkNorm    bool // attn_q_norm, attn_k_norm (required)
	postNorms bool // post_attention_norm, post_ffw_norm (required)
	fusedFFN  bool // ffn_up is [2·FF, Embd], no ffn_gate
}

// invSqrtf is llama.cpp's 1.0f/sqrtf(float(n)): the square root rounded to float32 before the float32
// division. (The correctly rounded 1/√n differs from it in the last bit for some n, head size 96 among them.)
func invSqrtf(n int) float32 { return 1 / float32(math.Sqrt(float64(float32(n)))) }

// loadTransformer loads the tensors every llama-family architecture shares, per spec. Biases of q, k and v are
// loaded when present.
func loadTransformer(ld *Loader, spec layerSpec) *Transformer {
	hp := ld.HP
	e, qd, kd, vd := hp.Embd, hp.Heads*hp.HeadDim, hp.KVHeads*hp.HeadDim, hp.KVHeads*hp.HeadDimV
	if hp.AttnScale == 0 {
		hp.AttnScale = invSqrtf(hp.HeadDim)
	}
	m := &Transformer{HP: hp, Layers: make([]Layer, hp.Layers)}
	m.Embd = ld.Tensor("token_embd.weight", hp.Vocab, e)
	m.OutNorm = ld.Tensor("output_norm.weight", e)
	if m.Output = ld.Optional("output.weight", hp.Vocab, e); m.Output == nil {
		m.Output = m.Embd
	}
	m.RoPEFactors = ld.Optional("rope_freqs.weight", hp.RoPE.Dims/2)
	for l := range m.Layers {
		ly := &m.Layers[l]
		ly.AttnNorm = ld.Tensor(blk(l, "attn_norm"), e)
		if spec.fusedQKV {
			ly.QKV = ld.Tensor(blk(l, "attn_qkv"), qd+kd+vd, e)
		} else {
			ly.Q, ly.K, ly.V = ld.Tensor(blk(l, "attn_q"), qd, e), ld.Tensor(blk(l, "attn_k"), kd, e), ld.Tensor(blk(l, "attn_v"), vd, e)
			ly.BQ, ly.BK, ly.BV = ld.Optional(blkBias(l, "attn_q"), qd), ld.Optional(blkBias(l, "attn_k"), kd), ld.Optional(blkBias(l, "attn_v"), vd)
		}
		ly.O = ld.Tensor(blk(l, "attn_output"), e, hp.Heads*hp.HeadDimV)
		if spec.qkNorm {
			ly.QNorm, ly.KNorm = ld.Tensor(blk(l, "attn_q_norm"), hp.HeadDim), ld.Tensor(blk(l, "attn_k_norm"), hp.HeadDim)
		}
		if spec.postNorms {
			ly.PostAttnNorm, ly.PostFFNNorm = ld.Tensor(blk(l, "post_attention_norm"), e), ld.Tensor(blk(l, "post_ffw_norm"), e)
		}
		ly.FFNNorm = ld.Tensor(blk(l, "ffn_norm"), e)
		if spec.fusedFFN {
			ly.Up = ld.Tensor(blk(l, "ffn_up"), 2*hp.FF, e)
		} else {
			ly.Gate, ly.Up = ld.Tensor(blk(l, "ffn_gate"), hp.FF, e), ld.Tensor(blk(l, "ffn_up"), hp.FF, e)
		}
		ly.Down = ld.Tensor(blk(l, "ffn_down"), e, hp.FF)
	}
	return m
}
