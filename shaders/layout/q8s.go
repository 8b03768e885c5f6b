package layout

import (
	"encoding/binary"
	"math"

	"github.com/forma-llm/forma/gguf/quant"
)

// Q8S is the device layout the weight types without a shader of their own are converted to at upload: per 32
// elements, 32 int8 quants and four float32 (s0, s1, m0, m1), element j being s·q_j + m with the scale and
// minimum of its half (j < 16: s0, m0). Every such type is a scale (and minimum) times small integers per 16 or
// 32 elements, with scales that are exact float32 products of its F16 or E8M0 fields, so the conversion is
// exact: the values, and llama.cpp's integer dot products with quantized activations, are unchanged. It takes
// 12 bits per weight, less than the F16 a dequantizing upload would use.
//
//	Q4_1, Q5_1    s = d, m = min, q = 0…15 / 0…31           (activations Q8_1)
//	Q5_0          s = d, q = 0…31 − 16                      (Q8_0)
//	IQ4_NL        s = d, q = kvalues[nibble]                (Q8_0)
//	MXFP4         s = 2^(e−128), q = 2·E2M1 value           (Q8_0)
//	Q2_K          per 16: s = d·sc, m = −dmin·min, q = 0…3   (Q8_K)
//	Q3_K          per 16: s = d·(sc − 32), q = −4…3         (Q8_K)
//	IQ4_XS        per 32: s = d·(sc − 32), q = kvalues[…]   (Q8_K)
const (
	q8sElems = 32
	q8sBytes = 48
)

// kvaluesIQ4 and kvaluesMXFP4 are the level tables of IQ4_NL/IQ4_XS and MXFP4 (ggml-common.h).
var (
	kvaluesIQ4   = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	kvaluesMXFP4 = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}
)

// q8sWriter fills Q8S blocks.
type q8sWriter []byte

// put sets element j (of the whole converted range) to q.
func (w q8sWriter) put(j int, q int) { w[j/q8sElems*q8sBytes+j%q8sElems] = byte(int8(q)) }

// scale sets the scale and minimum of the 16 elements starting at j (j a multiple of 16).
func (w q8sWriter) scale(j int, s, m float32) {
	b := w[j/q8sElems*q8sBytes+32:]
	h := j % q8sElems / 16
	binary.LittleEndian.PutUint32(b[4*h:], math.Float32bits(s))
	binary.LittleEndian.PutUint32(b[8+4*h:], math.Float32bits(m))
}

func f16le(b []byte) float32 { return quant.F16ToF32(binary.LittleEndian.Uint16(b)) }

