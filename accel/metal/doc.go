// Package metal runs forma's compute shaders on an Apple GPU through Metal, with no cgo: Metal, Foundation and
// CoreGraphics are opened at run time through purego, and objects are driven through objc_msgSend
// (purego/objc). On other systems NewBackend returns ErrNeedsMacOS ("Metal needs macOS"), and a Mac without a
// usable device gets ErrNoDevice: callers fall back, never crash.
//
// # Shaders
//
// The kernels are the Vulkan backend's: shaders/*.comp compiled to SPIR-V, translated at `go generate` time to
// Metal Shading Language 3.0 by the pinned upstream SPIRV-Cross (shaders/msl, with '#pragma clang fp
// contract(off)'), and compiled here at run time with newLibraryWithSource (users need no Xcode), safe math
// mode, precise math functions and fast math off, so they compute what they compute on Vulkan: the CPU
// backend's results, bit for bit. Each kernel comes with a table read from its MSL signature: SPIRV-Cross
// numbers buffers by first use and drops unused ones, so the backend binds SPIR-V binding k to the buffer
// index the table gives, and pads push constants (set with setBytes) to the MSL struct's size. The workgroup
// size is function constant 0, or the macro SPIRV_CROSS_CONSTANT_ID_0 defined at compile time where a kernel
// sizes threadgroup memory by it. Whether the GPU's fma() is fused, whether SIMD-group reductions work and the
// SIMD width are found by probe kernels at start (supportsFamily under-reports in virtual machines).
//
// # Memory
//
// Everything lives in shared storage (MTLStorageModeShared), which the host reads and writes in place. On
// unified memory, weights whose device form is their GGUF form (F32, F16, BF16, Q4_K, Q5_K) are not copied:
// the model file's mapping (accel.WeightData.Mapping) is wrapped with newBufferWithBytesNoCopy in page-aligned
// views no larger than maxBufferLength, placed so every tensor lies whole in one (views.go). Other types are
// converted once into shared buffers (Q4_0, Q8_0 and Q6_K padded to whole words, the rest to Q8S; see
// shaders/layout), split by rows when larger than maxBufferLength; so is every weight on a device without
// unified memory, or where no-copy mappings are unreliable (the paravirtual device of macOS 14 and earlier
// reads stale data through them; FORMA_METAL_NOCOPY=0/1 overrides). KV caches and each program's arena
// (inputs, intermediates, converted activations) are shared buffers; outputs are read where they were computed.
//
// # Execution
//
// Compile plans the graph (accel.NewPlan) and records its dispatches once: accel/internal/gpulower lowers each
// op into the same kernels, push constants, bindings and grids as for accel/vulkan, and record.go turns each
// dispatch into a step (a pipeline, buffers bound by the kernel's table, padded push constants). Run checks ids
// and positions on the host, then encodes the steps into one command buffer with one serial compute encoder
// (each dispatch sees the previous ones' writes), commits it, waits, and checks its status. Encoding goes
// through objc_msgSend with argument arrays kept between runs, so Run allocates nothing.
//
// # Threads and ownership
//
// Every call into Metal runs on a locked OS thread inside an autorelease pool. Objects from new…, alloc… or
// …Create… calls are owned and released by Close (of a program, a buffer, the backend); autoreleased ones live
// until their pool pops. Nothing relies on finalizers.
//
// # Testing without a Mac
//
// The backend sits on a small interface (gpu) that Metal implements on macOS; the package's tests implement it
// on Vulkan elsewhere and run the conformance suite, golden cases, numerics and the CPU-bit-equality tests on
// the very SPIR-V the MSL was made from. What only a Mac can check — the Objective-C calls, SPIRV-Cross's
// translation, the Metal compiler — runs in .github/workflows/macos.yml and `forma selftest --backend metal`.
package metal
