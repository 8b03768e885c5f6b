package quant

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// storedGemms lists the batched kernels of this CPU that have a stored layout, each also with its kernels
// replaced by the scalar reference of the layout, and the scalar reference alone (which every platform
// tests).
func storedGemms() []*Gemm {
	refs := map[Type]func(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int){
		Q4_0: mulQ4_0x16Ref, Q8_0: mulQ8_0x16Ref, Q4_K: mulQ4_Kx16Ref,
		Q5_K: mulQ5_Kx16Ref, Q6_K: mulQ6_Kx16Ref, MXFP4: mulMXFP4x16Ref, IQ4_XS: mulIQ4_XSx16Ref}
	gs := []*Gemm{{w: Q4_0, o: OrderRepacked, actBlock: q8sBlock, quantize: quantizeQ8S, fromRef: q8sFromQ8_0,
		storedBlock: q4xBlock, store: packQ4_0x16, storedMul: mulQ4_0x16Ref},
		{w: Q8_0, o: OrderVecDot, actBlock: q8gBlock, quantize: quantizeQ8G(128), fromRef: q8gFromQ8_0(128),
			storedBlock: q8xBlock, store: packQ8_0x16, storedMul: mulQ8_0x16Ref},
		{w: Q8_0, o: OrderVecDot, actBlock: q8sBlock, quantize: quantizeQ8S, fromRef: q8sFromQ8_0,
			storedBlock: q8xBlock, store: packQ8_0x16S, storedMul: mulQ8_0x16SRef},
		{w: Q4_K, o: OrderRepacked, actBlock: q8kwBlock, quantize: quantizeQ8KW, fromRef: q8kwFromQ8_K,
			storedBlock: k4xBlock, store: packQ4_Kx16, storedMul: mulQ4_Kx16Ref},
		{w: Q6_K, o: OrderVecDot, actBlock: 292, quantize: quantizeQ8K, fromRef: q8kFromQ8_K,
			storedBlock: k6xBlock, store: packQ6_Kx16, storedMul: mulQ6_Kx16Ref},
		{w: Q6_K, o: OrderVecDot, actBlock: 292, quantize: quantizeQ8K, fromRef: q8kFromQ8_K,
			storedBlock: k6xBlock, store: packQ6_Kx16A, storedMul: mulQ6_Kx16ARef},
		{w: Q5_K, o: OrderVecDot, actBlock: 292, quantize: quantizeQ8K, fromRef: q8kFromQ8_K,
			storedBlock: k5xBlock, store: packQ5_Kx16, storedMul: mulQ5_Kx16Ref},
		{w: MXFP4, o: OrderVecDot, actBlock: q8sBlock, quantize: quantizeQ8S, fromRef: q8sFromQ8_0,
			storedBlock: mxxBlock, store: packMXFP4x16, storedMul: mulMXFP4x16Ref},
		{w: IQ4_XS, o: OrderVecDot, actBlock: q8klBlock, quantize: quantizeQ8KL, fromRef: q8klFromQ8_K,
			storedBlock: ix4xBlock, store: packIQ4_XSx16, storedMul: mulIQ4_XSx16Ref}}
	for _, g := range allGemms() {
		if g.storedBlock != 0 {
			ref := *g
			ref.storedMul = refs[g.w]
			if g.w == Q8_0 && g.actBlock == q8sBlock { // the AVX2 layout, quants signed
				ref.storedMul = mulQ8_0x16SRef
			}
			if g.w == Q6_K && reflect.ValueOf(g.store).Pointer() == reflect.ValueOf(packQ6_Kx16A).Pointer() {
				ref.storedMul = mulQ6_Kx16ARef // the AVX2 layout, whole quants
			}
			gs = append(gs, g, &ref)
			if g.tileBytes != 0 { // MulPacked's column tiles, at their least (4 rows)
				tiled := *g
				tiled.tileBytes = 1
				gs = append(gs, &tiled)
			}
		}
	}
	return gs
}

