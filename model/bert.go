package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// bert: BERT encoders (bge, all-MiniLM, BERT-style rerankers). The input is the sum of token, position and
// token-type embeddings (type 0, "sentence A"), layer-normed; each block is post-norm with biases throughout —
// x = norm(x + attn(x)), then x = norm(x + W₂·gelu(W₁·x)) — and a token's attention sees its whole sequence.
// A reranker adds a rank head over the first token: tanh(cls·x + b), then cls.output.
//
// nomic-bert (nomic-embed-text): the same blocks with a fused q/k/v projection, NeoX RoPE instead of position
// embeddings, and a SwiGLU FFN.
func init() {
	Register("bert", func(ld *Loader) (Model, error) { return loadEncoder(ld, false) })
	Register("nomic-bert", func(ld *Loader) (Model, error) { return loadEncoder(ld, true) })
}

// encoderLayer holds one post-norm block's weights; absent biases are nil.
type encoderLayer struct {
	Q, K, V, BQ, BK, BV accel.Weight
	QKV, BQKV           accel.Weight // fused [q; k; v] (nomic-bert), instead of Q, K, V
	O, BO               accel.Weight
	AttnNorm, AttnNormB accel.Weight // attn_output_norm: after the attention's residual
	Up, BUp, Gate       accel.Weight // Gate only with SwiGLU
	Down, BDown         accel.Weight
	OutNorm, OutNormB   accel.Weight // layer_output_norm: after the FFN's residual
}

// Encoder is a BERT-style encoder: the states it returns are pooled into embeddings (or ranked).
type Encoder struct {
	HP                *HParams
	Embd              accel.Weight // token_embd [vocab, embd]
	Pos               accel.Weight // position_embd [ctx, embd]; nil with RoPE
	Types             accel.Weight // token_types [types, embd], F32; row 0 is added to every token
	EmbNorm, EmbNormB accel.Weight
	Layers            []encoderLayer
	Cls, ClsB         accel.Weight // rank head: [embd, embd] and its bias (optional)
	ClsOut, ClsOutB   accel.Weight // [classes, embd] and its bias (optional)
	RoPE              bool         // rotate q and k by position (nomic-bert)
	SwiGLU            bool         // silu(gate)·up without biases (nomic-bert), else gelu(up + b)
	classes           int
}

