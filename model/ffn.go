package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// FFN is a block's feed-forward part, applied to the normed input x of layer l. An architecture chooses one
// per layer at load: Dense, or MoE (with or without shared experts).
type FFN interface {
	Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor) accel.Tensor
}

// Activation is the gated activation of a feed-forward network.
type Activation uint8

const (
	SwiGLU    Activation = iota // silu(gate) ⊙ up
	GeGLU                       // gelu(gate) ⊙ up
	SwiGLUOAI                   // gpt-oss: gate and up clamped, gate·σ(1.702·gate)·(up + 1)
)

// gpt-oss's SwiGLU constants (llama.cpp's LLM_FFN_SWIGLU_OAI_MOE).
const (
	oaiAlpha = 1.702
	oaiLimit = 7.0
)

// activate applies act to gate and up.
func activate(b *accel.Builder, act Activation, gate, up accel.Tensor) accel.Tensor {
	switch act {
	case GeGLU:
		return b.GeGLU(gate, up)
	case SwiGLUOAI:
		return b.SwiGLUOAI(gate, up, oaiAlpha, oaiLimit)
	}
	return b.SwiGLU(gate, up)
}

// Dense is the gated feed-forward network: down(act(gate·x) ⊙ up·x). Gate is nil when gate and up are fused
// into Up ([2·FF, embd], phi3).
type Dense struct {
	Gate, Up, Down accel.Weight
	FF             int
	Act            Activation
}

// Forward is down(act(gate(x), up(x))).
func (f *Dense) Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor) accel.Tensor {
	var gate, up accel.Tensor
	if f.Gate == nil {
		gu := b.MatMul(b.Weight(f.Up), x)
		gate, up = b.Slice(gu, 0, f.FF), b.Slice(gu, f.FF, f.FF)
	} else {
		gate, up = b.MatMul(b.Weight(f.Gate), x), b.MatMul(b.Weight(f.Up), x)
	}
	return b.Name(b.MatMul(b.Weight(f.Down), activate(b, f.Act, gate, up)), "ffn_out", l)
}

// loadDense loads a dense FFN of ff hidden units from the tensors named prefix_gate, prefix_up and prefix_down
// ("ffn" for a layer's own, "ffn_..._shexp" style names through infix).
func loadDense(ld *Loader, l, ff int, fused bool, act Activation, suffix string) *Dense {
	e := ld.HP.Embd
	f := &Dense{FF: ff, Act: act}
	if fused {
		f.Up = ld.Tensor(blk(l, "ffn_up"+suffix), 2*ff, e)
	} else {
		f.Gate, f.Up = ld.Tensor(blk(l, "ffn_gate"+suffix), ff, e), ld.Tensor(blk(l, "ffn_up"+suffix), ff, e)
	}
	f.Down = ld.Tensor(blk(l, "ffn_down"+suffix), e, ff)
	return f
}

// MoE is a mixture of experts (llama.cpp's build_moe_ffn): a router scores every expert for each token, the
// Used best are chosen, and the token's output is the weighted sum of the chosen experts' gated FFNs, plus
// the output of shared experts every token goes through, if any. Each expert's matrices are one slice of 3-D
// weights ([experts, ff, embd] for gate and up, [experts, embd, ff] for down); only the chosen slices are read.
type MoE struct {
	Router     accel.Weight // ffn_gate_inp [experts, embd], usually F32
	RouterBias accel.Weight // ffn_gate_inp bias [experts] (gpt-oss), or nil
	// SelectBias [experts] is added to the probabilities for choosing only, not to the weights (DeepSeek V3's
	// exp_probs_b), or nil.
	SelectBias                 accel.Weight
	Gate, Up, Down             accel.Weight
	GateBias, UpBias, DownBias accel.Weight // [experts, ff] and [experts, embd] (gpt-oss), or nil
	Shared                     *Dense       // shared experts, or nil

	Used   int
	Gating Gating
	Norm   bool    // divide the chosen weights by their sum
	Scale  float32 // then scale them (0 or 1: not)
	Act    Activation
}

// moeNormLeast is the least divisor of the weights' normalisation: llama.cpp clamps the sum to F16's smallest
// normal number.
const moeNormLeast = 6.103515625e-5

