package grammar

import (
	"slices"
	"unicode/utf8"
)

// recognize is the reference the matcher is tested against: it interprets the expressions of g directly over
// the code points of s (no bytes, no automata, no stacks), computing for each (expression, position) the set
// of positions where a match can end. It is slow and simple. Grammars with tokens are not supported.
func recognize(g *Grammar, s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	r := &recognizer{g: g, in: []rune(s), memo: map[[2]int][]int{}, busy: map[[2]int]bool{}}
	return slices.Contains(r.ends(g.rules[g.root].expr, 0), len(r.in))
}

type recognizer struct {
	g    *Grammar
	in   []rune
	memo map[[2]int][]int // (rule, start) -> ends
	busy map[[2]int]bool
}

// ends returns the sorted positions where a match of e starting at pos can end.
func (r *recognizer) ends(e *Expr, pos int) []int {
	switch e.op {
	case opEmpty:
		return []int{pos}
	case opNothing, opToken:
		return nil
	case opLit:
		lit := []rune(e.text)
		if pos+len(lit) <= len(r.in) && slices.Equal(r.in[pos:pos+len(lit)], lit) {
			return []int{pos + len(lit)}
		}
		return nil
	case opClass:
		if pos < len(r.in) {
			for _, x := range e.ranges {
				if x.Lo <= r.in[pos] && r.in[pos] <= x.Hi {
					return []int{pos + 1}
				}
			}
		}
		return nil
	case opRef:
		i := r.g.index[e.name]
		key := [2]int{i, pos}
		if out, ok := r.memo[key]; ok {
			return out
		}
		if r.busy[key] {
			return nil // left recursion: the grammars tested have none
		}
		r.busy[key] = true
		out := r.ends(r.g.rules[i].expr, pos)
		delete(r.busy, key)
		r.memo[key] = out
		return out
	case opSeq:
		cur := []int{pos}
		for _, k := range e.kids {
			cur = r.all(k, cur)
		}
		return cur
	case opAlt:
		var out []int
		for _, k := range e.kids {
			out = append(out, r.ends(k, pos)...)
		}
		return uniq(out)
	case opAnd:
		a, b := r.ends(e.kids[0], pos), r.ends(e.kids[1], pos)
		var out []int
		for _, x := range a {
			if slices.Contains(b, x) {
				out = append(out, x)
			}
		}
		return out
	case opRepeat:
		cur := []int{pos}
		for range e.min {
			cur = r.all(e.kids[0], cur)
		}
		out := slices.Clone(cur)
		for n := e.min; e.max < 0 || n < e.max; n++ {
			next := r.all(e.kids[0], cur)
			var fresh []int
			for _, x := range next {
				if !slices.Contains(out, x) {
					fresh = append(fresh, x)
				}
			}
			if len(fresh) == 0 && e.max < 0 {
				break
			}
			out = uniq(append(out, next...))
			cur = next
			if len(cur) == 0 {
				break
			}
		}
		return out
	}
	panic("unknown expression")
}

func (r *recognizer) all(e *Expr, starts []int) []int {
	var out []int
	for _, p := range starts {
		out = append(out, r.ends(e, p)...)
	}
	return uniq(out)
}

func uniq(x []int) []int {
	slices.Sort(x)
	return slices.Compact(x)
}
