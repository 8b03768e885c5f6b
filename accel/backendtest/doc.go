// Package backendtest is the conformance suite every accel.Backend must pass.
//
// A backend's test calls Run with a constructor:
//
//	func TestConformance(t *testing.T) {
//		backendtest.Run(t, func(t *testing.T) accel.Backend {
//			b, err := cpu.New(cpu.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return b
//		})
//	}
//
// Run is generic over its test: *testing.T, or a Reporter, which runs the same cases outside go test (forma
// selftest) without the testing package. Random inputs are seeded from each case's full name.
//
// Run makes a fresh backend for every case and closes it afterwards. It covers every op of accel.Ops() — a new
// op without a case here fails the suite — on random inputs in several shapes (odd sizes, one row and many,
// grouped-query ratios, head sizes 8 to 128, sliding windows, soft-capping, both RoPE layouts, partial rotary
// dimensions, frequency factors, YaRN, F16 and F32 caches, positions not starting at 0), every weight type the
// backend's Caps list for MatMul and GetRows, a small transformer block run as a prefill and two decode steps
// (the KV caches must persist across runs), several programs running concurrently on one backend, and error
// paths (out-of-range positions and ids, bad inputs, foreign or closed objects). A run that fails on a bad
// position or id must change nothing (no KV rows written by earlier steps).
//
// # References and tolerances
//
// Every expected value comes from a float64 reference written here, independent of any backend. Where llama.cpp
// rounds on purpose the reference rounds the same way, so tolerances stay tight:
//   - MatMul: the activations are first converted with quant.QuantizeActivation to quant.ActivationType of the
//     weight, as llama.cpp does; the reference is Σ dequant(W)·dequant(A) in float64 (for Q4_1/Q5_1 it uses the
//     Q8_1 block sums stored, rounded to F16, in the activation blocks, as ggml's dot product does). Integer
//     block sums are exact, so the only error left is float32 accumulation: tolerance 1e-5·Σ|W||A|.
//   - GetRows: dequantization is exact; tolerance 1e-6 of the row's largest value.
//   - Element-wise ops, norms and softmax: float32 arithmetic against float64, relative 1e-5 (a few ulp, the
//     vectorised exponential of ggml is within 1.5 ulp).
//   - GELU and GeGLU: llama.cpp's CPU reads a table of F16 results, so a result may be off by half an F16 ulp
//     (2^-11 relative), and the table was computed in float32, where 1+tanh loses 2^-23 absolute for very
//     negative x. Inputs are F16-exact so that rounding the input (which the table also does) changes nothing.
//   - RoPE: ggml builds θ by repeated float32 multiplication, so θ of pair i carries up to about (2i+6) float32
//     roundings; the tolerance is that angle error times the pair's length, plus 1e-6 relative.
//   - Attention: scores and sums in float32 against float64, relative 1e-5 of Σ p·|v|. With an F16 cache q is
//     rounded to F16 (exactly as the backend does: both round the same float32) and the probabilities are rounded
//     to F16 before they weight V; where the float64 probability lies so close to an F16 rounding boundary that
//     float32 error may round it the other way, that key's term may differ by one F16 ulp and the tolerance
//     includes it.
//   - The transformer block: errors of the single ops compound over ten ops and three runs; tolerances are given
//     per variant in block.go.
//
// Setting BACKENDTEST_MARGIN=1 logs, for every comparison, the worst deviation as a fraction of its tolerance
// (go test -v), which shows how much room a backend has.
package backendtest