// Forward is the mixture: route, choose, weigh, apply the chosen experts, mix, add the shared experts.
func (f *MoE) Forward(b *accel.Builder, m *Transformer, l int, x accel.Tensor) accel.Tensor {
	logits := b.Name(b.MatMul(b.Weight(f.Router), x), "ffn_moe_logits", l)
	if f.RouterBias != nil {
		logits = b.Add(logits, b.Weight(f.RouterBias))
	}
	probs := logits
	switch f.Gating {
	case GatingSoftmax:
		probs = b.Softmax(logits)
	case GatingSigmoid:
		probs = b.Sigmoid(logits)
	}
	selection := probs
	if f.SelectBias != nil {
		selection = b.Add(probs, b.Weight(f.SelectBias))
	}
	ids := b.Name(b.TopK(selection, f.Used), "ffn_moe_topk", l)
	w := b.Pick(probs, ids)
	if f.Gating == GatingSoftmaxWeight {
		w = b.Softmax(w)
	}
	if f.Norm {
		w = b.DivSum(w, moeNormLeast)
	}
	if f.Scale != 0 && f.Scale != 1 {
		w = b.Scale(w, f.Scale)
	}
	w = b.Name(w, "ffn_moe_weights", l)
	up := b.Name(addBias(b, b.MatMulID(b.Weight(f.Up), x, ids), f.UpBias, ids), "ffn_moe_up", l)
	gate := b.Name(addBias(b, b.MatMulID(b.Weight(f.Gate), x, ids), f.GateBias, ids), "ffn_moe_gate", l)
	h := activate(b, f.Act, gate, up)
	down := b.Name(addBias(b, b.MatMulID(b.Weight(f.Down), h, ids), f.DownBias, ids), "ffn_moe_down", l)
	out := b.Name(b.WeightedSum(down, w), "ffn_moe_out", l)
	if f.Shared != nil {
		out = b.Add(out, b.Name(f.Shared.Forward(b, m, l, x), "ffn_shexp", l))
	}
	return b.Name(out, "ffn_out", l)
}

// addBias adds the chosen experts' bias rows, if the experts have biases.
func addBias(b *accel.Builder, x accel.Tensor, bias accel.Weight, ids accel.Tensor) accel.Tensor {
	if bias == nil {
		return x
	}
	return b.AddID(x, b.Weight(bias), ids)
}

// moeSpec says how an architecture's mixture of experts is built.
type moeSpec struct {
	gating       Gating
	norm         bool // divide the chosen weights by their sum (else the file's expert_weights_norm)
	act          Activation
	biases       bool // router and expert biases (gpt-oss)
	selectBias   bool // exp_probs_b (optional)
	sharedSuffix bool // shared experts ffn_{gate,up,down}_shexp, sized SharedFF
}

// loadMoE loads layer l's mixture of experts.
func loadMoE(ld *Loader, l int, spec moeSpec) *MoE {
	hp := ld.HP
	mp := &hp.MoE
	e, n, ff := hp.Embd, mp.Experts, mp.FF
	f := &MoE{Used: mp.Used, Gating: spec.gating, Norm: spec.norm || mp.Norm, Scale: mp.Scale, Act: spec.act}
	f.Router = ld.Tensor(blk(l, "ffn_gate_inp"), n, e)
	f.Gate = ld.Tensor(blk(l, "ffn_gate_exps"), n, ff, e)
	f.Up = ld.Tensor(blk(l, "ffn_up_exps"), n, ff, e)
	f.Down = ld.Tensor(blk(l, "ffn_down_exps"), n, e, ff)
	if spec.biases {
		f.RouterBias = ld.Tensor(blkBias(l, "ffn_gate_inp"), n)
		f.GateBias = ld.Tensor(blkBias(l, "ffn_gate_exps"), n, ff)
		f.UpBias = ld.Tensor(blkBias(l, "ffn_up_exps"), n, ff)
		f.DownBias = ld.Tensor(blkBias(l, "ffn_down_exps"), n, e)
	}
	if spec.selectBias {
		f.SelectBias = ld.Optional(fmt.Sprintf("blk.%d.exp_probs_b.bias", l), n)
	}
	if spec.sharedSuffix && mp.Shared > 0 {
		sff := mp.SharedFF
		if sff == 0 {
			sff = ff * mp.Shared
		}
		f.Shared = loadDense(ld, l, sff, false, SwiGLU, "_shexp")
	}
	return f
}
