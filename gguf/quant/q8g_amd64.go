//go:build amd64 && !noasm

package quant

func init() {
	if hasAVX2 {
		q8gCorr = func(b []byte, off int) {
			if nb := len(b) / q8gBlock; nb > 0 {
				q8gCorrAVX2(nb, &b[0], off)
			}
		}
	}
}

// q8gCorrAVX2 is q8gCorrRef over nb blocks at b (AVX2).
//
//go:noescape
func q8gCorrAVX2(nb int, b *byte, off int)
