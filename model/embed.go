package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
)

// Pooling is how an embedding reduces the states of a sequence's tokens to one vector (GGUF ARCH.pooling_type,
// llama.cpp's enum llama_pooling_type shifted by one so that the zero value means "the model's").
type Pooling uint8

const (
	PoolDefault Pooling = iota // the model's own pooling (as a request's choice); never a model's
	PoolNone                   // no pooling: one vector per token
	PoolMean                   // the mean of the sequence's token states
	PoolCLS                    // the state of the sequence's first token
	PoolLast                   // the state of the sequence's last token
	PoolRank                   // the classifier head over the first token's state: relevance scores
)

var poolingNames = [...]string{"default", "none", "mean", "cls", "last", "rank"}

func (p Pooling) String() string {
	if int(p) < len(poolingNames) {
		return poolingNames[p]
	}
	return fmt.Sprintf("pooling(%d)", uint8(p))
}

// ParsePooling returns the pooling named as llama.cpp's --pooling does (none, mean, cls, last, rank).
func ParsePooling(s string) (Pooling, error) {
	for i, n := range poolingNames {
		if n == s && i > 0 {
			return Pooling(i), nil
		}
	}
	return 0, fmt.Errorf("unknown pooling %q (none, mean, cls, last, rank)", s)
}

// readPooling reads ARCH.pooling_type (llama.cpp's numbering: 0 none … 4 rank).
func readPooling(f *gguf.File, arch string) (Pooling, error) {
	key := arch + ".pooling_type"
	v, err := f.Int(key)
	switch {
	case gguf.IsNotFound(err):
		return PoolNone, nil
	case err != nil:
		return 0, err
	case v < 0 || v > int64(PoolRank-1):
		return 0, fmt.Errorf("%s = %d is not a pooling type llama.cpp knows (0 none … 4 rank)", key, v)
	}
	return Pooling(v + 1), nil
}

// EmbedInfo says what an embedding model's passes produce.
type EmbedInfo struct {
	Pooling Pooling // the file's (PoolNone when it does not say)
	// Encoder is set when a token's attention sees its whole sequence (bert); a decoder's sees the tokens
	// before it (qwen3, llama), as llama.cpp evaluates each.
	Encoder bool
	Dims    int // the width of a token state
	// Classes is the width of the rank head's output (PoolRank); 0 when the model has no rank head.
	Classes int
	// RankLast says the rank head reads the sequence's last token rather than its first.
	RankLast bool
}

// Embedder is a model that can produce embeddings (llama.cpp's embeddings mode). Every architecture of the
// llama family is one, through its final-normed states; encoders (bert, nomic-bert) are only this.
type Embedder interface {
	Model
	Embedding() EmbedInfo
	// Embed appends a pass over in.Tokens and returns F32 [rows, Dims]: the last states of the tokens in.Out
	// names (every token when invalid), the vectors llama.cpp pools (its t_embd). With rank set (and Classes > 0)
	// it returns the rank head's F32 [rows, Classes] over those rows instead.
	Embed(b *accel.Builder, in Inputs, rank bool) accel.Tensor
}

// Embedding describes a decoder's embeddings: its final-normed states, causal, with no rank head.
func (m *Transformer) Embedding() EmbedInfo {
	return EmbedInfo{Pooling: m.HP.Pooling, Dims: m.HP.Embd}
}

// Embed is Forward without the output projection: the final-normed states of the rows in.Out names
// (llama.cpp's result_norm, which a decoder's embeddings pool). A decoder has no rank head: rank is ignored.
func (m *Transformer) Embed(b *accel.Builder, in Inputs, rank bool) accel.Tensor {
	x := b.Name(b.GetRows(b.Weight(m.Embd), in.Tokens), "inp_embd", -1)
	if m.EmbedScale != 0 {
		x = b.Name(b.Scale(x, m.EmbedScale), "inp_scaled", -1)
	}
	for l := range m.Layers {
		x = m.block(b, l, x, in)
	}
	if in.Out.Valid() {
		x = b.GetRows(x, in.Out)
	}
	return m.norm(b, x, m.OutNorm, "result_norm", -1)
}

// NewPassKV allocates the cache of an embedding pass of rows tokens: one F32 key and one F32 value buffer that
// every attention layer uses in turn (a pass keeps nothing between passes, and each layer's attention has read
// them before the next layer writes), and, for a model with short-convolution layers (lfm2), one F32 buffer of
// their inputs that they share alike. The caller closes them (CloseKV); BindPassKV makes them usable in a graph.
func NewPassKV(be accel.Backend, hp *HParams, rows int) ([]accel.Buffer, error) {
	heads, conv := hp.KVHeads, 0
	for l, s := range hp.kvShapes() {
		switch {
		case s.Conv:
			conv = s.KSize
		case heads == 0:
			heads = hp.KVHeadsL[l] // the first layer is a convolution
		}
	}
	shapes := [][]int{{rows, heads, hp.HeadDim}, {rows, heads, hp.HeadDimV}}
	if conv > 0 {
		shapes = append(shapes, []int{rows, 1, conv})
	}
	var bufs []accel.Buffer
	for i, shape := range shapes {
		buf, err := be.NewBuffer(accel.TensorDesc{Name: []string{"pass_cache_k", "pass_cache_v", "pass_cache_conv"}[i],
			Type: accel.F32, Shape: shape})
		if err != nil {
			CloseKV(bufs)
			return nil, fmt.Errorf("model: allocating an embedding pass's cache: %w", err)
		}
		bufs = append(bufs, buf)
	}
	return bufs, nil
}

// BindPassKV makes the buffers of NewPassKV every layer's cache in a graph.
func BindPassKV(b *accel.Builder, hp *HParams, bufs []accel.Buffer) []LayerKV {
	kv := make([]LayerKV, hp.Layers)
	shapes := hp.kvShapes()
	for l := range kv {
		if shapes[l].Conv && len(bufs) > 2 {
			kv[l] = LayerKV{K: b.Buffer(bufs[2])}
			continue
		}
		kv[l] = LayerKV{K: b.Buffer(bufs[0]), V: b.Buffer(bufs[1])}
	}
	return kv
}
