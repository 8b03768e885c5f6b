//go:build !amd64 || noasm

package quant

func quantizeQ8Chunk(src []float32, dst []byte, stride, qOff int, d []float32, sums []int32) {
	quantizeQ8ChunkRef(src, dst, stride, qOff, d, sums)
}

func quantizeQ8KFast(src []float32, dst []byte) bool { return false }

func f32ToF16Fast(src []float32, dst []byte) int { return 0 }

func f32ToBF16Fast(src []float32, dst []byte) int { return 0 }

func f32RoundF16Fast(src []float32, dst []byte) int { return 0 }
