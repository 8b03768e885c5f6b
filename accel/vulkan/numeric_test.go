package vulkan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/libm"
)

func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// vexpfRef is ggml_v_expf in the reference build's AVX-512 form (the CPU backend's copy of it), the reference for
// the shaders'.
func vexpfRef(x float32) float32 {
	z := fma32(x, 0x1.715476p+0, 0x1.8p23)
	n := z - 0x1.8p23
	b := fma32(-n, 0x1.62e4p-1, x)
	b = fma32(-n, 0x1.7f7d1cp-20, b)
	u := b * b
	j := fma32(fma32(fma32(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma32(0x1.555e66p-3, b, 0x1.fffdb6p-2)), u, fma32(0x1.ffffecp-1, b, 1))
	if n != n {
		return n
	}
	if !(n <= 192 && n >= -192) {
		if n <= 0 {
			return 0
		}
		return float32(math.Inf(1))
	}
	return float32(math.Ldexp(float64(j), int(n)))
}

// TestNumerics runs numeric.glsl's functions on the device and compares every result bit for bit with Go:
// correctly rounded tanh, square root and division, GNU libc's cosf and sinf (internal/libm), ggml's
// exponential, F16 and BF16 rounding.
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
	// Cancelling fused multiply-adds: c = -(a·b) perturbed in its last bits.
	fmaA, fmaB, fmaC := gen(r.NormFloat64), gen(r.NormFloat64), make([]float32, n)
	for i := range fmaC {
		fmaC[i] = math.Float32frombits(math.Float32bits(-fmaA[i]*fmaB[i]) + uint32(r.IntN(5)) - 2)
	}
	cases := []struct {
		name    string
		fn      uint32
		a, b, c []float32
		ref     func(a, b, c float32) float32
	}{
		{"tanh", 0, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*4-3) }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Tanh(float64(a))) }},
		// Angles from 2^-13 to 10^6 of both signs: the polynomials alone, the short and the long reduction.
		{"cos", 1, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*10-4) }), nil, nil,
			func(a, _, _ float32) float32 { return libm.Cosf(a) }},
		{"sin", 2, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*10-4) }), nil, nil,
			func(a, _, _ float32) float32 { return libm.Sinf(a) }},
		// Down to e^-70: below about 1e-30 the exact product's low part would be subnormal, which GPUs flush,
		// and such terms vanish next to the 1 of a softmax or SiLU anyway.
		{"vexpf", 3, gen(func() float64 { return -r.Float64()*70 + 5*r.Float64() }), nil, nil, func(a, _, _ float32) float32 { return vexpfRef(a) }},
		{"expf", 9, gen(func() float64 { return r.Float64()*170 - 80 }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Exp(float64(a))) }},
		{"fma", 8, gen(r.NormFloat64), gen(r.NormFloat64), gen(r.NormFloat64), fma32},
		// c close to -a·b: cancellation, where a split fused multiply-add goes wrong most.
		{"fma-cancel", 8, fmaA, fmaB, fmaC, fma32},
		{"sqrt", 4, gen(func() float64 { return r.ExpFloat64() * 10 }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Sqrt(float64(a))) }},
		{"div", 5, gen(r.NormFloat64), gen(func() float64 { return r.NormFloat64() * 100 }), nil,
			func(a, b, _ float32) float32 { return a / b }},
		{"f16", 6, gen(func() float64 { return r.NormFloat64() * math.Pow(2, r.Float64()*40-25) }), nil, nil,
			func(a, _, _ float32) float32 { return float32(quant.F32ToF16(a)) }},
		{"bf16", 7, gen(func() float64 { return r.NormFloat64() * 1e3 }), nil, nil,
			func(a, _, _ float32) float32 { return quant.BF16ToF32(quant.F32ToBF16(a)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.b == nil {
				c.b = c.a
			}
			if c.c == nil {
				c.c = c.a
			}
			got := runNumeric(t, d, c.fn, c.a, c.b, c.c)
			bad := 0
			for i := range got {
				want := c.ref(c.a[i], c.b[i], c.c[i])
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

func runNumeric(t *testing.T, d *Device, fn uint32, a, b, c []float32) []float32 {
	t.Helper()
	bytesOf := func(v []float32) []byte {
		out := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
		return out
	}
	ab, bb := mustBuffer(t, d, "a", int64(4*len(a)), DeviceLocal), mustBuffer(t, d, "b", int64(4*len(b)), DeviceLocal)
	cb, yb := mustBuffer(t, d, "c", int64(4*len(c)), DeviceLocal), mustBuffer(t, d, "y", int64(4*len(a)), DeviceLocal)
	defer func() { ab.Close(); bb.Close(); cb.Close(); yb.Close() }()
	if err := d.Write(ab, 0, bytesOf(a)); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(bb, 0, bytesOf(b)); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(cb, 0, bytesOf(c)); err != nil {
		t.Fatal(err)
	}
	p, err := d.Pipeline(PipelineDesc{Name: "numeric_check", SPIRV: shader(t, "numeric_check"), Buffers: 4, PushSize: 4, Spec: []uint32{64, fn}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := mustCommands(t, d, CommandsOptions{Name: "numeric"})
	defer cmds.Close()
	record(t, cmds, func() {
		cmds.Dispatch(p, gpulower.Flat((len(a)+63)/64), PushUint32(uint32(len(a))), ab.All(), bb.All(), cb.All(), yb.All())
	})
	if err := cmds.Run(); err != nil {
		t.Fatal(err)
	}
	return readF32(t, d, yb)
}

// TestProbeFMA checks the backend's probe against the device's fma() on random arguments: the probe must say
// "fused" exactly when every one of them rounds once.
func TestProbeFMA(t *testing.T) {
	d := sharedDevice(t)
	fused, err := probeFMA(d)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 16))
	const n = 1 << 14
	a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i], c[i] = float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	got := runNumeric(t, d, 10, a, b, c)
	all := true
	for i := range got {
		all = all && got[i] == fma32(a[i], b[i], c[i])
	}
	if fused != all {
		t.Errorf("probe says fused %v, random arguments say %v", fused, all)
	}
	t.Logf("%s: fma() fused: %v", d.Info().Name, fused)
}
