package vk

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DebugMessage is one message from VK_EXT_debug_utils (the validation layer, the loader or a driver).
type DebugMessage struct {
	Severity DebugUtilsMessageSeverityFlagBitsEXT
	Types    DebugUtilsMessageTypeFlagsEXT
	IDName   string // e.g. "VUID-vkCmdDispatch-None-02699"
	IDNumber int32
	Text     string
}

// DebugHandler receives debug messages. It may be called from any thread, during any Vulkan call, so it must
// be safe for concurrent use and must not call Vulkan.
type DebugHandler func(DebugMessage)

// The one C callback for every messenger: purego callbacks are never freed and their number is limited, so
// it is made once and dispatches on pUserData.
var (
	debugOnce     sync.Once
	debugCallback uintptr
	debugMu       sync.Mutex
	debugHandlers = map[uintptr]*debugEntry{}
)

type debugEntry struct{ h DebugHandler }

// RegisterDebugHandler prepares a VkDebugUtilsMessengerCreateInfoEXT whose messages go to h. Set the returned
// info's MessageSeverity and MessageType, pass it to vkCreateDebugUtilsMessengerEXT (or chain it into
// VkInstanceCreateInfo), and call release once no messenger made from it exists any more.
func RegisterDebugHandler(h DebugHandler) (info *DebugUtilsMessengerCreateInfoEXT, release func()) {
	debugOnce.Do(func() { debugCallback = purego.NewCallback(debugTrampoline) })
	e := &debugEntry{h: h}
	key := uintptr(unsafe.Pointer(e))
	debugMu.Lock()
	debugHandlers[key] = e
	debugMu.Unlock()
	info = &DebugUtilsMessengerCreateInfoEXT{
		SType:           StructureTypeDebugUtilsMessengerCreateInfoEXT,
		PfnUserCallback: debugCallback,
		PUserData:       unsafe.Pointer(e), // a Go heap object kept alive (and unmoved) by debugHandlers
	}
	var once sync.Once
	return info, func() {
		once.Do(func() {
			debugMu.Lock()
			delete(debugHandlers, key)
			debugMu.Unlock()
		})
	}
}

// debugTrampoline is PFN_vkDebugUtilsMessengerCallbackEXT.
func debugTrampoline(severity, types uintptr, data *DebugUtilsMessengerCallbackDataEXT, user uintptr) uintptr {
	debugMu.Lock()
	e := debugHandlers[user]
	debugMu.Unlock()
	if e == nil || data == nil {
		return uintptr(False)
	}
	m := DebugMessage{
		Severity: DebugUtilsMessageSeverityFlagBitsEXT(uint32(severity)),
		Types:    DebugUtilsMessageTypeFlagsEXT(uint32(types)),
		IDName:   GoStringPtr(data.PMessageIdName),
		IDNumber: data.MessageIdNumber,
		Text:     GoStringPtr(data.PMessage),
	}
	func() {
		defer func() { _ = recover() }() // a panic must not unwind through the driver's frames
		e.h(m)
	}()
	return uintptr(False) // VK_FALSE: never abort the call that raised the message
}
