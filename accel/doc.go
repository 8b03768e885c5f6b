// Package accel describes computations as graphs of typed ops and defines the Backend interface that runs them.
//
// A model builds a Graph with a Builder: each op checks its operands' types and shapes and the first failure is
// reported by Build, naming the node. Shapes list dimensions outermost first; the last dimension is contiguous.
// Weights are [out, in] matrices in any GGUF type (the Dims of a GGUF tensor, reversed); intermediates are F32;
// inputs are I32 or F32; persistent buffers (the KV cache) are F16 or F32, or Q8_0/Q4_0 on a backend with
// Caps.FlashAttention (IsKVCacheType).
//
// A Backend uploads weights once (they are shared read-only), allocates buffers, and compiles graphs into
// Programs. NewPlan gives every backend the same execution order and the same liveness-based reuse of one
// scratch arena. Backends free native memory in Close, never in finalizers. Errors are returned, not panicked:
// a bad shape, an unsupported type or an out-of-range position is an error naming the problem.
package accel
