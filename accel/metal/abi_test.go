package metal

import (
	"testing"
	"unsafe"
)

// TestMTLSizeLayout pins MTLSize's C layout: three 8-byte NSUIntegers, no padding.
func TestMTLSizeLayout(t *testing.T) {
	var s mtlSize
	if unsafe.Sizeof(s) != 24 || unsafe.Alignof(s) != 8 || unsafe.Offsetof(s.width) != 0 ||
		unsafe.Offsetof(s.height) != 8 || unsafe.Offsetof(s.depth) != 16 {
		t.Errorf("MTLSize: size %d align %d offsets %d %d %d", unsafe.Sizeof(s), unsafe.Alignof(s),
			unsafe.Offsetof(s.width), unsafe.Offsetof(s.height), unsafe.Offsetof(s.depth))
	}
	var pair [2]mtlSize
	if uintptr(unsafe.Pointer(&pair[1]))-uintptr(unsafe.Pointer(&pair[0])) != 24 {
		t.Error("consecutive MTLSizes are not 24 bytes apart")
	}
}

// TestDispatchArgs checks the argument words of dispatchThreadgroups:threadsPerThreadgroup: on both Mac
// architectures: pointers to the two sizes on arm64; on amd64 four unused register slots, then the six words
// of the two sizes as they lie in memory.
func TestDispatchArgs(t *testing.T) {
	sizes := &[2]mtlSize{{width: 7, height: 3, depth: 1}, {width: 128, height: 1, depth: 1}}
	var args [12]uintptr
	args[0], args[1] = 0x1000, 0x2000
	if n := dispatchArgs("arm64", &args, sizes); n != 4 || args[2] != uintptr(unsafe.Pointer(&sizes[0])) ||
		args[3] != uintptr(unsafe.Pointer(&sizes[1])) || args[0] != 0x1000 || args[1] != 0x2000 {
		t.Errorf("arm64: %d args %#x", n, args[:n])
	}
	args = [12]uintptr{0x1000, 0x2000, 9, 9, 9, 9}
	n := dispatchArgs("amd64", &args, sizes)
	want := [12]uintptr{0x1000, 0x2000, 0, 0, 0, 0, 7, 3, 1, 128, 1, 1}
	if n != 12 || args != want {
		t.Errorf("amd64: %d args %v, want %v", n, args, want)
	}
	// The stack words are the structs' bytes in order.
	mem := unsafe.Slice((*uint64)(unsafe.Pointer(sizes)), 6)
	for i, w := range mem {
		if uintptr(w) != args[6+i] {
			t.Errorf("amd64 stack word %d is %d, the sizes' memory holds %d", i, args[6+i], w)
		}
	}
}
