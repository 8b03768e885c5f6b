//go:build !amd64 || noasm

package cpu

import "github.com/forma-llm/forma/gguf/quant"

func axpyFast(x, y []float32, a float32, round bool) int { return 0 }

func axpyHFast(x []uint16, y []float32, a float32) int { return 0 }

func axpyQFast(t quant.Type, x []byte, y []float32, a float32) bool { return false }

func axpyQRowsFast(t quant.Type, x []byte, stride, rows int, y, w []float32) bool { return false }

func axpyHRowsFast(x []byte, stride, rows int, y, w []float32) bool { return false }
