//go:build !unix && !windows

package osmem

import (
	"fmt"
	"io"
	"os"
)

// MapFile reads the file into memory where the platform has no mapping we use (e.g. wasm, plan9).
func MapFile(f *os.File, size int64) ([]byte, error) { return MapFileAt(f, 0, size) }

// MapFileAt reads size bytes of f from offset off into memory.
func MapFileAt(f *os.File, off, size int64) ([]byte, error) {
	if err := checkMap(f, off, size); err != nil {
		return nil, err
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, off, size), b); err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return b, nil
}

// Unmap releases a mapping made by MapFile.
func Unmap(b []byte) error { return nil }

// Alloc returns n zeroed bytes.
func Alloc(n int) ([]byte, error) { return make([]byte, n), nil }

// Free releases memory from Alloc.
func Free(b []byte) error { return nil }

// Release does nothing here: the pages of a mapping stay resident until the system needs them.
func Release(b []byte) error { return nil }
