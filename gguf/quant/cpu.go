package quant

import (
	"fmt"
	"os"
	"runtime"
)

// CPULevel is the most of this CPU's SIMD extensions the kernels may use, as FORMA_CPU sets it once at start-up:
// a lower level runs the kernels of a lesser CPU here (to measure them, or to rule a kernel out). Every level
// computes the same bits; only the speed differs.
type CPULevel uint8

const (
	// CPUNative uses everything the CPU has (FORMA_CPU unset or "native").
	CPUNative CPULevel = iota
	// CPUAVX2 ("avx2", amd64 only) uses AVX2, FMA and F16C but no AVX-512 (so neither VNNI nor VBMI): the
	// kernels of most desktop Intel CPUs.
	CPUAVX2
	// CPUGeneric ("generic") uses no SIMD at all: the scalar references, as the noasm build tag does.
	CPUGeneric
	numCPULevels
)

// cpuLevelNames are FORMA_CPU's values, by level.
var cpuLevelNames = [numCPULevels]string{CPUNative: "native", CPUAVX2: "avx2", CPUGeneric: "generic"}

func (l CPULevel) String() string {
	if l < numCPULevels {
		return cpuLevelNames[l]
	}
	return fmt.Sprintf("CPULevel(%d)", uint8(l))
}

// cpuLevel is the level FORMA_CPU forces (CPUNative when it is unset or wrong), cpuErr what is wrong with it.
var cpuLevel, cpuErr = parseCPULevel(os.Getenv("FORMA_CPU"), runtime.GOARCH)

// parseCPULevel reads a FORMA_CPU value on architecture arch.
func parseCPULevel(s, arch string) (CPULevel, error) {
	if s == "" {
		return CPUNative, nil
	}
	for l, name := range cpuLevelNames {
		if s != name {
			continue
		}
		if CPULevel(l) == CPUAVX2 && arch != "amd64" {
			return CPUNative, fmt.Errorf("FORMA_CPU=%s: that level is for amd64 CPUs, this one is %s", s, arch)
		}
		return CPULevel(l), nil
	}
	return CPUNative, fmt.Errorf("FORMA_CPU=%q: unknown level; use native, avx2 (amd64) or generic", s)
}

// ForcedCPU returns the level FORMA_CPU set at start-up: CPUNative when it is unset (or wrong, see CheckCPU).
func ForcedCPU() CPULevel { return cpuLevel }

// CheckCPU returns what is wrong with FORMA_CPU's value, nil when it is unset or names a level of this
// architecture. The CPU backend refuses to start with a wrong value.
func CheckCPU() error { return cpuErr }

// CPUPath names the SIMD extensions the kernels use on this CPU at the level FORMA_CPU set, e.g.
// "avx2+avx512+vnni+vbmi", "avx2", "neon+dotprod", or "generic" for the scalar references.
func CPUPath() string { return cpuPath() }
