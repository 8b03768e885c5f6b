//go:build !amd64 || noasm

package cpu

func sumSquares4Fast(x []float32, cols int, sums *[4]float64) int { return 0 }

func scaleFast(x, y []float32, s float32) int { return 0 }
