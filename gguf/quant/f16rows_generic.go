//go:build !amd64 || noasm

package quant

func dotF16Rows(q []float32, k []byte, stride int, out []float32) { dotF16RowsRef(q, k, stride, out) }

func addWeightedF16Rows(out, p []float32, v []byte, stride int) {
	addWeightedF16RowsRef(out, p, v, stride)
}
