package gpulower

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// testWeight is an accel.Weight that only describes itself.
type testWeight struct{ d accel.TensorDesc }

func (w testWeight) Desc() accel.TensorDesc { return w.d }

// lowerMatMul lowers y = x·Wᵀ for a Q8_0 weight of out rows of cols, split into parts of the given element
// counts, and n rows of x, with buffers named by strings.
func lowerMatMul(t *testing.T, n, out, cols int, partElems ...int) ([]Dispatch[string], error) {
	t.Helper()
	b := accel.NewBuilder()
	d := accel.TensorDesc{Name: "w", Type: quant.Q8_0, Shape: []int{out, cols}}
	w := b.Weight(&testWeight{d})
	x := b.Input("x", accel.F32, n, cols)
	b.Output(b.MatMul(w, x))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := accel.NewPlan(g, 256)
	if err != nil {
		t.Fatal(err)
	}
	lay := layout.Lookup(quant.Q8_0)
	wt := &Weight[string]{Tensor: d, Lay: lay}
	first := int64(0)
	for k, e := range partElems {
		wt.Parts = append(wt.Parts, Part[string]{Buf: "w" + string(rune('0'+k)), First: first, N: int64(e)})
		first += int64(e)
	}
	places := make([]Place[string], len(g.Nodes))
	for i := range g.Nodes {
		switch loc := plan.Loc[i]; loc.Kind {
		case accel.LocScratch:
			places[i] = Place[string]{Buf: "arena", Off: loc.Offset}
		case accel.LocWeight:
			places[i] = Place[string]{W: wt}
		}
	}
	ws := PlanWorkspace(g, plan, 256)
	l := New(Config[string]{Name: "test", Graph: g, Plan: plan, Places: places, Shadows: make([][]int32, len(g.Nodes)), Align: 256,
		Work: ws, WorkBuf: "arena", WorkBase: alignUp(plan.Scratch, 256)})
	var all []Dispatch[string]
	for s := range plan.Order {
		ds, err := l.Step(s)
		if err != nil {
			return nil, err
		}
		all = append(all, ds...)
	}
	return all, nil
}

func words(p []byte) []uint32 {
	w := make([]uint32, len(p)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(p[4*i:])
	}
	return w
}

// TestMatMulLowering checks a Q8_0 product's dispatches against the shaders' contract: activations converted
// first, then a mat-vec (few rows) or tiles (many) per weight part, each part's rows written at their offset.
func TestMatMulLowering(t *testing.T) {
	const cols = 64
	// Rows of two Q8_0 blocks: 8 invocations a row (matvec_q's least), 16 rows a workgroup of 128; tiles of 32
	// rows by 16 activation rows.
	cases := []struct {
		n, out int
		parts  []int
		kernel string
		groups [][3]uint32
	}{
		{n: 1, out: 96, parts: []int{96}, kernel: "matvec_q8_0", groups: [][3]uint32{{6, 1, 1}}},
		{n: 40, out: 96, parts: []int{96}, kernel: "matmul_q8_0", groups: [][3]uint32{{3, 3, 1}}},
		{n: 1, out: 96, parts: []int{64, 32}, kernel: "matvec_q8_0", groups: [][3]uint32{{4, 1, 1}, {2, 1, 1}}},
	}
	for _, c := range cases {
		var elems []int
		for _, r := range c.parts {
			elems = append(elems, r*cols)
		}
		ds, err := lowerMatMul(t, c.n, c.out, cols, elems...)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1+len(c.parts) || !strings.HasPrefix(ds[0].Kernel, "quantize") {
			t.Fatalf("n=%d parts %v: %d dispatches, first %q; want a conversion, then one per part", c.n, c.parts, len(ds), ds[0].Kernel)
		}
		r0 := 0
		for k, d := range ds[1:] {
			pc := words(d.Push)
			if d.Kernel != c.kernel || d.Groups != c.groups[k] {
				t.Errorf("n=%d parts %v: dispatch %d is %s over %v, want %s over %v", c.n, c.parts, k, d.Kernel, d.Groups, c.kernel, c.groups[k])
			}
			// push: rows, blocks per row, activation rows, w_off, x_off, y_off (+ the part's first row), y stride.
			if pc[0] != uint32(c.parts[k]) || pc[1] != cols/32 || pc[2] != uint32(c.n) || pc[3] != 0 || pc[5] != uint32(r0) || pc[6] != uint32(c.out) {
				t.Errorf("n=%d parts %v: dispatch %d push %v", c.n, c.parts, k, pc)
			}
			wb, y := d.Bindings[0], d.Bindings[2]
			if wb.Buf != "w"+string(rune('0'+k)) || !wb.Const || !wb.ToEnd || wb.Write || !y.Write || y.Buf != "arena" {
				t.Errorf("n=%d parts %v: dispatch %d bindings %+v", c.n, c.parts, k, d.Bindings)
			}
			form := layout.Form(quant.Q8_0, c.out)
			if len(d.Spec) != 1 || d.Spec[0] != form {
				t.Errorf("n=%d: spec %v", c.n, d.Spec)
			}
			if got, want := d.Constants(true), [NumSpec]uint32{d.WG, form, 0, 0, 0, 0, 0, 1}; got != want || d.WG != 128 {
				t.Errorf("n=%d: constants %v, want %v with a workgroup of 128", c.n, got, want)
			}
			r0 += c.parts[k]
		}
	}
}

// TestMatMulLoweringErrors checks that a weight whose split parts cut a row is refused with an error naming it.
func TestMatMulLoweringErrors(t *testing.T) {
	_, err := lowerMatMul(t, 1, 96, 64, 64*64+32, 32*64-32)
	if err == nil || !strings.Contains(err.Error(), `weight "w" with rows of 64 crosses the boundary of its split parts`) {
		t.Fatalf("got %v, want the crossing refused", err)
	}
}
