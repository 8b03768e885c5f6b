//go:build !amd64 || noasm

package cpu

func ropeNormalFast(x, y, cache []float32, rows, size, dims int) bool { return false }

func ropeNeoXFast(x, y, cache []float32, rows, size, dims int) bool { return false }
