// Package vulkan runs compute shaders on a Vulkan device through the purego bindings of package vk: no cgo, the
// loader is opened at run time, and a machine without Vulkan gets an error (ErrNoLoader, ErrNoDevice) to fall
// back on, never a crash.
//
// Open picks a device (FORMA_VULKAN_DEVICE or Options.Device: an index from Devices or a name substring;
// otherwise discrete GPU > integrated GPU > virtual GPU > CPU) and creates one compute queue. Options.Validation
// turns on the Khronos validation layer with synchronization validation; its warnings and errors are recorded
// (Device.Messages), and forma's tests fail on any.
//
// Memory: NewBuffer allocates a storage buffer with its own memory of a MemoryKind. On unified-memory devices
// (integrated GPUs, Apple silicon, CPU devices) device-local buffers are mapped and Write/Read copy directly;
// elsewhere they go through 16 MiB staging buffers. WriteFunc lets a caller convert data straight into that
// memory. Native memory is freed by Close (Buffer.Close, Commands.Close, Device.Close), never by finalizers.
//
// Work: Device.Pipeline makes (and caches, by shader and specialization) a compute pipeline; a Commands records
// dispatches with their buffers and push constants, barriers, copies, fills and timestamps once, then is
// submitted any number of times (Run, or Submit and Wait). Device.Close waits for the device and destroys
// everything it created, in order.
//
// Ownership and concurrency: a Device may be used from several goroutines; each Commands by one at a time.
// Objects belong to the Device that made them and must not be used after it is closed.
package vulkan
