//go:build unix

package osmem

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MapFile maps size bytes of f read-only. A zero size returns an empty, non-nil slice that needs no Unmap.
func MapFile(f *os.File, size int64) ([]byte, error) { return MapFileAt(f, 0, size) }

// MapFileAt maps size bytes of f from offset off read-only; off must be a multiple of MapAlign. A zero size
// returns an empty, non-nil slice that needs no Unmap.
func MapFileAt(f *os.File, off, size int64) ([]byte, error) {
	if err := checkMap(f, off, size); err != nil || size == 0 {
		return []byte{}, err
	}
	b, err := syscall.Mmap(int(f.Fd()), off, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s at %d: %w", f.Name(), off, err)
	}
	return b, nil
}

// Unmap releases a mapping made by MapFile.
func Unmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.Munmap(b)
}

// Release tells the system that the whole pages inside b, a part of a read-only file mapping (MapFile), are
// not needed for now: they leave the process's resident memory and are read from the file again at the next
// access. Never call it on memory of any other kind: anonymous memory would read back as zeros.
func Release(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((addr+pageMask)&^pageMask - addr)        // the first whole page
	hi := int((addr+uintptr(len(b)))&^pageMask - addr) // the end of the last whole page
	if hi <= lo {
		return nil
	}
	return unix.Madvise(b[lo:hi], unix.MADV_DONTNEED)
}

var pageMask = uintptr(os.Getpagesize() - 1)
