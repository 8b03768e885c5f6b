// Package gpulower lowers a planned compute graph into the dispatches of forma's compute shaders (shaders/*.comp),
// once, for every GPU backend: accel/vulkan records them into a Vulkan command buffer, accel/metal encodes them
// with a Metal compute encoder. Both therefore run the same kernels with the same specialization constants,
// push constants, bindings and grids, and compute the CPU backend's results bit for bit.
//
// A backend compiles a graph in four steps: it plans it (accel.NewPlan, offsets aligned to its binding
// alignment), sizes the workspace of converted activations (PlanWorkspace) and allocates its memory, tells the
// lowering where every node's values live (Config: a Place per node, in buffers of its own type B), and then
// asks for the dispatches of each plan step in order (Lowerer.Step). Each Dispatch names its kernel, its
// workgroup size and the kernel's own specialization constants (Constants gives all of them, with NATIVE_FMA),
// the push constants, the workgroup counts, and one Binding per SPIR-V binding: a buffer bound from an aligned
// offset, the element offset of the data in it (which shaders add from push constants), and whether the
// dispatch writes it, from which a backend that tracks hazards (Vulkan) places its barriers. ReadValues and
// Producer are the host-side read-back both backends share.
//
// Ids, positions, sequences and page tables are inputs whose values the host knows: the lowering collects the
// checks of their ranges (Checks), which a backend runs before every submission so that a bad run changes
// nothing.
//
// Errors: a graph the shaders cannot run (an op without a kernel, a quantized KV cache, a head larger than the
// attention shader holds, a view of a weight crossing its split parts) makes Step return an error naming the
// problem; nothing panics. The package allocates only while lowering (at compile time), never per run.
package gpulower