// checkStored packs rows×n weights with the Gemm, multiplies them (all rows, and the rows from the second
// group on) with cols activation rows through MulPacked, and compares every output with the reference dot
// product bit for bit.
func checkStored(t *testing.T, g *Gemm, n, rows, cols int, w, aRef []byte, what string) {
	t.Helper()
	wt := g.Weight()
	wRow, _ := wt.RowBytes(n)
	aRow, _ := ActivationType(wt).RowBytes(n)
	gRow := g.ActivationRowBytes(n)
	ga := make([]byte, cols*gRow)
	for c := 0; c < cols; c++ {
		g.fromRef(aRef[c*aRow:(c+1)*aRow], ga[c*gRow:(c+1)*gRow])
	}
	packed := make([]byte, g.PackedBytes(n, rows))
	g.Pack(n, unaligned(w, rows%5), wRow, rows, packed)
	ref := RefDot(wt, g.Order())
	for _, r0 := range []int{0, GemmRows} {
		if r0 >= rows {
			continue
		}
		outStride := rows - r0 + 3
		out := make([]float32, cols*outStride)
		for i := range out {
			out[i] = -7 // sentinel: what MulPacked must not touch
		}
		g.MulPacked(n, packed[g.PackedBytes(n, r0):], rows-r0, ga, gRow, cols, out, outStride)
		for c := 0; c < cols; c++ {
			for r := 0; r < outStride; r++ {
				got := out[c*outStride+r]
				if r >= rows-r0 {
					if got != -7 {
						t.Fatalf("%s: out[%d][%d] past the rows was written", what, c, r)
					}
					continue
				}
				o := (r0 + r) * wRow
				want := ref(n, w[o:o+wRow], aRef[c*aRow:(c+1)*aRow])
				if !sameBits(got, want) {
					t.Fatalf("%s, n=%d %dx%d from row %d: out[%d][%d] = %v, reference %v", what, n, rows, cols, r0, c, r, got, want)
				}
			}
		}
	}
}

func TestGemmStoredExact(t *testing.T) {
	testGemmStoredExact(t, storedGemms())
}

// TestGemmStoredQ4_KOrders checks the scalar Q4_Kx16 reference and the portable packer with Q8_KW's quants in
// both orders (the one this CPU does not use included): the packer must follow q8kwPermute.
func TestGemmStoredQ4_KOrders(t *testing.T) {
	saved, savedLane := q8kwPermute, k4xLane
	defer func() { q8kwPermute, k4xLane = saved, savedLane }()
	k4xLane = nil // the portable quant loop
	for _, perm := range []bool{false, true} {
		q8kwPermute = perm
		t.Run(fmt.Sprint("permute=", perm), func(t *testing.T) {
			testGemmStoredExact(t, []*Gemm{{w: Q4_K, o: OrderRepacked, actBlock: q8kwBlock, quantize: quantizeQ8KW,
				fromRef: q8kwFromQ8_K, storedBlock: k4xBlock, store: packQ4_Kx16, storedMul: mulQ4_Kx16Ref}})
		})
	}
}

