package runtime

import (
	"context"
	"fmt"
	"sync"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/model"
)

// Embedding passes. The texts of a call are packed whole, in order, into passes of at most embedBatch tokens
// and embedMaxSeqs texts (a longer text gets a pass of its own). In a pass each text is a sequence with cache
// pages of its own in a scratch cache that every layer shares (model.NewPassKV); an encoder's tokens see their
// whole text, a decoder's the tokens before them. A pass's size is rounded up to one the embedder compiles
// (16·2^k or 24·2^k tokens) with padding tokens in a sequence of their own, so a few programs serve any mix
// of texts. Pooling by the first or last token happens in the graph (the pass returns one row per text); mean
// pooling reads every token's state back and averages on the host.
const (
	embedBatch   = 2048  // tokens per pass when packing several texts
	embedMaxSeqs = 64    // texts per pass
	embedPage    = 16    // cache rows per page
	embedMaxLen  = 32768 // the longest text, whatever the training context
)

// embedder holds a model's embedding programs, their cache and the buffers their inputs are staged in. One
// pass runs at a time.
type embedder struct {
	mu     sync.Mutex
	closed bool
	kv     []accel.Buffer
	kvRows int
	progs  map[embedKey]*embedProgram
	in     embedInputs
	host   []float32
	stats  EmbedStats
}

// embedKey names a compiled pass: its tokens, whether it returns one row per text (cls, last, rank) or one per
// token (mean), and whether the rank head runs.
type embedKey struct {
	n            int
	pooled, rank bool
}

type embedProgram struct {
	p                                       accel.Program
	n, rows, width                          int
	tok, pos, see, slot, seq, pages, out, y accel.Tensor
}

// embedInputs are a pass's inputs, staged on the host.
type embedInputs struct {
	tok, pos, see, slot, seq, pages, out []int32
}

// embedLimit is the most tokens one text may have: the context the model was loaded with (Options.Ctx), else
// its training context, at most embedMaxLen.
func (m *Model) embedLimit() int {
	limit := min(m.HParams().CtxTrain, embedMaxLen)
	if m.opt.Ctx > 0 {
		limit = min(limit, m.opt.Ctx)
	}
	return limit
}

