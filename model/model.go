package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
)

// Model is a loaded architecture: its hyperparameters and uploaded weights, and the graph of one forward pass.
// A Model is read-only after loading and shared by every session.
type Model interface {
	HParams() *HParams
	// Forward appends the graph of one forward pass over in.Tokens to b and returns the logits
	// (F32 [rows, vocab]: the tokens in.Out names, or every token).
	Forward(b *accel.Builder, in Inputs) accel.Tensor
}

// Inputs are the graph handles a forward pass reads. A pass carries tokens of one or more sequences: each token
// has its position in its sequence (RoPE, and the cells its attention sees), the cache row its key and value
// are written to, and, with a paged cache, the row of Pages listing its sequence's cache pages. A token's
// result depends only on its own inputs and its sequence's cells, not on the other tokens of the pass.
type Inputs struct {
	Tokens accel.Tensor // I32 [n]
	Pos    accel.Tensor // I32 [n]: each token's position in its sequence
	// Slots (I32 [n]) are the cache rows the tokens' keys and values are written to; invalid means Pos (one
	// sequence whose cell c is row c).
	Slots accel.Tensor
	// Seq (I32 [n]) and Pages (I32 [seqs, maxPages]) describe a paged cache (accel.Builder.PagedAttention):
	// token i's sequence has the cache pages Pages[Seq[i]], of PageSize rows each. Invalid: not paged.
	Seq, Pages accel.Tensor
	PageSize   int
	// See (I32 [n]) is the last cell each token's attention sees; invalid means Pos (causal attention). An
	// encoder's tokens see their whole sequence: See is its last cell for each of them. RoPE keeps Pos.
	See accel.Tensor
	// SWASlots (I32 [n]) and SWAPages (I32 [seqs, maxPages]), when valid, are the rows and page table of the
	// sliding-window layers' caches (KVShape.Window > 0), kept apart from the others' so that they can be
	// smaller: a sequence's pages wholly behind the window of its tokens in the pass may be released (-1) and
	// reused. Invalid: those layers use Slots and Pages like the others.
	SWASlots, SWAPages accel.Tensor
	KV                 []LayerKV // per layer, the caches (graph handles of Buffers)
	// Out (I32 [rows]) lists the tokens whose logits are computed, in order; invalid means every token.
	Out accel.Tensor
	// NCtx is the context size of a sequence (chooses between long and short RoPE factors).
	NCtx int
	// Flash computes attention as llama.cpp's flash attention (accel.AttentionParams.Flash); a quantized cache
	// needs it.
	Flash bool
}

// slots returns the cache rows the tokens are written to in a layer with the given window (0: none).
func (in *Inputs) slots(window int) accel.Tensor {
	switch {
	case window > 0 && in.SWASlots.Valid():
		return in.SWASlots
	case in.Slots.Valid():
		return in.Slots
	}
	return in.Pos
}

// see returns the last cell each token's attention sees.
func (in *Inputs) see() accel.Tensor {
	if in.See.Valid() {
		return in.See
	}
	return in.Pos
}

// attention writes k and v to layer l's caches and appends the attention of q over them, paged or not. A
// quantized cache is read by flash attention with llama.cpp's rotation of q, k and v (accel.KVRotation). Where
// the values live in the keys (p.VSize > 0, multi-head latent attention) only k is written and v is unused.
// Sliding-window layers use the window's own slots and pages when the inputs have them (SWASlots, SWAPages).
func (in *Inputs) attention(b *accel.Builder, l int, q, k, v accel.Tensor, p accel.AttentionParams) accel.Tensor {
	slots := in.slots(p.Window)
	kt := b.Type(in.KV[l].K)
	vt := kt
	if p.VSize == 0 {
		vt = b.Type(in.KV[l].V)
	}
	p.Flash = in.Flash || kt.BlockElems() > 1 || vt.BlockElems() > 1
	var kc, vc accel.Tensor
	if p.VSize > 0 {
		kc = b.KVStore(in.KV[l].K, k, slots)
		vc = kc
	} else {
		p.RotK, p.RotV = accel.KVRotation(kt, headSize(b, k), true), accel.KVRotation(vt, headSize(b, v), false)
		kc = b.KVStoreRotated(in.KV[l].K, k, slots, p.RotK)
		vc = b.KVStoreRotated(in.KV[l].V, v, slots, p.RotV)
	}
	if in.Pages.Valid() {
		p.PageSize = in.PageSize
		pages := in.Pages
		if p.Window > 0 && in.SWAPages.Valid() {
			pages = in.SWAPages
		}
		return b.PagedAttention(q, kc, vc, in.see(), in.Seq, pages, p)
	}
	return b.Attention(q, kc, vc, in.see(), p)
}

// headSize is the last dimension of x ([n, heads, size]), 0 if x failed.
func headSize(b *accel.Builder, x accel.Tensor) int {
	if s := b.Shape(x); len(s) == 3 {
		return s[2]
	}
	return 0
}

// LayerKV holds one layer's key and value caches: [rows, kvHeads, headDim] and [rows, kvHeads, headDimV]. V
// is invalid where the values live in the keys (KVShape.VInK).
type LayerKV struct{ K, V accel.Tensor }

// LoadOptions tune loading.
type LoadOptions struct{}

type loadFunc func(ld *Loader) (Model, error)

// registry maps general.architecture to a loader; filled by init functions of the architecture files.
var registry = map[string]loadFunc{}

// Register makes an architecture loadable. It panics on a duplicate name (a programming error).
func Register(arch string, load func(ld *Loader) (Model, error)) {
	if _, dup := registry[arch]; dup {
		panic("model: architecture registered twice: " + arch)
	}
	registry[arch] = load
}

// Architectures lists the registered architectures, sorted.
func Architectures() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Describe reads the hyperparameters of f's architecture and checks its tensors as Load does, uploading
// nothing: what an architecture decides at load (each layer's cache, HParams.KV) is set without the weights'
// memory, for forma info.
func Describe(f *gguf.File) (*HParams, error) {
	m, err := Load(f, nil, LoadOptions{})
	if err != nil {
		return nil, err
	}
	return m.HParams(), nil
}

// Load reads the hyperparameters of f's architecture and uploads its weights to be (nil: Describe).
func Load(f *gguf.File, be accel.Backend, opt LoadOptions) (Model, error) {
	arch, err := f.Architecture()
	if err != nil {
		return nil, err
	}
	load, ok := registry[arch]
	if !ok {
		return nil, fmt.Errorf("model: unknown architecture %q (known: %s)", arch, strings.Join(Architectures(), ", "))
	}
	emb, err := f.Tensor("token_embd.weight")
	if err != nil {
		return nil, fmt.Errorf("model: %s: missing tensor \"token_embd.weight\"", arch)
	}
	if len(emb.Dims) != 2 {
		return nil, fmt.Errorf("model: tensor \"token_embd.weight\" has dims %v, want 2", emb.Dims)
	}
	hp, err := ReadHParams(f, arch, int(emb.Dims[1]))
	if err == nil {
		hp.Pooling, err = readPooling(f, arch)
	}
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m, err := load(&Loader{File: f, Backend: be, HP: hp})
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", arch, err)
	}
	return m, nil
}
