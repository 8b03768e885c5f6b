package grammar

import (
	"fmt"
	"strings"
)

// Grammar is a set of named rules and the rule a whole output must match (its root). It knows nothing of a
// vocabulary; Compile binds it to one. A Grammar is immutable and safe for concurrent use.
type Grammar struct {
	rules []rule
	index map[string]int
	root  int
}

type rule struct {
	name string
	expr *Expr
	pos  Pos // where it was defined (zero when built in code)
}

// Root returns the name of the root rule.
func (g *Grammar) Root() string { return g.rules[g.root].name }

// String writes the grammar in GBNF, root first; Parse reads it back to an equivalent grammar (intersections,
// which GBNF lacks, are written with '&').
func (g *Grammar) String() string {
	var b strings.Builder
	order := append([]int{g.root}, make([]int, 0, len(g.rules))...)
	for i := range g.rules {
		if i != g.root {
			order = append(order, i)
		}
	}
	for _, i := range order {
		r := g.rules[i]
		b.WriteString(r.name)
		b.WriteString(" ::= ")
		r.expr.write(&b, 0)
		b.WriteByte('\n')
	}
	return b.String()
}

// Builder assembles a Grammar from rules defined in code.
type Builder struct {
	rules []rule
	index map[string]int
	err   error
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{index: map[string]int{}} }

// Define adds the rule name ::= e. Defining a name twice is an error (reported by Grammar).
func (b *Builder) Define(name string, e *Expr) {
	b.define(name, e, Pos{})
}

func (b *Builder) define(name string, e *Expr, pos Pos) {
	if b.err != nil {
		return
	}
	if !validName(name) {
		b.err = fmt.Errorf("grammar: %q is not a rule name (letters, digits, '-' and '_')", name)
		return
	}
	if i, ok := b.index[name]; ok {
		if p := b.rules[i].pos; p != (Pos{}) {
			b.err = fmt.Errorf("grammar: %s: rule %s is already defined at %s", pos, name, p)
		} else {
			b.err = fmt.Errorf("grammar: rule %s is defined twice", name)
		}
		return
	}
	b.index[name] = len(b.rules)
	b.rules = append(b.rules, rule{name: name, expr: e, pos: pos})
}

// Has reports whether name is defined.
func (b *Builder) Has(name string) bool {
	_, ok := b.index[name]
	return ok
}

// Grammar checks that every referenced rule is defined and returns the grammar whose root is the rule root.
func (b *Builder) Grammar(root string) (*Grammar, error) {
	if b.err != nil {
		return nil, b.err
	}
	r, ok := b.index[root]
	if !ok {
		return nil, fmt.Errorf("grammar: no rule %q (the root)", root)
	}
	for _, ru := range b.rules {
		if err := b.checkRefs(ru.expr); err != nil {
			return nil, err
		}
	}
	return &Grammar{rules: b.rules, index: b.index, root: r}, nil
}

func (b *Builder) checkRefs(e *Expr) error {
	if e.op == opRef {
		if _, ok := b.index[e.name]; !ok {
			if e.pos != (Pos{}) {
				return fmt.Errorf("grammar: %s: undefined rule %s", e.pos, e.name)
			}
			return fmt.Errorf("grammar: undefined rule %s", e.name)
		}
	}
	for _, k := range e.kids {
		if err := b.checkRefs(k); err != nil {
			return err
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordChar(s[i]) {
			return false
		}
	}
	return true
}

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// FromExpr returns a grammar whose root rule is e.
func FromExpr(e *Expr) (*Grammar, error) {
	b := NewBuilder()
	b.Define("root", e)
	return b.Grammar("root")
}

// Check reports what Compile would refuse in g whatever the vocabulary: left recursion, or no sentence at all.
// (Tokens g names are checked by Compile, against its vocabulary.)
func Check(g *Grammar) error {
	_, err := newProgram(g, nil)
	return err
}

// Concat returns the grammar of a sentence of head followed by a sentence of tail (a reasoning block before a
// JSON answer, say). The rules of each keep their meaning: they are renamed apart ("h-" and "t-" before their
// names), and the new root is "root".
func Concat(head, tail *Grammar) *Grammar {
	b := NewBuilder()
	for _, part := range []struct {
		g      *Grammar
		prefix string
	}{{head, "h-"}, {tail, "t-"}} {
		for _, r := range part.g.rules {
			b.Define(part.prefix+r.name, renamed(r.expr, part.prefix))
		}
	}
	b.Define("root", Seq(Ref("h-"+head.Root()), Ref("t-"+tail.Root())))
	g, err := b.Grammar("root")
	if err != nil {
		panic("grammar: Concat of valid grammars failed: " + err.Error()) // both were checked when built
	}
	return g
}

// renamed returns e with every rule it refers to prefixed.
func renamed(e *Expr, prefix string) *Expr {
	if e.op == opRef {
		c := *e
		c.name = prefix + e.name
		return &c
	}
	if len(e.kids) == 0 {
		return e
	}
	c := *e
	c.kids = make([]*Expr, len(e.kids))
	for i, k := range e.kids {
		c.kids[i] = renamed(k, prefix)
	}
	return &c
}
