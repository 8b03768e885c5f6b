package grammar

import "slices"

// engine runs the pushdown automaton of a program. A stack is an interned (state, parent stack) pair, the
// state being the position in the rule on top and the parent the frame to return to (bottom = the empty
// stack). A configuration is an interned, sorted set of stacks whose tops can consume input, plus whether some
// path has finished the bottom frame ("end": the whole grammar when the bottom is the root, or the frame a
// mask-cache walk started in). Steps from a configuration on a byte class are memoized, so that walking a
// token trie costs one table look-up per byte once warm: in effect a lazily built DFA.
//
// An engine is not safe for concurrent use; its tables only grow until reset.
type engine struct {
	p *program

	stState  []int32
	stParent []int32
	stDist   []int32 // the fewest bytes or tokens that empty the stack
	stIndex  hashIndex

	cfgOff   []int32 // stacks of configuration c: cfgData[cfgOff[c]:cfgOff[c+1]]
	cfgData  []int32
	cfgEnd   []bool
	cfgDist  []int32 // the fewest bytes or tokens that complete the grammar (0 when end)
	cfgIndex hashIndex
	rowOff   []int32 // memoized steps of c: rows[rowOff[c]:][:nclass], or -1 before its first step
	rows     []int32 // next configuration, dead, or unknown

	mark []uint32 // closure visits, by stack
	gen  uint32
	out  []int32
	work []int32
	end  bool
}

const (
	bottom  = -1 // the parent of a bottom frame
	dead    = -1 // no configuration: the input cannot continue
	unknown = -2 // a step not yet computed
)

func newEngine(p *program) *engine {
	e := &engine{p: p}
	e.reset()
	return e
}

// reset forgets every stack and configuration, keeping the memory.
func (e *engine) reset() {
	e.stState, e.stParent, e.stDist = e.stState[:0], e.stParent[:0], e.stDist[:0]
	e.stIndex.reset(1024)
	e.cfgOff = append(e.cfgOff[:0], 0)
	e.cfgData, e.cfgEnd, e.cfgDist = e.cfgData[:0], e.cfgEnd[:0], e.cfgDist[:0]
	e.cfgIndex.reset(1024)
	e.rowOff, e.rows = e.rowOff[:0], e.rows[:0]
}

// stack interns (state, parent).
func (e *engine) stack(state, parent int32) int32 {
	h := hash2(state, parent)
	for i := e.stIndex.first(h); ; i = e.stIndex.next(i) {
		id := e.stIndex.slots[i] - 1
		if id < 0 {
			id = int32(len(e.stState))
			d := e.p.minFinish[state]
			if parent != bottom {
				d += e.stDist[parent]
			}
			e.stState = append(e.stState, state)
			e.stParent = append(e.stParent, parent)
			e.stDist = append(e.stDist, d)
			e.stIndex.put(i, id, h, e.rehashStacks)
			return id
		}
		if e.stState[id] == state && e.stParent[id] == parent {
			return id
		}
	}
}

func (e *engine) rehashStacks(id int32) uint64 { return hash2(e.stState[id], e.stParent[id]) }

// stacks returns the stacks of configuration c.
func (e *engine) stacks(c int32) []int32 { return e.cfgData[e.cfgOff[c]:e.cfgOff[c+1]] }

// begin starts collecting a new configuration.
func (e *engine) begin() {
	e.gen++
	if e.gen == 0 {
		clear(e.mark)
		e.gen = 1
	}
	e.out, e.end = e.out[:0], false
}

// closure adds stack s and everything it leads to without input: calls are entered (a call whose return state
// has nothing left to do is a tail call and pushes no frame), finished frames return to their parents.
func (e *engine) closure(s int32) {
	p := e.p
	e.work = append(e.work[:0], s)
	for len(e.work) > 0 {
		s := e.work[len(e.work)-1]
		e.work = e.work[:len(e.work)-1]
		if s == bottom {
			e.end = true
			continue
		}
		if int(s) >= len(e.mark) {
			e.mark = append(e.mark, make([]uint32, int(s)+1-len(e.mark)+len(e.mark)/2)...)
		}
		if e.mark[s] == e.gen {
			continue
		}
		e.mark[s] = e.gen
		q, par := e.stState[s], e.stParent[s]
		if p.consuming[q] {
			e.out = append(e.out, s)
		}
		for _, c := range p.callEdges(q) {
			ret := par
			if !p.tail[c.to] {
				ret = e.stack(c.to, par)
			}
			e.work = append(e.work, e.stack(p.ruleStart[c.label], ret))
		}
		if p.final[q] {
			e.work = append(e.work, par)
		}
	}
}

