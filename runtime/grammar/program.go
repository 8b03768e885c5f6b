package grammar

import (
	"fmt"
	"slices"
	"strings"
)

// program is a grammar lowered to one deterministic automaton per rule, over byte classes, rule calls and
// token sets, with every state able to reach the end of its rule (no dead ends).
type program struct {
	nclass  int
	classOf [256]uint8

	ruleName  []string
	ruleStart []int32
	nullable  []bool      // per rule: matches the empty string
	nullFrom  []bool      // per state: the end of its rule is reachable without input
	minFinish []int32     // per state: the fewest bytes or tokens that reach the end of its rule
	follow    []classSet  // per rule: the classes that can come right after it, in any context
	rulePos   []Pos       // per rule: where it was defined
	tokSets   []tokenSet  // the token sets of token edges
	stRule    []int32     // per state
	final     []bool      // per state
	consuming []bool      // per state: has byte or token edges
	tail      []bool      // per state: final with nothing to do (a call returning here needs no frame)
	edgeOff   []int32     // byte edges of state q: edges[edgeOff[q]:edgeOff[q+1]]
	edges     []classEdge //
	callOff   []int32     // calls of q: calls[callOff[q]:callOff[q+1]] (label: rule, to: return state)
	calls     []labelEdge //
	tokOff    []int32     // token edges of q: toks[tokOff[q]:tokOff[q+1]] (label: token set)
	toks      []labelEdge //
	root      int32       // the root rule
}

// classEdge goes to state to on the byte classes lo..hi.
type classEdge struct {
	lo, hi uint8
	to     int32
}

// classSet is a set of byte classes.
type classSet [4]uint64

func (s *classSet) add(c int)      { s[c>>6] |= 1 << (c & 63) }
func (s *classSet) has(c int) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *classSet) or(o classSet) bool { // reports a change
	ch := false
	for i := range s {
		if n := s[i] | o[i]; n != s[i] {
			s[i], ch = n, true
		}
	}
	return ch
}

// tokenSet is the set of ids a token edge matches: ids, or every text token but ids when neg.
type tokenSet struct {
	ids []int32 // sorted
	neg bool
}

func (t *tokenSet) has(id int32, v *Vocab) bool {
	_, in := slices.BinarySearch(t.ids, id)
	if t.neg {
		return !in && v.isText(id)
	}
	return in
}

// newProgram lowers the rules of g reachable from its root. v may be nil (every byte available, tokens by id).
func newProgram(g *Grammar, v *Vocab) (*program, error) {
	p := &program{}
	reach := reachableRules(g)
	ruleIdx := make([]int32, len(g.rules))
	for i := range ruleIdx {
		ruleIdx[i] = -1
	}
	for _, r := range reach {
		ruleIdx[r] = int32(len(p.ruleName))
		p.ruleName = append(p.ruleName, g.rules[r].name)
		p.rulePos = append(p.rulePos, g.rules[r].pos)
	}
	l := &lowerer{g: g}
	if v != nil {
		l.avail = &v.avail
	}
	l.tokens = func(e *Expr) (int32, error) { return p.tokenSet(e, v) }
	type ruleNFA struct {
		n          *nfa
		start, end int32
	}
	nfas := make([]ruleNFA, len(reach))
	for i, r := range reach {
		n := &nfa{}
		start := n.state()
		end, err := l.build(n, g.rules[r].expr, start)
		if err != nil {
			return nil, err
		}
		l.total += n.size()
		// Calls name grammar rules; renumber them to program rules.
		for q := range n.calls {
			for j := range n.calls[q] {
				n.calls[q][j].label = ruleIdx[n.calls[q][j].label]
			}
		}
		nfas[i] = ruleNFA{n, start, end}
	}
	var bounds [257]bool
	for _, rn := range nfas {
		for _, es := range rn.n.bytes {
			for _, e := range es {
				bounds[e.r.lo], bounds[int(e.r.hi)+1] = true, true
			}
		}
	}
	p.setClasses(&bounds)
	for _, rn := range nfas {
		p.ruleStart = append(p.ruleStart, p.addRule(rn.n, rn.start, rn.end, int32(len(p.ruleStart))))
	}
	p.root = ruleIdx[g.root]
	p.edgeOff = append(p.edgeOff, int32(len(p.edges)))
	p.callOff = append(p.callOff, int32(len(p.calls)))
	p.tokOff = append(p.tokOff, int32(len(p.toks)))
	if err := p.analyze(); err != nil {
		if err == ErrEmpty && v != nil {
			err = fmt.Errorf("%w (with this vocabulary's bytes and tokens)", err)
		}
		return nil, err
	}
	return p, nil
}

// reachableRules lists the rules reachable from the root, root first.
func reachableRules(g *Grammar) []int {
	seen := make([]bool, len(g.rules))
	order := []int{g.root}
	seen[g.root] = true
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e.op == opRef {
			if i := g.index[e.name]; !seen[i] {
				seen[i] = true
				order = append(order, i)
			}
		}
		for _, k := range e.kids {
			walk(k)
		}
	}
	for i := 0; i < len(order); i++ {
		walk(g.rules[order[i]].expr)
	}
	return order
}

