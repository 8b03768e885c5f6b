package grammar

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Compiled is a grammar bound to a vocabulary: its automaton, and the masks of tokens each state allows
// whatever the context (computed on first use and kept). It is safe for concurrent use; each generation takes
// its own Matcher.
type Compiled struct {
	p *program
	v *Vocab

	entries []atomic.Pointer[entry] // by state

	mu    sync.Mutex // guards what follows: the walks that fill entries
	eng   *engine
	cfgAt []int32
	acc   []uint64 // by sorted position
	unc   []uint64 // by sorted position
}

// entry is what a state allows on its own: tokens accepted within its frame whatever lies below it, and the
// tokens that finish the frame part-way and so depend on the context ("unsure": the matcher checks these
// against its whole stack).
type entry struct {
	bits   []uint64 // accepted ids as a bit set, or nil when ids is shorter
	ids    []int32  // accepted ids when few
	unsure []unsureToken
}

type unsureToken struct {
	id  int32
	lcp uint16 // bytes in common with the previous unsure token
}

// Compile binds g to the vocabulary v. It fails if g matches nothing this vocabulary can write, if a rule is
// left-recursive, or if a token it names is not in the vocabulary.
func Compile(g *Grammar, v *Vocab) (*Compiled, error) {
	p, err := newProgram(g, v)
	if err != nil {
		return nil, err
	}
	c := &Compiled{p: p, v: v, entries: make([]atomic.Pointer[entry], p.numStates()), eng: newEngine(p)}
	c.cfgAt = make([]int32, v.maxLen+1)
	c.acc = make([]uint64, (len(v.sorted)+63)/64)
	c.unc = make([]uint64, len(c.acc))
	return c, nil
}

// Vocab returns the vocabulary the grammar is bound to.
func (c *Compiled) Vocab() *Vocab { return c.v }

// MaskWords is the length of a mask: one bit per token id.
func (c *Compiled) MaskWords() int { return (c.v.n + 63) / 64 }

// States is the number of automaton states (a measure of the grammar's size).
func (c *Compiled) States() int { return c.p.numStates() }

// entry returns the entry of consuming state q, computing it on first use.
func (c *Compiled) entry(q int32) *entry {
	if e := c.entries[q].Load(); e != nil {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[q].Load(); e != nil {
		return e
	}
	e := c.computeEntry(q)
	c.entries[q].Store(e)
	return e
}

// computeEntry walks the token trie from a frame at q over an unknown context. Each node costs one memoized
// step (the fast path below) unless its configuration is new.
func (c *Compiled) computeEntry(q int32) *entry {
	v, eng, p := c.v, c.eng, c.p
	clear(c.acc)
	clear(c.unc)
	follow := &p.follow[p.stRule[q]]
	c0 := eng.start(q)
	cfgAt, acc, nodes, classOf := c.cfgAt, c.acc, v.nodes, &p.classOf
	cfgAt[0] = c0
	for i := int32(0); int(i) < len(nodes); {
		nd := &nodes[i]
		pc := cfgAt[nd.depth-1]
		cl := classOf[nd.b]
		if nd.depth >= 2 && eng.cfgEnd[pc] && follow.has(int(cl)) {
			setRange(c.unc, nd.pos, v.subtreeEnd(i))
		}
		nc := int32(unknown)
		if off := eng.rowOff[pc]; off >= 0 {
			nc = eng.rows[off+int32(cl)]
		}
		if nc == unknown {
			nc = eng.step(pc, cl)
		}
		if nc == dead {
			i = nd.end
			continue
		}
		cfgAt[nd.depth] = nc
		switch nd.toks {
		case 0:
		case 1:
			acc[nd.pos>>6] |= 1 << (nd.pos & 63)
		default:
			setRange(acc, nd.pos, nd.pos+int32(nd.toks))
		}
		i++
	}
	e := &entry{}
	n := 0
	for _, w := range acc {
		n += bits.OnesCount64(w)
	}
	edgeIDs := c.tokenEdgeIDs(c0)
	if n+len(edgeIDs) > c.MaskWords()*2 {
		e.bits = make([]uint64, c.MaskWords())
		for w, word := range acc {
			for ; word != 0; word &= word - 1 {
				id := v.sorted[w*64+bits.TrailingZeros64(word)]
				e.bits[id>>6] |= 1 << (id & 63)
			}
		}
		for _, id := range edgeIDs {
			e.bits[id>>6] |= 1 << (id & 63)
		}
	} else {
		e.ids = make([]int32, 0, n+len(edgeIDs))
		for w, word := range acc {
			for ; word != 0; word &= word - 1 {
				e.ids = append(e.ids, v.sorted[w*64+bits.TrailingZeros64(word)])
			}
		}
		e.ids = append(e.ids, edgeIDs...)
	}
	e.unsure = c.unsureList()
	return e
}

// tokenEdgeIDs lists the tokens the token edges of configuration cfg match.
func (c *Compiled) tokenEdgeIDs(cfg int32) []int32 {
	var ids []int32
	for _, s := range c.eng.stacks(cfg) {
		for _, ed := range c.p.tokEdges(c.eng.stState[s]) {
			ts := &c.p.tokSets[ed.label]
			if !ts.neg {
				ids = append(ids, ts.ids...)
				continue
			}
			for id := int32(0); int(id) < c.v.n; id++ {
				if ts.has(id, c.v) {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

// unsureList returns the unsure tokens that are not accepted anyway, in byte order with their common prefixes.
func (c *Compiled) unsureList() []unsureToken {
	var out []unsureToken
	prev := -1
	for w := range c.unc {
		word := c.unc[w] &^ c.acc[w]
		for ; word != 0; word &= word - 1 {
			k := w*64 + bits.TrailingZeros64(word)
			l := uint16(0)
			if prev >= 0 {
				l = c.v.lcp[prev+1]
				for j := prev + 2; j <= k; j++ {
					l = min(l, c.v.lcp[j])
				}
			}
			out = append(out, unsureToken{c.v.sorted[k], l})
			prev = k
		}
	}
	return out
}

// setRange sets bits [lo, hi).
func setRange(b []uint64, lo, hi int32) {
	for lo < hi && lo&63 != 0 {
		b[lo>>6] |= 1 << (lo & 63)
		lo++
	}
	for ; lo+64 <= hi; lo += 64 {
		b[lo>>6] = ^uint64(0)
	}
	for ; lo < hi; lo++ {
		b[lo>>6] |= 1 << (lo & 63)
	}
}
