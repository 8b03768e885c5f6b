package quant

import "encoding/binary"

// Q4_K in the repacked order ("Q4_Kx16", see gemm_stored.go): per super-block of 256 elements, the 16 rows'
// blocks of 144 bytes rearranged into 2368 (2.8% more than the original)
//
//	d      [GemmRows]uint16        the rows' f16 super-block scales
//	dmin   [GemmRows]uint16        the rows' f16 super-block minimum scales
//	scales [8][GemmRows]uint8      group j's 6-bit scale of every row
//	mins   [4][GemmRows][2]uint8   the 6-bit minimums of groups 2i and 2i+1 of every row
//	qs     [32][GemmRows][4]uint8  quant dword s = 8i+t of every row: four bytes of 64-element chunk i,
//	                               whose low nibbles are elements of group 2i and high nibbles the elements
//	                               of group 2i+1 at the same places in their groups
//
// Dword t (0…7) of a group is the group's four elements that Q8_KW's activation dword t of that group holds
// (k4xQuant): in Q8_K's order elements 4t…4t+3, with q8kwPermute t, t+8, t+16, t+24. So the kernels
// multiply the unpacked nibbles of a stored dword with one broadcast activation dword (VPDPBUSD) into the
// group's sum, scale the eight group sums (VPMULLD), and take each pair's minimum term from the minimums and
// Q8_KW's bsum pairs (VPMADDWD); the float work of every lane is DotQ4_KQ8_KRepacked's.
const (
	k4xDmin   = 2 * GemmRows
	k4xScales = k4xDmin + 2*GemmRows
	k4xMins   = k4xScales + 8*GemmRows
	k4xQs     = k4xMins + 8*GemmRows
	k4xBlock  = k4xQs + 128*GemmRows
)

// k4xQuant returns where activation dword t (0…7) of group g starts in the 256 quants of a Q8_KW block, and
// the place in the group of its quant m (0…3), in the order q8kwPermute says.
func k4xQuant(g, t, m int) (at, place int) {
	if !q8kwPermute {
		return 32*g + 4*t, 4*t + m
	}
	// Vector v = 2k+h holds groups 4k+h (dwords 0…7) and 4k+h+2 (dwords 8…15).
	v, d := 2*(g/4)+g%2, t+8*(g%4/2)
	return 64*v + 4*d, t + 8*m
}

// zeroQ4K is the Q4_K block of the rows past a group's last (read only; a local array would escape through
// k4xLane).
var zeroQ4K [144]byte

// packQ4_Kx16 stores one group of rows (at most GemmRows) of nb Q4_K super-blocks in the Q4_Kx16 layout.
func packQ4_Kx16(nb int, w []byte, wStride, rows int, dst []byte) {
	for r := 0; r < GemmRows; r++ {
		for b := 0; b < nb; b++ {
			x := zeroQ4K[:]
			if r < rows {
				x = w[r*wStride+b*144 : r*wStride+b*144+144]
			}
			packQ4_Kx16Lane(dst[b*k4xBlock:(b+1)*k4xBlock], r, x, q8kwPermute)
		}
	}
}

// k4xLane, where the CPU has it, does packQ4_Kx16Lane's quant loop in the permuted order: the 128 quant
// bytes qs of one super-block into the lane whose first slot is dst[0:4].
var k4xLane func(dst, qs []byte)

// packQ4_Kx16Lane writes lane r of stored super-block p from the Q4_K block x, its quant dwords in the
// order of k4xQuant (with permuted: dword t of a chunk is its bytes t, t+8, t+16 and t+24).
func packQ4_Kx16Lane(p []byte, r int, x []byte, permuted bool) {
	le := binary.LittleEndian
	p[2*r], p[2*r+1] = x[0], x[1]
	p[k4xDmin+2*r], p[k4xDmin+2*r+1] = x[2], x[3]
	for j := 0; j < 8; j++ {
		s, m := scaleMinK4(j, x[4:16])
		p[k4xScales+j*GemmRows+r] = s
		p[k4xMins+(j/2*GemmRows+r)*2+j%2] = m
	}
	if permuted && k4xLane != nil {
		k4xLane(p[k4xQs+4*r:], x[16:144])
		return
	}
	for i := 0; i < 4; i++ {
		ch := x[16+32*i : 16+32*i+32]
		c0, c1, c2, c3 := le.Uint64(ch), le.Uint64(ch[8:]), le.Uint64(ch[16:]), le.Uint64(ch[24:])
		for t := 0; t < 8; t++ {
			v := le.Uint32(ch[4*t:])
			if permuted {
				sh := 8 * uint(t)
				v = uint32(byte(c0>>sh)) | uint32(byte(c1>>sh))<<8 | uint32(byte(c2>>sh))<<16 | uint32(byte(c3>>sh))<<24
			}
			le.PutUint32(p[k4xQs+((8*i+t)*GemmRows+r)*4:], v)
		}
	}
}

// mulQ4_Kx16Ref is the scalar reference of the Q4_Kx16 kernels: DotQ4_KQ8_KRepacked of each of the first
// rows rows of one stored group (nb super-blocks) with each of cols Q8_KW rows, read from the stored layout.
func mulQ4_Kx16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc, accMin float32
			for b := 0; b < nb; b++ {
				x, y := p[b*k4xBlock:(b+1)*k4xBlock], a[c*aStride+b*q8kwBlock:c*aStride+(b+1)*q8kwBlock]
				yd, q := f32at(y, 0), y[4:260]
				var sums [8]int32
				for s := 0; s < 32; s++ {
					i, t := s/8, s%8
					for m := 0; m < 4; m++ {
						v := x[k4xQs+(s*GemmRows+r)*4+m]
						lo, _ := k4xQuant(2*i, t, m)
						hi, _ := k4xQuant(2*i+1, t, m)
						sums[2*i] += int32(v&15) * int32(int8(q[lo+m]))
						sums[2*i+1] += int32(v>>4) * int32(int8(q[hi+m]))
					}
				}
				for j := range sums {
					sums[j] *= int32(x[k4xScales+j*GemmRows+r])
				}
				dd, dm := f16at(x, 2*r)*yd, f16at(x, k4xDmin+2*r)*yd
				for i := 0; i < 4; i++ {
					mins := int32(x[k4xMins+(i*GemmRows+r)*2])*int32(bsum(y[q8kwBP:], 2*i)) +
						int32(x[k4xMins+(i*GemmRows+r)*2+1])*int32(bsum(y[q8kwBP:], 2*i+1))
					acc = fma32(float32(sums[2*i]+sums[2*i+1]), dd, acc)
					accMin = fma32(float32(mins), dm, accMin)
				}
			}
			out[c*outStride+r] = acc - accMin
		}
	}
}
