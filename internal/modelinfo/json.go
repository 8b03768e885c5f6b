package modelinfo

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/forma-llm/forma/gguf"
)

// maxJSONArray is the longest metadata array printed in full; longer ones (vocabularies) are summarized.
const maxJSONArray = 64

// Report is everything forma info --json prints.
type Report struct {
	*Info
	Memory   Memory         `json:"memory"`
	Metadata map[string]any `json:"metadata"`
	TensorsJ []TensorJSON   `json:"tensors"`
}

// TensorJSON is one tensor in a Report.
type TensorJSON struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Dims   []uint64 `json:"dims"`
	Offset uint64   `json:"offset"`
	Bytes  uint64   `json:"bytes"`
}

// ArraySummary stands for a metadata array too long to print.
type ArraySummary struct {
	Type  string `json:"type"` // "array"
	Elem  string `json:"elem"`
	Len   int    `json:"len"`
	First []any  `json:"first"` // the first few elements
}

// NewReport builds the report of an open model at context ctx (<= 0: the model's own).
func NewReport(f *gguf.File, in *Info, ctx int) (*Report, error) {
	r := &Report{Info: in, Memory: in.Estimate(ctx), Metadata: map[string]any{}}
	for _, kv := range f.KV {
		v, err := jsonValue(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", kv.Key, err)
		}
		r.Metadata[kv.Key] = v
	}
	for _, t := range in.Tensors {
		r.TensorsJ = append(r.TensorsJ, TensorJSON{Name: t.Name, Type: t.Type.String(), Dims: t.Dims,
			Offset: t.Offset, Bytes: t.Size})
	}
	return r, nil
}

func jsonValue(v gguf.Value) (any, error) {
	if elem, n, ok := v.ArrayType(); ok && n > maxJSONArray {
		all, err := v.Any()
		if err != nil {
			return nil, err
		}
		return ArraySummary{Type: "array", Elem: elem.String(), Len: n, First: finite(all.([]any)[:8])}, nil
	}
	a, err := v.Any()
	if err != nil {
		return nil, err
	}
	if l, ok := a.([]any); ok {
		return finite(l), nil
	}
	return finite([]any{a})[0], nil
}

// finite replaces NaN and infinities (which JSON cannot hold) by their names as strings, recursively.
func finite(xs []any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		switch y := x.(type) {
		case float64:
			if math.IsNaN(y) || math.IsInf(y, 0) {
				out[i] = fmt.Sprint(y)
				continue
			}
		case []any:
			out[i] = finite(y)
			continue
		}
		out[i] = x
	}
	return out
}

// WriteJSON prints the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
