package jsonschema

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// Options control the JSON a schema's grammar writes.
type Options struct {
	// Whitespace lets the output have a little whitespace after '{', '[', ',' and ':' and before '}' and ']' (a
	// space, or a newline and up to 20 blanks), as llama.cpp's grammars do. The default is compact JSON: a weak
	// model cannot fill the output with whitespace.
	Whitespace bool
}

// Compile converts a JSON Schema into a grammar of the JSON texts valid against it. Every keyword it cannot
// enforce is an error naming it (fail closed); annotations (title, description, examples, default, $schema,
// $id, $comment, ...) are accepted. A schema that admits no value is an error wrapping ErrUnsatisfiable.
func Compile(schema []byte, opt Options) (*g.Grammar, error) {
	root, err := parseValue(schema)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: the schema is not valid JSON: %w", err)
	}
	c := &converter{root: root, opt: opt, b: g.NewBuilder(), refRules: map[string]string{}, used: map[string]bool{}}
	c.ws = g.Empty()
	if opt.Whitespace {
		c.ws = g.Alt(g.Empty(), g.Lit(" "), g.Seq(g.Lit("\n"), g.Repeat(g.Class(g.RuneRange{Lo: ' ', Hi: ' '},
			g.RuneRange{Lo: '\t', Hi: '\t'}), 0, 20)))
	}
	c.used["root"] = true
	e, err := c.schema([]*value{root}, "#")
	if err == nil {
		c.b.Define("root", e)
		err = c.drain()
	}
	if err != nil {
		if errors.Is(err, errUnsat) {
			return nil, fmt.Errorf("jsonschema: %w", errors.Join(ErrUnsatisfiable, errors.Unwrap(err)))
		}
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	return c.b.Grammar("root")
}

// ErrUnsatisfiable is wrapped by the error for a schema that no JSON value satisfies.
var ErrUnsatisfiable = errors.New("the schema admits no value")

// Object is the grammar of any JSON object (a "JSON mode").
func Object(opt Options) *g.Grammar {
	gr, err := Compile([]byte(`{"type":"object"}`), opt)
	if err != nil {
		panic(err) // a fixed schema
	}
	return gr
}

type converter struct {
	root     *value
	opt      Options
	b        *g.Builder
	ws       *g.Expr
	refRules map[string]string // $ref target -> rule
	pending  []pendingRef
	used     map[string]bool // rule names
	inlining []string        // $refs being merged into a node (to catch cycles)
	depth    int
}

type pendingRef struct{ ref, rule string }

// drain defines the rules of the $ref targets met so far (which may meet more).
func (c *converter) drain() error {
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		target, err := c.resolve(p.ref)
		if err != nil {
			return err
		}
		e, err := c.schema([]*value{target}, p.ref)
		if err != nil {
			return err
		}
		c.b.Define(p.rule, e)
	}
	return nil
}

// resolve finds a local $ref ("#", "#/$defs/x", any JSON pointer into the document).
func (c *converter) resolve(ref string) (*value, error) {
	if ref == "#" {
		return c.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q: only local references (#/...) can be resolved", ref)
	}
	v := c.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return nil, fmt.Errorf("$ref %q: %v", ref, err)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v.kind {
		case kObject:
			v = v.fields[tok]
		case kArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.arr) {
				return nil, fmt.Errorf("$ref %q: no item %q", ref, tok)
			}
			v = v.arr[i]
		default:
			v = nil
		}
		if v == nil {
			return nil, fmt.Errorf("$ref %q: no such schema in the document", ref)
		}
	}
	return v, nil
}

// refRule returns the rule of a $ref target, queuing its definition.
func (c *converter) refRule(ref string) (*g.Expr, error) {
	if _, err := c.resolve(ref); err != nil {
		return nil, err
	}
	name, ok := c.refRules[ref]
	if !ok {
		base := "ref"
		if i := strings.LastIndexByte(ref, '/'); i >= 0 && i+1 < len(ref) {
			base = ref[i+1:]
		}
		name = c.name(base)
		c.refRules[ref] = name
		c.pending = append(c.pending, pendingRef{ref, name})
	}
	return g.Ref(name), nil
}

