package vk

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// Prepared is a command call whose arguments were converted once, for per-token paths that must not allocate
// (an ordinary wrapper call allocates its argument list). The memory its pointer arguments refer to is kept
// alive by the Prepared value and, being on the Go heap, does not move; the caller may change the pointed-to
// values between calls but not the pointers.
type Prepared struct {
	fn   uintptr
	args []uintptr
	keep []any // the Go pointers behind args
}

// Call makes the call.
func (p *Prepared) Call() Result {
	r, _, _ := purego.SyscallN(p.fn, p.args...)
	return Result(int32(r))
}

// PrepareQueueSubmit prepares vkQueueSubmit.
func (t *DeviceCommands) PrepareQueueSubmit(queue Queue, submitCount uint32, pSubmits *SubmitInfo, fence Fence) *Prepared {
	return &Prepared{fn: t.pfnQueueSubmit, keep: []any{pSubmits},
		args: []uintptr{uintptr(queue), uintptr(submitCount), uintptr(unsafe.Pointer(pSubmits)), uintptr(fence)}}
}

// PrepareResetFences prepares vkResetFences.
func (t *DeviceCommands) PrepareResetFences(device Device, fenceCount uint32, pFences *Fence) *Prepared {
	return &Prepared{fn: t.pfnResetFences, keep: []any{pFences},
		args: []uintptr{uintptr(device), uintptr(fenceCount), uintptr(unsafe.Pointer(pFences))}}
}

// PrepareWaitForFences prepares vkWaitForFences.
func (t *DeviceCommands) PrepareWaitForFences(device Device, fenceCount uint32, pFences *Fence, waitAll Bool32, timeout uint64) *Prepared {
	return &Prepared{fn: t.pfnWaitForFences, keep: []any{pFences},
		args: []uintptr{uintptr(device), uintptr(fenceCount), uintptr(unsafe.Pointer(pFences)), uintptr(waitAll), uintptr(timeout)}}
}
