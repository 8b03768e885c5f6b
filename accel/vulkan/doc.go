// Package vulkan runs compute shaders on a Vulkan device through the purego bindings of package vk: no cgo, the
// loader is opened at run time, and a machine without Vulkan gets an error (ErrNoLoader, ErrNoDevice) to fall
// back on, never a crash. It provides the device runtime (Device, Buffer, Commands, pipelines) and, on top of
// it, Backend, forma's Vulkan accel.Backend.
//
// # Device runtime
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
//
// # The backend
//
// NewBackend opens a device and owns it; NewBackendOn shares an open one (the pipeline cache is the device's).
//
// Weights: Upload converts each weight into its device layout (shaders/blocks.glsl) and writes it straight into
// device memory through WriteFunc, chunk by chunk, never holding it on the Go heap. F32, F16, BF16, Q4_K and Q5_K
// keep GGUF's bytes; Q4_0, Q8_0 and Q6_K get two bytes of padding per block so every field is word-aligned (no
// 8- or 16-bit storage access is needed); Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS and MXFP4 become Q8S, int8
// quants with float32 scales and minimums per 16 elements (shaders/layout), which holds their values exactly in 12 bits
// per weight. A weight larger than the device's maxStorageBufferRange is split by rows into several buffers, and
// products and lookups run one dispatch per part.
//
// Programs: Compile plans the graph with accel.NewPlan (offsets aligned to minStorageBufferOffsetAlignment);
// intermediates live in one device-local arena, followed by the workspace of converted activations, packed by
// lifetime; inputs live in a host-visible buffer that SetInt32 and SetFloat32 write and shaders read in place;
// outputs are copied into a host-readable buffer at the end of the command buffer. Each program is one command
// buffer recorded at Compile: a dispatch per op (two for a product: activation conversion, then the product per
// weight part), with a barrier only where a dispatch reads or overwrites memory an earlier one since the last
// barrier wrote, or overwrites memory one read. Bindings start at the aligned offset at or before the data and
// shaders add element offsets from push constants. Which dispatches an op takes is accel/internal/gpulower's,
// shared with the Metal backend; this package records them (record.go) and places the barriers (hazards.go). Run checks ids and positions on the host (a bad one fails the
// run before anything is submitted), submits, waits, and allocates nothing; Read converts from mapped memory.
// KV caches are zeroed device buffers, F16 packed two to a word. Close (of a program, a buffer, the backend)
// destroys every Vulkan object it made.
//
// # Numerics
//
// The shaders compute what the CPU backend computes (its doc lists the rules by which it reproduces llama.cpp's
// x86-64 AVX-512 build, the reference data's), bit for bit for every op and weight type except Q2_K, Q3_K and
// IQ4_XS products (scaled per half block rather than in ggml's association, correct to float32 rounding):
//   - Activations are converted to the weight's activation type on the GPU (Q8_0 and Q8_1 as llama.cpp's x86
//     code, Q8_K as ggml's reference, F16, BF16) with integer-exact rounding and correctly rounded divisions.
//   - Products keep each type's accumulators as the reference kernels do (shaders/matq.glsl), with the order
//     the CPU backend chooses by the weight's type and shape alone, whatever the number of rows (batch
//     invariance): eight lanes of four elements with fused multiply-adds for Q4_0, Q5_0, Q8_0, Q4_1, Q5_1 (the
//     repacked order for Q4_0 matrices of a multiple of 8 rows), ggml's eight integer lanes per super-block for
//     K-quants (for Q4_K matrices of a multiple of 8 rows the repacked order: a fused multiply-add per pair of
//     groups), 16 lanes for F32 and F16 weights whose rows are a multiple of 16 and row count of 4
//     (llamafile's tinyBLAS) and 64 lanes for other F32 and F16 rows (ggml_vec_dot_f32), double sums for BF16.
//     Blocks are applied in order — in the mat-vec through shared memory rather than subgroup operations, whose
//     order is the hardware's.
//   - Norms and softmax sum in double-float (hi + lo float32 pairs) where ggml sums in double; attention follows
//     the reference's per-16-cell softmax sums and, for an F32 V, tinyBLAS's 16 lanes for every query.
//   - exp is ggml_v_expf in its AVX-512 form (and C's expf, correctly rounded, for the elements ggml's vector
//     loops leave); tanh (GELU, soft-capping) is correctly rounded, computed in double-float; sin and cos (RoPE)
//     are GNU libc's sinf and cosf (internal/libm), their float64 steps in double-float, which gives libc's
//     float32 results but where its float64 value lies within about 2^-46 of a rounding boundary (a few
//     angles in ten million); division and square root are correctly rounded. Fused multiply-adds use the GPU's fma()
//     where a probe at NewBackendOn finds it fused, and an exact emulation elsewhere (lavapipe). Vulkan's own
//     transcendentals are not used: their precision is the driver's.
//
// The golden logits of testdata (llama.cpp's) are therefore the CPU backend's on every model, and the Vulkan
// backend passes and fails the same golden cases.
package vulkan
