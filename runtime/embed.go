package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/forma-llm/forma/model"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// Pooling is how an embedding reduces a text's token states to one vector (model.Pooling).
type Pooling = model.Pooling

// Poolings, for EmbedOptions.Pooling.
const (
	PoolDefault = model.PoolDefault // the model's (GGUF ARCH.pooling_type)
	PoolNone    = model.PoolNone    // a file's when it sets none (a chat model); not a choice for Embed
	PoolMean    = model.PoolMean
	PoolCLS     = model.PoolCLS
	PoolLast    = model.PoolLast
	PoolRank    = model.PoolRank
)

// Normalize is the normalisation of pooled vectors, as llama.cpp's --embd-normalize.
type Normalize int8

const (
	NormL2   Normalize = iota // unit Euclidean length (llama.cpp's default, 2)
	NormNone                  // the pooled vectors as they are (-1)
)

// EmbedOptions configure Model.Embed.
type EmbedOptions struct {
	// Pooling replaces the model's pooling (PoolDefault keeps it), as llama.cpp's --pooling. A model whose
	// file says none (a chat model) needs one: mean, cls or last. PoolRank is Rerank's.
	Pooling Pooling
	// Normalize: NormL2 (the default) or NormNone.
	Normalize Normalize
	// Dimensions, when between 1 and the model's width, keeps each vector's first Dimensions values before it
	// is normalised (Matryoshka embeddings: nomic-embed-text-v1.5, Qwen3-Embedding).
	Dimensions int
	// Truncate shortens a text longer than the model's context to fit (its first tokens, then the end token
	// the vocabulary adds, if any) instead of failing.
	Truncate bool
}

// ErrNoEmbeddings is returned by Embed for a model that cannot embed as asked: no pooling in the file and none
// in the options, a rank pooling, or a Rerank on a model without a rank head.
var ErrNoEmbeddings = errors.New("runtime: the model does not produce embeddings of this kind")

// ErrBadInput is wrapped by the errors about a request's inputs: no tokens, tokens outside the vocabulary.
var ErrBadInput = errors.New("runtime: bad input")

// ErrNoGeneration is returned by NewSession for a model that cannot generate text (an encoder).
var ErrNoGeneration = errors.New("runtime: the model does not generate text")

// EmbedStats count the embedding passes of a Model.
type EmbedStats struct {
	Passes, Texts, Tokens int64 // passes run, texts embedded, tokens evaluated (padding included)
}

// EmbedInfo describes the model's embeddings, and whether it has any (ok false for a model that is no
// model.Embedder).
func (m *Model) EmbedInfo() (info model.EmbedInfo, ok bool) {
	e, ok := m.Arch.(model.Embedder)
	if !ok {
		return model.EmbedInfo{}, false
	}
	return e.Embedding(), true
}

// Embed returns one vector per text, in order: the texts are tokenized (with the special tokens the vocabulary
// adds: [CLS] … [SEP] for BERT), evaluated together in as few passes as fit (each text sees only its own
// tokens), pooled as the model (or opt) says and normalised. The vectors are the caller's.
func (m *Model) Embed(ctx context.Context, texts []string, opt EmbedOptions) ([][]float32, error) {
	toks, err := m.tokenizeAll(texts, opt)
	if err != nil {
		return nil, err
	}
	return m.EmbedTokens(ctx, toks, opt)
}

// EmbedTokens is Embed for texts already tokenized (taken as they are: no special tokens are added).
func (m *Model) EmbedTokens(ctx context.Context, inputs [][]int32, opt EmbedOptions) ([][]float32, error) {
	pool, info, err := m.embedPooling(opt.Pooling)
	if err != nil {
		return nil, err
	}
	if pool == PoolRank {
		return nil, fmt.Errorf("%w: rank pooling scores a query and a document: use Rerank", ErrNoEmbeddings)
	}
	if opt.Dimensions < 0 || opt.Dimensions > info.Dims || opt.Normalize < NormL2 || opt.Normalize > NormNone {
		return nil, fmt.Errorf("runtime: embedding options %+v (the model's vectors have %d dimensions)", opt, info.Dims)
	}
	out, err := m.embedPasses(ctx, inputs, pool, info)
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		if opt.Dimensions > 0 {
			v = v[:opt.Dimensions:opt.Dimensions]
		}
		if opt.Normalize == NormL2 {
			normalizeL2(v)
		}
		out[i] = v
	}
	return out, nil
}

