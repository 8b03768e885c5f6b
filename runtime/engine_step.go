package runtime

import (
	"fmt"
	"time"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/model"
)

// step plans one pass over the running sequences, runs it and hands out the logits.
func (e *engine) step() {
	e.plan()
	if len(e.parts) == 0 {
		// Nothing could get a page although sequences are running: the newest cannot fit beside the others.
		s := e.running[len(e.running)-1]
		e.mu.Lock()
		e.running = e.running[:len(e.running)-1]
		e.finish(s, errPoolTooSmall)
		e.mu.Unlock()
		return
	}
	start := time.Now()
	pr, err := e.fill()
	if err == nil {
		err = e.run(pr)
	}
	e.lastPass.Store(int64(time.Since(start)))
	if e.onPass != nil { // before the results: a reply written from them finds its passes counted
		tokens := 0
		for _, p := range e.parts {
			tokens += p.n
		}
		e.onPass(len(e.parts), tokens)
	}
	e.deliver(pr, err)
}

// plan chooses the pass: the next token of every decoding sequence (one token left to evaluate), then chunks
// of the others in admission order, within the batch; the total is then cut to a compiled size (bucket), from
// the last chunk back.
func (e *engine) plan() {
	e.parts = e.parts[:0]
	budget := e.batch
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < len(e.running) && budget > 0; i++ {
			s := e.running[i]
			rem := s.target - s.held
			if (pass == 0) != (rem == 1) || e.inPass(s) {
				continue
			}
			n := e.reserve(s, min(rem, s.chunk, budget))
			if n > 0 {
				e.parts = append(e.parts, part{s: s, first: s.held, n: n})
				budget -= n
			}
			i = slicesIndex(e.running, s) // a preemption may have moved it
		}
	}
	total := e.batch - budget
	for cut := total - e.bucket(total); cut > 0; {
		p := &e.parts[len(e.parts)-1]
		d := min(cut, p.n)
		p.n -= d
		cut -= d
		if p.n == 0 {
			e.parts = e.parts[:len(e.parts)-1]
		}
	}
}

// reserve makes sure s has pages for its next n cells and returns how many of them it got pages for.
func (e *engine) reserve(s *sequence, n int) int {
	for c := s.held; c < s.held+n; c += PageSize - c%PageSize {
		if j := c / PageSize; j >= len(s.pages) {
			pg := e.allocPage(s)
			if pg < 0 {
				return c - s.held
			}
			e.setPage(s, j, pg)
			if e.window > 0 {
				e.holdSWA(s, j) // a new page has its window page
			}
		}
	}
	return n
}

// bucket returns the largest pass size not above n that the engine compiles: every size up to the rows of
// the page table (at least 16), then 16·2^k and 24·2^k. Padding is never needed: the plan cuts its last chunk.
func (e *engine) bucket(n int) int {
	small := max(16, e.maxSeqs)
	if n <= small {
		return n
	}
	b := small
	for k := 16; ; k *= 2 {
		for _, c := range [2]int{k, k * 3 / 2} {
			if c > n {
				return b
			}
			b = max(b, c)
		}
	}
}

// fill writes the pass's inputs and returns its program.
func (e *engine) fill() (*program, error) {
	in := &e.in
	n, needed, all := 0, 0, false
	for _, p := range e.parts {
		s := p.s
		for c := p.first; c < p.first+p.n; c++ {
			in.tok[n], in.pos[n], in.seq[n] = s.toks[c], int32(c), int32(s.row)
			in.slot[n] = s.pages[c/PageSize]*PageSize + int32(c%PageSize)
			if e.window > 0 {
				in.swaSlot[n] = e.pool.swaOf(s.pages[c/PageSize])*PageSize + int32(c%PageSize)
			}
			if c >= s.from {
				in.out[needed] = int32(n)
				needed++
			}
			n++
		}
		all = all || s.all
	}
	rows := min(n, e.maxSeqs)
	if all && needed > rows {
		rows = n
	}
	if needed == 0 { // only prompt chunks before their last token: the rows computed are thrown away
		in.out[0] = 0
	}
	for k := needed; k < rows; k++ {
		in.out[k] = in.out[0]
	}
	return e.program(n, rows)
}

