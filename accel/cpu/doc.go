// Package cpu is forma's CPU backend: it runs accel graphs with Go kernels on a pool of worker goroutines.
//
// # Memory
//
// Upload keeps a reference to WeightData.Data (usually a slice of the read-only model mapping) and kernels read it
// in place, with two exceptions, each copied once into memory outside the Go heap and freed by Close: an F32 weight
// whose data is not 4-byte aligned (a GGUF file always aligns tensors, hand-made data may not), and a matrix whose
// batched kernel has a stored layout (quant.Gemm.Pack: Q4_0, Q8_0, Q5_K, Q6_K and MXFP4 on CPUs with AVX-512 VNNI,
// Q4_K where they also have VBMI; Q4_0, Q8_0, Q4_K, Q6_K and MXFP4 on CPUs with AVX2 but no VNNI), which the first
// program that multiplies by it rearranges into that layout (stored.go) while other ops keep reading the original
// (unless the copy would take more than half of the memory available: then it is multiplied in place).
// Buffers (KV caches) and each program's scratch arena are allocated outside the Go heap with internal/osmem and
// freed by Close, never by a finalizer. The arena holds every intermediate at the offset accel.NewPlan gives it,
// followed by a workspace shared by the steps (quantized activations, attention scores, RoPE tables); programs
// compiled with one accel.Scratch share one arena, the size of the largest (scratch.go). Under the race
// detector, which cannot watch memory outside the Go heap, buffers and arenas are Go slices instead, so that
// races between workers are reported.
//
// # Threads
//
// The Backend has one pool of Threads-1 worker goroutines, started by the first Run and stopped by Close; the
// goroutine calling Run is the last worker. Programs take turns on it: any number of them may Run from several
// goroutines on one Backend (as engines over one model do), one at a time rather than oversubscribing the
// cores. Work is split so that every worker gets an equal share: by output rows for MatMul, by rows for norms,
// by (token, head) for RoPE and attention, by element ranges for element-wise ops. The exception is a MatMul of
// at most 4 activation rows (decoding): it is bound by memory, which the cores do not share evenly, so the
// workers take its output rows in shrinking chunks (guided scheduling, pool.go's chunks) and finish together.
// Workers spin briefly after a step and then park, so a program between tokens costs no CPU. Run allocates
// nothing on the Go heap.
//
// # Numerics
//
// The kernels follow llama.cpp's CPU backend (ggml-cpu) as built for x86-64 with AVX-512, the build that made
// forma's reference logits, so that logits match llama.cpp bit for bit where its arithmetic is reproduced:
//   - MatMul converts each activation row once to quant.ActivationType of the weight (Q8_0, Q8_1, Q8_K, F16,
//     BF16 or F32) and multiplies with the reference dot products of gguf/quant (integer sums per block). The
//     order is chosen by the weight's type and shape, never by the number of rows (see Batch invariance):
//     llamafile's tiled order (quant.DotF32F32Tiled, DotF16F16Tiled) for F32 and F16 weights whose row length
//     is a multiple of 16 and row count a multiple of 4; the orders of the reference's kernels for weights
//     interleaved 8 rows at a time (quant.OrderRepacked: repacked Q4_0, IQ4_NL, Q4_K and Q2_K) for those
//     types with a row count that is a multiple of 8; else the x86 ggml_vec_dot's.
//   - MatMulID (mixture of experts) multiplies each (row, chosen expert) pair as mul_mat_id does, one row at a
//     time: ggml_vec_dot's order, or the repacked orders for experts of a multiple of 8 rows (idOrder), the same
//     bits for a pair whatever else the pass holds.
//   - RMSNorm and LayerNorm sum in float64 (ggml_float) and scale by 1/sqrtf(mean+eps) in float32 (RMSNorm
//     four rows at a time where it can, each row's sum in its order: norm_amd64.s).
//   - SiLU, SwiGLU and Softmax use ggml's vectorised exponential in its AVX-512 form (ggml_v_expf); the last
//     n mod 16 elements of a SiLU or SwiGLU row take ggml's scalar path (libm's expf). Softmax sums in float64.
//   - GELU and GeGLU read ggml's F16 table: x rounded to F16, the result stored as F16, x ≤ -10 gives 0 and
//     x ≥ 10 gives x (GGML_GELU_FP16).
//   - RoPE is ggml_compute_forward_rope: θ accumulated per pair by float32 multiplication with
//     powf(base, -2/dims), frequency factors dividing θ, YaRN ramp and magnitude scaling, cos and sin of θ as
//     GNU libc's cosf and sinf compute them (internal/libm); each rotated value is one product fused into the
//     other (x0·cos - x1·sin as the compiler contracts it).
//   - Attention is llama.cpp's graph without flash attention: for an F16 cache q is rounded to F16, scores are
//     float32 dot products, soft-capped, scaled, masked (causal and sliding window), softmaxed, and for an F16
//     cache the probabilities are rounded to F16 before they weight V. With an F32 cache the sums are formed
//     in the reference's vector lanes (see attnStep), which assumes its KV view is a multiple of 64 cells
//     (llama.cpp pads it to 256).
//   - Flash attention (AttentionParams.Flash, needed by Q8_0/Q4_0 caches) is llama.cpp's one-row kernel
//     ggml_compute_forward_flash_attn_ext_f16_one_chunk with its online softmax (flash.go), the Hadamard
//     rotation of a quantized cache as its fast Walsh-Hadamard transform (hadamard.go), and the cache rows
//     quantized as its set_rows does (copy.go).
//
// Float32 expressions are written with explicit conversions where ggml rounds and explicit fused
// multiply-adds (fma32) where it fuses, so the results are the same on amd64 and arm64. The SIMD forms compute
// the same bits: with AVX-512 (FORMA_CPU unset) the exponential, SiLU, SwiGLU, the axpy of flash attention and
// the F16 attention's lane kernels (16 queries a vector); with AVX2 alone (FORMA_CPU=avx2, most desktop Intel
// CPUs) the exponential, SiLU and SwiGLU 8 lanes wide, the F16 attention's lane kernels 8 queries a vector
// (attn_lanes_avx2_amd64.s, head sizes that are multiples of 8), and its per-head score and value loops for
// the rest (attn_avx2_amd64.s: 8 cells a vector, 64 value dims in registers).
//
// # Batch invariance
//
// A row's result depends only on its own inputs and its cache, never on the other rows of its batch, their
// number, or the number of threads: every op computes each output element with one order chosen by shapes
// that do not include the number of rows (tokens) or queries, and work is split between threads by whole
// outputs, never inside a sum. Where the reference build picks different kernels for a batch than for a single
// row (F32 and F16 weights, repacked Q4_K and Q2_K, IQ4_NL, the F32 V product of attention), the batch
// kernel's order is used for every row, so a prompt evaluated at once reproduces the reference's prefill and a
// generated token differs from the reference's by float rounding (docs/architecture.md has the measurements);
// BF16 weights take the single rows' order instead (see orderFor). backendtest.Invariance checks this for
// every op and weight type.
//
// # Errors
//
// Upload, NewBuffer and Compile return errors naming the tensor or node; Run returns an error (never panics) when
// a position or row id is out of range. Operations on a closed backend, buffer or program return accel.ErrClosed.
package cpu
