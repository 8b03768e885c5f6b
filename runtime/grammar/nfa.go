package grammar

import (
	"fmt"
	"slices"
)

// nfa is a Thompson automaton over bytes whose edges may also call a rule or match a whole token.
type nfa struct {
	eps   [][]int32
	bytes [][]nByteEdge
	calls [][]labelEdge // label: rule index
	toks  [][]labelEdge // label: token set index
}

type nByteEdge struct {
	r  byteRange
	to int32
}

type labelEdge struct{ label, to int32 }

// maxStates bounds the automaton of one grammar (repetitions are unrolled into states).
const maxStates = 1 << 21

// errTooLarge reports a grammar whose automaton would exceed maxStates.
type errTooLarge struct{ pos Pos }

func (e errTooLarge) Error() string {
	if e.pos != (Pos{}) {
		return fmt.Sprintf("grammar: %s: the grammar is too large (repetition counts unroll into more than %d states)", e.pos, maxStates)
	}
	return fmt.Sprintf("grammar: the grammar is too large (repetition counts unroll into more than %d states)", maxStates)
}

func (n *nfa) state() int32 {
	n.eps = append(n.eps, nil)
	n.bytes = append(n.bytes, nil)
	n.calls = append(n.calls, nil)
	n.toks = append(n.toks, nil)
	return int32(len(n.eps) - 1)
}

func (n *nfa) size() int { return len(n.eps) }

// lowerer turns expressions into automata, resolving rules and tokens.
type lowerer struct {
	g      *Grammar
	tokens func(e *Expr) (int32, error) // the token-set index of an opToken expression
	avail  *[256]bool                   // the bytes a single token can produce (nil: all)
	total  int
}

// build adds e to n from state s and returns the state where it ends.
func (l *lowerer) build(n *nfa, e *Expr, s int32) (int32, error) {
	if n.size() > maxStates || l.total > maxStates {
		return 0, errTooLarge{e.pos}
	}
	switch e.op {
	case opEmpty:
		return s, nil
	case opNothing:
		return n.state(), nil // unreachable end
	case opLit:
		for i := 0; i < len(e.text); i++ {
			t := n.state()
			l.addBytes(n, s, byteRange{e.text[i], e.text[i]}, t)
			s = t
		}
		return s, nil
	case opClass:
		end := n.state()
		for _, seq := range utf8Seqs(e.ranges) {
			cur := s
			for i, r := range seq {
				t := end
				if i < len(seq)-1 {
					t = n.state()
				}
				l.addBytes(n, cur, r, t)
				cur = t
			}
		}
		return end, nil
	case opRef:
		t := n.state()
		n.calls[s] = append(n.calls[s], labelEdge{int32(l.g.index[e.name]), t})
		return t, nil
	case opToken:
		set, err := l.tokens(e)
		if err != nil {
			return 0, err
		}
		t := n.state()
		n.toks[s] = append(n.toks[s], labelEdge{set, t})
		return t, nil
	case opSeq:
		var err error
		for _, k := range e.kids {
			if s, err = l.build(n, k, s); err != nil {
				return 0, err
			}
		}
		return s, nil
	case opAlt:
		end := n.state()
		for _, k := range e.kids {
			a := n.state()
			n.eps[s] = append(n.eps[s], a)
			t, err := l.build(n, k, a)
			if err != nil {
				return 0, err
			}
			n.eps[t] = append(n.eps[t], end)
		}
		return end, nil
	case opRepeat:
		return l.repeat(n, e, s)
	case opAnd:
		return l.and(n, e, s)
	}
	return 0, fmt.Errorf("grammar: unknown expression")
}

func (l *lowerer) repeat(n *nfa, e *Expr, s int32) (int32, error) {
	x := e.kids[0]
	var err error
	for range e.min {
		if s, err = l.build(n, x, s); err != nil {
			return 0, err
		}
	}
	if e.max < 0 {
		loop := n.state()
		n.eps[s] = append(n.eps[s], loop)
		t, err := l.build(n, x, loop)
		if err != nil {
			return 0, err
		}
		n.eps[t] = append(n.eps[t], loop)
		return loop, nil
	}
	end := n.state()
	n.eps[s] = append(n.eps[s], end)
	for range e.max - e.min {
		if s, err = l.build(n, x, s); err != nil {
			return 0, err
		}
		n.eps[s] = append(n.eps[s], end)
	}
	return end, nil
}

// addBytes adds an edge on the bytes of r that a token can produce.
func (l *lowerer) addBytes(n *nfa, s int32, r byteRange, t int32) {
	if l.avail == nil {
		n.bytes[s] = append(n.bytes[s], nByteEdge{r, t})
		return
	}
	for c := int(r.lo); c <= int(r.hi); {
		if !l.avail[c] {
			c++
			continue
		}
		d := c
		for d < int(r.hi) && l.avail[d+1] {
			d++
		}
		n.bytes[s] = append(n.bytes[s], nByteEdge{byteRange{byte(c), byte(d)}, t})
		c = d + 1
	}
}