// EmbedStats returns the counters of the model's embedding passes.
func (m *Model) EmbedStats() EmbedStats {
	m.mu.Lock()
	e := m.emb
	m.mu.Unlock()
	if e == nil {
		return EmbedStats{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// embedder returns the model's embedder, making it the first time (Close leaves a closed one behind, whose
// passes return ErrClosed).
func (m *Model) embedder() *embedder {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.emb == nil {
		m.emb = &embedder{progs: map[embedKey]*embedProgram{}}
	}
	return m.emb
}

// embedPasses evaluates inputs and returns each one's pooled vector (un-normalised): Dims wide, or Classes for
// rank pooling. The vectors share one allocation.
func (m *Model) embedPasses(ctx context.Context, inputs [][]int32, pool Pooling, info model.EmbedInfo) ([][]float32, error) {
	limit, vocab := m.embedLimit(), m.HParams().Vocab
	for i, ids := range inputs {
		if len(ids) == 0 {
			return nil, fmt.Errorf("%w: input %d has no tokens", ErrBadInput, i)
		}
		if len(ids) > limit {
			return nil, fmt.Errorf("%w: input %d has %d tokens, more than the %d an embedding takes (EmbedOptions.Truncate shortens it)",
				ErrContextFull, i, len(ids), limit)
		}
		for _, t := range ids {
			if t < 0 || int(t) >= vocab {
				return nil, fmt.Errorf("%w: input %d: token %d is outside the vocabulary of %d", ErrBadInput, i, t, vocab)
			}
		}
	}
	e := m.embedder()
	width := info.Dims
	if pool == PoolRank {
		width = info.Classes
	}
	out := make([][]float32, len(inputs))
	backing := make([]float32, len(inputs)*width)
	for i := range out {
		out[i] = backing[i*width : (i+1)*width : (i+1)*width]
	}
	for first := 0; first < len(inputs); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end, tokens := first, 0
		for end < len(inputs) && end-first < embedMaxSeqs && (end == first || tokens+len(inputs[end]) <= embedBatch) {
			tokens += len(inputs[end])
			end++
		}
		if err := e.pass(m, inputs[first:end], out[first:end], pool, info); err != nil {
			return nil, err
		}
		first = end
	}
	return out, nil
}

// embedBucket returns the pass size for n tokens: the least of 16·2^k and 24·2^k not below n.
func embedBucket(n int) int {
	for k := 16; ; k *= 2 {
		if n <= k {
			return k
		}
		if n <= k*3/2 {
			return k * 3 / 2
		}
	}
}

// pass evaluates one pass's texts and pools each into out.
func (e *embedder) pass(m *Model, texts [][]int32, out [][]float32, pool Pooling, info model.EmbedInfo) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	total := 0
	for _, t := range texts {
		total += len(t)
	}
	n := embedBucket(total)
	pr, err := e.program(m, embedKey{n: n, pooled: pool != PoolMean, rank: pool == PoolRank})
	if err != nil {
		return err
	}
	e.fill(texts, n, pool, info)
	in := &e.in
	for _, set := range [...]struct {
		t accel.Tensor
		v []int32
	}{{pr.tok, in.tok}, {pr.pos, in.pos}, {pr.see, in.see}, {pr.slot, in.slot}, {pr.seq, in.seq}, {pr.pages, in.pages},
		{pr.out, in.out}} {
		if !set.t.Valid() {
			continue
		}
		if err := pr.p.SetInt32(set.t, set.v); err != nil {
			return err
		}
	}
	if err := pr.p.Run(); err != nil {
		return err
	}
	if err := pr.p.Read(pr.y, e.host[:pr.rows*pr.width]); err != nil {
		return err
	}
	e.pool(texts, out, pr, pool)
	e.stats.Passes++
	e.stats.Texts += int64(len(texts))
	e.stats.Tokens += int64(n)
	return nil
}

// fill stages the inputs of a pass of n tokens: each text a sequence whose pages follow the previous one's,
// then the padding as one more sequence.
func (e *embedder) fill(texts [][]int32, n int, pool Pooling, info model.EmbedInfo) {
	in := &e.in
	maxPages := (n + embedPage - 1) / embedPage
	in.tok, in.pos, in.see, in.slot, in.seq = in.tok[:0], in.pos[:0], in.see[:0], in.slot[:0], in.seq[:0]
	in.pages, in.out = zeros(in.pages, (embedMaxSeqs+1)*maxPages), zeros(in.out, embedMaxSeqs)
	page := int32(0)
	// add appends sequence s of l tokens (ids, or padding when ids is nil).
	add := func(s, l int, ids []int32) {
		for j := 0; j < (l+embedPage-1)/embedPage; j++ {
			in.pages[s*maxPages+j] = page + int32(j)
		}
		for c := 0; c < l; c++ {
			tok, pos, see := int32(0), int32(0), int32(l-1)
			if ids != nil {
				tok, pos = ids[c], int32(c)
				if !info.Encoder {
					see = int32(c)
				}
			}
			in.tok, in.pos, in.see, in.seq = append(in.tok, tok), append(in.pos, pos), append(in.see, see), append(in.seq, int32(s))
			in.slot = append(in.slot, (page+int32(c/embedPage))*embedPage+int32(c%embedPage))
		}
		page += int32((l + embedPage - 1) / embedPage)
	}
	row := int32(0)
	for s, ids := range texts {
		in.out[s] = row
		if pool == PoolLast || (pool == PoolRank && info.RankLast) {
			in.out[s] = row + int32(len(ids)-1)
		}
		add(s, len(ids), ids)
		row += int32(len(ids))
	}
	if pad := n - int(row); pad > 0 {
		add(len(texts), pad, nil)
	}
}

// zeros returns buf resized to n zeros, reusing its memory.
func zeros(buf []int32, n int) []int32 {
	if cap(buf) < n {
		return make([]int32, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// pool writes each text's vector: its row of a pooled pass, or the mean of its tokens' rows.
func (e *embedder) pool(texts [][]int32, out [][]float32, pr *embedProgram, pool Pooling) {
	w := pr.width
	if pool != PoolMean {
		for s := range texts {
			copy(out[s], e.host[s*w:(s+1)*w])
		}
		return
	}
	row := 0
	for s, ids := range texts {
		inv := 1 / float32(len(ids))
		for d := 0; d < w; d++ {
			var sum float64
			for r := row; r < row+len(ids); r++ {
				sum += float64(e.host[r*w+d])
			}
			out[s][d] = float32(sum) * inv
		}
		row += len(ids)
	}
}

// program returns the compiled pass for key, compiling it (and growing the cache) the first time.
func (e *embedder) program(m *Model, key embedKey) (*embedProgram, error) {
	if pr, ok := e.progs[key]; ok {
		return pr, nil
	}
	hp := m.HParams()
	// Each sequence starts on a page: at most a page less one row is lost per sequence, the padding's included.
	rows := (key.n + (embedMaxSeqs+1)*(embedPage-1) + embedPage - 1) / embedPage * embedPage
	if rows > e.kvRows {
		e.release()
		kv, err := model.NewPassKV(m.Backend, hp, rows)
		if err != nil {
			return nil, err
		}
		e.kv, e.kvRows = kv, rows
	}
	emb := m.Arch.(model.Embedder)
	info := emb.Embedding()
	b := accel.NewBuilder()
	pr := &embedProgram{n: key.n, rows: key.n, width: info.Dims}
	maxPages := (key.n + embedPage - 1) / embedPage
	pr.tok = b.Input("tokens", accel.I32, key.n)
	pr.pos = b.Input("pos", accel.I32, key.n)
	pr.see = b.Input("see", accel.I32, key.n)
	pr.slot = b.Input("slots", accel.I32, key.n)
	pr.seq = b.Input("seq", accel.I32, key.n)
	pr.pages = b.Input("pages", accel.I32, embedMaxSeqs+1, maxPages)
	in := model.Inputs{Tokens: pr.tok, Pos: pr.pos, See: pr.see, Slots: pr.slot, Seq: pr.seq, Pages: pr.pages,
		PageSize: embedPage, KV: model.BindPassKV(b, hp, e.kv), NCtx: m.embedLimit()}
	if key.pooled {
		pr.out = b.Input("out", accel.I32, embedMaxSeqs)
		in.Out, pr.rows = pr.out, embedMaxSeqs
	}
	if key.rank {
		pr.width = info.Classes
	}
	pr.y = b.Output(emb.Embed(b, in, key.rank))
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("runtime: building the embedding graph: %w", err)
	}
	if pr.p, err = m.Backend.Compile(g, m.compileOpts); err != nil {
		return nil, err
	}
	e.progs[key] = pr
	if need := pr.rows * pr.width; need > len(e.host) {
		e.host = make([]float32, need)
	}
	return pr, nil
}

// release frees the programs and the cache (they are made again as needed).
func (e *embedder) release() {
	for k, pr := range e.progs {
		pr.p.Close()
		delete(e.progs, k)
	}
	model.CloseKV(e.kv)
	e.kv, e.kvRows = nil, 0
}

// close frees everything; later passes fail with ErrClosed.
func (e *embedder) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.release()
	e.closed = true
}
