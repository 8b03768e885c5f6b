package model

import (
	"math"
	"testing"
)

// TestInvSqrtf checks the attention scales against llama.cpp's 1.0f/sqrtf(float(n)) as the reference build
// computes it (bits printed by a C program on x86-64); for head sizes 96 and 112 the correctly rounded 1/√n
// differs from it.
func TestInvSqrtf(t *testing.T) {
	for _, c := range []struct {
		n    int
		bits uint32
	}{
		{32, 0x3e3504f3}, {64, 0x3e000000}, {80, 0x3de4f92e}, {96, 0x3dd105eb}, {112, 0x3dc18490},
		{128, 0x3db504f3}, {160, 0x3da1e89b}, {192, 0x3d93cd3a}, {256, 0x3d800000},
	} {
		if got := math.Float32bits(invSqrtf(c.n)); got != c.bits {
			t.Errorf("invSqrtf(%d) = %#08x, llama.cpp %#08x", c.n, got, c.bits)
		}
	}
}
