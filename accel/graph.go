package accel

import (
	"fmt"
	"strings"

	"github.com/forma-llm/forma/gguf/quant"
)

// DType is an element type. Intermediates are F32, inputs I32, cache buffers F16 or F32, and weights any type
// of quant.Type.
type DType = quant.Type

// Element types used by graphs.
const (
	F32 = quant.F32
	F16 = quant.F16
	I32 = quant.I32
)

// Tensor is a handle to a node of the graph being built. The zero Tensor is invalid.
type Tensor struct{ id int32 }

// Valid reports whether t refers to a node.
func (t Tensor) Valid() bool { return t.id > 0 }

// ID is the node's index in Graph.Nodes.
func (t Tensor) ID() int { return int(t.id) - 1 }

// Node is one operation of a graph, with its result's type and shape. Shapes list dimensions outermost first:
// a [n, d] tensor is n rows of d contiguous elements. Weights are [out, in] (a GGUF tensor's Dims reversed).
type Node struct {
	Op    Op
	Type  DType
	Shape []int
	Args  []Tensor

	// Parameters, by op: F is the epsilon of the norms, the factor of OpScale, the cap of OpSoftCap, the least
	// divisor of OpDivSum and OpSwiGLUOAI's alpha (F2 its limit), OpTempScale's scale. I holds OpSlice's start
	// and count, OpRows's start and count, OpPermute's axes, OpTopK's k, OpTempScale's floor,
	// OpShortConv's page size (none: the single-sequence form).
	F, F2 float32
	I     []int
	RoPE  RoPEParams
	Attn  AttentionParams

	Weight Weight // OpWeight
	Buffer Buffer // OpBuffer

	Name   string // for debugging and dumps, as llama.cpp's cb(cur, name, il)
	Layer  int    // -1 when not in a layer
	Output bool   // read back by the host after a run
}

// Elements returns the number of elements of the node's result.
func (n *Node) Elements() int { return Elements(n.Shape) }

// Label names the node in messages: "#12 mat_mul attn_q.3 [4 256]".
func (n *Node) Label(id int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s", id, n.Op)
	if n.Name != "" {
		b.WriteString(" " + n.Name)
		if n.Layer >= 0 {
			fmt.Fprintf(&b, ".%d", n.Layer)
		}
	}
	fmt.Fprintf(&b, " %v", n.Shape)
	return b.String()
}

// Elements returns the product of dims.
func Elements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Graph is a finished computation: nodes in the order they were built (operands always come before their
// users). It is immutable; backends compile it into a Program.
type Graph struct {
	Nodes []Node
}

// Node returns the node t refers to.
func (g *Graph) Node(t Tensor) *Node { return &g.Nodes[t.ID()] }

// Output returns the node of t for a Program.Read of n values, or an error naming what is wrong: t is not a
// node of g, not an output, or has another number of values.
func (g *Graph) Output(t Tensor, n int) (*Node, error) {
	if !t.Valid() || t.ID() >= len(g.Nodes) {
		return nil, fmt.Errorf("tensor %d is not in the program's graph", t.ID())
	}
	nd := &g.Nodes[t.ID()]
	if !nd.Output {
		return nil, fmt.Errorf("node %s is not an output", nd.Label(t.ID()))
	}
	if n != nd.Elements() {
		return nil, fmt.Errorf("output %s has %d values, dst %d", nd.Label(t.ID()), nd.Elements(), n)
	}
	return nd, nil
}

// Outputs returns the tensors marked as outputs.
func (g *Graph) Outputs() []Tensor {
	var out []Tensor
	for i := range g.Nodes {
		if g.Nodes[i].Output {
			out = append(out, Tensor{int32(i + 1)})
		}
	}
	return out
}

// Inputs returns the input tensors.
func (g *Graph) Inputs() []Tensor {
	var out []Tensor
	for i := range g.Nodes {
		if g.Nodes[i].Op == OpInput {
			out = append(out, Tensor{int32(i + 1)})
		}
	}
	return out
}

// Find returns the tensor with the given name and layer (the last one, if several share them).
func (g *Graph) Find(name string, layer int) (Tensor, bool) {
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		if g.Nodes[i].Name == name && g.Nodes[i].Layer == layer {
			return Tensor{int32(i + 1)}, true
		}
	}
	return Tensor{}, false
}
