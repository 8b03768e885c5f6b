package vulkan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// vexpfRef is ggml_v_expf in Go (the CPU backend's copy of ggml's algorithm), the reference for the shaders'.
func vexpfRef(x float32) float32 {
	fma := func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
	z := fma(x, 0x1.715476p+0, 0x1.8p23)
	n := z - 0x1.8p23
	b := fma(-n, 0x1.62e4p-1, x)
	b = fma(-n, 0x1.7f7d1cp-20, b)
	e := math.Float32bits(z) << 23
	k := math.Float32frombits(e + 0x3f800000)
	u := b * b
	j := fma(fma(fma(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma(0x1.555e66p-3, b, 0x1.fffdb6p-2)), u, float32(0x1.ffffecp-1*b))
	an := float32(math.Abs(float64(n)))
	if !(an > 126) {
		return fma(k, j, k)
	}
	var g uint32
	if n <= 0 {
		g = 0x82000000
	}
	s1 := math.Float32frombits(g + 0x7f000000)
	if an > 192 {
		return s1 * s1
	}
	s2 := math.Float32frombits(e - g)
	return fma(s2, j, s2) * s1
}

// TestNumerics runs numeric.glsl's functions on the device and compares every result bit for bit with Go:
// correctly rounded tanh, cos, sin, square root and division, ggml's exponential, F16 and BF16 rounding.
// These are what make the shaders' results independent of the GPU's own (loosely specified) transcendentals.
func TestNumerics(t *testing.T) {
	d := sharedDevice(t)
	r := rand.New(rand.NewPCG(9, 10))
	const n = 1 << 16
	gen := func(f func() float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(f())
		}
		return v
	}
	cases := []struct {
		name string
		fn   uint32
		a, b []float32
		ref  func(a, b float32) float32
	}{
		{"tanh", 0, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*4-3) }), nil,
			func(a, _ float32) float32 { return float32(math.Tanh(float64(a))) }},
		{"cos", 1, gen(func() float64 { return r.Float64() * math.Pow(10, r.Float64()*6-1) }), nil,
			func(a, _ float32) float32 { return float32(math.Cos(float64(a))) }},
		{"sin", 2, gen(func() float64 { return r.Float64() * math.Pow(10, r.Float64()*6-1) }), nil,
			func(a, _ float32) float32 { return float32(math.Sin(float64(a))) }},
		// Down to e^-70: below about 1e-30 the exact product's low part would be subnormal, which GPUs flush,
		// and such terms vanish next to the 1 of a softmax or SiLU anyway.
		{"vexpf", 3, gen(func() float64 { return -r.Float64()*70 + 5*r.Float64() }), nil, func(a, _ float32) float32 { return vexpfRef(a) }},
		{"sqrt", 4, gen(func() float64 { return r.ExpFloat64() * 10 }), nil,
			func(a, _ float32) float32 { return float32(math.Sqrt(float64(a))) }},
		{"div", 5, gen(r.NormFloat64), gen(func() float64 { return r.NormFloat64() * 100 }),
			func(a, b float32) float32 { return a / b }},
		{"f16", 6, gen(func() float64 { return r.NormFloat64() * math.Pow(2, r.Float64()*40-25) }), nil,
			func(a, _ float32) float32 { return float32(quant.F32ToF16(a)) }},
		{"bf16", 7, gen(func() float64 { return r.NormFloat64() * 1e3 }), nil,
			func(a, _ float32) float32 { return quant.BF16ToF32(quant.F32ToBF16(a)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.b == nil {
				c.b = c.a
			}
			got := runNumeric(t, d, c.fn, c.a, c.b)
			bad := 0
			for i := range got {
				want := c.ref(c.a[i], c.b[i])
				if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] == 0 && want == 0) {
					if bad < 5 {
						t.Errorf("%s(%g, %g) = %g (%#x), want %g (%#x)", c.name, c.a[i], c.b[i], got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d results differ", bad, n)
			}
		})
	}
}

func runNumeric(t *testing.T, d *Device, fn uint32, a, b []float32) []float32 {
	t.Helper()
	bytesOf := func(v []float32) []byte {
		out := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
		return out
	}
	ab, bb := mustBuffer(t, d, "a", int64(4*len(a)), DeviceLocal), mustBuffer(t, d, "b", int64(4*len(b)), DeviceLocal)
	yb := mustBuffer(t, d, "y", int64(4*len(a)), DeviceLocal)
	defer func() { ab.Close(); bb.Close(); yb.Close() }()
	if err := d.Write(ab, 0, bytesOf(a)); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(bb, 0, bytesOf(b)); err != nil {
		t.Fatal(err)
	}
	p, err := d.Pipeline(PipelineDesc{Name: "numeric_check", SPIRV: shader(t, "numeric_check"), Buffers: 3, PushSize: 4, Spec: []uint32{64, fn}})
	if err != nil {
		t.Fatal(err)
	}
	c := mustCommands(t, d, CommandsOptions{Name: "numeric"})
	defer c.Close()
	record(t, c, func() { c.Dispatch(p, flat((len(a)+63)/64), PushUint32(uint32(len(a))), ab.All(), bb.All(), yb.All()) })
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return readF32(t, d, yb)
}