func loadEncoder(ld *Loader, nomic bool) (Model, error) {
	hp := ld.HP
	e, kvd := hp.Embd, hp.KVHeads*hp.HeadDim
	if hp.HeadDim != hp.HeadDimV || hp.Heads*hp.HeadDim != e {
		return nil, fmt.Errorf("an encoder's heads (%d of %d, values %d) must span the embedding of %d", hp.Heads,
			hp.HeadDim, hp.HeadDimV, e)
	}
	hp.RoPE.Mode = accel.RoPENeoX
	hp.AttnScale = invSqrtf(hp.HeadDim)
	m := &Encoder{HP: hp, RoPE: nomic, SwiGLU: nomic, Layers: make([]encoderLayer, hp.Layers)}
	m.Embd = ld.Tensor("token_embd.weight", hp.Vocab, e)
	if ld.Has("token_types.weight") {
		t, err := ld.File.Tensor("token_types.weight")
		if err != nil || len(t.Dims) != 2 || t.Type != accel.F32 {
			return nil, fmt.Errorf("tensor \"token_types.weight\" must be an F32 matrix")
		}
		m.Types = ld.Tensor("token_types.weight", int(t.Dims[1]), e)
	}
	if !nomic {
		m.Pos = ld.Tensor("position_embd.weight", hp.CtxTrain, e)
	}
	m.EmbNorm, m.EmbNormB = ld.Tensor("token_embd_norm.weight", e), ld.Tensor("token_embd_norm.bias", e)
	for l := range m.Layers {
		ly := &m.Layers[l]
		if ld.Has(blk(l, "attn_qkv")) {
			ly.QKV, ly.BQKV = ld.Tensor(blk(l, "attn_qkv"), e+2*kvd, e), ld.Optional(blkBias(l, "attn_qkv"), e+2*kvd)
		} else {
			ly.Q, ly.K, ly.V = ld.Tensor(blk(l, "attn_q"), e, e), ld.Tensor(blk(l, "attn_k"), kvd, e), ld.Tensor(blk(l, "attn_v"), kvd, e)
			ly.BQ, ly.BK, ly.BV = ld.Optional(blkBias(l, "attn_q"), e), ld.Optional(blkBias(l, "attn_k"), kvd), ld.Optional(blkBias(l, "attn_v"), kvd)
		}
		ly.O, ly.BO = ld.Tensor(blk(l, "attn_output"), e, e), ld.Optional(blkBias(l, "attn_output"), e)
		ly.AttnNorm, ly.AttnNormB = ld.Tensor(blk(l, "attn_output_norm"), e), ld.Tensor(blkBias(l, "attn_output_norm"), e)
		ly.Up, ly.Down = ld.Tensor(blk(l, "ffn_up"), hp.FF, e), ld.Tensor(blk(l, "ffn_down"), e, hp.FF)
		if nomic {
			ly.Gate = ld.Tensor(blk(l, "ffn_gate"), hp.FF, e)
		} else {
			ly.BUp, ly.BDown = ld.Optional(blkBias(l, "ffn_up"), hp.FF), ld.Optional(blkBias(l, "ffn_down"), e)
		}
		ly.OutNorm, ly.OutNormB = ld.Tensor(blk(l, "layer_output_norm"), e), ld.Tensor(blkBias(l, "layer_output_norm"), e)
	}
	if !nomic {
		m.loadRankHead(ld)
	}
	return m, ld.Err()
}

// loadRankHead loads the classifier a reranker carries (cls, cls.output), each part optional as in llama.cpp.
func (m *Encoder) loadRankHead(ld *Loader) {
	e := m.HP.Embd
	m.Cls, m.ClsB = ld.Optional("cls.weight", e, e), ld.Optional("cls.bias", e)
	if t, err := ld.File.Tensor("cls.output.weight"); err == nil && len(t.Dims) == 2 {
		m.classes = int(t.Dims[1])
		m.ClsOut, m.ClsOutB = ld.Tensor("cls.output.weight", m.classes, e), ld.Optional("cls.output.bias", m.classes)
	} else if m.Cls != nil {
		m.classes = e
	}
}

// HParams returns the hyperparameters.
func (m *Encoder) HParams() *HParams { return m.HP }

// Embedding describes the encoder's output: its states, or with a rank head, relevance scores.
func (m *Encoder) Embedding() EmbedInfo {
	return EmbedInfo{Pooling: m.HP.Pooling, Encoder: true, Dims: m.HP.Embd, Classes: m.classes}
}

// Forward is Embed: an encoder has no vocabulary head, and the runtime does not generate with one.
func (m *Encoder) Forward(b *accel.Builder, in Inputs) accel.Tensor { return m.Embed(b, in, false) }

// Embed is the whole pass: embeddings, the blocks (the last keeping only the rows in.Out names, as llama.cpp
// does), and with rank, the rank head.
func (m *Encoder) Embed(b *accel.Builder, in Inputs, rank bool) accel.Tensor {
	x := b.GetRows(b.Weight(m.Embd), in.Tokens)
	if m.Types != nil {
		x = b.Add(x, b.Reshape(b.Rows(b.Weight(m.Types), 0, 1), m.HP.Embd))
	}
	if m.Pos != nil {
		x = b.Add(b.GetRows(b.Weight(m.Pos), in.Pos), x)
	}
	x = m.layerNorm(b, b.Name(x, "inp_embd", -1), m.EmbNorm, m.EmbNormB, "inp_norm", -1)
	for l := range m.Layers {
		x = m.block(b, l, x, in, l == len(m.Layers)-1)
	}
	x = b.Name(x, "result_embd", -1)
	if rank && m.classes > 0 {
		x = m.rankHead(b, x)
	}
	return x
}

