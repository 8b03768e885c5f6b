package quant

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// allGemms lists the batched kernels of this CPU.
func allGemms() []*Gemm {
	var gs []*Gemm
	for o := Order(0); o < numOrders; o++ {
		for _, w := range dotWeightTypes {
			if g := GemmFor(w, o); g != nil {
				gs = append(gs, g)
				if g.packGroups > 1 { // Mul's groups and column tiles at their least: 2 groups, 4 columns
					tiled := *g
					tiled.packGroups, tiled.packBytes, tiled.tileBytes = 2, 1<<30, 1
					gs = append(gs, &tiled)
				}
			}
		}
	}
	return gs
}

// checkGemm multiplies rows×cols with the Gemm (its packed kernel and its vector kernel) and compares every
// output with the reference dot product bit for bit.
func checkGemm(t *testing.T, g *Gemm, n, rows, cols int, w, aRef []byte, what string) {
	t.Helper()
	wt := g.Weight()
	wRow, _ := wt.RowBytes(n)
	aRow, _ := ActivationType(wt).RowBytes(n)
	gRow := g.ActivationRowBytes(n)
	ga := make([]byte, cols*gRow)
	for c := 0; c < cols; c++ {
		g.fromRef(aRef[c*aRow:(c+1)*aRow], ga[c*gRow:(c+1)*gRow])
	}
	ref := RefDot(wt, g.Order())
	paths := []struct {
		name    string
		minCols int
	}{{"packed", 0}, {"vec", 1 << 30}}
	for _, p := range paths {
		if p.name == "vec" && g.vec == nil {
			continue
		}
		gp := *g
		gp.minCols = p.minCols
		outStride := rows + 3
		out := make([]float32, cols*outStride)
		for i := range out {
			out[i] = -7 // sentinel: what Mul must not touch
		}
		gp.Mul(n, unaligned(w, rows%5), wRow, rows, ga, gRow, cols, out, outStride, make([]byte, g.ScratchBytes(n)))
		for c := 0; c < cols; c++ {
			for r := 0; r < outStride; r++ {
				got := out[c*outStride+r]
				if r >= rows {
					if got != -7 {
						t.Fatalf("%s (%s): out[%d][%d] past the rows was written", what, p.name, c, r)
					}
					continue
				}
				want := ref(n, w[r*wRow:(r+1)*wRow], aRef[c*aRow:(c+1)*aRow])
				if !sameBits(got, want) {
					t.Fatalf("%s (%s), n=%d %dx%d: out[%d][%d] = %v, reference %v", what, p.name, n, rows, cols, c, r, got, want)
				}
			}
		}
	}
}

func TestGemmExact(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, g := range allGemms() {
		wt := g.Weight()
		t.Run(fmt.Sprintf("%s/%s", g.Order(), wt), func(t *testing.T) {
			be, at := wt.BlockElems(), ActivationType(wt)
			for _, shape := range [][3]int{{1, 1, 1}, {2, 8, 8}, {8, 5, 3}, {16, 13, 9}, {64, 16, 17}, {3, 40, 24}, {5, 33, 2}, {2, 17, 70}, {20, 16, 4}} {
				n, rows, cols := shape[0]*be, shape[1], shape[2]
				var w, a []byte
				for i := 0; i < rows; i++ {
					w = append(w, mustQuantizeB(wt, randRow(r, n))...)
				}
				for i := 0; i < cols; i++ {
					a = append(a, mustQuantizeA(at, randRow(r, n))...)
				}
				checkGemm(t, g, n, rows, cols, w, a, "quantized rows")
				// The Gemm's own activation quantizer must give the same data as QuantizeActivation.
				x := randRow(r, n)
				mine, want := make([]byte, g.ActivationRowBytes(n)), make([]byte, g.ActivationRowBytes(n))
				g.QuantizeActivation(x, mine)
				g.fromRef(mustQuantizeA(at, x), want)
				if string(mine) != string(want) {
					t.Fatalf("n=%d: Gemm.QuantizeActivation differs from QuantizeActivation(%s)", n, at)
				}
			}
			// Random bytes (every quant value, −128 included) with random finite scales.
			for trial := 0; trial < 20; trial++ {
				n, rows, cols := be*(1+r.IntN(9)), 1+r.IntN(40), 1+r.IntN(19)
				checkGemm(t, g, n, rows, cols, randScaled(r, wt, n*rows/be), randActivations(r, g, n*cols/be),
					fmt.Sprintf("random bytes %d", trial))
			}
		})
	}
}

