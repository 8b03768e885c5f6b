package cpu

import "github.com/forma-llm/forma/internal/osmem"

// allocNative returns n zeroed bytes for a buffer, a program's arena or a realigned weight: memory outside the
// Go heap, freed by freeNative. Under the race detector (which does not watch memory outside the Go heap) it
// is a Go slice instead, so that the detector sees every worker's reads and writes.
func allocNative(n int) ([]byte, error) {
	if raceEnabled {
		return make([]byte, n), nil
	}
	return osmem.Alloc(n)
}

// freeNative releases memory from allocNative.
func freeNative(b []byte) error {
	if raceEnabled {
		return nil
	}
	return osmem.Free(b)
}
