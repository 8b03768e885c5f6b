package quant

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestParseCPULevel(t *testing.T) {
	for _, c := range []struct {
		s, arch string
		want    CPULevel
		err     string // part of the error, "" for none
	}{
		{"", "amd64", CPUNative, ""},
		{"native", "arm64", CPUNative, ""},
		{"avx2", "amd64", CPUAVX2, ""},
		{"avx2", "arm64", CPUNative, "for amd64"},
		{"generic", "arm64", CPUGeneric, ""},
		{"generic", "riscv64", CPUGeneric, ""},
		{"AVX2", "amd64", CPUNative, "unknown level"},
		{"avx512", "amd64", CPUNative, "unknown level"},
	} {
		got, err := parseCPULevel(c.s, c.arch)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("FORMA_CPU=%q on %s: %v, %v; want %v and an error with %q", c.s, c.arch, got, err, c.want, c.err)
		}
	}
}

// TestCPULevels runs this package's tests again, in a child process, at every level FORMA_CPU can force here:
// the kernels of each level must return the references' bits (TestDotExact, TestGemmExact, …) too.
func TestCPULevels(t *testing.T) {
	if os.Getenv("FORMA_CPU") != "" {
		t.Skip("a level is forced already")
	}
	levels := []string{"generic"}
	if strings.Contains(CPUPath(), "avx512") {
		levels = append(levels, "avx2")
	}
	for _, level := range levels {
		args := []string{"-test.count=1"}
		if testing.Short() {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "FORMA_CPU="+level)
		out, err := cmd.CombinedOutput()
		if err != nil && !errors.As(err, new(*exec.ExitError)) {
			// An emulated test binary (qemu-user, CI's arm64) cannot start itself: CI runs it with FORMA_CPU.
			t.Skipf("FORMA_CPU=%s: %v", level, err)
		}
		if err != nil {
			t.Errorf("FORMA_CPU=%s: %v\n%s", level, err, out)
		}
	}
}

// TestForcedCPULevel checks, in TestCPULevels's children, that the level FORMA_CPU forces is the one the kernels
// take.
func TestForcedCPULevel(t *testing.T) {
	if err := CheckCPU(); err != nil {
		t.Fatal(err)
	}
	path := CPUPath()
	switch ForcedCPU() {
	case CPUGeneric:
		if path != "generic" {
			t.Errorf("CPUPath %q at the generic level", path)
		}
		for _, w := range WeightTypes() {
			for o := range numOrders {
				if f, ref := Dot(w, o), RefDot(w, o); reflect.ValueOf(f).Pointer() != reflect.ValueOf(ref).Pointer() {
					t.Errorf("%s %s: a SIMD kernel at the generic level", w, o)
				}
				if GemmFor(w, o) != nil {
					t.Errorf("%s %s: a batched kernel at the generic level", w, o)
				}
			}
		}
	case CPUAVX2:
		if path != "avx2" && path != "generic" {
			t.Errorf("CPUPath %q at the avx2 level", path)
		}
		if g := GemmFor(Q8_0, OrderVecDot); g != nil && g.actBlock != q8sBlock {
			t.Error("the AVX-512 VNNI Q8_0 kernels at the avx2 level")
		}
		// The AVX2 batched kernels (gemm_avx2_amd64.go) must be the ones this level tests.
		for _, wo := range []struct {
			w Type
			o Order
		}{{Q4_0, OrderRepacked}, {Q4_K, OrderRepacked}, {Q8_0, OrderVecDot}, {Q6_K, OrderVecDot}, {MXFP4, OrderVecDot}} {
			if g := GemmFor(wo.w, wo.o); path == "avx2" && (g == nil || g.storedBlock == 0) {
				t.Errorf("%s %s: no stored batched kernel at the avx2 level", wo.w, wo.o)
			}
		}
	}
}