// run sets the inputs, runs the pass and reads the logits.
func (e *engine) run(pr *program) error {
	in := &e.in
	n := pr.n
	for _, set := range [...]struct {
		t accel.Tensor
		v []int32
	}{{pr.tok, in.tok[:n]}, {pr.pos, in.pos[:n]}, {pr.slot, in.slot[:n]}, {pr.seq, in.seq[:n]}, {pr.pages, in.table},
		{pr.out, in.out[:pr.rows]}} {
		if err := pr.p.SetInt32(set.t, set.v); err != nil {
			return err
		}
	}
	if e.window > 0 {
		if err := pr.p.SetInt32(pr.swaSlot, in.swaSlot[:n]); err != nil {
			return err
		}
		if err := pr.p.SetInt32(pr.swaPages, in.swaTable); err != nil {
			return err
		}
	}
	if err := pr.p.Run(); err != nil {
		return err
	}
	return pr.p.Read(pr.logits, in.logits[:pr.rows*e.hp.Vocab])
}

// deliver advances the sequences of the pass, enters their newly full pages in the prefix tree, copies their
// logits and ends the requests that are done (or all of them, with err).
func (e *engine) deliver(pr *program, err error) {
	V := e.hp.Vocab
	row := 0
	for _, p := range e.parts {
		s := p.s
		if err != nil {
			continue
		}
		for c := p.first; c < p.first+p.n; c++ {
			if c >= s.from {
				copy(s.logits[(c-s.from)*V:(c-s.from+1)*V], e.in.logits[row*V:(row+1)*V])
				row++
			}
		}
		s.held += p.n
		for j := p.first / PageSize; j < s.held/PageSize; j++ {
			if pg := s.pages[j]; !e.pool.pages[pg].inTree {
				parent := int32(-1)
				if j > 0 {
					parent = s.pages[j-1]
				}
				e.setPage(s, j, e.pool.publish(pg, parent, s.toks[j*PageSize:(j+1)*PageSize]))
			}
		}
		e.releaseBehind(s)
	}
	e.mu.Lock()
	e.last = e.last[:0]
	e.stats.Passes++
	e.stats.LastBatch = 0
	for _, p := range e.parts {
		e.stats.LastBatch += p.n
	}
	for _, p := range e.parts {
		s := p.s
		e.stats.Tokens += int64(p.n)
		if err == nil && s.held < s.target {
			continue
		}
		if i := slicesIndex(e.running, s); i >= 0 {
			e.running = append(e.running[:i], e.running[i+1:]...)
		}
		e.last = append(e.last, s)
		e.finish(s, err)
	}
	e.mu.Unlock()
}

// program returns the compiled pass of n tokens and rows logit rows, compiling it the first time.
func (e *engine) program(n, rows int) (*program, error) {
	k := progKey{n, rows}
	if pr, ok := e.progs[k]; ok {
		return pr, nil
	}
	b := accel.NewBuilder()
	pr := &program{n: n, rows: rows}
	pr.tok = b.Input("tokens", accel.I32, n)
	pr.pos = b.Input("pos", accel.I32, n)
	pr.slot = b.Input("slots", accel.I32, n)
	pr.seq = b.Input("seq", accel.I32, n)
	pr.pages = b.Input("pages", accel.I32, e.maxSeqs, e.maxPages)
	pr.out = b.Input("out", accel.I32, rows)
	in := model.Inputs{Tokens: pr.tok, Pos: pr.pos, Slots: pr.slot, Seq: pr.seq, Pages: pr.pages, PageSize: PageSize,
		KV: model.BindKV(b, e.bufs), Out: pr.out, NCtx: e.nctx, Flash: e.flash}
	if e.window > 0 {
		pr.swaSlot = b.Input("swa_slots", accel.I32, n)
		pr.swaPages = b.Input("swa_pages", accel.I32, e.maxSeqs, e.maxPages)
		in.SWASlots, in.SWAPages = pr.swaSlot, pr.swaPages
	}
	pr.logits = b.Output(e.m.Arch.Forward(b, in))
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("runtime: building the graph: %w", err)
	}
	opts := e.m.compileOpts
	opts.Scratch = &e.scratch
	if pr.p, err = e.m.Backend.Compile(g, opts); err != nil {
		return nil, err
	}
	e.progs[k] = pr
	if need := rows * e.hp.Vocab; need > len(e.in.logits) {
		e.in.logits = make([]float32, need)
	}
	return pr, nil
}
