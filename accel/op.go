package accel

import "fmt"

// Op is a graph operation. Each op's operands, result and parameters are documented at its Builder method.
type Op uint8

// The ops. Leaves first (they compute nothing), then the ops backends implement.
const (
	OpInvalid Op = iota
	// Leaves.
	OpInput  // host data set before each run (token ids, positions)
	OpWeight // an uploaded weight tensor
	OpBuffer // a persistent backend buffer (the KV cache)
	// Views: no computation, the result aliases its operand.
	OpReshape // same elements, another shape
	OpRows    // a contiguous range of rows
	// Computation.
	OpGetRows   // rows of a (possibly quantized) table, by index
	OpMatMul    // x · Wᵀ with W of any weight type
	OpAdd       // a + b, b broadcast over rows
	OpMul       // a ⊙ b, b broadcast over rows
	OpScale     // a · s
	OpRMSNorm   // a / rms(a) per row
	OpLayerNorm // (a - mean(a)) / std(a) per row
	OpSoftmax   // softmax per row
	OpSiLU      // a · σ(a)
	OpGELU      // GELU, tanh approximation
	OpSwiGLU    // silu(a) ⊙ b
	OpGeGLU     // gelu(a) ⊙ b
	OpSoftCap   // c · tanh(a / c)
	OpSlice     // columns [start, start+n) of each row, copied
	OpPermute   // axes permuted, copied
	OpRoPE      // rotary position embedding
	OpKVStore   // write rows into a cache buffer at given positions
	OpAttention // grouped-query attention over the cache, each query up to a given cell
	// Mixture of experts (moe.go).
	OpSigmoid     // 1 / (1 + exp(-a))
	OpTopK        // indices of the k largest per row
	OpPick        // per row, the elements at given indices
	OpDivSum      // a / Σ a per row
	OpMatMulID    // x · W[e]ᵀ with a 3-D weight and each row's chosen experts e
	OpAddID       // a + bias[e] with each row's chosen experts e
	OpSwiGLUOAI   // gpt-oss's clamped SwiGLU
	OpWeightedSum // Σ_j w_j·a_j over each row's experts
	OpConcat      // the last dimensions of a and b, side by side
	OpTempScale   // each row times 1 + s·ln(⌊pos/floor⌋ + 1): attention temperature by position
	OpShortConv   // causal depthwise convolution over a sequence's last cells of a cache (lfm2)
	numOps
)

var opNames = [numOps]string{"invalid", "input", "weight", "buffer", "reshape", "rows", "get_rows", "mat_mul",
	"add", "mul", "scale", "rms_norm", "layer_norm", "softmax", "silu", "gelu", "swiglu", "geglu", "softcap",
	"slice", "permute", "rope", "kv_store", "attention", "sigmoid", "top_k", "pick", "div_sum", "mat_mul_id", "add_id",
	"swiglu_oai", "weighted_sum", "concat", "temp_scale", "short_conv"}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// IsLeaf reports whether the op is an input, weight or buffer.
func (o Op) IsLeaf() bool { return o == OpInput || o == OpWeight || o == OpBuffer }

// IsView reports whether the op's result aliases its first operand's memory.
func (o Op) IsView() bool { return o == OpReshape || o == OpRows }

// Ops lists every computing op (not leaves), for conformance suites and capability checks.
func Ops() []Op {
	var out []Op
	for o := OpReshape; o < numOps; o++ {
		out = append(out, o)
	}
	return out
}

// RoPEMode selects which element pairs RoPE rotates.
type RoPEMode uint8

const (
	// RoPENormal rotates adjacent pairs (x[2i], x[2i+1]) — llama, the original Meta layout.
	RoPENormal RoPEMode = iota
	// RoPENeoX rotates (x[i], x[i+d/2]) — GPT-NeoX layout, used by qwen2/3, gemma, phi3.
	RoPENeoX
)

func (m RoPEMode) String() string {
	if m == RoPENeoX {
		return "neox"
	}
	return "normal"
}

// RoPEParams configure OpRoPE as ggml_rope_ext does. Dimension i (pairs, i < Dims/2) turns by
// θ = p · FreqScale · Base^(-2i/Dims) / factor[i], with YaRN blending when ExtFactor ≠ 0.
type RoPEParams struct {
	Mode      RoPEMode
	Dims      int     // rotated dimensions per head (≤ head size; the rest pass through)
	Base      float32 // frequency base θ₀, e.g. 10000
	FreqScale float32 // 1/linear scaling factor; 1 for none
	// YaRN (ggml's ext_factor, attn_factor, beta_fast, beta_slow, n_ctx_orig). ExtFactor 0 disables the blend;
	// AttnFactor scales cos and sin (1 for none).
	ExtFactor  float32
	AttnFactor float32
	BetaFast   float32
	BetaSlow   float32
	OrigCtx    int
}

// AttentionParams configure OpAttention.
type AttentionParams struct {
	Scale   float32 // applied to q·k after the soft-cap, before the softmax (usually 1/sqrt(head size))
	SoftCap float32 // 0 for none, else scores become SoftCap·tanh(s/SoftCap) first
	Window  int     // 0 for full causal attention, else a query at position p sees keys at p-Window < k ≤ p
	// PageSize is the number of cache rows per page of a paged attention (Builder.PagedAttention); 0 otherwise.
	PageSize int
	// Flash selects llama.cpp's flash-attention arithmetic (ggml_flash_attn_ext: q converted to the key
	// cache's dot-product type, an online softmax with a running maximum and sum, the values accumulated per
	// key, one division at the end) instead of its separate k·q, softmax and v·p. A quantized cache needs it.
	// With it the soft-cap applies to the scaled score: SoftCap·tanh(s·Scale/SoftCap).
	Flash bool
	// RotK and RotV are llama.cpp's attention rotation of a quantized cache (attn_rot_k/v; KVRotation gives
	// the sizes): q is multiplied by the orthonormal Hadamard matrix of size RotK block by block before the
	// scores (the keys were stored rotated alike, KVStoreRotated), and the result by that of size RotV (the
	// values were stored rotated by it). 0 for none; they need Flash.
	RotK, RotV int
	// Sinks, when valid, is an F32 [heads] tensor: per query head, a logit that joins the softmax's maximum and
	// sum but weights no value (gpt-oss's attention sinks, ggml_soft_max_add_sinks).
	Sinks Tensor
	// VSize, when nonzero, makes the values the first VSize elements of each key row: v must then be k (the
	// compressed cache of multi-head latent attention, one buffer for both).
	VSize int
}