// Rerank scores each document's relevance to query with the model's rank head (a reranker: GGUF pooling rank),
// in the documents' order: the raw score llama-server's /v1/rerank reports (higher is more relevant). Each pair
// is tokenized as RerankTokens says.
func (m *Model) Rerank(ctx context.Context, query string, docs []string) ([]float32, error) {
	_, info, err := m.embedPooling(PoolRank)
	if err != nil {
		return nil, err
	}
	if info.Classes == 0 {
		return nil, fmt.Errorf("%w: the model has no rank head (cls.output)", ErrNoEmbeddings)
	}
	pairs := make([][]int32, len(docs))
	for i, d := range docs {
		if pairs[i], err = m.RerankTokens(query, d); err != nil {
			return nil, err
		}
	}
	vecs, err := m.embedPasses(ctx, pairs, PoolRank, info)
	if err != nil {
		return nil, err
	}
	scores := make([]float32, len(vecs))
	for i, v := range vecs {
		scores[i] = v[0]
	}
	return scores, nil
}

// RankOrder returns the indexes of scores from the highest score to the lowest (equal scores by index): the
// order of Rerank's documents, most relevant first.
func RankOrder(scores []float32) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return idx
}

// RerankTokens returns the tokens Rerank evaluates for one document: llama-server's format_prompt_rerank
// without a rerank template, [BOS] query [EOS] [SEP] document [EOS], each special token where the vocabulary
// adds it (EOS falling back to SEP), the texts tokenized without special tokens.
func (m *Model) RerankTokens(query, doc string) ([]int32, error) {
	tk := m.Tokenizer
	eos := tk.EOS()
	if eos == tokenizer.None {
		eos = tk.SEP()
	}
	var p []int32
	if tk.AddBOS() {
		p = append(p, tk.BOS())
	}
	p, err := tk.AppendEncode(p, query, tokenizer.EncodeOptions{})
	if err != nil {
		return nil, err
	}
	if tk.AddEOS() {
		p = append(p, eos)
	}
	if tk.AddSEP() {
		p = append(p, tk.SEP())
	}
	if p, err = tk.AppendEncode(p, doc, tokenizer.EncodeOptions{}); err != nil {
		return nil, err
	}
	if tk.AddEOS() {
		p = append(p, eos)
	}
	return p, nil
}

// embedPooling resolves the pooling of a request.
func (m *Model) embedPooling(p Pooling) (Pooling, model.EmbedInfo, error) {
	info, ok := m.EmbedInfo()
	if !ok {
		return 0, info, fmt.Errorf("%w: architecture %s", ErrNoEmbeddings, m.HParams().Arch)
	}
	if p == PoolDefault {
		p = info.Pooling
	}
	switch {
	case p == model.PoolNone:
		return 0, info, fmt.Errorf("%w: the model's file sets no pooling (ask for mean, cls or last)", ErrNoEmbeddings)
	case p == PoolRank && info.Classes == 0:
		return 0, info, fmt.Errorf("%w: rank pooling needs a rank head (cls.output), which the model lacks", ErrNoEmbeddings)
	case p > PoolRank:
		return 0, info, fmt.Errorf("runtime: unknown pooling %s", p)
	}
	return p, info, nil
}

// EmbedTokenize returns the tokens Embed evaluates for text: with the vocabulary's special tokens, shortened
// to the model's context when opt.Truncate is set.
func (m *Model) EmbedTokenize(text string, opt EmbedOptions) ([]int32, error) {
	ids, err := m.Tokenizer.Encode(text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	if err != nil {
		return nil, err
	}
	return m.truncate(ids, opt.Truncate), nil
}

// tokenizeAll tokenizes every text into one backing array.
func (m *Model) tokenizeAll(texts []string, opt EmbedOptions) ([][]int32, error) {
	var all []int32
	ends := make([]int, len(texts))
	for i, t := range texts {
		start := len(all)
		var err error
		if all, err = m.Tokenizer.AppendEncode(all, t, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true}); err != nil {
			return nil, err
		}
		all = append(all[:start], m.truncate(all[start:], opt.Truncate)...)
		ends[i] = len(all)
	}
	toks := make([][]int32, len(texts))
	for i := range toks {
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		toks[i] = all[start:ends[i]:ends[i]]
	}
	return toks, nil
}

// truncate shortens ids to the longest sequence an embedding pass takes, keeping a final special token the
// vocabulary adds ([SEP], EOS). Without trunc it returns ids whole (the pass then reports the length).
func (m *Model) truncate(ids []int32, trunc bool) []int32 {
	limit := m.embedLimit()
	if !trunc || len(ids) <= limit {
		return ids
	}
	last := ids[len(ids)-1]
	tk := m.Tokenizer
	if (tk.Model() == tokenizer.ModelWPM && last == tk.SEP()) || (tk.AddEOS() && last == tk.EOS()) {
		ids[limit-1] = last
	}
	return ids[:limit]
}

// normalizeL2 scales v to unit length as llama.cpp's common_embd_normalize with 2 does: the float squares
// summed in double, one float factor.
func normalizeL2(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x * x)
	}
	var norm float32
	if sum > 0 {
		norm = float32(1 / math.Sqrt(sum))
	}
	for i, x := range v {
		v[i] = x * norm
	}
}
