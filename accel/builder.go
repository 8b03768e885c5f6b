package accel

import (
	"fmt"
	"slices"
)

// Builder builds a Graph. Every op checks its operands' types and shapes; the first failure is kept and
// returned by Build, naming the offending node, so a model's Forward reads as plain math without an error check
// per op. Ops given an operand that already failed produce failed results silently.
type Builder struct {
	g       Graph
	err     error
	errNode int
	errMsg  string
	weights map[Weight]Tensor
	buffers map[Buffer]Tensor
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{errNode: -1, weights: map[Weight]Tensor{}, buffers: map[Buffer]Tensor{}}
}

// Build returns the graph, or the first error any op reported.
func (b *Builder) Build() (*Graph, error) {
	if b.errNode >= 0 {
		return nil, fmt.Errorf("accel: node %s: %s", b.g.Nodes[b.errNode].Label(b.errNode), b.errMsg)
	}
	if b.err != nil {
		return nil, b.err
	}
	g := b.g
	return &g, nil
}

// Err returns the first error so far, or nil.
func (b *Builder) Err() error {
	if b.errNode >= 0 {
		_, err := b.Build()
		return err
	}
	return b.err
}

func (b *Builder) add(n Node) Tensor {
	if n.Layer == 0 && n.Name == "" {
		n.Layer = -1
	}
	b.g.Nodes = append(b.g.Nodes, n)
	return Tensor{int32(len(b.g.Nodes))}
}

func (b *Builder) node(t Tensor) *Node {
	if t.id <= 0 || int(t.id) > len(b.g.Nodes) {
		return nil
	}
	return &b.g.Nodes[t.id-1]
}

// op appends a node computing op over args. It returns ok=false (and a failed node) when an operand is invalid
// or failed; check reports a shape or type problem on the new node.
func (b *Builder) op(op Op, args ...Tensor) (Tensor, *Node, bool) {
	ok := true
	for _, a := range args {
		n := b.node(a)
		if n == nil {
			if b.err == nil && b.errNode < 0 {
				b.err = fmt.Errorf("accel: %s given an invalid tensor", op)
			}
			ok = false
		} else if n.Shape == nil {
			ok = false
		}
	}
	t := b.add(Node{Op: op, Type: F32, Args: args, Layer: -1})
	return t, b.node(t), ok
}

// fail records a problem with node t (the first one wins) and marks it failed.
func (b *Builder) fail(t Tensor, format string, args ...any) Tensor {
	n := b.node(t)
	n.Shape = nil
	if b.errNode < 0 && b.err == nil {
		b.errNode, b.errMsg = t.ID(), fmt.Sprintf(format, args...)
	}
	return t
}

// Name sets the name and layer (-1 for none) of t, as llama.cpp's cb(cur, name, il), and returns t.
func (b *Builder) Name(t Tensor, name string, layer int) Tensor {
	if n := b.node(t); n != nil {
		n.Name, n.Layer = name, layer
	}
	return t
}

// Output marks t to be read back after a run and returns it.
func (b *Builder) Output(t Tensor) Tensor {
	if n := b.node(t); n != nil {
		n.Output = true
	}
	return t
}

// Shape returns t's shape (nil if it failed). The slice must not be modified.
func (b *Builder) Shape(t Tensor) []int {
	if n := b.node(t); n != nil {
		return n.Shape
	}
	return nil
}

// Type returns t's element type (F32 for an invalid tensor).
func (b *Builder) Type(t Tensor) DType { return b.typeOf(t) }

// Input declares data the host sets before each run: I32 (token ids, positions) or F32.
func (b *Builder) Input(name string, dt DType, shape ...int) Tensor {
	t := b.add(Node{Op: OpInput, Type: dt, Shape: slices.Clone(shape), Name: name, Layer: -1})
	if dt != I32 && dt != F32 {
		return b.fail(t, "inputs are I32 or F32, not %s", dt)
	}
	if !validShape(shape) {
		return b.fail(t, "bad shape %v", shape)
	}
	return t
}

// Weight makes an uploaded weight usable in the graph. Using the same weight twice gives the same tensor.
func (b *Builder) Weight(w Weight) Tensor {
	if t, ok := b.weights[w]; ok {
		return t
	}
	d := w.Desc()
	t := b.add(Node{Op: OpWeight, Type: d.Type, Shape: slices.Clone(d.Shape), Weight: w, Name: d.Name, Layer: -1})
	b.weights[w] = t
	return t
}

// Buffer makes a persistent backend buffer (a KV cache) usable in the graph.
func (b *Builder) Buffer(buf Buffer) Tensor {
	if t, ok := b.buffers[buf]; ok {
		return t
	}
	d := buf.Desc()
	t := b.add(Node{Op: OpBuffer, Type: d.Type, Shape: slices.Clone(d.Shape), Buffer: buf, Name: d.Name, Layer: -1})
	b.buffers[buf] = t
	return t
}

func validShape(s []int) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for _, d := range s {
		if d <= 0 {
			return false
		}
	}
	return true
}

func (b *Builder) shapeOf(t Tensor) []int { return b.node(t).Shape }
func (b *Builder) typeOf(t Tensor) DType  { return b.node(t).Type }
