package osmem

import (
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestAlloc allocates sizes around a page and a huge page, writes the first and last bytes, checks that the
// memory starts zeroed and (on Linux) page-aligned, from a huge page up aligned to a huge page, and frees it.
func TestAlloc(t *testing.T) {
	for _, n := range []int{1, 4095, 4096, 4097, 2 << 20, 2<<20 + 1, 4<<20 - 1, 5<<20 + 12345} {
		b, err := Alloc(n)
		if err != nil {
			t.Fatalf("Alloc(%d): %v", n, err)
		}
		if len(b) != n {
			t.Fatalf("Alloc(%d) returned %d bytes", n, len(b))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if runtime.GOOS == "linux" && addr%uintptr(os.Getpagesize()) != 0 {
			t.Errorf("Alloc(%d) at %#x: not page-aligned", n, addr)
		}
		if runtime.GOOS == "linux" && n >= 2<<20 && addr%(2<<20) != 0 {
			t.Errorf("Alloc(%d) at %#x: not aligned to a huge page", n, addr)
		}
		for _, i := range []int{0, n / 2, n - 1} {
			if b[i] != 0 {
				t.Fatalf("Alloc(%d): byte %d is %d, not zero", n, i, b[i])
			}
		}
		b[0], b[n-1] = 1, 1
		if err := Free(b); err != nil {
			t.Fatalf("Free of %d bytes: %v", n, err)
		}
	}
	if b, err := Alloc(-1); err == nil {
		t.Errorf("Alloc(-1) returned %d bytes and no error", len(b))
	}
}
