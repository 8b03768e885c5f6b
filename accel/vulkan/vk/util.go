package vk

import "unsafe"

// MakeAPIVersion packs a Vulkan version number (VK_MAKE_API_VERSION).
func MakeAPIVersion(variant, major, minor, patch uint32) uint32 {
	return variant<<29 | major<<22 | minor<<12 | patch
}

// APIVersionMajor, APIVersionMinor and APIVersionPatch unpack a version number.
func APIVersionMajor(v uint32) uint32 { return v >> 22 & 0x7f }

// APIVersionMinor returns the minor number of a packed version.
func APIVersionMinor(v uint32) uint32 { return v >> 12 & 0x3ff }

// APIVersionPatch returns the patch number of a packed version.
func APIVersionPatch(v uint32) uint32 { return v & 0xfff }

// Vulkan versions forma asks for.
var (
	APIVersion1_1 = MakeAPIVersion(0, 1, 1, 0)
	APIVersion1_2 = MakeAPIVersion(0, 1, 2, 0)
	APIVersion1_3 = MakeAPIVersion(0, 1, 3, 0)
)

// Error returns the C name of the result, so a Result can be returned as an error.
func (r Result) Error() string { return r.String() }

// Err returns r as an error when it is an error code (negative), nil for success codes.
func (r Result) Err() error {
	if r < 0 {
		return r
	}
	return nil
}

// Bool converts a Go bool to VkBool32.
func Bool(b bool) Bool32 {
	if b {
		return True
	}
	return False
}

// CString returns a NUL-terminated copy of s in Go memory.
func CString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// CStrings returns a C array of NUL-terminated copies of ss (nil when ss is empty).
func CStrings(ss []string) **byte {
	if len(ss) == 0 {
		return nil
	}
	ps := make([]*byte, len(ss))
	for i, s := range ss {
		ps[i] = CString(s)
	}
	return &ps[0]
}

// GoString returns the NUL-terminated string in a fixed-size char array.
func GoString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// maxCString bounds how far GoStringPtr looks for the terminating NUL.
const maxCString = 1 << 20

// GoStringPtr copies a NUL-terminated string from memory the driver owns (nil gives "").
func GoStringPtr(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for n < maxCString && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
