package grammar

import (
	"errors"
	"fmt"
)

// ErrEmpty is returned (wrapped) for a grammar that matches no string, or none that the vocabulary can write.
var ErrEmpty = errors.New("grammar: the grammar matches no string")

// analyze removes every path that cannot finish, rejects left recursion, and computes what the matcher needs:
// nullable rules, the classes that may follow each rule, and which states consume input.
func (p *program) analyze() error {
	if err := p.prune(); err != nil {
		return err
	}
	p.computeNullable()
	if err := p.checkLeftRecursion(); err != nil {
		return err
	}
	p.computeFollow()
	p.computeMinFinish()
	n := p.numStates()
	p.consuming = make([]bool, n)
	p.tail = make([]bool, n)
	for q := int32(0); q < int32(n); q++ {
		p.consuming[q] = len(p.byteEdges(q)) > 0 || len(p.tokEdges(q)) > 0
		p.tail[q] = p.final[q] && !p.consuming[q] && len(p.callEdges(q)) == 0
	}
	return nil
}

// prune finds the states from which the end of their rule can be reached (through calls to rules that can
// finish) and drops every edge into another state, so that no path of the matcher leads to a dead end.
func (p *program) prune() error {
	n := int32(p.numStates())
	live := make([]bool, n)
	copy(live, p.final)
	for changed := true; changed; {
		changed = false
		for q := int32(0); q < n; q++ {
			if live[q] {
				continue
			}
			ok := false
			for _, e := range p.byteEdges(q) {
				ok = ok || live[e.to]
			}
			for _, e := range p.tokEdges(q) {
				ok = ok || live[e.to]
			}
			for _, e := range p.callEdges(q) {
				ok = ok || (live[e.to] && live[p.ruleStart[e.label]])
			}
			if ok {
				live[q], changed = true, true
			}
		}
	}
	if !live[p.ruleStart[p.root]] {
		return ErrEmpty
	}
	edges, calls, toks := p.edges[:0], p.calls[:0], p.toks[:0]
	var eo, co, to int32
	for q := int32(0); q < n; q++ {
		e0, c0, t0 := p.edgeOff[q], p.callOff[q], p.tokOff[q]
		e1, c1, t1 := p.edgeOff[q+1], p.callOff[q+1], p.tokOff[q+1]
		p.edgeOff[q], p.callOff[q], p.tokOff[q] = eo, co, to
		for _, e := range p.edges[e0:e1] {
			if live[q] && live[e.to] {
				edges = append(edges, e)
				eo++
			}
		}
		for _, e := range p.calls[c0:c1] {
			if live[q] && live[e.to] && live[p.ruleStart[e.label]] {
				calls = append(calls, e)
				co++
			}
		}
		for _, e := range p.toks[t0:t1] {
			if live[q] && live[e.to] {
				toks = append(toks, e)
				to++
			}
		}
	}
	p.edgeOff[n], p.callOff[n], p.tokOff[n] = eo, co, to
	p.edges, p.calls, p.toks = edges, calls, toks
	return nil
}

// computeNullable finds the states from which the end of their rule can be reached without input (through
// calls to rules that match the empty string), and so the rules that match the empty string.
func (p *program) computeNullable() {
	n := int32(p.numStates())
	p.nullFrom = make([]bool, n)
	copy(p.nullFrom, p.final)
	for changed := true; changed; {
		changed = false
		for q := int32(0); q < n; q++ {
			if p.nullFrom[q] {
				continue
			}
			for _, e := range p.callEdges(q) {
				if p.nullFrom[p.ruleStart[e.label]] && p.nullFrom[e.to] {
					p.nullFrom[q], changed = true, true
					break
				}
			}
		}
	}
	p.nullable = make([]bool, len(p.ruleStart))
	for r, s := range p.ruleStart {
		p.nullable[r] = p.nullFrom[s]
	}
}

// checkLeftRecursion rejects a rule that can call itself before consuming input: the matcher would push
// frames forever (llama.cpp rejects these grammars too).
func (p *program) checkLeftRecursion() error {
	nr := int32(len(p.ruleStart))
	first := make([][]int32, nr) // rules callable at the start of each rule
	for r := int32(0); r < nr; r++ {
		seen := map[int32]bool{}
		stack := []int32{p.ruleStart[r]}
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[q] {
				continue
			}
			seen[q] = true
			for _, e := range p.callEdges(q) {
				first[r] = append(first[r], e.label)
				if p.nullable[e.label] {
					stack = append(stack, e.to)
				}
			}
		}
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, nr)
	var path []int32
	var visit func(r int32) []int32
	visit = func(r int32) []int32 {
		color[r] = grey
		path = append(path, r)
		for _, s := range first[r] {
			switch color[s] {
			case grey:
				for i, x := range path {
					if x == s {
						return append(append([]int32(nil), path[i:]...), s)
					}
				}
			case white:
				if c := visit(s); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		color[r] = black
		return nil
	}
	for r := int32(0); r < nr; r++ {
		if color[r] == white {
			if c := visit(r); c != nil {
				return fmt.Errorf("grammar: left recursion in rule %s: %s (a rule must consume input before it recurses)",
					p.describe(c[0]), p.cycleString(c))
			}
		}
	}
	return nil
}

// computeFollow computes, for each rule, the byte classes that can come right after it in some context.
func (p *program) computeFollow() {
	n := p.numStates()
	first := make([]classSet, n) // classes that can come next from a state, within its rule
	nullFrom := p.nullFrom
	for changed := true; changed; {
		changed = false
		for q := int32(0); q < int32(n); q++ {
			var s classSet
			for _, e := range p.byteEdges(q) {
				for c := int(e.lo); c <= int(e.hi); c++ {
					s.add(c)
				}
			}
			for _, e := range p.callEdges(q) {
				s.or(first[p.ruleStart[e.label]])
				if p.nullable[e.label] {
					s.or(first[e.to])
				}
			}
			if first[q].or(s) {
				changed = true
			}
		}
	}
	p.follow = make([]classSet, len(p.ruleStart))
	for changed := true; changed; {
		changed = false
		for q := int32(0); q < int32(n); q++ {
			for _, e := range p.callEdges(q) {
				s := first[e.to]
				if nullFrom[e.to] {
					s.or(p.follow[p.stRule[q]])
				}
				if p.follow[e.label].or(s) {
					changed = true
				}
			}
		}
	}
}

// computeMinFinish computes, for each state, the length of the shortest way to the end of its rule, counting a
// byte or a token as one (a byte is at most one token: every byte the grammar uses is a token of its own).
func (p *program) computeMinFinish() {
	n := int32(p.numStates())
	const inf = int32(1 << 30)
	mf := make([]int32, n)
	for q := range mf {
		mf[q] = inf
		if p.final[q] {
			mf[q] = 0
		}
	}
	for changed := true; changed; {
		changed = false
		for q := n - 1; q >= 0; q-- {
			best := mf[q]
			for _, e := range p.byteEdges(q) {
				best = min(best, 1+mf[e.to])
			}
			for _, e := range p.tokEdges(q) {
				best = min(best, 1+mf[e.to])
			}
			for _, e := range p.callEdges(q) {
				if a, b := mf[p.ruleStart[e.label]], mf[e.to]; a < inf && b < inf {
					best = min(best, a+b)
				}
			}
			if best < mf[q] {
				mf[q], changed = best, true
			}
		}
	}
	p.minFinish = mf
}
