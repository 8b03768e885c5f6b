// Package quant converts between float32 and ggml's tensor storage types, and computes the reference dot
// products that llama.cpp's CPU backend uses for matrix multiplication.
//
// # Conventions
//
// Quantized data is a little-endian byte slice laid out exactly as in a GGUF file: a row of n elements is
// n/BlockElems consecutive blocks of BlockBytes bytes, with no padding. Functions read and write such slices
// in place; they never assume any alignment and never copy the data, so a slice may point straight into a
// memory-mapped model file. The layout of each type is described at the top of the file that implements it
// (q4.go, q5.go, q8.go, k2.go … k6.go, iq4.go, mxfp4.go, float.go).
//
// Memory: the caller owns every slice. Nothing is retained after a call returns, and no function allocates
// on the heap for the data it converts (K-quant quantizers use small fixed-size scratch arrays on the stack).
// The only package-level state is read-only: lookup tables built once at initialisation, among them typeTraits
// (traits.go), one row of facts per type (ggml's type_traits) that every per-type function here reads.
//
// Errors and panics: the checked entry points — Dequantize, Quantize, QuantizeActivation and VecDot —
// validate the type and the slice lengths and return an error naming the problem; they never panic and
// never read outside the slices. The per-type functions (DequantizeQ4_0, QuantizeQ8_K, DotQ4_KQ8_K, …) are
// for hot paths: they trust their arguments, process len(dst) (or n) elements, and panic with an index-out-
// of-range error if a slice is too short. Go's bounds checks mean they too never read out of bounds.
//
// # Numerics
//
// Dequantization reproduces ggml's dequantize_row_* bit for bit. Quantization of Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0, F16 and BF16 reproduces ggml's quantize_row_*_ref bit for bit; the K-quant, IQ4 and MXFP4
// quantizers follow ggml's reference searches (make_qkx2_quants, make_qx_quants, …) operation by operation
// in float32. Activation quantizers (QuantizeQ8_0, QuantizeQ8_1, QuantizeQ8_K) and the Dot* functions
// follow llama.cpp's CPU backend as built for x86-64 (the build that made the reference data): the Dot*
// functions compute its kernels' arithmetic — integer sums per block in the kernels' lanes, then float32
// accumulation with fused multiply-adds where they use them (dot_blocks32.go, dot_kquants.go, dot_float.go),
// VDPBF16PS's lanes and flushes for BF16 (BF16MulAdd: denormals in taken as zero, tiny sums flushed, as the
// instruction does whatever MXCSR says), ggml's generic order for MXFP4 — and are the reference that faster
// implementations must equal. Every float32 expression is written with explicit conversions where ggml rounds, and fused
// multiply-adds are explicit (fma32), so the results are the same on every platform.
//
// # Fast paths
//
// Dot(w, o) returns, per weight type and accumulation Order, an assembly kernel for this CPU (AVX2, AVX-512,
// VNNI and BF16 on amd64: dot*_amd64.s, with VDPBF16PS encoded by bytes in bf16_amd64.h since Go's assembler
// lacks it; NEON and SDOT on arm64: dot*_arm64.s) that returns the bits of its
// reference RefDot(w, o) for every input, or the reference itself; GemmFor(w, o) returns a batched kernel
// with the same bits (gemm*.go) that multiplies many activation rows at once, some also from a matrix stored
// once in a layout of their own (Gemm.Pack, Gemm.MulPacked). TestDotExact, TestGemmExact and
// TestGemmStoredExact check every variant bit for bit. The noasm build tag leaves only the references; the
// environment variable FORMA_CPU, read once at start-up (ForcedCPU, CPUPath), caps the kernels at AVX2
// ("avx2") or at the references ("generic"), to measure a lesser CPU's path.
package quant
