package osmem

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on linux/amd64 and most arm64 kernels.
const hugePage = 2 << 20

// Alloc returns n zeroed bytes of anonymous memory outside the Go heap, aligned to the page size. An
// allocation of at least a huge page is aligned to one and asks for transparent huge pages (MADV_HUGEPAGE;
// kernels configured "madvise", the usual default, give them only when asked): a decode step streams every
// stored weight once per token, and 4 KiB pages cost it a TLB miss every 4 KiB.
func Alloc(n int) ([]byte, error) {
	if n == 0 {
		return []byte{}, nil
	}
	if n < 0 {
		return nil, fmt.Errorf("cannot allocate %d bytes", n)
	}
	size := pageRound(n)
	if n < hugePage {
		p, err := unix.MmapPtr(-1, 0, nil, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			return nil, fmt.Errorf("allocate %d bytes: %w", n, err)
		}
		return unsafe.Slice((*byte)(p), n), nil
	}
	span := size + hugePage
	p, err := unix.MmapPtr(-1, 0, nil, span, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("allocate %d bytes: %w", n, err)
	}
	head := -uintptr(p) & (hugePage - 1)
	if head > 0 {
		_ = unix.MunmapPtr(p, head)
	}
	a := unsafe.Add(p, head)
	if tail := span - head - size; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(a, size), tail)
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(a), size), unix.MADV_HUGEPAGE) // a kernel without THP keeps small pages
	return unsafe.Slice((*byte)(a), n), nil
}

// Free releases memory from Alloc.
func Free(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), pageRound(len(b)))
}

// pageRound rounds n up to a whole number of pages.
func pageRound(n int) uintptr { return (uintptr(n) + pageMask) &^ pageMask }