// randActivations returns nb blocks of random bytes of g's activation type with random finite scales: every
// quant value, or for a Gemm whose kernels take −127…127 (act127), every one but −128.
func randActivations(r *rand.Rand, g *Gemm, nb int) []byte {
	at := ActivationType(g.Weight())
	if !g.act127 {
		return randScaled(r, at, nb)
	}
	return fillBlocks(r, at, nb, func(int) byte {
		if q := byte(r.Uint32()); q != 0x80 {
			return q
		}
		return 0x81
	})
}

func TestGemmBadShapes(t *testing.T) {
	for _, g := range allGemms() {
		wt := g.Weight()
		n := 2 * wt.BlockElems()
		wRow, _ := wt.RowBytes(n)
		aRow := g.ActivationRowBytes(n)
		mustPanic := func(what string, f func()) {
			t.Helper()
			defer func() {
				if recover() == nil {
					t.Errorf("%s %s: no panic", wt, what)
				}
			}()
			f()
		}
		for _, cols := range []int{2, 40} {
			w, a, out, s := make([]byte, 3*wRow), make([]byte, cols*aRow), make([]float32, 3*cols), make([]byte, g.ScratchBytes(n))
			g.Mul(n, w, wRow, 3, a, aRow, cols, out, 3, s) // fits exactly
			mustPanic("short weights", func() { g.Mul(n, w[:3*wRow-1], wRow, 3, a, aRow, cols, out, 3, s) })
			mustPanic("short activations", func() { g.Mul(n, w, wRow, 3, a[:cols*aRow-1], aRow, cols, out, 3, s) })
			mustPanic("short output", func() { g.Mul(n, w, wRow, 3, a, aRow, cols, out[:3*cols-1], 3, s) })
			mustPanic("short scratch", func() { g.Mul(n, w, wRow, 3, a, aRow, cols, out, 3, s[:len(s)-1]) })
			mustPanic("partial block", func() { g.Mul(n+1, w, wRow, 3, a, aRow, cols, out, 3, s) })
		}
	}
}

// BenchmarkGemm reports multiply-accumulates per second as bytes (1 "byte" = 1 MAC), for 64 weight rows
// against 512 activation rows, next to the same product through DotFunc and, where the Gemm has a stored
// layout, from a stored matrix.
func BenchmarkGemm(b *testing.B) {
	const n, rows, cols = 2048, 64, 512
	for _, g := range allGemms() {
		wt := g.Weight()
		r := rand.New(rand.NewPCG(1, 1))
		var w []byte
		x := randRow(r, n)
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, x)...)
		}
		wRow, _ := wt.RowBytes(n)
		out := make([]float32, rows*cols)
		b.Run(fmt.Sprintf("%s/%dx%dx%d/dot", benchName(wt), rows, n, cols), func(b *testing.B) {
			at := ActivationType(wt)
			aRow, _ := at.RowBytes(n)
			a := make([]byte, 0, cols*aRow)
			for i := 0; i < cols; i++ {
				a = append(a, mustQuantizeA(at, x)...)
			}
			dot := Dot(wt, g.Order())
			b.SetBytes(rows * n * cols)
			loopCPU(b, func() {
				for c := 0; c < cols; c++ {
					for i := 0; i < rows; i++ {
						out[c*rows+i] = dot(n, w[i*wRow:(i+1)*wRow], a[c*aRow:(c+1)*aRow])
					}
				}
			})
		})
		b.Run(fmt.Sprintf("%s/%dx%dx%d/gemm", benchName(wt), rows, n, cols), func(b *testing.B) {
			aRow := g.ActivationRowBytes(n)
			ga := make([]byte, cols*aRow)
			for c := 0; c < cols; c++ {
				g.QuantizeActivation(x, ga[c*aRow:])
			}
			scratch := make([]byte, g.ScratchBytes(n))
			b.SetBytes(rows * n * cols)
			loopCPU(b, func() {
				g.Mul(n, w, wRow, rows, ga, aRow, cols, out, rows, scratch)
			})
		})
		if g.storedBlock != 0 {
			b.Run(fmt.Sprintf("%s/%dx%dx%d/stored", benchName(wt), rows, n, cols), func(b *testing.B) {
				aRow := g.ActivationRowBytes(n)
				ga := make([]byte, cols*aRow)
				for c := 0; c < cols; c++ {
					g.QuantizeActivation(x, ga[c*aRow:])
				}
				packed := make([]byte, g.PackedBytes(n, rows))
				g.Pack(n, w, wRow, rows, packed)
				b.SetBytes(rows * n * cols)
				loopCPU(b, func() { g.MulPacked(n, packed, rows, ga, aRow, cols, out, rows) })
			})
		}
	}
}

