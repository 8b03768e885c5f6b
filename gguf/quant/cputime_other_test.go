//go:build !linux

package quant

import "testing"

// loopCPU runs f b.N times via b.Loop (CPU time is only measured on Linux).
func loopCPU(b *testing.B, f func()) {
	for b.Loop() {
		f()
	}
}
