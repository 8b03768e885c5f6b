// Package vk binds the compute subset of Vulkan 1.3 for pure Go (CGO_ENABLED=0) through purego.
//
// The bindings are generated from the Khronos registry vk.xml by internal/gen (run `go generate`); the
// output, ztypes.go and zcommands.go, is committed. internal/gen/subset.go lists the bound commands and
// extra pNext structs; every type they reach is bound with it.
//
// Naming: Go names drop the Vk/vk/VK_ prefixes and keep Vulkan's words: VkBufferCreateInfo is BufferCreateInfo,
// its member pQueueFamilyIndices is PQueueFamilyIndices, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT is
// BufferUsageStorageBufferBit, vkCmdDispatch is DeviceCommands.CmdDispatch.
//
// Layout: every struct has the C layout of the 64-bit platforms forma targets (structs.HostLayout; pointers and
// size_t 8 bytes, enums and VkBool32 4, dispatchable handles uintptr, non-dispatchable handles uint64); a test
// compares each struct's size, alignment and field offsets with the installed C headers. 32-bit platforms are
// not supported.
//
// Memory: Go values handed to a command are pointers into the Go heap (the wrappers make them escape) and are
// only read or written during the call; pointer members of structs are typed Go pointers, so the garbage
// collector keeps what they point to alive. Nothing in this package keeps Go memory past a call, except the
// debug messenger registration (see RegisterDebugHandler), which is released explicitly.
//
// Loading: Load opens the Vulkan loader once per process (libvulkan.so.1, vulkan-1.dll, libvulkan.1.dylib or
// libMoltenVK.dylib; FORMA_VULKAN_LIBRARY overrides the path) and returns ErrNoLoader, wrapped with the reason,
// when it is absent. Commands are then loaded into tables per instance (Library.LoadInstance) and per device
// (Library.LoadDevice) through vkGetInstanceProcAddr and vkGetDeviceProcAddr; there is no other global state.
// A command the driver does not provide has a zero entry (see the tables' Missing methods); calling it panics,
// so check Missing for the commands you need before use.
//
// Errors: Result implements error; Result.Err returns nil for success codes (VK_SUCCESS, VK_INCOMPLETE, …).
package vk

//go:generate go run ./internal/gen -out .