func mustQuantizeB(t Type, x []float32) []byte {
	nb, _ := t.RowBytes(len(x))
	b := make([]byte, nb)
	if err := Quantize(t, x, b); err != nil {
		panic(err)
	}
	return b
}

func mustQuantizeA(t Type, x []float32) []byte {
	nb, _ := t.RowBytes(len(x))
	b := make([]byte, nb)
	if err := QuantizeActivation(t, x, b); err != nil {
		panic(err)
	}
	return b
}

// BenchmarkGemmPack reports the packing of one group of GemmRows rows of 2048 elements (bytes = weight
// bytes packed).
func BenchmarkGemmPack(b *testing.B) {
	const n = 2048
	for _, g := range allGemms() {
		if g.pack == nil { // multiplies the rows in place
			continue
		}
		wt := g.Weight()
		r := rand.New(rand.NewPCG(1, 1))
		var w []byte
		for i := 0; i < GemmRows; i++ {
			w = append(w, mustQuantizeB(wt, randRow(r, n))...)
		}
		wRow, _ := wt.RowBytes(n)
		scratch := make([]byte, g.ScratchBytes(n))
		b.Run(benchName(wt), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			loopCPU(b, func() { g.pack(n/wt.BlockElems(), w, wRow, GemmRows, scratch) })
		})
	}
}

// BenchmarkGemmSmall compares, for small batches, the dot-product loop with the Gemm's packed kernel, its
// vector kernel (Gemm.minCols picks between those two) and its kernels on the stored layout: 256 rows of 2048 against 1…32 activation rows, MACs
// per second as bytes.
func BenchmarkGemmSmall(b *testing.B) {
	const n, rows = 2048, 256
	for _, g := range allGemms() {
		wt := g.Weight()
		r := rand.New(rand.NewPCG(1, 1))
		x := randRow(r, n)
		var w []byte
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, x)...)
		}
		wRow, _ := wt.RowBytes(n)
		at := ActivationType(wt)
		aRow, _ := at.RowBytes(n)
		gRow := g.ActivationRowBytes(n)
		for _, cols := range []int{1, 2, 4, 8, 16, 32} {
			a, ga := make([]byte, cols*aRow), make([]byte, cols*gRow)
			for c := 0; c < cols; c++ {
				_ = QuantizeActivation(at, x, a[c*aRow:])
				g.QuantizeActivation(x, ga[c*gRow:])
			}
			out := make([]float32, rows*cols)
			dot := Dot(wt, g.Order())
			b.Run(fmt.Sprintf("%s/cols=%d/dot", benchName(wt), cols), func(b *testing.B) {
				b.SetBytes(int64(rows * n * cols))
				loopCPU(b, func() {
					for i := 0; i < rows; i++ {
						for c := 0; c < cols; c++ {
							out[c*rows+i] = dot(n, w[i*wRow:(i+1)*wRow], a[c*aRow:(c+1)*aRow])
						}
					}
				})
			})
			scratch := make([]byte, g.ScratchBytes(n))
			for _, path := range []struct {
				name    string
				minCols int
			}{{"packed", 0}, {"vec", 1 << 30}} {
				if path.name == "vec" && g.vec == nil {
					continue
				}
				gp := *g
				gp.minCols = path.minCols
				b.Run(fmt.Sprintf("%s/cols=%d/%s", benchName(wt), cols, path.name), func(b *testing.B) {
					b.SetBytes(int64(rows * n * cols))
					loopCPU(b, func() { gp.Mul(n, w, wRow, rows, ga, gRow, cols, out, rows, scratch) })
				})
			}
			if g.storedBlock != 0 {
				packed := make([]byte, g.PackedBytes(n, rows))
				g.Pack(n, w, wRow, rows, packed)
				b.Run(fmt.Sprintf("%s/cols=%d/stored", benchName(wt), cols), func(b *testing.B) {
					b.SetBytes(int64(rows * n * cols))
					loopCPU(b, func() { g.MulPacked(n, packed, rows, ga, gRow, cols, out, rows) })
				})
			}
		}
	}
}

