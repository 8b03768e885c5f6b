//go:build amd64 && !noasm

package cpu

// ropeNormalFast rotates the first dims elements of rows rows of size floats of x into y in the normal mode
// by the table cache (dims values) where the CPU has AVX2 and FMA and dims is a multiple of 8, and reports
// whether it did (rope_amd64.s).
func ropeNormalFast(x, y, cache []float32, rows, size, dims int) bool {
	if !hasAVX2 || dims%8 != 0 || dims == 0 || rows == 0 {
		return false
	}
	_, _, _ = x[rows*size-1], y[rows*size-1], cache[dims-1]
	ropeNormalAVX2(rows, dims, size, &x[0], &y[0], &cache[0])
	return true
}

//go:noescape
func ropeNormalAVX2(rows, dims, size int, x, y, cache *float32)

// ropeNeoXFast is ropeNormalFast in the NeoX mode (pairs (i, i + dims/2)), where dims is a multiple of 16.
func ropeNeoXFast(x, y, cache []float32, rows, size, dims int) bool {
	if !hasAVX2 || dims%16 != 0 || dims == 0 || rows == 0 {
		return false
	}
	_, _, _ = x[rows*size-1], y[rows*size-1], cache[dims-1]
	ropeNeoXAVX2(rows, dims, size, &x[0], &y[0], &cache[0])
	return true
}

//go:noescape
func ropeNeoXAVX2(rows, dims, size int, x, y, cache *float32)
