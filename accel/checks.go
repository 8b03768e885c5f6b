package accel

import (
	"fmt"
	"math"
	"sync"
)

// The checks and bookkeeping every backend does the same way.

// CheckShape validates a tensor shape of one to four positive dimensions and returns its element count.
func CheckShape(shape []int) (int64, error) {
	if len(shape) == 0 || len(shape) > 4 {
		return 0, fmt.Errorf("shape %v: want 1 to 4 dimensions", shape)
	}
	n := int64(1)
	for _, d := range shape {
		if d <= 0 || n > math.MaxInt64/int64(d) {
			return 0, fmt.Errorf("bad shape %v", shape)
		}
		n *= int64(d)
	}
	return n, nil
}

// CheckWeight validates a weight for Upload — a supported type, a valid shape, rows of whole blocks and data of
// exactly the rows' size — and returns its element count and the bytes of one row. Errors name the weight.
func CheckWeight(w WeightData, c Caps) (n int64, rowBytes int, err error) {
	if !c.SupportsWeight(w.Type) {
		return 0, 0, fmt.Errorf("%s: weight %q: type %s is not supported", c.Name, w.Name, w.Type)
	}
	if n, err = CheckShape(w.Shape); err != nil {
		return 0, 0, fmt.Errorf("%s: weight %q: %w", c.Name, w.Name, err)
	}
	cols := w.Shape[len(w.Shape)-1]
	if rowBytes, err = w.Type.RowBytes(cols); err != nil {
		return 0, 0, fmt.Errorf("%s: weight %q: %w", c.Name, w.Name, err)
	}
	if want := n / int64(cols) * int64(rowBytes); int64(len(w.Data)) != want {
		return 0, 0, fmt.Errorf("%s: weight %q: %d bytes of data, want %d for %s %v", c.Name, w.Name, len(w.Data), want, w.Type, w.Shape)
	}
	return n, rowBytes, nil
}

// CheckBuffer validates a buffer for NewBuffer (F16 or F32, a valid shape) and returns its element count.
func CheckBuffer(d TensorDesc, backend string) (int64, error) {
	if d.Type != F16 && d.Type != F32 {
		return 0, fmt.Errorf("%s: buffer %q: type %s, want F16 or F32", backend, d.Name, d.Type)
	}
	n, err := CheckShape(d.Shape)
	if err != nil {
		return 0, fmt.Errorf("%s: buffer %q: %w", backend, d.Name, err)
	}
	return n, nil
}

// Input returns the node of t for a Program's SetInt32/SetFloat32 of n values of type typ, or an error naming
// what is wrong: t is not a node of g, not an input, of another type or size.
func (g *Graph) Input(t Tensor, typ DType, n int) (*Node, error) {
	if !t.Valid() || t.ID() >= len(g.Nodes) {
		return nil, fmt.Errorf("tensor %d is not in the program's graph", t.ID())
	}
	nd := &g.Nodes[t.ID()]
	switch {
	case nd.Op != OpInput:
		return nil, fmt.Errorf("node %s is not an input", nd.Label(t.ID()))
	case nd.Type != typ:
		return nil, fmt.Errorf("input %s is %s, not %s", nd.Label(t.ID()), nd.Type, typ)
	case n != nd.Elements():
		return nil, fmt.Errorf("input %s takes %d values, got %d", nd.Label(t.ID()), nd.Elements(), n)
	}
	return nd, nil
}

// Lifetime is the open/closed state of a backend object (a buffer, a program), safe for concurrent use.
type Lifetime struct {
	mu     sync.Mutex
	closed bool
}

// Closed reports whether End was called.
func (l *Lifetime) Closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// End marks the object closed and reports whether it was open: the caller frees it then, exactly once.
func (l *Lifetime) End() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	was := !l.closed
	l.closed = true
	return was
}
