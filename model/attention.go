package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// Attention is a block's attention part: from the normed input x of layer l it computes q, k and v, writes k
// and v to the layer's cache, attends, and projects back to the embedding. An architecture chooses one per
// layer at load (grouped-query attention, multi-head latent attention).
type Attention interface {
	Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor, in Inputs) accel.Tensor
	// KV is the cache the part keeps.
	KV() KVShape
}

// GQA is grouped-query attention (multi-head and multi-query attention included), with the optional parts the
// llama family has: a fused QKV projection, q/k/v and output biases, per-head q/k RMS norms, attention sinks.
type GQA struct {
	Q, K, V, O     accel.Weight
	QKV            accel.Weight // fused [q; k; v] projection (phi3), instead of Q, K, V
	BQ, BK, BV, BO accel.Weight // biases (qwen2, gpt-oss)
	QNorm, KNorm   accel.Weight // per-head RMS norms of q and k (qwen3, gemma3), or of the whole projections
	// NormWhole says QNorm and KNorm normalise each token's whole q and k projections ([heads·headDim]) before
	// they are split into heads (olmo2), instead of each head.
	NormWhole bool
	Sinks     accel.Weight // per-head attention sinks [heads] (gpt-oss)

	Heads, KVHeads    int
	HeadDim, HeadDimV int
	RoPE              accel.RoPEParams
	Window            int  // sliding window (0: full attention)
	NoRoPE            bool // q and k are not rotated (smollm3's every 4th layer, granite without rope)
	// TempScale, when nonzero, multiplies q after RoPE by the attention temperature of its position,
	// 1 + TempScale·ln(⌊pos/TempFloor⌋ + 1) (mistral3).
	TempScale float32
	TempFloor int
}

// KV is the cache of grouped-query attention: KVHeads keys and values per cell.
func (a *GQA) KV() KVShape {
	return KVShape{Heads: a.KVHeads, KSize: a.HeadDim, VSize: a.HeadDimV, Window: a.Window}
}

// Forward is q, k, v = projections of x; optional q/k norms; RoPE; the cache write; attention; output.
func (a *GQA) Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor, in Inputs) accel.Tensor {
	n := b.Shape(in.Tokens)[0]
	var q, k, v accel.Tensor
	if a.QKV != nil {
		qd, kd := a.Heads*a.HeadDim, a.KVHeads*a.HeadDim
		qkv := b.MatMul(b.Weight(a.QKV), x)
		q, k, v = b.Slice(qkv, 0, qd), b.Slice(qkv, qd, kd), b.Slice(qkv, qd+kd, a.KVHeads*a.HeadDimV)
	} else {
		q, k, v = proj(b, a.Q, a.BQ, x), proj(b, a.K, a.BK, x), proj(b, a.V, a.BV, x)
	}
	if a.QNorm != nil && a.NormWhole {
		q = m.norm(b, q, a.QNorm, "Qcur_normed", l)
		k = m.norm(b, k, a.KNorm, "Kcur_normed", l)
	}
	q = b.Reshape(q, n, a.Heads, a.HeadDim)
	k = b.Reshape(k, n, a.KVHeads, a.HeadDim)
	v = b.Reshape(v, n, a.KVHeads, a.HeadDimV)
	if a.QNorm != nil && !a.NormWhole {
		q = m.norm(b, q, a.QNorm, "Qcur_normed", l)
		k = m.norm(b, k, a.KNorm, "Kcur_normed", l)
	}
	if !a.NoRoPE {
		factors := m.ropeFactors(b, in)
		q = b.RoPE(q, in.Pos, a.RoPE, factors)
		k = b.RoPE(k, in.Pos, a.RoPE, factors)
	}
	q, k = b.Name(q, "Qcur", l), b.Name(k, "Kcur", l)
	if a.TempScale != 0 {
		q = b.Name(b.TempScale(q, in.Pos, a.TempScale, a.TempFloor), "Qcur_attn_temp_scaled", l)
	}
	p := accel.AttentionParams{Scale: m.HP.AttnScale, SoftCap: m.HP.AttnSoftCap, Window: a.Window}
	if m.QScale != 0 {
		q, p.Scale = b.Scale(q, m.QScale), 1
	}
	if a.Sinks != nil {
		p.Sinks = b.Weight(a.Sinks)
	}
	att := b.Name(in.attention(b, l, q, k, v, p), "kqv_out", l)
	return b.Name(proj(b, a.O, a.BO, att), "attn_out", l)
}

// gqaSpec says which optional tensors a GQA layer has.
type gqaSpec struct {
	fusedQKV bool // attn_qkv instead of attn_q, attn_k, attn_v
	qkNorm   bool // attn_q_norm, attn_k_norm (required)
	// qkNormWhole: attn_q_norm and attn_k_norm normalise the whole projections (olmo2; required)
	qkNormWhole bool
	sinks       bool // attn_sinks (required)
}

// loadGQA loads layer l's attention: the projections, their biases when present, and what spec asks for.
func loadGQA(ld *Loader, l int, spec gqaSpec) *GQA {
	hp := ld.HP
	if hp.KVHeadsL[l] == 0 {
		ld.fail(fmt.Errorf("layer %d: %s.attention.head_count_kv is 0: the layer has no attention", l, hp.Arch))
		return &GQA{}
	}
	a := &GQA{Heads: hp.HeadsL[l], KVHeads: hp.KVHeadsL[l], HeadDim: hp.HeadDim, HeadDimV: hp.HeadDimV,
		RoPE: hp.layerRoPE(l), Window: hp.layerWindow(l)}
	e, qd, kd, vd := hp.Embd, a.Heads*a.HeadDim, a.KVHeads*a.HeadDim, a.KVHeads*a.HeadDimV
	if spec.fusedQKV {
		a.QKV = ld.Tensor(blk(l, "attn_qkv"), qd+kd+vd, e)
	} else {
		a.Q, a.K, a.V = ld.Tensor(blk(l, "attn_q"), qd, e), ld.Tensor(blk(l, "attn_k"), kd, e), ld.Tensor(blk(l, "attn_v"), vd, e)
		a.BQ, a.BK, a.BV = ld.Optional(blkBias(l, "attn_q"), qd), ld.Optional(blkBias(l, "attn_k"), kd), ld.Optional(blkBias(l, "attn_v"), vd)
	}
	a.O = ld.Tensor(blk(l, "attn_output"), e, a.Heads*a.HeadDimV)
	a.BO = ld.Optional(blkBias(l, "attn_output"), e)
	if spec.qkNorm {
		a.QNorm, a.KNorm = ld.Tensor(blk(l, "attn_q_norm"), a.HeadDim), ld.Tensor(blk(l, "attn_k_norm"), a.HeadDim)
	}
	if spec.qkNormWhole {
		a.QNorm, a.KNorm, a.NormWhole = ld.Tensor(blk(l, "attn_q_norm"), qd), ld.Tensor(blk(l, "attn_k_norm"), kd), true
	}
	if spec.sinks {
		a.Sinks = ld.Tensor(blk(l, "attn_sinks"), a.Heads)
	}
	return a
}
