//go:build (amd64 || arm64) && !noasm

package quant

// Go wrappers shared by the amd64 and arm64 assembly kernels: they check that the slices hold everything a
// kernel reads (so the assembly never reads past a slice; a short row panics here), run it on the whole blocks
// or steps it handles, and finish the remaining elements as the reference does.

// blockKernel is an assembly kernel over nb ≥ 1 blocks starting at w and a.
type blockKernel func(nb int, w, a *byte) float32

// blocks checks that both rows hold the nb = n/be whole blocks a kernel reads and runs k.
func blocks(k blockKernel, n, be, wb, ab int, w, a []byte) float32 {
	nb := n / be
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*wb-1], a[nb*ab-1]
	return k(nb, &w[0], &a[0])
}

// floatKernel is an assembly kernel over n float elements starting at w and a.
type floatKernel func(n int, w, a *byte) float32

// f32VecDot is DotF32F32 with k doing the whole steps of 64; the rest continue the sum here.
func f32VecDot(k floatKernel) DotFn {
	return func(n int, w, a []byte) float32 {
		if n <= 0 {
			return 0
		}
		_, _ = w[4*n-1], a[4*n-1]
		np := n &^ (f32Step - 1)
		var sum float32
		if np > 0 {
			sum = k(np, &w[0], &a[0])
		}
		return tailF32(sum, n-np, func(i int) (float32, float32) { return f32at(w, 4*(np+i)), f32at(a, 4*(np+i)) })
	}
}

// f16VecDot is DotF16F16 with k doing the whole steps of 64; the rest continue the float64 sum, four at a time
// in dotF16Tail.
func f16VecDot(k floatKernel) DotFn {
	return func(n int, w, a []byte) float32 {
		if n <= 0 {
			return 0
		}
		_, _ = w[2*n-1], a[2*n-1]
		np := n &^ (f32Step - 1)
		var sum float64
		if np > 0 {
			sum = float64(k(np, &w[0], &a[0]))
		}
		if t := (n - np) &^ 3; t > 0 {
			sum = dotF16Tail(t, &w[2*np], &a[2*np], sum)
			np += t
		}
		for i := np; i < n; i++ {
			sum += float64(f16at(w, 2*i) * f16at(a, 2*i))
		}
		return float32(sum)
	}
}

// tiledDot is the tiled order of a float type of size bytes per element with k, for rows whose length is a
// whole number of 16-lane steps; others take the reference ref.
func tiledDot(k floatKernel, size int, ref DotFn) DotFn {
	return func(n int, w, a []byte) float32 {
		if n < f32Lanes || n%f32Lanes != 0 {
			return ref(n, w, a)
		}
		_, _ = w[size*n-1], a[size*n-1]
		return k(n, &w[0], &a[0])
	}
}

// vecDotF32sWith is VecDotF32 with k (on float32 slices) doing the whole steps of 64.
func vecDotF32sWith(k func(n int, x, y *float32) float32, x, y []float32) float32 {
	n := len(x)
	y = y[:n]
	np := n &^ (f32Step - 1)
	if np == 0 {
		return VecDotF32(x, y)
	}
	sum := k(np, &x[0], &y[0])
	x, y = x[np:], y[np:]
	return tailF32(sum, len(x), func(i int) (float32, float32) { return x[i], y[i] })
}
