package quant

import (
	"runtime"
	"syscall"
	"testing"
)

// threadCPU returns the CPU time the calling OS thread has used, in nanoseconds.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// loopCPU runs f b.N times (via b.Loop) on one locked OS thread and reports its CPU time per op as
// "cpu-ns/op" besides the wall time: on a shared machine the wall time also counts other programs' turns.
func loopCPU(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, n := threadCPU(), 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(threadCPU()-start)/float64(n), "cpu-ns/op")
	}
}