// setClasses partitions the bytes into intervals at the boundaries.
func (p *program) setClasses(bounds *[257]bool) {
	c := -1
	for b := 0; b < 256; b++ {
		if b == 0 || bounds[b] {
			c++
		}
		p.classOf[b] = uint8(c)
	}
	p.nclass = c + 1
}

// tokenSet resolves the tokens of e against v and returns the index of its set.
func (p *program) tokenSet(e *Expr, v *Vocab) (int32, error) {
	ts := tokenSet{neg: e.neg}
	for _, t := range e.toks {
		id := t.ID
		if t.Text != "" {
			if v == nil {
				continue // Check: tokens are resolved when a vocabulary is given
			}
			var ok bool
			if id, ok = v.lookup(t.Text); !ok {
				return 0, fmt.Errorf("grammar: %s: %s is not a token of the vocabulary", e.pos, t.Text)
			}
		}
		if v != nil {
			if int(id) >= v.n {
				return 0, fmt.Errorf("grammar: %s: token id %d is outside the vocabulary of %d", e.pos, id, v.n)
			}
			if v.isEOG(id) && !e.neg {
				return 0, fmt.Errorf("grammar: %s: token %d ends generation; a grammar ends by itself", e.pos, id)
			}
		}
		ts.ids = append(ts.ids, id)
	}
	slices.Sort(ts.ids)
	ts.ids = slices.Compact(ts.ids)
	p.tokSets = append(p.tokSets, ts)
	return int32(len(p.tokSets) - 1), nil
}

// addRule determinizes the automaton of one rule into the program and returns its start state.
func (p *program) addRule(n *nfa, start, end, ruleID int32) int32 {
	base := int32(len(p.final))
	index := map[string]int32{}
	var sets [][]int32
	cl := newCloser(n)
	add := func(set []int32) int32 {
		k := setKey(set)
		if i, ok := index[k]; ok {
			return base + i
		}
		i := int32(len(sets))
		index[k] = i
		sets = append(sets, set)
		return base + i
	}
	add(cl.close([]int32{start}))
	byClass := make([][]int32, p.nclass)
	labels := map[int32][]int32{}
	for i := 0; i < len(sets); i++ {
		set := sets[i]
		p.stRule = append(p.stRule, ruleID)
		p.final = append(p.final, slices.Contains(set, end))
		p.edgeOff = append(p.edgeOff, int32(len(p.edges)))
		for c := range byClass {
			byClass[c] = byClass[c][:0]
		}
		for _, q := range set {
			for _, e := range n.bytes[q] {
				for c := int(p.classOf[e.r.lo]); c <= int(p.classOf[e.r.hi]); c++ {
					byClass[c] = append(byClass[c], e.to)
				}
			}
		}
		for c := 0; c < p.nclass; c++ {
			if len(byClass[c]) == 0 {
				continue
			}
			to := add(cl.close(byClass[c]))
			if k := len(p.edges) - 1; k >= int(p.edgeOff[len(p.edgeOff)-1]) && p.edges[k].to == to && int(p.edges[k].hi) == c-1 {
				p.edges[k].hi = uint8(c)
				continue
			}
			p.edges = append(p.edges, classEdge{uint8(c), uint8(c), to})
		}
		p.callOff = append(p.callOff, int32(len(p.calls)))
		p.calls = appendLabelEdges(p.calls, set, n.calls, labels, cl, add)
		p.tokOff = append(p.tokOff, int32(len(p.toks)))
		p.toks = appendLabelEdges(p.toks, set, n.toks, labels, cl, add)
	}
	return base
}

// appendLabelEdges adds the determinized label edges of an NFA state set, in label order.
func appendLabelEdges(dst []labelEdge, set []int32, edges [][]labelEdge, labels map[int32][]int32, cl *closer, add func([]int32) int32) []labelEdge {
	clear(labels)
	for _, q := range set {
		for _, e := range edges[q] {
			labels[e.label] = append(labels[e.label], e.to)
		}
	}
	keys := make([]int32, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = append(dst, labelEdge{k, add(cl.close(labels[k]))})
	}
	return dst
}

func (p *program) numStates() int                { return len(p.final) }
func (p *program) byteEdges(q int32) []classEdge { return p.edges[p.edgeOff[q]:p.edgeOff[q+1]] }
func (p *program) callEdges(q int32) []labelEdge { return p.calls[p.callOff[q]:p.callOff[q+1]] }
func (p *program) tokEdges(q int32) []labelEdge  { return p.toks[p.tokOff[q]:p.tokOff[q+1]] }

// describe names a rule for messages.
func (p *program) describe(r int32) string {
	if pos := p.rulePos[r]; pos != (Pos{}) {
		return fmt.Sprintf("%s (%s)", p.ruleName[r], pos)
	}
	return p.ruleName[r]
}

// cycleString writes a cycle of rules a -> b -> a.
func (p *program) cycleString(cycle []int32) string {
	names := make([]string, len(cycle))
	for i, r := range cycle {
		names[i] = p.ruleName[r]
	}
	return strings.Join(names, " -> ")
}