// finish interns the configuration collected since begin.
func (e *engine) finish() int32 {
	if len(e.out) == 0 && !e.end {
		return dead
	}
	slices.Sort(e.out)
	h := hashList(e.out, e.end)
	for i := e.cfgIndex.first(h); ; i = e.cfgIndex.next(i) {
		id := e.cfgIndex.slots[i] - 1
		if id < 0 {
			id = int32(len(e.cfgEnd))
			e.cfgData = append(e.cfgData, e.out...)
			e.cfgOff = append(e.cfgOff, int32(len(e.cfgData)))
			e.cfgEnd = append(e.cfgEnd, e.end)
			d := int32(0)
			if !e.end {
				d = 1 << 30
				for _, s := range e.out {
					d = min(d, e.stDist[s])
				}
			}
			e.cfgDist = append(e.cfgDist, d)
			e.rowOff = append(e.rowOff, -1)
			e.cfgIndex.put(i, id, h, e.rehashCfg)
			return id
		}
		if e.cfgEnd[id] == e.end && slices.Equal(e.stacks(id), e.out) {
			return id
		}
	}
}

func (e *engine) rehashCfg(id int32) uint64 { return hashList(e.stacks(id), e.cfgEnd[id]) }

// start returns the configuration at state q of a frame over the bottom (the root's start for a matcher).
func (e *engine) start(q int32) int32 {
	e.begin()
	e.closure(e.stack(q, bottom))
	return e.finish()
}

// step returns the configuration after one byte of class cl from c (memoized).
func (e *engine) step(c int32, cl uint8) int32 {
	off := e.rowOff[c]
	if off < 0 {
		off = int32(len(e.rows))
		e.rowOff[c] = off
		for range e.p.nclass {
			e.rows = append(e.rows, unknown)
		}
	}
	if next := e.rows[off+int32(cl)]; next != unknown {
		return next
	}
	e.begin()
	for _, s := range e.stacks(c) {
		for _, ed := range e.p.byteEdges(e.stState[s]) {
			if ed.lo <= cl && cl <= ed.hi {
				e.closure(e.stack(ed.to, e.stParent[s]))
				break
			}
		}
	}
	next := e.finish()
	e.rows[off+int32(cl)] = next
	return next
}

// walk steps c through the bytes of b; it stops early at a dead configuration.
func (e *engine) walk(c int32, b []byte) int32 {
	for _, x := range b {
		if c = e.step(c, e.p.classOf[x]); c == dead {
			return dead
		}
	}
	return c
}

// acceptToken returns the configuration after token id from c: its bytes if it is text, and the token edges
// that match it.
func (e *engine) acceptToken(c int32, id int32, v *Vocab) int32 {
	var byBytes int32 = dead
	if v.isText(id) {
		byBytes = e.walk(c, v.pieces[id])
	}
	e.begin()
	if byBytes != dead {
		for _, s := range e.stacks(byBytes) {
			e.closure(s)
		}
		e.end = e.end || e.cfgEnd[byBytes]
	}
	for _, s := range e.stacks(c) {
		for _, ed := range e.p.tokEdges(e.stState[s]) {
			if e.p.tokSets[ed.label].has(id, v) {
				e.closure(e.stack(ed.to, e.stParent[s]))
			}
		}
	}
	return e.finish()
}

// hashIndex is an open-addressing table of ids (stored +1; 0 is empty) for the interning tables.
type hashIndex struct {
	slots []int32
	n     int
	shift uint
}

func (t *hashIndex) reset(size int) {
	if len(t.slots) < size {
		t.slots = make([]int32, size)
	} else {
		clear(t.slots)
	}
	t.n = 0
	t.shift = 64 - uint(bitsLen(len(t.slots)-1))
}

func (t *hashIndex) first(h uint64) int { return int(h >> t.shift) }
func (t *hashIndex) next(i int) int     { return (i + 1) & (len(t.slots) - 1) }

// put stores id at slot i, growing the table (rehashing with rehash) when it gets more than half full.
func (t *hashIndex) put(i int, id int32, h uint64, rehash func(int32) uint64) {
	t.slots[i] = id + 1
	t.n++
	if 2*t.n <= len(t.slots) {
		return
	}
	old := t.slots
	t.slots = make([]int32, 2*len(old))
	t.shift--
	for _, v := range old {
		if v == 0 {
			continue
		}
		j := t.first(rehash(v - 1))
		for t.slots[j] != 0 {
			j = t.next(j)
		}
		t.slots[j] = v
	}
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

func hash2(a, b int32) uint64 {
	return (uint64(uint32(a))<<32 | uint64(uint32(b))) * 0x9E3779B97F4A7C15
}

func hashList(xs []int32, end bool) uint64 {
	h := uint64(0xCBF29CE484222325)
	if end {
		h ^= 0x5555
	}
	for _, x := range xs {
		h = (h ^ uint64(uint32(x))) * 0x100000001B3
	}
	return h * 0x9E3779B97F4A7C15
}