// TestGemmPortablePack runs the Gemms with the portable packers and activation layouts, which SIMD ones
// replace on this CPU.
func TestGemmPortablePack(t *testing.T) {
	portable := map[Type]func(nb int, w []byte, wStride, rows int, dst []byte){Q4_0: packQ4_0, Q8_0: packQ8_0, Q4_K: packQ4_K,
		IQ4_XS: packIQ4_XSL, Q5_K: packQ5_Kx16, Q6_K: packQ6_Kx16}
	savedPack, savedLanes := packLane, q8kwLanes
	packLane, q8kwLanes = nil, nil
	defer func() { packLane, q8kwLanes = savedPack, savedLanes }()
	r := rand.New(rand.NewPCG(23, 24))
	for _, g := range allGemms() {
		wt := g.Weight()
		t.Run(fmt.Sprintf("%s/%s", g.Order(), wt), func(t *testing.T) {
			gp := *g
			if g.direct != nil {
				t.Skip("multiplies the rows in place: nothing to pack")
			}
			if g.storedBlock != 0 && reflect.ValueOf(g.pack).Pointer() == reflect.ValueOf(g.store).Pointer() {
				t.Skip("packs into its stored layout with the portable packer already")
			}
			if gp.pack = portable[wt]; gp.pack == nil {
				t.Fatalf("no portable packer listed for %s", wt)
			}
			be, at := wt.BlockElems(), ActivationType(wt)
			for trial := 0; trial < 10; trial++ {
				n, rows, cols := be*(1+r.IntN(9)), 1+r.IntN(40), 1+r.IntN(40)
				checkGemm(t, &gp, n, rows, cols, randScaled(r, wt, n*rows/be), randScaled(r, at, n*cols/be),
					fmt.Sprintf("random bytes %d", trial))
			}
		})
	}
}

// TestGemmAllocs: Mul allocates nothing, through the vector kernel (one activation row), packing or the
// kernels in place (17): a scratch array or a pointer argument passed through a func value escapes to the
// heap (mulBF16's sums and packQ4_KRow's scales once did, at every call).
func TestGemmAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const n, rows = 512, 20
	for _, g := range allGemms() {
		wt := g.Weight()
		var w []byte
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, randRow(r, n))...)
		}
		wRow, _ := wt.RowBytes(n)
		for _, cols := range []int{1, 17} {
			aRow := g.ActivationRowBytes(n)
			a := make([]byte, cols*aRow)
			for i := 0; i < cols; i++ {
				g.QuantizeActivation(randRow(r, n), a[i*aRow:])
			}
			out := make([]float32, cols*rows)
			scratch := make([]byte, g.ScratchBytes(n))
			if allocs := testing.AllocsPerRun(5, func() {
				g.Mul(n, w, wRow, rows, a, aRow, cols, out, rows, scratch)
			}); allocs != 0 {
				t.Errorf("%s/%s, %d columns: %v allocations a Mul", g.Order(), wt, cols, allocs)
			}
		}
	}
}
