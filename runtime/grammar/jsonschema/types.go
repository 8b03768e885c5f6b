package jsonschema

import (
	"errors"
	"fmt"
	"slices"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// anyValue is the rule of any JSON value (defined with its helpers on first use).
func (c *converter) anyValue() *g.Expr {
	if !c.b.Has("value") {
		c.used["value"], c.used["object"], c.used["array"], c.used["string"], c.used["number"] = true, true, true, true, true
		ws := c.ws
		kv := g.Seq(g.Ref("string"), g.Lit(":"), ws, g.Ref("value"))
		c.b.Define("value", g.Alt(g.Ref("object"), g.Ref("array"), g.Ref("string"), g.Ref("number"),
			g.Lit("true"), g.Lit("false"), g.Lit("null")))
		c.b.Define("object", g.Seq(g.Lit("{"), ws, g.Opt(g.Seq(kv, g.Star(g.Seq(g.Lit(","), ws, kv)))), ws, g.Lit("}")))
		c.b.Define("array", g.Seq(g.Lit("["), ws, g.Opt(g.Seq(g.Ref("value"), g.Star(g.Seq(g.Lit(","), ws, g.Ref("value"))))), ws, g.Lit("]")))
		c.stringRule()
		c.b.Define("number", anyNumber())
	}
	return g.Ref("value")
}

// stringRule is the rule of any JSON string.
func (c *converter) stringRule() *g.Expr {
	if !c.b.Has("string") {
		c.used["string"] = true
		c.b.Define("string", g.Seq(g.Lit(`"`), g.Star(anyJSONChar), g.Lit(`"`)))
	}
	return g.Ref("string")
}

func (c *converter) str(n *node) (*g.Expr, error) {
	if n.minLength == 0 && n.maxLength < 0 && len(n.patterns) == 0 && n.format == "" {
		return c.stringRule(), nil
	}
	body, err := c.stringBody(n)
	if err != nil {
		return nil, err
	}
	if len(n.patterns)+btoi(n.format != "")+btoi(n.minLength > 0 || n.maxLength >= 0) > 1 && empty(body) {
		return nil, unsat(n.path, "no string satisfies pattern, format and length together")
	}
	return g.Seq(g.Lit(`"`), body, g.Lit(`"`)), nil
}

func (c *converter) number(n *node) (*g.Expr, error) {
	if n.types&tFrac == 0 {
		if n.lo.v == nil && n.hi.v == nil {
			return g.Alt(g.Lit("0"), g.Seq(g.Opt(g.Lit("-")), nonzero, g.Repeat(digit, 0, capDigits-1))), nil
		}
		e, err := integerRange(n.lo, n.hi)
		if err != nil {
			return nil, unsat(n.path, "%v", err)
		}
		return e, nil
	}
	if n.lo.v == nil && n.hi.v == nil {
		return anyNumber(), nil
	}
	e, err := decimalRange(n.lo, n.hi)
	if err != nil {
		return nil, unsat(n.path, "%v", err)
	}
	return e, nil
}

// property is one member an object grammar may write.
type property struct {
	name     string
	kv       *g.Expr
	required bool
}

func (c *converter) object(n *node) (*g.Expr, error) {
	props := slices.Clone(n.props)
	for _, r := range n.required {
		if !slices.ContainsFunc(props, func(p prop) bool { return p.name == r }) {
			if n.noAdd {
				return nil, unsat(n.path, "required property %q is not allowed (additionalProperties is false)", r)
			}
			props = append(props, prop{r, n.additional})
		}
	}
	var members []property
	var names []string
	for _, p := range props {
		names = append(names, p.name)
		req := slices.Contains(n.required, p.name)
		val, err := c.schema(p.schemas, n.path+"/properties/"+p.name)
		if errUnsatIs(err) && !req {
			continue // a property no value satisfies is one the object leaves out
		}
		if err != nil {
			return nil, err
		}
		kv := g.Seq(g.Lit(quote(p.name)+":"), c.ws, val)
		members = append(members, property{p.name, kv, req})
	}
	var extra *g.Expr
	if !n.noAdd {
		val, err := c.schema(n.additional, n.path+"/additionalProperties")
		if err != nil && !errUnsatIs(err) {
			return nil, err
		}
		if err == nil {
			extra = g.Seq(g.Lit(`"`), keyNotIn(names), g.Lit(`":`), c.ws, val)
			extra = c.rule(extra, "kv")
		}
	}
	nreq := 0
	for _, m := range members {
		if m.required {
			nreq++
		}
	}
	if n.maxProps >= 0 && nreq > n.maxProps {
		return nil, unsat(n.path, "%d required properties exceed maxProperties %d", nreq, n.maxProps)
	}
	if extra == nil && len(members) < n.minProps {
		return nil, unsat(n.path, "minProperties %d exceeds the %d properties allowed", n.minProps, len(members))
	}
	ob := &objBuilder{c: c, n: n, members: members, extra: extra, rules: map[[2]int]*g.Expr{}}
	body, err := ob.from(0, 0)
	if err != nil {
		return nil, err
	}
	return g.Seq(g.Lit("{"), c.ws, body, c.ws, g.Lit("}")), nil
}

func errUnsatIs(err error) bool { return err != nil && errors.Is(err, errUnsat) }

// objBuilder writes the members of an object in schema order: required ones always, optional ones or not, then
// additional ones, keeping the count within minProperties and maxProperties.
type objBuilder struct {
	c       *converter
	n       *node
	members []property
	extra   *g.Expr
	rules   map[[2]int]*g.Expr
	name    string
}

// capCount is the count past which the number written so far no longer matters.
func (o *objBuilder) capCount() int {
	k := max(o.n.minProps, 1)
	if o.n.maxProps >= 0 {
		k = max(k, o.n.maxProps+1)
	}
	return k
}

// from is the grammar of the members from index i on, when k have been written (k capped).
func (o *objBuilder) from(i, k int) (*g.Expr, error) {
	if i == len(o.members) {
		return o.extras(k), nil
	}
	if allRequired(o.members[i:]) && (o.n.maxProps < 0 || k+len(o.members)-i <= o.n.maxProps) {
		// The common case needs no rules: the rest is a plain sequence.
		var parts []*g.Expr
		for j, m := range o.members[i:] {
			if k+j > 0 {
				parts = append(parts, g.Lit(","), o.c.ws)
			}
			parts = append(parts, m.kv)
		}
		parts = append(parts, o.extras(min(k+len(o.members)-i, o.capCount())))
		return g.Seq(parts...), nil
	}
	key := [2]int{i, k}
	if r, ok := o.rules[key]; ok {
		return r, nil
	}
	if o.name == "" {
		o.name = o.c.name("obj")
	}
	name := o.c.name(fmt.Sprintf("%s-%d-%d", o.name, i, k))
	o.rules[key] = g.Ref(name)
	m := o.members[i]
	var alts []*g.Expr
	if o.n.maxProps < 0 || k < o.n.maxProps {
		rest, err := o.from(i+1, min(k+1, o.capCount()))
		if err != nil {
			return nil, err
		}
		sep := g.Empty()
		if k > 0 {
			sep = g.Seq(g.Lit(","), o.c.ws)
		}
		alts = append(alts, g.Seq(sep, m.kv, rest))
	}
	if !m.required {
		rest, err := o.from(i+1, k)
		if err != nil {
			return nil, err
		}
		alts = append(alts, rest)
	}
	o.c.b.Define(name, g.Alt(alts...))
	return g.Ref(name), nil
}

func allRequired(ms []property) bool {
	for _, m := range ms {
		if !m.required {
			return false
		}
	}
	return true
}

// extras is the grammar of the additional members after k written ones. When some are needed to reach
// minProperties, exactly those are written, with keys of distinct lengths 1, 2, ... so that no two can be
// the same key (a repeated key would count once).
func (o *objBuilder) extras(k int) *g.Expr {
	need := max(o.n.minProps-k, 0)
	if o.extra == nil {
		if need > 0 {
			return g.Nothing() // too few members on this path
		}
		return g.Empty()
	}
	sep := func(j int) *g.Expr {
		if k+j > 0 {
			return g.Seq(g.Lit(","), o.c.ws)
		}
		return g.Empty()
	}
	if need > 0 {
		var parts []*g.Expr
		for j := range need {
			parts = append(parts, sep(j), g.And(o.extraKey(), g.Seq(g.Lit(`"`), g.Repeat(anyJSONChar, j+1, j+1), g.Lit(`"`))),
				g.Lit(":"), o.c.ws, o.extraValue())
		}
		return g.Seq(parts...)
	}
	hi := -1
	if o.n.maxProps >= 0 {
		hi = o.n.maxProps - k // k is exact when maxProperties is set (see capCount)
	}
	if hi == 0 {
		return g.Empty()
	}
	if k > 0 {
		return g.Repeat(g.Seq(g.Lit(","), o.c.ws, o.extra), 0, hi)
	}
	more := -1
	if hi > 0 {
		more = hi - 1
	}
	return g.Opt(g.Seq(o.extra, g.Repeat(g.Seq(g.Lit(","), o.c.ws, o.extra), 0, more)))
}

// extraKey and extraValue are the parts of an additional member, for the members counted towards
// minProperties.
func (o *objBuilder) extraKey() *g.Expr {
	var names []string
	for _, m := range o.members {
		names = append(names, m.name)
	}
	return g.Seq(g.Lit(`"`), keyNotIn(names), g.Lit(`"`))
}

func (o *objBuilder) extraValue() *g.Expr {
	e, _ := o.c.schema(o.n.additional, o.n.path+"/additionalProperties")
	return e
}

func (c *converter) array(n *node) (*g.Expr, error) {
	maxItems := n.maxItems
	var items *g.Expr
	if !n.noItems {
		e, err := c.schema(n.items, n.path+"/items")
		if err != nil && !errUnsatIs(err) {
			return nil, err
		}
		if err == nil {
			items = c.rule(e, "item")
		}
	}
	if items == nil {
		maxItems = minLimit(maxItems, len(n.prefix))
	}
	if maxItems >= 0 && n.minItems > maxItems {
		return nil, unsat(n.path, "minItems %d exceeds the %d items allowed", n.minItems, maxItems)
	}
	var prefix []*g.Expr
	for i, p := range n.prefix {
		if maxItems >= 0 && i >= maxItems {
			break
		}
		e, err := c.schema(p, fmt.Sprintf("%s/prefixItems/%d", n.path, i))
		if errUnsatIs(err) && i >= n.minItems {
			maxItems = i // no value at this position: the array ends before it
			break
		}
		if err != nil {
			return nil, err
		}
		prefix = append(prefix, c.rule(e, "item"))
	}
	if maxItems >= 0 && n.minItems > maxItems {
		return nil, unsat(n.path, "minItems %d exceeds the %d items allowed", n.minItems, maxItems)
	}
	// Items after the prefix.
	k := len(prefix)
	var tail *g.Expr = g.Empty()
	if items != nil && (maxItems < 0 || maxItems > k) {
		lo, hi := max(n.minItems-k, 0), -1
		if maxItems >= 0 {
			hi = maxItems - k
		}
		sepItem := g.Seq(g.Lit(","), c.ws, items)
		if k > 0 {
			tail = g.Repeat(sepItem, lo, hi)
		} else {
			more := -1
			if hi > 0 {
				more = hi - 1
			}
			first := g.Seq(items, g.Repeat(sepItem, max(lo-1, 0), more))
			if lo == 0 {
				first = g.Opt(first)
			}
			tail = first
		}
	}
	// The prefix, each position optional once minItems is reached, nested so the commas come right.
	body := tail
	for i := k - 1; i >= 0; i-- {
		sep := g.Empty()
		if i > 0 {
			sep = g.Seq(g.Lit(","), c.ws)
		}
		body = g.Seq(sep, prefix[i], body)
		if i >= n.minItems {
			body = g.Opt(body)
		}
	}
	return g.Seq(g.Lit("["), c.ws, body, c.ws, g.Lit("]")), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// empty reports whether a regular expression matches no string at all.
func empty(e *g.Expr) bool {
	gr, err := g.FromExpr(e)
	if err != nil {
		return false
	}
	_, err = g.Match(gr, "")
	return errors.Is(err, g.ErrEmpty)
}
