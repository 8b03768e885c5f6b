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
	// (F32 [rows, vocab]: every position, or the last in.OutRows ones).
	Forward(b *accel.Builder, in Inputs) accel.Tensor
}

// Inputs are the graph handles a forward pass reads.
type Inputs struct {
	Tokens accel.Tensor // I32 [n]
	Pos    accel.Tensor // I32 [n]: each token's position, also its KV cache row
	KV     []LayerKV    // per layer, the caches (graph handles of Buffers)
	// OutRows is the number of final positions whose logits are computed; 0 means all.
	OutRows int
	// NCtx is the context size of the session (chooses between long and short RoPE factors).
	NCtx int
}

// LayerKV holds one layer's key and value caches: [ctx, kvHeads, headDim] and [ctx, kvHeads, headDimV].
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

// Load reads the hyperparameters of f's architecture and uploads its weights to be.
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
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m, err := load(&Loader{File: f, Backend: be, HP: hp})
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", arch, err)
	}
	return m, nil
}

// NewKVCache allocates one key and one value buffer per layer in be, for ctx positions, of type F16 or F32.
// The caller closes the buffers (CloseKV) when the session ends.
func NewKVCache(be accel.Backend, hp *HParams, ctx int, dt accel.DType) ([]accel.Buffer, error) {
	if dt != accel.F16 && dt != accel.F32 {
		return nil, fmt.Errorf("model: KV cache type must be f16 or f32, not %s", dt)
	}
	var bufs []accel.Buffer
	for l := 0; l < hp.Layers; l++ {
		for i, hd := range []int{hp.HeadDim, hp.HeadDimV} {
			name := fmt.Sprintf("cache_%c_l%d", "kv"[i], l)
			buf, err := be.NewBuffer(accel.TensorDesc{Name: name, Type: dt, Shape: []int{ctx, hp.KVHeads, hd}})
			if err != nil {
				CloseKV(bufs)
				return nil, fmt.Errorf("model: allocating the KV cache: %w", err)
			}
			bufs = append(bufs, buf)
		}
	}
	return bufs, nil
}

// CloseKV frees buffers made by NewKVCache.
func CloseKV(bufs []accel.Buffer) {
	for _, b := range bufs {
		b.Close()
	}
}

// BindKV makes the buffers of NewKVCache usable in a graph.
func BindKV(b *accel.Builder, bufs []accel.Buffer) []LayerKV {
	kv := make([]LayerKV, len(bufs)/2)
	for l := range kv {
		kv[l] = LayerKV{K: b.Buffer(bufs[2*l]), V: b.Buffer(bufs[2*l+1])}
	}
	return kv
}
