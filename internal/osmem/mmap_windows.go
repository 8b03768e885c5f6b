//go:build windows

package osmem

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// MapFile maps size bytes of f read-only. A zero size returns an empty, non-nil slice that needs no Unmap.
func MapFile(f *os.File, size int64) ([]byte, error) { return MapFileAt(f, 0, size) }

// MapFileAt maps size bytes of f from offset off read-only; off must be a multiple of MapAlign (Windows maps
// views at multiples of its 64 KiB allocation granularity). A zero size returns an empty, non-nil slice that
// needs no Unmap.
func MapFileAt(f *os.File, off, size int64) ([]byte, error) {
	if err := checkMap(f, off, size); err != nil || size == 0 {
		return []byte{}, err
	}
	end := uint64(off + size)
	h, err := syscall.CreateFileMapping(syscall.Handle(f.Fd()), nil, syscall.PAGE_READONLY,
		uint32(end>>32), uint32(end), nil)
	if err != nil {
		return nil, fmt.Errorf("CreateFileMapping %s: %w", f.Name(), err)
	}
	addr, err := syscall.MapViewOfFile(h, syscall.FILE_MAP_READ, uint32(uint64(off)>>32), uint32(off), uintptr(size))
	syscall.CloseHandle(h) // the view keeps the mapping alive
	if err != nil {
		return nil, fmt.Errorf("MapViewOfFile %s: %w", f.Name(), err)
	}
	return unsafe.Slice((*byte)(ptrFromAddr(addr)), int(size)), nil
}

// Unmap releases a mapping made by MapFile.
func Unmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.UnmapViewOfFile(uintptr(unsafe.Pointer(&b[0])))
}

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procVirtualAlloc = kernel32.NewProc("VirtualAlloc")
	procVirtualFree  = kernel32.NewProc("VirtualFree")
)

const (
	memCommit     = 0x1000
	memReserve    = 0x2000
	memRelease    = 0x8000
	pageReadWrite = 0x04
)

// Alloc returns n zeroed bytes of memory outside the Go heap, aligned to the page size.
func Alloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	if n < 0 {
		return nil, fmt.Errorf("cannot allocate %d bytes", n)
	}
	addr, _, err := procVirtualAlloc.Call(0, uintptr(n), memCommit|memReserve, pageReadWrite)
	if addr == 0 {
		return nil, fmt.Errorf("allocate %d bytes: %w", n, err)
	}
	return unsafe.Slice((*byte)(ptrFromAddr(addr)), n), nil
}

// Free releases memory from Alloc.
func Free(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	r, _, err := procVirtualFree.Call(uintptr(unsafe.Pointer(&b[0])), 0, memRelease)
	if r == 0 {
		return fmt.Errorf("VirtualFree: %w", err)
	}
	return nil
}

// ptrFromAddr turns an address the OS returned for memory outside the Go heap into a pointer.
func ptrFromAddr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

// Release does nothing on Windows: the pages of a mapping stay in the working set until the system trims it.
func Release(b []byte) error { return nil }
