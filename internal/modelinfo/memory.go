package modelinfo

import "fmt"

// Memory is an estimate of what running a model takes, in bytes, the way Kronk's VRAM calculator adds it up:
// the weights as stored, a KV cache of F16 keys and values for every layer at the context length, and a compute
// buffer for one batch.
type Memory struct {
	Context int    `json:"context"`
	Weights uint64 `json:"weights_bytes"`
	KVCache uint64 `json:"kv_cache_bytes"`
	Compute uint64 `json:"compute_bytes"`
	Total   uint64 `json:"total_bytes"`
}

// Sizes the estimate assumes.
const (
	kvElemBytes  = 2   // F16 keys and values
	actElemBytes = 4   // F32 activations
	Ubatch       = 512 // positions per batch, llama.cpp's default n_ubatch
)

// Estimate returns the memory needed at a context of ctx tokens (the model's context length when ctx <= 0).
//
//	KV cache = sum over layers of cells(layer) * n_kv_heads(layer) * (head_dim_k + head_dim_v) * 2 bytes
//	         = 2 * n_layer * ctx * n_kv_heads * head_dim * 2 bytes when all layers and K/V dims agree
//	cells    = ctx, or for a sliding-window layer min(ctx, window + ub) rounded up to 256 (llama.cpp's SWA cache)
//
// with the layers' caches as the architecture loads them (Info.KV): a latent-attention layer keeps one row of
// kv_lora_rank + rope dims per cell and no values; a short-convolution layer (lfm2) keeps llama.cpp's
// recurrent state instead, the last taps − 1 inputs of one sequence in F32, whatever the context.
//
//	compute  = ub * (n_vocab + 4*n_embd + 2*n_ff + n_heads*ctx) * 4 bytes, ub = min(512, ctx)
//
// The compute term counts what dominates llama.cpp's CPU compute buffer for one batch of ub positions without
// flash attention: the logits, the residual/norm/attention activations, the FFN activations and the attention
// score matrix (n_heads x ctx per position). It is an estimate, not a measurement.
func (in *Info) Estimate(ctx int) Memory {
	if ctx <= 0 {
		ctx = in.ContextLength
	}
	m := Memory{Context: ctx, Weights: in.WeightBytes}
	ub := uint64(min(Ubatch, ctx))
	for l := 0; l < in.Layers; l++ {
		kv := in.KVHeads
		if in.KVHeadsLayer != nil && l < len(in.KVHeadsLayer) {
			kv = in.KVHeadsLayer[l]
		}
		perCell, cells := uint64(kv)*uint64(in.HeadDim+in.HeadDimV), uint64(ctx)
		if l < len(in.KV) && in.KV[l].Conv {
			m.KVCache += uint64(in.KV[l].Window-1) * uint64(in.KV[l].KSize) * 4
			continue
		}
		if l < len(in.KV) {
			s := in.KV[l]
			perCell = uint64(s.Heads * s.KSize)
			if !s.VInK {
				perCell += uint64(s.Heads * s.VSize)
			}
			if s.Window > 0 {
				cells = min(cells, (uint64(s.Window)+ub+255)/256*256)
			}
		}
		m.KVCache += perCell * cells * kvElemBytes
	}
	m.Compute = ub * uint64(in.VocabSize+4*in.Embedding+2*in.FeedForward+in.Heads*ctx) * actElemBytes
	m.Total = m.Weights + m.KVCache + m.Compute
	return m
}

// FormatBytes prints n with a binary unit, e.g. "1.50 GiB".
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for x := n / unit; x >= unit && exp < 4; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// FormatCount prints a parameter count the usual way, e.g. "1.10B", "292.80K".
func FormatCount(n uint64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.2fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
