package cpu

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
)

// DefaultThreads returns the thread count used when Options.Threads is 0: the number of physical cores, at most
// GOMAXPROCS. Matrix kernels gain little from a core's second hardware thread, so SMT siblings are not counted.
// On Linux the cores are read from /proc/cpuinfo (distinct "physical id"/"core id" pairs); elsewhere, or when
// the file does not say, runtime.NumCPU() is used, halved on amd64 and 386 where SMT is likely (Apple Silicon
// and most ARM chips have none).
func DefaultThreads() int {
	n := physicalCores()
	if n <= 0 {
		n = runtime.NumCPU()
		if (runtime.GOARCH == "amd64" || runtime.GOARCH == "386") && n > 1 {
			n /= 2
		}
	}
	n = min(n, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	return max(n, 1)
}

// physicalCores counts the cores listed in /proc/cpuinfo, or returns 0 when it cannot tell.
func physicalCores() int {
	if runtime.GOOS != "linux" && runtime.GOOS != "android" {
		return 0
	}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return countCores(data)
}

// countCores counts distinct (physical id, core id) pairs in the text of /proc/cpuinfo.
func countCores(cpuinfo []byte) int {
	type core struct{ pkg, id string }
	seen := map[core]bool{}
	var cur core
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		key, val, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		switch string(bytes.TrimSpace(key)) {
		case "processor":
			cur = core{}
		case "physical id":
			cur.pkg = string(bytes.TrimSpace(val))
		case "core id":
			cur.id = string(bytes.TrimSpace(val))
			seen[cur] = true
		}
	}
	return len(seen)
}
