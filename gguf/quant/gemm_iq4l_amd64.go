//go:build amd64 && !noasm

package quant

func init() {
	if hasAVX2 {
		ix4lRows16 = packIQ4_XSL16
	}
}

// packIQ4_XSL16 writes the lanes of a full group (GemmRows rows) of the IQ4_XSL layout with AVX2, rows 0…7
// and 8…15 by ix4lPack8 (packIQ4_XSL adds the rows' d).
func packIQ4_XSL16(nb int, w []byte, wStride int, dst []byte) {
	_, _ = w[(GemmRows-1)*wStride+nb*136-1], dst[nb*ix4lBlock-1]
	var scratch [4096]byte
	ix4lPack8(nb, &w[0], wStride, &ix4lTab[0][0], &scratch[0], &dst[0])
	ix4lPack8(nb, &w[8*wStride], wStride, &ix4lTab[0][0], &scratch[0], &dst[32])
}

// ix4lPack8 (gemm_iq4l_pack_amd64.s) writes the IQ4_XSL lanes of eight rows: dst is the group's first lane
// line (rows 0…7) or 32 bytes past it (rows 8…15).
//
//go:noescape
func ix4lPack8(nb int, w *byte, wStride int, tab, scratch, dst *byte)
