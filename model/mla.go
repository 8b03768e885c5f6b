package model

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// MLA is multi-head latent attention (DeepSeek-V2/V3) in the form llama.cpp runs with a compressed cache:
// keys and values come from one low-rank row per token (KVRank elements, RMS-normed) plus Rope rotated
// dimensions shared by every head; each head's unrotated query is projected into that row's space by its
// slice of KB ("absorbed"), so attention is multi-query attention over cache rows of KVRank+Rope elements
// whose first KVRank are also the values, and each head's output is decompressed by its slice of VB. The cache
// keeps one KVRank+Rope row per token and layer instead of heads·(key + value) elements.
type MLA struct {
	Q              accel.Weight // [heads·(nope+rope), embd], or nil when q is compressed:
	QA, QANorm, QB accel.Weight // [qRank, embd], [qRank], [heads·(nope+rope), qRank]
	KVA            accel.Weight // attn_kv_a_mqa [kvRank+rope, embd]
	KVANorm        accel.Weight // [kvRank]
	KB             accel.Weight // attn_k_b [heads, kvRank, nope]
	VB             accel.Weight // attn_v_b [heads, vHead, kvRank]
	O              accel.Weight // [embd, heads·vHead]

	Heads, Nope, Rope, KVRank, VHead int
	RoPE                             accel.RoPEParams
	Scale                            float32 // of q·k
}

// KV is one compressed row per cell, the values being its first KVRank elements.
func (a *MLA) KV() KVShape {
	return KVShape{Heads: 1, KSize: a.KVRank + a.Rope, VSize: a.KVRank, VInK: true}
}

// Forward follows llama.cpp's deepseek2 graph with absorption.
func (a *MLA) Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor, in Inputs) accel.Tensor {
	n := b.Shape(in.Tokens)[0]
	var q accel.Tensor
	if a.Q != nil {
		q = b.MatMul(b.Weight(a.Q), x)
	} else {
		q = b.MatMul(b.Weight(a.QB), m.norm(b, b.MatMul(b.Weight(a.QA), x), a.QANorm, "q", l))
	}
	q = b.Reshape(q, n, a.Heads, a.Nope+a.Rope)
	kvpe := b.Name(b.MatMul(b.Weight(a.KVA), x), "kv_cmpr_pe", l)
	kv := m.norm(b, b.Slice(kvpe, 0, a.KVRank), a.KVANorm, "kv_cmpr", l)
	kpe := b.Name(b.RoPE(b.Reshape(b.Slice(kvpe, a.KVRank, a.Rope), n, 1, a.Rope), in.Pos, a.RoPE, accel.Tensor{}), "k_pe", l)
	qpe := b.Name(b.RoPE(b.Slice(q, a.Nope, a.Rope), in.Pos, a.RoPE, accel.Tensor{}), "q_pe", l)
	qabs := b.Name(b.MatMulID(b.Weight(a.KB), b.Slice(q, 0, a.Nope), accel.Tensor{}), "q_nope_absorbed", l)
	qc := b.Name(b.Concat(qabs, qpe), "Qcur", l)
	kc := b.Name(b.Concat(b.Reshape(kv, n, 1, a.KVRank), kpe), "Kcur", l)
	att := b.Name(in.attention(b, l, qc, kc, accel.Tensor{}, accel.AttentionParams{Scale: a.Scale, VSize: a.KVRank}), "kqv", l)
	out := b.MatMulID(b.Weight(a.VB), b.Reshape(att, n, a.Heads, a.KVRank), accel.Tensor{})
	out = b.Name(b.Reshape(out, n, a.Heads*a.VHead), "kqv_out", l)
	return b.Name(b.MatMul(b.Weight(a.O), out), "attn_out", l)
}

// loadMLA loads layer l's latent attention. hp.MLA gives the ranks and per-head sizes; hp.RoPE.Dims is the
// rotated part.
func loadMLA(ld *Loader, l int, scale float32) *MLA {
	hp := ld.HP
	mp := &hp.MLA
	a := &MLA{Heads: hp.HeadsL[l], Rope: hp.RoPE.Dims, KVRank: mp.KVLoraRank, VHead: mp.ValueLength, RoPE: hp.RoPE, Scale: scale}
	a.Nope = mp.KeyLength - a.Rope
	e, qd := hp.Embd, a.Heads*mp.KeyLength
	if mp.QLoraRank > 0 {
		a.QA = ld.Tensor(blk(l, "attn_q_a"), mp.QLoraRank, e)
		a.QANorm = ld.Tensor(blk(l, "attn_q_a_norm"), mp.QLoraRank)
		a.QB = ld.Tensor(blk(l, "attn_q_b"), qd, mp.QLoraRank)
	} else {
		a.Q = ld.Tensor(blk(l, "attn_q"), qd, e)
	}
	a.KVA = ld.Tensor(blk(l, "attn_kv_a_mqa"), a.KVRank+a.Rope, e)
	a.KVANorm = ld.Tensor(blk(l, "attn_kv_a_norm"), a.KVRank)
	a.KB = ld.Tensor(blk(l, "attn_k_b"), a.Heads, a.KVRank, a.Nope)
	a.VB = ld.Tensor(blk(l, "attn_v_b"), a.Heads, a.VHead, a.KVRank)
	a.O = ld.Tensor(blk(l, "attn_output"), e, a.Heads*a.VHead)
	return a
}

// mlaScale is deepseek2's q·k scale: 1/sqrt(key length) times the square of YaRN's magnitude scale with
// yarn_log_multiplier, computed in float32 from the RoPE attention factor as llama.cpp's graph does.
func mlaScale(hp *HParams) float32 {
	inv := 1 / hp.RoPE.FreqScale
	org := hp.RoPE.AttnFactor * onePlus(0.1, logf32(inv))
	mscale := org * onePlus(float32(0.1*hp.MLA.YaRNLogMul), logf32(inv))
	return float32(float32(1*mscale)*mscale) / float32(math.Sqrt(float64(hp.MLA.KeyLength)))
}