// block is one post-norm layer; the last one keeps only the rows in.Out names.
func (m *Encoder) block(b *accel.Builder, l int, x accel.Tensor, in Inputs, last bool) accel.Tensor {
	ly := &m.Layers[l]
	h := m.attention(b, l, x, in)
	if last && in.Out.Valid() {
		h, x = b.GetRows(h, in.Out), b.GetRows(x, in.Out)
	}
	x = m.layerNorm(b, b.Add(h, x), ly.AttnNorm, ly.AttnNormB, "attn_out_norm", l)
	var f accel.Tensor
	if m.SwiGLU {
		f = b.SwiGLU(b.MatMul(b.Weight(ly.Gate), x), b.MatMul(b.Weight(ly.Up), x))
	} else {
		f = b.GELU(proj(b, ly.Up, ly.BUp, x))
	}
	f = b.Name(proj(b, ly.Down, ly.BDown, f), "ffn_out", l)
	return m.layerNorm(b, b.Add(f, x), ly.OutNorm, ly.OutNormB, "layer_out_norm", l)
}

// attention is the block's self-attention over the pass's cache, each token seeing the cells in.See names.
func (m *Encoder) attention(b *accel.Builder, l int, x accel.Tensor, in Inputs) accel.Tensor {
	hp, ly := m.HP, &m.Layers[l]
	n, e, kvd := b.Shape(in.Tokens)[0], hp.Embd, hp.KVHeads*hp.HeadDim
	var q, k, v accel.Tensor
	if ly.QKV != nil {
		qkv := proj(b, ly.QKV, ly.BQKV, x)
		q, k, v = b.Slice(qkv, 0, e), b.Slice(qkv, e, kvd), b.Slice(qkv, e+kvd, kvd)
	} else {
		q, k, v = proj(b, ly.Q, ly.BQ, x), proj(b, ly.K, ly.BK, x), proj(b, ly.V, ly.BV, x)
	}
	q = b.Reshape(q, n, hp.Heads, hp.HeadDim)
	k = b.Reshape(k, n, hp.KVHeads, hp.HeadDim)
	v = b.Reshape(v, n, hp.KVHeads, hp.HeadDimV)
	if m.RoPE {
		q = b.RoPE(q, in.Pos, hp.RoPE, accel.Tensor{})
		k = b.RoPE(k, in.Pos, hp.RoPE, accel.Tensor{})
	}
	a := in.attention(b, l, b.Name(q, "Qcur", l), b.Name(k, "Kcur", l), v, accel.AttentionParams{Scale: hp.AttnScale})
	return b.Name(proj(b, ly.O, ly.BO, b.Name(a, "kqv_out", l)), "attn_out", l)
}

// layerNorm is layer normalisation times a weight plus a bias.
func (m *Encoder) layerNorm(b *accel.Builder, x accel.Tensor, w, bias accel.Weight, name string, l int) accel.Tensor {
	return b.Name(b.Add(b.Mul(b.LayerNorm(x, m.HP.NormEps), b.Weight(w)), b.Weight(bias)), name, l)
}

// rankHead is llama.cpp's classification head: tanh(cls·x + b) where the model has cls, then cls.output·x + b.
func (m *Encoder) rankHead(b *accel.Builder, x accel.Tensor) accel.Tensor {
	if m.Cls != nil {
		x = b.SoftCap(proj(b, m.Cls, m.ClsB, x), 1) // 1·tanh(x/1)
	}
	if m.ClsOut != nil {
		x = proj(b, m.ClsOut, m.ClsOutB, x)
	}
	return b.Name(x, "result_embd_pooled", -1)
}
