//go:build unix && !linux

package osmem

import (
	"fmt"
	"syscall"
)

// Alloc returns n zeroed bytes of anonymous memory outside the Go heap, aligned to the page size.
func Alloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	if n < 0 {
		return nil, fmt.Errorf("cannot allocate %d bytes", n)
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("allocate %d bytes: %w", n, err)
	}
	return b, nil
}

// Free releases memory from Alloc.
func Free(b []byte) error { return Unmap(b) }
