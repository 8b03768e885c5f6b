package cpu

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// newStep makes the step computing node id.
func (p *program) newStep(id int) (step, error) {
	g := p.g
	nd := &g.Nodes[id]
	arg := func(k int) int { return nd.Args[k].ID() }
	switch nd.Op {
	case accel.OpMatMul:
		if w := &g.Nodes[arg(0)]; !matKernels[w.Type].ok() {
			return nil, fmt.Errorf("no matrix kernel for weight type %s", w.Type)
		}
		return newMatMul(g, id)
	case accel.OpGetRows:
		return newGetRows(g, id), nil
	case accel.OpAdd, accel.OpMul:
		return &binaryStep{op: nd.Op, aID: arg(0), bID: arg(1), yID: id}, nil
	case accel.OpScale, accel.OpSiLU, accel.OpGELU, accel.OpSoftCap:
		return &unaryStep{op: nd.Op, xID: arg(0), yID: id, f: nd.F, gelu: p.b.gelu, cols: nd.Shape[len(nd.Shape)-1]}, nil
	case accel.OpSwiGLU, accel.OpGeGLU:
		return &gluStep{op: nd.Op, gID: arg(0), uID: arg(1), yID: id, gelu: p.b.gelu, cols: nd.Shape[len(nd.Shape)-1]}, nil
	case accel.OpRMSNorm, accel.OpLayerNorm, accel.OpSoftmax:
		return &rowStep{op: nd.Op, xID: arg(0), yID: id, cols: nd.Shape[len(nd.Shape)-1], eps: nd.F}, nil
	case accel.OpSlice:
		xs := g.Nodes[arg(0)].Shape
		return &sliceStep{xID: arg(0), yID: id, cols: xs[len(xs)-1], start: nd.I[0], count: nd.I[1]}, nil
	case accel.OpPermute:
		return newPermute(g, id), nil
	case accel.OpRoPE:
		return newRoPE(g, id), nil
	case accel.OpKVStore:
		return newKVStore(g, id), nil
	case accel.OpAttention:
		return newAttention(g, id), nil
	case accel.OpSigmoid:
		return &unaryStep{op: nd.Op, xID: arg(0), yID: id, cols: nd.Shape[len(nd.Shape)-1]}, nil
	case accel.OpTopK:
		return newTopK(g, id), nil
	case accel.OpPick:
		return newPick(g, id), nil
	case accel.OpDivSum:
		return &divSumStep{xID: arg(0), yID: id, cols: nd.Shape[len(nd.Shape)-1], least: nd.F}, nil
	case accel.OpMatMulID:
		return newMatMulID(g, id)
	case accel.OpAddID:
		return newAddID(g, id), nil
	case accel.OpSwiGLUOAI:
		return &gluStep{op: nd.Op, gID: arg(0), uID: arg(1), yID: id, alpha: nd.F, limit: nd.F2}, nil
	case accel.OpWeightedSum:
		return &weightedSumStep{xID: arg(0), wID: arg(1), yID: id, k: g.Nodes[arg(1)].Shape[1], d: nd.Shape[1]}, nil
	case accel.OpTempScale:
		return newTempScale(g, id), nil
	case accel.OpShortConv:
		return newShortConv(g, id), nil
	case accel.OpConcat:
		a, b := g.Nodes[arg(0)].Shape, g.Nodes[arg(1)].Shape
		return &concatStep{xID: arg(0), yID: arg(1), zID: id, a: a[len(a)-1], b: b[len(b)-1]}, nil
	}
	return nil, fmt.Errorf("op %s is not supported by the CPU backend", nd.Op)
}
