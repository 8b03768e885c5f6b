//go:build !unix

package main

// processCPU is not measured on this system.
func processCPU() (int64, bool) { return 0, false }