// name returns an unused rule name made from base.
func (c *converter) name(base string) string {
	var b strings.Builder
	for _, r := range base {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if s == "" {
		s = "r"
	}
	name := s
	for i := 2; c.used[name]; i++ {
		name = s + "-" + strconv.Itoa(i)
	}
	c.used[name] = true
	return name
}

// rule defines e as a rule when it is large (so that it is lowered once, however often it is used).
func (c *converter) rule(e *g.Expr, base string) *g.Expr {
	if e.Size() < 48 {
		return e
	}
	name := c.name(base)
	c.b.Define(name, e)
	return g.Ref(name)
}

// schema is the grammar of the JSON values satisfying every schema of the list.
func (c *converter) schema(list []*value, path string) (*g.Expr, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 200 {
		return nil, fmt.Errorf("%s: the schema nests too deeply", path)
	}
	if len(list) == 0 {
		return c.anyValue(), nil
	}
	n, err := parse(list[0], path)
	if err != nil {
		return nil, err
	}
	if len(list) == 1 && n.pure && len(n.refs) == 1 {
		return c.refRule(n.refs[0])
	}
	for i, v := range list[1:] {
		m, err := parse(v, fmt.Sprintf("%s(%d)", path, i+1))
		if err != nil {
			return nil, err
		}
		if n, err = merge(n, m); err != nil {
			return nil, err
		}
	}
	return c.node(n)
}

// node is the grammar of the values satisfying n.
func (c *converter) node(n *node) (*g.Expr, error) {
	pushed, err := c.expand(n)
	defer func() { c.inlining = c.inlining[:len(c.inlining)-pushed] }()
	if err != nil {
		return nil, err
	}
	if n.isFalse {
		return nil, unsat(n.path, "the schema is false")
	}
	if len(n.groups) > 0 {
		return c.choice(n)
	}
	if n.hasEnum {
		return c.enum(n)
	}
	var alts []*g.Expr
	add := func(e *g.Expr, err error) error {
		if errors.Is(err, errUnsat) {
			return nil // this type has no value; the others may
		}
		if err == nil {
			alts = append(alts, e)
		}
		return err
	}
	if n.types&tObject != 0 {
		if err := add(c.object(n)); err != nil {
			return nil, err
		}
	}
	if n.types&tArray != 0 {
		if err := add(c.array(n)); err != nil {
			return nil, err
		}
	}
	if n.types&tString != 0 {
		if err := add(c.str(n)); err != nil {
			return nil, err
		}
	}
	if n.types&(tInt|tFrac) != 0 {
		if err := add(c.number(n)); err != nil {
			return nil, err
		}
	}
	if n.types&tBool != 0 {
		alts = append(alts, g.Lit("true"), g.Lit("false"))
	}
	if n.types&tNull != 0 {
		alts = append(alts, g.Lit("null"))
	}
	if len(alts) == 0 {
		return nil, unsat(n.path, "no type is left that satisfies every keyword")
	}
	return g.Alt(alts...), nil
}

// expand merges into n the targets of its $refs and the branches of its allOf, until neither is left. It returns
// how many $refs it pushed on c.inlining, which the caller pops once the node's grammar is made (a $ref met
// again below it would expand forever).
func (c *converter) expand(n *node) (int, error) {
	pushed := 0
	for steps := 0; ; steps++ {
		if steps > 1000 {
			return pushed, fmt.Errorf("%s: too many $ref and allOf to expand", n.path)
		}
		if len(n.refs) > 0 {
			ref := n.refs[0]
			n.refs = n.refs[1:]
			if slices.Contains(c.inlining, ref) {
				return pushed, fmt.Errorf("%s: $ref %q refers back to itself through keywords beside it; "+
					"a recursive $ref must stand alone", n.path, ref)
			}
			target, err := c.resolve(ref)
			if err != nil {
				return pushed, fmt.Errorf("%s: %w", n.path, err)
			}
			t, err := parse(target, ref)
			if err != nil {
				return pushed, err
			}
			c.inlining = append(c.inlining, ref)
			pushed++
			m, err := merge(n, t)
			if err != nil {
				return pushed, err
			}
			*n = *m
			continue
		}
		i := slices.IndexFunc(n.groups, func(gr group) bool { return gr.keyword == "allOf" })
		if i < 0 {
			return pushed, nil
		}
		gr := n.groups[i]
		n.groups = slices.Delete(slices.Clone(n.groups), i, i+1)
		for j, br := range gr.branches {
			t, err := parse(br, fmt.Sprintf("%s/allOf/%d", n.path, j))
			if err != nil {
				return pushed, err
			}
			m, err := merge(n, t)
			if err != nil {
				return pushed, err
			}
			*n = *m
		}
	}
}

// choice is the grammar of anyOf / oneOf: each branch merged with the rest of the node.
func (c *converter) choice(n *node) (*g.Expr, error) {
	gr := n.groups[0]
	rest := *n
	rest.groups = n.groups[1:]
	var alts []*g.Expr
	var nodes []*node
	for i, br := range gr.branches {
		path := fmt.Sprintf("%s/%s/%d", n.path, gr.keyword, i)
		t, err := parse(br, path)
		if err != nil {
			return nil, err
		}
		m, err := merge(&rest, t)
		if err != nil {
			return nil, err
		}
		m.path = path
		e, err := c.node(m)
		if errors.Is(err, errUnsat) {
			continue
		}
		if err != nil {
			return nil, err
		}
		alts = append(alts, e)
		nodes = append(nodes, m)
	}
	if len(alts) == 0 {
		return nil, unsat(n.path, "no branch of %s can be satisfied", gr.keyword)
	}
	if gr.keyword == "oneOf" {
		for i := range nodes {
			for j := i + 1; j < len(nodes); j++ {
				if !c.disjoint(nodes[i], nodes[j]) {
					return nil, fmt.Errorf("%s: oneOf: branches %s and %s may both match a value, which a grammar "+
						"cannot exclude (use anyOf, or make the branches differ by type, const/enum or range)",
						n.path, nodes[i].path, nodes[j].path)
				}
			}
		}
	}
	return g.Alt(alts...), nil
}

// enum is the grammar of the enum values that satisfy the rest of the node.
func (c *converter) enum(n *node) (*g.Expr, error) {
	var alts []*g.Expr
	for _, v := range n.enum {
		ok, err := c.allows(n, v)
		if err != nil {
			return nil, err
		}
		if ok {
			alts = append(alts, g.Lit(v.String()))
		}
	}
	if len(alts) == 0 {
		return nil, unsat(n.path, "no value of enum/const satisfies the other keywords")
	}
	return g.Alt(alts...), nil
}
