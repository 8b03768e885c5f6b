package quant

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/x448/float16"
)

const benchN = 4096 // elements per row

func benchName(t Type) string { return strings.ToLower(t.String()) }

// BenchmarkDequantize reports throughput in bytes of quantized input read.
func BenchmarkDequantize(b *testing.B) {
	x := randRow(rand.New(rand.NewPCG(1, 1)), benchN)
	dst := make([]float32, benchN)
	for _, ty := range []Type{F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K, IQ4_NL, IQ4_XS, MXFP4} {
		nb, _ := ty.RowBytes(benchN)
		src := make([]byte, nb)
		if err := Quantize(ty, x, src); err != nil {
			b.Fatal(err)
		}
		b.Run(benchName(ty), func(b *testing.B) {
			b.SetBytes(int64(nb))
			for b.Loop() {
				_ = Dequantize(ty, src, dst)
			}
		})
	}
}

// BenchmarkQuantize reports throughput in bytes of float32 input read.
func BenchmarkQuantize(b *testing.B) {
	x := randRow(rand.New(rand.NewPCG(1, 1)), benchN)
	for _, ty := range []Type{F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4} {
		nb, _ := ty.RowBytes(benchN)
		dst := make([]byte, nb)
		b.Run(benchName(ty), func(b *testing.B) {
			b.SetBytes(4 * benchN)
			for b.Loop() {
				_ = Quantize(ty, x, dst)
			}
		})
	}
}

// BenchmarkQuantizeActivation reports throughput in bytes of float32 input read.
func BenchmarkQuantizeActivation(b *testing.B) {
	x := randRow(rand.New(rand.NewPCG(1, 1)), benchN)
	for _, ty := range []Type{F16, BF16, Q8_0, Q8_1, Q8_K} {
		nb, _ := ty.RowBytes(benchN)
		dst := make([]byte, nb)
		b.Run(benchName(ty), func(b *testing.B) {
			b.SetBytes(4 * benchN)
			for b.Loop() {
				_ = QuantizeActivation(ty, x, dst)
			}
		})
	}
}

// BenchmarkDot reports throughput in bytes of weight row read.
func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, ty := range dotWeightTypes {
		nb, _ := ty.RowBytes(benchN)
		w := make([]byte, nb)
		if err := Quantize(ty, randRow(r, benchN), w); err != nil {
			b.Fatal(err)
		}
		at := ActivationType(ty)
		anb, _ := at.RowBytes(benchN)
		a := make([]byte, anb)
		if err := QuantizeActivation(at, randRow(r, benchN), a); err != nil {
			b.Fatal(err)
		}
		f := DotFunc(ty)
		b.Run(benchName(ty), func(b *testing.B) {
			b.SetBytes(int64(nb))
			for b.Loop() {
				f(benchN, w, a)
			}
		})
	}
}

// BenchmarkF16ToF32 compares the 64K lookup table with converting arithmetically (x448/float16).
func BenchmarkF16ToF32(b *testing.B) {
	h := make([]uint16, 4096)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range h {
		h[i] = F32ToF16(float32(r.NormFloat64()) * 0.05)
	}
	out := make([]float32, len(h))
	b.Run("table", func(b *testing.B) {
		b.SetBytes(2 * int64(len(h)))
		for b.Loop() {
			for i, v := range h {
				out[i] = F16ToF32(v)
			}
		}
	})
	b.Run("x448", func(b *testing.B) {
		b.SetBytes(2 * int64(len(h)))
		for b.Loop() {
			for i, v := range h {
				out[i] = float16.Frombits(v).Float32()
			}
		}
	})
}

// BenchmarkF32ToF16 compares forma's rounding with x448/float16's.
func BenchmarkF32ToF16(b *testing.B) {
	x := randRow(rand.New(rand.NewPCG(4, 4)), 4096)
	out := make([]uint16, len(x))
	b.Run("forma", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			for i, v := range x {
				out[i] = F32ToF16(v)
			}
		}
	})
	b.Run("x448", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			for i, v := range x {
				out[i] = float16.Fromfloat32(v).Bits()
			}
		}
	})
}
