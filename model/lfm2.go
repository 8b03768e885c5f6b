package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// lfm2 (LiquidAI LFM2): the layers whose head_count_kv is 0 are short convolutions, the others grouped-query
// attention with per-head q/k norms and NeoX RoPE; a SwiGLU FFN in every layer; the final norm is named
// token_embd_norm. A file with a sliding window uses it on every attention layer.
func init() { Register("lfm2", loadLFM2) }

func loadLFM2(ld *Loader) (Model, error) {
	hp, f := ld.HP, ld.File
	hp.RoPE.Mode = accel.RoPENeoX
	key := hp.Arch + ".shortconv.l_cache"
	taps, err := f.Int(key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	if taps < 2 || taps > maxConvTaps {
		return nil, fmt.Errorf("%s = %d: want 2 to %d taps", key, taps, maxConvTaps)
	}
	if causal, err := f.Bool(hp.Arch + ".attention.causal"); err == nil && !causal {
		return nil, fmt.Errorf("%s.attention.causal is false: bidirectional LFM2 (centred convolutions) is not supported", hp.Arch)
	}
	hp.RoPEBaseSWA, hp.RoPEScaleSWA = hp.RoPE.Base, hp.RoPE.FreqScale // llama.cpp's lfm2 rotates all alike
	for l := range hp.SWALayers {
		hp.SWALayers[l] = hp.Window > 0 && hp.KVHeadsL[l] > 0
	}
	m := loadTransformer(ld, layerSpec{outNorm: "token_embd_norm", attn: func(ld *Loader, l int) Attention {
		if hp.KVHeadsL[l] == 0 {
			return loadShortConv(ld, l, int(taps))
		}
		return loadGQA(ld, l, gqaSpec{qkNorm: true})
	}})
	return m, ld.Err()
}

// maxConvTaps bounds shortconv.l_cache, so that a corrupt file cannot ask for a huge kernel (LFM2's is 3).
const maxConvTaps = 64

// ShortConv is LFM2's short-convolution block in place of attention: in_proj splits into b, c and x; the
// causal depthwise convolution (Taps long) runs over b·x of the token and its sequence's previous Taps−1
// tokens, which the layer's cache keeps (KVShape.Conv); c gates the result before out_proj.
type ShortConv struct {
	In, Conv, Out accel.Weight // in_proj [3·embd, embd], conv [embd, taps] (F32), out_proj [embd, embd]
	Embd, Taps    int
}

func loadShortConv(ld *Loader, l, taps int) *ShortConv {
	e := ld.HP.Embd
	c := &ShortConv{Embd: e, Taps: taps}
	c.In = ld.Tensor(blk(l, "shortconv.in_proj"), 3*e, e)
	c.Conv = ld.Tensor(blk(l, "shortconv.conv"), e, taps)
	c.Out = ld.Tensor(blk(l, "shortconv.out_proj"), e, e)
	if c.Conv != nil && c.Conv.Desc().Type != accel.F32 {
		ld.fail(fmt.Errorf("tensor %q is %s: the convolution kernel must be f32, as llama.cpp's ggml_ssm_conv reads it",
			blk(l, "shortconv.conv"), c.Conv.Desc().Type))
	}
	return c
}

// KV is the convolution's state: its inputs b·x, one row per cell, of which a token reads its last Taps.
func (c *ShortConv) KV() KVShape {
	return KVShape{Heads: 1, KSize: c.Embd, VInK: true, Window: c.Taps, Conv: true}
}

// Forward is b, c, x = in_proj(x); y = c ⊙ conv(b ⊙ x); out_proj(y).
func (c *ShortConv) Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor, in Inputs) accel.Tensor {
	n, e := b.Shape(in.Tokens)[0], c.Embd
	bcx := b.Name(b.MatMul(b.Weight(c.In), x), "conv_in_proj", l)
	bx := b.Mul(b.Slice(bcx, 0, e), b.Slice(bcx, 2*e, e))
	cache := b.KVStore(in.KV[l].K, b.Reshape(bx, n, 1, e), in.slots(c.Taps))
	var conv accel.Tensor
	if in.Pages.Valid() {
		pages := in.Pages
		if in.SWAPages.Valid() {
			pages = in.SWAPages
		}
		conv = b.PagedShortConv(cache, b.Weight(c.Conv), in.Pos, in.Seq, pages, in.PageSize)
	} else {
		conv = b.ShortConv(cache, b.Weight(c.Conv), in.Pos)
	}
	y := b.Mul(b.Slice(bcx, e, e), b.Name(conv, "conv_conv", l))
	return b.Name(b.MatMul(b.Weight(c.Out), y), "conv_out_proj", l)
}
