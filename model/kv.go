package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// KVShape is one layer's cache: per cell, Heads rows of KSize key elements and (unless VInK) of VSize value
// elements. Multi-head latent attention keeps one compressed row per cell whose first VSize elements are also
// the value (VInK: no value buffer). A layer with a Window attends only to its last Window cells, so a cache
// may drop the older ones (llama.cpp's SWA cache).
//
// A Conv layer (lfm2's short convolution) keeps no keys or values but the inputs of its convolution, one row
// of KSize elements per cell (Heads 1, VInK), in F32 whatever the cache's type, as llama.cpp keeps that state;
// its Window is the convolution's taps, the cells a token reads. Its state thereby lives in the pages of the
// attention layers' cells and follows their sequences, shared prefixes and evictions.
type KVShape struct {
	Heads  int  `json:"heads"`
	KSize  int  `json:"k_size"`
	VSize  int  `json:"v_size"`
	VInK   bool `json:"v_in_k,omitempty"`
	Window int  `json:"window,omitempty"`
	Conv   bool `json:"conv,omitempty"`
}

// elems returns the key and value elements one cell of the layer holds.
func (s KVShape) elems() (k, v int) {
	k = s.Heads * s.KSize
	if !s.VInK {
		v = s.Heads * s.VSize
	}
	return k, v
}

// cacheType is the element type of the layer's cache in a KV cache of type dt.
func (s KVShape) cacheType(dt accel.DType) accel.DType {
	if s.Conv {
		return accel.F32
	}
	return dt
}

// NewKVCache allocates each layer's caches in be, of rows cache rows, of a KV cache type (accel.IsKVCacheType; a
// quantized one needs head sizes of whole blocks): a key buffer and, unless the layer's values live in its
// keys, a value buffer (nil otherwise). The caller closes the buffers (CloseKV) when done.
func NewKVCache(be accel.Backend, hp *HParams, rows int, dt accel.DType) ([]accel.Buffer, error) {
	return NewKVCacheSWA(be, hp, rows, rows, dt)
}

// NewKVCacheSWA is NewKVCache with swaRows rows in the sliding-window layers' caches (KVShape.Window > 0), which a pass
// addresses through Inputs.SWASlots and SWAPages.
func NewKVCacheSWA(be accel.Backend, hp *HParams, rows, swaRows int, dt accel.DType) ([]accel.Buffer, error) {
	for _, s := range hp.kvShapes() {
		for i, size := range []int{s.KSize, s.VSize} {
			if i == 1 && s.VInK {
				continue
			}
			if err := accel.CheckKVCache(s.cacheType(dt), size); err != nil {
				return nil, fmt.Errorf("model: %w", err)
			}
		}
	}
	var bufs []accel.Buffer
	for l, s := range hp.kvShapes() {
		rows := rows
		if s.Window > 0 {
			rows = swaRows
		}
		for i, size := range []int{s.KSize, s.VSize} {
			if i == 1 && s.VInK {
				bufs = append(bufs, nil)
				continue
			}
			name := fmt.Sprintf("cache_%c_l%d", "kv"[i], l)
			if s.Conv {
				name = fmt.Sprintf("cache_conv_l%d", l)
			}
			buf, err := be.NewBuffer(accel.TensorDesc{Name: name, Type: s.cacheType(dt), Shape: []int{rows, s.Heads, size}})
			if err != nil {
				CloseKV(bufs)
				return nil, fmt.Errorf("model: allocating the KV cache: %w", err)
			}
			bufs = append(bufs, buf)
		}
	}
	return bufs, nil
}

// MaxWindow is the largest sliding window of the layers (0: none has one): the cells a sliding-window layer's
// cache must keep per sequence, besides those of the pass's own tokens.
func (hp *HParams) MaxWindow() int {
	w := 0
	for _, s := range hp.kvShapes() {
		w = max(w, s.Window)
	}
	return w
}

// kvShapes returns the layers' caches: hp.KV, or, before an architecture set it, plain attention's.
func (hp *HParams) kvShapes() []KVShape {
	if hp.KV != nil {
		return hp.KV
	}
	out := make([]KVShape, hp.Layers)
	for l := range out {
		out[l] = KVShape{Heads: hp.KVHeadsL[l], KSize: hp.HeadDim, VSize: hp.HeadDimV, Window: hp.layerWindow(l)}
	}
	return out
}

// CloseKV frees buffers made by NewKVCache.
func CloseKV(bufs []accel.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Close()
		}
	}
}

// BindKV makes the buffers of NewKVCache usable in a graph. A layer without a value buffer gets an invalid V.
func BindKV(b *accel.Builder, bufs []accel.Buffer) []LayerKV {
	kv := make([]LayerKV, len(bufs)/2)
	for l := range kv {
		kv[l].K = b.Buffer(bufs[2*l])
		if bufs[2*l+1] != nil {
			kv[l].V = b.Buffer(bufs[2*l+1])
		}
	}
	return kv
}

// KVCacheBytes is the memory of NewKVCacheSWA's buffers for rows cache rows (swaRows in sliding-window layers)
// of type dt (0 if dt cannot hold the model's heads).
func KVCacheBytes(hp *HParams, rows, swaRows int, dt accel.DType) int64 {
	var total int64
	for _, s := range hp.kvShapes() {
		n := rows
		if s.Window > 0 {
			n = swaRows
		}
		for i, size := range []int{s.KSize, s.VSize} {
			if i == 1 && s.VInK {
				continue
			}
			b, err := s.cacheType(dt).RowBytes(size)
			if err != nil {
				return 0
			}
			total += int64(n) * int64(s.Heads) * int64(b)
		}
	}
	return total
}

// KVMemory is the size of llama.cpp's KV cache for a context of ctx cells shared by seqs sequences, with ubatch
// tokens per micro-batch, in bytes of elemBytes per element (2 for F16), as its default (llama-server's)
// settings allocate it: the context padded to 256 cells and split into one stream per sequence; every layer
// keeps each stream's cells, but a sliding-window layer keeps only min(stream, window + ubatch) of them, padded
// to 256 (llama_kv_cache_iswa without swa_full), and a layer whose values live in its keys keeps no values
// (multi-head latent attention). A short-convolution layer keeps nothing there (its state is llama.cpp's
// recurrent memory, apart from the KV cache).
func KVMemory(hp *HParams, ctx, seqs, ubatch, elemBytes int) (k, v int64) {
	const pad = 256
	padUp := func(n int) int { return (n + pad - 1) / pad * pad }
	stream := padUp(ctx) / seqs
	for _, s := range hp.kvShapes() {
		if s.Conv {
			continue
		}
		cells := stream
		if s.Window > 0 {
			cells = padUp(min(stream, s.Window+ubatch))
		}
		ke, ve := s.elems()
		k += int64(seqs) * int64(cells) * int64(ke) * int64(elemBytes)
		v += int64(seqs) * int64(cells) * int64(ve) * int64(elemBytes)
	}
	return k, v
}