// TestPackQ4_Kx16Lane checks the CPU's lane packer (k4xLane) against the portable loop byte for byte, on
// random blocks and for every lane.
func TestPackQ4_Kx16Lane(t *testing.T) {
	if k4xLane == nil {
		t.Skip("no lane packer on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	saved := k4xLane
	defer func() { k4xLane = saved }()
	const nb, rows = 3, 13
	w := randScaled(r, Q4_K, nb*rows)
	got, want := make([]byte, nb*k4xBlock), make([]byte, nb*k4xBlock)
	for i := range got {
		got[i], want[i] = 0xaa, 0x55 // different backgrounds: equal only where both wrote every byte
	}
	packQ4_Kx16(nb, w, nb*144, rows, got)
	k4xLane = nil
	packQ4_Kx16(nb, w, nb*144, rows, want)
	if string(got) != string(want) {
		t.Fatal("the lane packer's stored blocks differ from the portable packer's")
	}
}

func testGemmStoredExact(t *testing.T, gs []*Gemm) {
	r := rand.New(rand.NewPCG(31, 32))
	for i, g := range gs {
		wt := g.Weight()
		t.Run(fmt.Sprintf("%d/%s/%s", i, g.Order(), wt), func(t *testing.T) {
			be, at := wt.BlockElems(), ActivationType(wt)
			for _, shape := range [][3]int{{1, 1, 1}, {2, 8, 8}, {8, 5, 3}, {16, 13, 9}, {64, 16, 17}, {3, 40, 24}, {5, 33, 2}, {2, 17, 70}, {7, 48, 16}} {
				n, rows, cols := shape[0]*be, shape[1], shape[2]
				var w, a []byte
				for i := 0; i < rows; i++ {
					w = append(w, mustQuantizeB(wt, randRow(r, n))...)
				}
				for i := 0; i < cols; i++ {
					a = append(a, mustQuantizeA(at, randRow(r, n))...)
				}
				checkStored(t, g, n, rows, cols, w, a, "quantized rows")
			}
			// Random bytes (every quant value) with random finite scales.
			for trial := 0; trial < 20; trial++ {
				n, rows, cols := be*(1+r.IntN(9)), 1+r.IntN(40), 1+r.IntN(19)
				checkStored(t, g, n, rows, cols, randScaled(r, wt, n*rows/be), randActivations(r, g, n*cols/be),
					fmt.Sprintf("random bytes %d", trial))
			}
		})
	}
}

// TestGemmStoredAllocs: MulPacked allocates nothing (a decode step runs it for every matrix), for one column
// and for more.
func TestGemmStoredAllocs(t *testing.T) { testGemmStoredAllocs(t) }

func testGemmStoredAllocs(t *testing.T) {
	for _, g := range allGemms() {
		if g.storedBlock == 0 {
			continue
		}
		wt := g.Weight()
		n, rows := 2*QKK, 2*GemmRows
		wRow, _ := wt.RowBytes(n)
		p := make([]byte, g.PackedBytes(n, rows))
		g.Pack(n, make([]byte, rows*wRow), wRow, rows, p)
		aRow := g.ActivationRowBytes(n)
		for _, cols := range []int{1, 4, 9} {
			a, out := make([]byte, cols*aRow), make([]float32, rows*cols)
			if k := testing.AllocsPerRun(5, func() { g.MulPacked(n, p, rows, a, aRow, cols, out, rows) }); k != 0 {
				t.Errorf("%v %v, %d columns: %v allocations a call", wt, g.Order(), cols, k)
			}
		}
	}
}

func TestGemmStoredBadShapes(t *testing.T) {
	for _, g := range storedGemms() {
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
		const rows = 19
		w, p := make([]byte, rows*wRow), make([]byte, g.PackedBytes(n, rows))
		g.Pack(n, w, wRow, rows, p) // fits exactly
		mustPanic("short weights", func() { g.Pack(n, w[:rows*wRow-1], wRow, rows, p) })
		mustPanic("short stored matrix", func() { g.Pack(n, w, wRow, rows, p[:len(p)-1]) })
		mustPanic("partial block", func() { g.Pack(n+1, w, wRow, rows, p) })
		for _, cols := range []int{2, 40} {
			a, out := make([]byte, cols*aRow), make([]float32, rows*cols)
			g.MulPacked(n, p, rows, a, aRow, cols, out, rows) // fits exactly
			mustPanic("short stored rows", func() { g.MulPacked(n, p[:len(p)-1], rows, a, aRow, cols, out, rows) })
			mustPanic("short activations", func() { g.MulPacked(n, p, rows, a[:cols*aRow-1], aRow, cols, out, rows) })
			mustPanic("short output", func() { g.MulPacked(n, p, rows, a, aRow, cols, out[:rows*cols-1], rows) })
			mustPanic("partial block", func() { g.MulPacked(n+1, p, rows, a, aRow, cols, out, rows) })
		}
	}
}

// BenchmarkGemmStored streams a matrix larger than the development machine's L3 (16384 rows of 4096: 37.7 MB
// of Q4_0) through the stored kernels and through Mul on the original rows, for 1 and 8 activation rows;
// bytes are weight bytes, to set beside the memory bandwidth of `go test -bench Stream ./internal/membw`.
func BenchmarkGemmStored(b *testing.B) {
	const n, rows = 4096, 16384
	for _, g := range allGemms() {
		if g.storedBlock == 0 {
			continue
		}
		wt := g.Weight()
		r := rand.New(rand.NewPCG(1, 1))
		wRow, _ := wt.RowBytes(n)
		w := randScaled(r, wt, rows*n/wt.BlockElems())
		packed := make([]byte, g.PackedBytes(n, rows))
		g.Pack(n, w, wRow, rows, packed)
		x := randRow(r, n)
		gRow := g.ActivationRowBytes(n)
		for _, cols := range []int{1, 8} {
			ga := make([]byte, cols*gRow)
			for c := 0; c < cols; c++ {
				g.QuantizeActivation(x, ga[c*gRow:])
			}
			out := make([]float32, rows*cols)
			scratch := make([]byte, g.ScratchBytes(n))
			b.Run(fmt.Sprintf("%s/cols=%d/mul", benchName(wt), cols), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				loopCPU(b, func() { g.Mul(n, w, wRow, rows, ga, gRow, cols, out, rows, scratch) })
			})
			b.Run(fmt.Sprintf("%s/cols=%d/stored", benchName(wt), cols), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				loopCPU(b, func() { g.MulPacked(n, packed, rows, ga, gRow, cols, out, rows) })
			})
		}
		b.Run(fmt.Sprintf("%s/pack", benchName(wt)), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			loopCPU(b, func() { g.Pack(n, w, wRow, rows, packed) })
		})
	}
}