// q8sConverters convert one source block into its Q8S blocks.
var q8sConverters = map[quant.Type]func(src []byte, w q8sWriter){
	quant.Q4_1: func(b []byte, w q8sWriter) {
		d, m := f16le(b), f16le(b[2:])
		for j := 0; j < 16; j++ {
			w.put(j, int(b[4+j]&15))
			w.put(j+16, int(b[4+j]>>4))
		}
		w.scale(0, d, m)
		w.scale(16, d, m)
	},
	quant.Q5_0: func(b []byte, w q8sWriter) {
		d := f16le(b)
		qh := binary.LittleEndian.Uint32(b[2:])
		for j := 0; j < 16; j++ {
			w.put(j, int(b[6+j]&15|byte(qh>>j<<4)&0x10)-16)
			w.put(j+16, int(b[6+j]>>4|byte(qh>>(j+12))&0x10)-16)
		}
		w.scale(0, d, 0)
		w.scale(16, d, 0)
	},
	quant.Q5_1: func(b []byte, w q8sWriter) {
		d, m := f16le(b), f16le(b[2:])
		qh := binary.LittleEndian.Uint32(b[4:])
		for j := 0; j < 16; j++ {
			w.put(j, int(b[8+j]&15|byte(qh>>j<<4)&0x10))
			w.put(j+16, int(b[8+j]>>4|byte(qh>>(j+12))&0x10))
		}
		w.scale(0, d, m)
		w.scale(16, d, m)
	},
	quant.IQ4_NL: func(b []byte, w q8sWriter) {
		d := f16le(b)
		for j := 0; j < 16; j++ {
			w.put(j, int(kvaluesIQ4[b[2+j]&15]))
			w.put(j+16, int(kvaluesIQ4[b[2+j]>>4]))
		}
		w.scale(0, d, 0)
		w.scale(16, d, 0)
	},
	quant.MXFP4: func(b []byte, w q8sWriter) {
		d := e8m0Half(b[0])
		for j := 0; j < 16; j++ {
			w.put(j, int(kvaluesMXFP4[b[1+j]&15]))
			w.put(j+16, int(kvaluesMXFP4[b[1+j]>>4]))
		}
		w.scale(0, d, 0)
		w.scale(16, d, 0)
	},
	quant.Q2_K: func(b []byte, w q8sWriter) {
		d, dmin := f16le(b[80:]), f16le(b[82:])
		is := 0
		for half := 0; half < 2; half++ {
			q := b[16+32*half : 48+32*half]
			for j := 0; j < 4; j++ {
				for g := 0; g < 2; g++ {
					sc := b[is]
					is++
					base := 128*half + 32*j + 16*g
					w.scale(base, d*float32(sc&0xf), -(dmin * float32(sc>>4)))
					for l := 0; l < 16; l++ {
						w.put(base+l, int(q[16*g+l]>>(2*j)&3))
					}
				}
			}
		}
	},
	quant.Q3_K: func(b []byte, w q8sWriter) {
		dAll := f16le(b[108:])
		hm, sc := b[0:32], b[96:108]
		for j := 0; j < 16; j++ {
			lo := sc[j%8] >> (4 * (j / 8)) & 0xf
			hi := (sc[8+j%4] >> (2 * (j / 4))) & 3
			w.scale(16*j, dAll*float32(int(lo|hi<<4)-32), 0)
			half, r := j/8, j%8
			q := b[32+32*half : 64+32*half]
			shift, m, off := 2*(r/2), byte(1)<<(4*half+r/2), 16*(r%2)
			for l := 0; l < 16; l++ {
				v := int(q[off+l]>>shift) & 3
				if hm[off+l]&m == 0 {
					v -= 4
				}
				w.put(16*j+l, v)
			}
		}
	},
	quant.IQ4_XS: func(b []byte, w q8sWriter) {
		d := f16le(b)
		h := binary.LittleEndian.Uint16(b[2:])
		for k := 0; k < 8; k++ {
			ls := int(b[4+k/2]>>(4*(k%2))&0xf) | int(h>>(2*k)&3)<<4
			dl := d * float32(ls-32)
			w.scale(32*k, dl, 0)
			w.scale(32*k+16, dl, 0)
			qs := b[8+16*k : 24+16*k]
			for j := 0; j < 16; j++ {
				w.put(32*k+j, int(kvaluesIQ4[qs[j]&0xf]))
				w.put(32*k+j+16, int(kvaluesIQ4[qs[j]>>4]))
			}
		}
	},
}

// e8m0Half is 2^(e−128) (ggml's GGML_E8M0_TO_FP32_HALF), subnormal for e < 2.
func e8m0Half(e uint8) float32 {
	if e < 2 {
		return math.Float32frombits(0x00200000 << e)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

// DequantizeQ8S expands Q8S blocks into float32 as the shaders do (s·q + m); tests compare it with
// gguf/quant's dequantization of the source.
func DequantizeQ8S(src []byte, dst []float32) {
	for i := range dst {
		b := src[i/q8sElems*q8sBytes:]
		h := i % q8sElems / 16
		s := math.Float32frombits(binary.LittleEndian.Uint32(b[32+4*h:]))
		m := math.Float32frombits(binary.LittleEndian.Uint32(b[40+4*h:]))
		dst[i] = float32(s*float32(int8(b[i%q8sElems]))) + m
	}
}
