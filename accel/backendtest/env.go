package backendtest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// tb is what the cases need of their test (TB without Run).
type tb interface {
	Helper()
	Name() string
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
}

// env is one case's backend and random source.
type env struct {
	t          tb
	be         accel.Backend
	rng        *rand.Rand
	newBackend func() accel.Backend // another backend for the same test
	short      bool                 // fewer shapes (go test -short)
}

// newEnv makes a backend for t (closed when t ends) and a random source seeded from the test's name, so a
// failure reproduces.
func newEnv[T TB[T]](t T, newBackend func(t T) accel.Backend, short bool) *env {
	t.Helper()
	be := newBackend(t)
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return &env{t: t, be: be, rng: rand.New(rand.NewPCG(h.Sum64(), 1)), newBackend: func() accel.Backend { return newBackend(t) },
		short: short}
}

// normal returns n values ~ N(0, sd²).
func (e *env) normal(n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(e.rng.NormFloat64() * sd)
	}
	return v
}

// uniform returns n values in [lo, hi).
func (e *env) uniform(n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*e.rng.Float64())
	}
	return v
}

// weight uploads data of type typ.
func (e *env) weight(name string, typ accel.DType, shape []int, data []byte) accel.Weight {
	e.t.Helper()
	w, err := e.be.Upload(accel.WeightData{Name: name, Type: typ, Shape: shape, Data: data})
	if err != nil {
		e.t.Fatalf("Upload %s: %v", name, err)
	}
	return w
}

// f32Weight uploads float32 values as an F32 weight.
func (e *env) f32Weight(name string, shape []int, vals []float32) accel.Weight {
	data := make([]byte, 4*len(vals))
	quant.QuantizeF32(vals, data)
	return e.weight(name, quant.F32, shape, data)
}

// buffer makes a persistent buffer, closed when the test ends.
func (e *env) buffer(name string, typ accel.DType, shape ...int) accel.Buffer {
	e.t.Helper()
	b, err := e.be.NewBuffer(accel.TensorDesc{Name: name, Type: typ, Shape: shape})
	if err != nil {
		e.t.Fatalf("NewBuffer %s: %v", name, err)
	}
	e.t.Cleanup(func() { b.Close() })
	return b
}

// graph is a graph under construction with the input values to set before each run.
type graph struct {
	e   *env
	b   *accel.Builder
	f32 map[accel.Tensor][]float32
	i32 map[accel.Tensor][]int32
}

func (e *env) graph() *graph {
	return &graph{e: e, b: accel.NewBuilder(), f32: map[accel.Tensor][]float32{}, i32: map[accel.Tensor][]int32{}}
}

func (g *graph) inputF32(name string, vals []float32, shape ...int) accel.Tensor {
	t := g.b.Input(name, quant.F32, shape...)
	g.f32[t] = vals
	return t
}

// inputI32 declares an I32 input of the given shape ([len(vals)] when none is given).
func (g *graph) inputI32(name string, vals []int32, shape ...int) accel.Tensor {
	if len(shape) == 0 {
		shape = []int{len(vals)}
	}
	t := g.b.Input(name, quant.I32, shape...)
	g.i32[t] = vals
	return t
}

// program builds and compiles the graph and sets its inputs.
func (g *graph) program() accel.Program {
	t := g.e.t
	t.Helper()
	gr, err := g.b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	p, err := g.e.be.Compile(gr, accel.CompileOptions{})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	for in, v := range g.f32 {
		if err := p.SetFloat32(in, v); err != nil {
			t.Fatalf("SetFloat32: %v", err)
		}
	}
	for in, v := range g.i32 {
		if err := p.SetInt32(in, v); err != nil {
			t.Fatalf("SetInt32: %v", err)
		}
	}
	return p
}

// run compiles the graph, runs it once and returns the outputs' values.
func (g *graph) run(outs ...accel.Tensor) [][]float32 {
	g.e.t.Helper()
	for _, o := range outs {
		g.b.Output(o)
	}
	p := g.program()
	if err := p.Run(); err != nil {
		g.e.t.Fatalf("Run: %v", err)
	}
	return readAll(g.e.t, p, g.b, outs)
}

func readAll(t tb, p accel.Program, b *accel.Builder, outs []accel.Tensor) [][]float32 {
	t.Helper()
	res := make([][]float32, len(outs))
	for i, o := range outs {
		res[i] = make([]float32, accel.Elements(b.Shape(o)))
		if err := p.Read(o, res[i]); err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
	return res
}

// expect compares got with want: element i may differ by tol(i). It reports the worst elements.
func expect(t tb, what string, got []float32, want []float64, tol func(i int) float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var bad []string
	worst := 0.0
	for i := range want {
		d := math.Abs(float64(got[i]) - want[i])
		lim := tol(i)
		if !(d <= lim) { // also NaN
			if len(bad) < 5 {
				bad = append(bad, fmt.Sprintf("[%d] got %.9g want %.9g (diff %.3g > %.3g)", i, got[i], want[i], d, lim))
			}
			worst = math.Max(worst, d/lim)
			if math.IsNaN(d) {
				worst = math.Inf(1)
			}
		}
	}
	if os.Getenv("BACKENDTEST_MARGIN") != "" {
		r := 0.0
		for i := range want {
			if l := tol(i); l > 0 {
				r = math.Max(r, math.Abs(float64(got[i])-want[i])/l)
			}
		}
		t.Logf("MARGIN %.3f %s", r, what)
	}
	if bad != nil {
		t.Errorf("%s: values differ (worst %.3gx the tolerance):\n\t%s", what, worst, strings.Join(bad, "\n\t"))
	}
}

// exact is the tolerance of copies.
func exact(int) float64 { return 0 }

// relTol returns a tolerance of rel·|want| + abs.
func relTol(want []float64, rel, abs float64) func(int) float64 {
	return func(i int) float64 { return rel*math.Abs(want[i]) + abs }
}

func widen(v []float32) []float64 {
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = float64(x)
	}
	return w
}

func f16Round(x float32) float32 { return quant.F16ToF32(quant.F32ToF16(x)) }