// and builds the intersection of two regular expressions as a product automaton.
func (l *lowerer) and(n *nfa, e *Expr, s int32) (int32, error) {
	var ds [2]*rdfa
	for i, k := range e.kids {
		if !k.regular() {
			return 0, fmt.Errorf("grammar: %s: an intersection (&) must not contain rules or tokens", e.pos)
		}
		sub := &nfa{}
		start := sub.state()
		end, err := l.build(sub, k, start)
		if err != nil {
			return 0, err
		}
		ds[i] = determinize(sub, start, end)
	}
	p := product(ds[0], ds[1])
	l.total += len(p.final)
	if len(p.final) > maxStates {
		return 0, errTooLarge{e.pos}
	}
	// Copy the product in: state i becomes ids[i]; finals lead to the end state.
	ids := make([]int32, len(p.final))
	ids[0] = s
	for i := 1; i < len(ids); i++ {
		ids[i] = n.state()
	}
	end := n.state()
	for i, edges := range p.edges {
		for _, ed := range edges {
			n.bytes[ids[i]] = append(n.bytes[ids[i]], nByteEdge{ed.r, ids[ed.to]})
		}
		if p.final[i] {
			n.eps[ids[i]] = append(n.eps[ids[i]], end)
		}
	}
	return end, nil
}

// rdfa is a deterministic automaton over bytes (no rules, no tokens); state 0 starts.
type rdfa struct {
	edges [][]nByteEdge // disjoint, sorted
	final []bool
}

// determinize runs the subset construction of the byte edges of n from start; end is the accepting state.
func determinize(n *nfa, start, end int32) *rdfa {
	d := &rdfa{}
	index := map[string]int32{}
	var sets [][]int32
	add := func(set []int32) int32 {
		k := setKey(set)
		if i, ok := index[k]; ok {
			return i
		}
		i := int32(len(sets))
		index[k] = i
		sets = append(sets, set)
		d.edges = append(d.edges, nil)
		d.final = append(d.final, slices.Contains(set, end))
		return i
	}
	cl := newCloser(n)
	add(cl.close([]int32{start}))
	var targets [256][]int32
	for i := 0; i < len(sets); i++ {
		for b := range targets {
			targets[b] = targets[b][:0]
		}
		for _, q := range sets[i] {
			for _, ed := range n.bytes[q] {
				for b := int(ed.r.lo); b <= int(ed.r.hi); b++ {
					targets[b] = append(targets[b], ed.to)
				}
			}
		}
		var prev []int32
		prevTo := int32(-1)
		for b := 0; b < 256; b++ {
			if len(targets[b]) == 0 {
				prev, prevTo = nil, -1
				continue
			}
			var to int32
			if prev != nil && slices.Equal(prev, targets[b]) {
				to = prevTo
				last := &d.edges[i][len(d.edges[i])-1]
				last.r.hi = byte(b)
				continue
			}
			prev = slices.Clone(targets[b])
			to = add(cl.close(targets[b]))
			prevTo = to
			d.edges[i] = append(d.edges[i], nByteEdge{byteRange{byte(b), byte(b)}, to})
		}
	}
	return d
}

// product intersects two automata, keeping only states from which a final state can be reached.
func product(a, b *rdfa) *rdfa {
	type pair struct{ x, y int32 }
	p := &rdfa{}
	index := map[pair]int32{}
	var pairs []pair
	add := func(q pair) int32 {
		if i, ok := index[q]; ok {
			return i
		}
		i := int32(len(pairs))
		index[q] = i
		pairs = append(pairs, q)
		p.edges = append(p.edges, nil)
		p.final = append(p.final, a.final[q.x] && b.final[q.y])
		return i
	}
	add(pair{0, 0})
	for i := 0; i < len(pairs); i++ {
		q := pairs[i]
		for _, ea := range a.edges[q.x] {
			for _, eb := range b.edges[q.y] {
				lo, hi := max(ea.r.lo, eb.r.lo), min(ea.r.hi, eb.r.hi)
				if lo > hi {
					continue
				}
				to := add(pair{ea.to, eb.to})
				p.edges[i] = append(p.edges[i], nByteEdge{byteRange{lo, hi}, to})
			}
		}
	}
	return p
}

// closer computes epsilon closures of NFA state sets.
type closer struct {
	n    *nfa
	mark []uint32
	gen  uint32
}

func newCloser(n *nfa) *closer { return &closer{n: n, mark: make([]uint32, n.size())} }

// close returns the sorted epsilon closure of set.
func (c *closer) close(set []int32) []int32 {
	if len(c.mark) < c.n.size() {
		c.mark = append(c.mark, make([]uint32, c.n.size()-len(c.mark))...)
	}
	c.gen++
	out := make([]int32, 0, len(set)*2)
	stack := append([]int32(nil), set...)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.mark[q] == c.gen {
			continue
		}
		c.mark[q] = c.gen
		out = append(out, q)
		stack = append(stack, c.n.eps[q]...)
	}
	slices.Sort(out)
	return out
}

func setKey(set []int32) string {
	b := make([]byte, 0, 4*len(set))
	for _, x := range set {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return string(b)
}
