package metal

import (
	"structs"
	"unsafe"
)

// mtlSize is Metal's MTLSize: three NSUIntegers (unsigned long, 64 bits on both Mac architectures).
type mtlSize struct {
	_                    structs.HostLayout
	width, height, depth uint64
}

// The C ABI of objc_msgSend(self, _cmd, …) for dispatchThreadgroups:threadsPerThreadgroup:, whose two MTLSize
// arguments are 24-byte composites: on arm64 (AAPCS64) a composite larger than 16 bytes is copied by the
// caller and passed as a pointer to the copy, in the next integer register; on amd64 (System V) it is of class
// MEMORY and goes on the stack, in order, leaving the remaining integer registers (rdx, rcx, r8, r9) unused.
// purego.SyscallN passes its first 8 (arm64) or 6 (amd64) arguments in integer registers and the rest on the
// stack from the lowest address up, so the amd64 form pads to the sixth argument.

// dispatchArgs writes the arguments of dispatchThreadgroups:threadsPerThreadgroup: that follow self and
// _cmd, for goarch, into args[2:] and returns how many arguments there are in all. sizes (the grid, then the
// threadgroup) must stay where it is until the call returns: on arm64 the call receives its address.
func dispatchArgs(goarch string, args *[12]uintptr, sizes *[2]mtlSize) int {
	if goarch == "amd64" {
		args[2], args[3], args[4], args[5] = 0, 0, 0, 0
		for i, s := range sizes {
			args[6+3*i], args[7+3*i], args[8+3*i] = uintptr(s.width), uintptr(s.height), uintptr(s.depth)
		}
		return 12
	}
	args[2] = uintptr(unsafe.Pointer(&sizes[0]))
	args[3] = uintptr(unsafe.Pointer(&sizes[1]))
	return 4
}
