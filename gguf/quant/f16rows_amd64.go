//go:build amd64 && !noasm

package quant

// The assembly handles rows whose length is a multiple of 8; the checks in DotF16Rows and
// AddWeightedF16Rows keep every row inside the slices.

func dotF16Rows(q []float32, k []byte, stride int, out []float32) {
	n := len(q)
	if !hasAVX2 || n%8 != 0 {
		dotF16RowsRef(q, k, stride, out)
		return
	}
	rows := len(out)
	if r4 := rows &^ 3; r4 > 0 {
		dotF16Rows4AVX2(n, &q[0], &k[0], 2*stride, r4, &out[0])
	}
	for j := rows &^ 3; j < rows; j++ {
		dotF16Rows4AVX2Tail(n, &q[0], &k[2*j*stride], &out[j])
	}
}

func addWeightedF16Rows(out, p []float32, v []byte, stride int) {
	n := len(out)
	if !hasAVX2 || n%8 != 0 {
		addWeightedF16RowsRef(out, p, v, stride)
		return
	}
	addWeightedF16RowsAVX2(n, &out[0], len(p), &p[0], &v[0], 2*stride)
}

// dotF16Rows4AVX2 computes out[j] for j < rows (a multiple of 4), rows strideBytes apart.
//
//go:noescape
func dotF16Rows4AVX2(n int, q *float32, k *byte, strideBytes, rows int, out *float32)

// dotF16Rows4AVX2Tail computes one row.
//
//go:noescape
func dotF16Rows4AVX2Tail(n int, q *float32, k *byte, out *float32)

//go:noescape
func addWeightedF16RowsAVX2(n int, out *float32, rows int, p *float32, v *byte, strideBytes int)
