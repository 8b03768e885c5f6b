package jsonschema

import (
	"errors"
	"fmt"
	"unicode/utf8"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// allows reports whether the enum value v satisfies the keywords of n other than enum. Objects and arrays
// are checked by type only, so n must not constrain them further.
func (c *converter) allows(n *node, v *value) (bool, error) {
	switch v.kind {
	case kNull:
		return n.types&tNull != 0, nil
	case kBool:
		return n.types&tBool != 0, nil
	case kNumber:
		r, ok := parseRat(v.str)
		if !ok {
			return false, nil
		}
		if n.types&tFrac == 0 && (n.types&tInt == 0 || !r.IsInt()) {
			return false, nil
		}
		if n.lo.v != nil && (r.Cmp(n.lo.v) < 0 || n.lo.excl && r.Cmp(n.lo.v) == 0) {
			return false, nil
		}
		if n.hi.v != nil && (r.Cmp(n.hi.v) > 0 || n.hi.excl && r.Cmp(n.hi.v) == 0) {
			return false, nil
		}
		return true, nil
	case kString:
		if n.types&tString == 0 {
			return false, nil
		}
		l := utf8.RuneCountInString(v.str)
		if l < n.minLength || n.maxLength >= 0 && l > n.maxLength {
			return false, nil
		}
		for _, p := range n.patterns {
			e, err := g.Pattern(p, nil)
			if err != nil {
				return false, fmt.Errorf("%s: %w", n.path, err)
			}
			if ok, err := matchExpr(e, v.str); err != nil || !ok {
				return false, err
			}
		}
		if n.format != "" {
			if ok, err := matchExpr(formats[n.format], v.str); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case kArray:
		if n.types&tArray == 0 {
			return false, nil
		}
		if len(n.prefix) > 0 || len(n.items) > 0 || n.noItems || n.minItems > 0 || n.maxItems >= 0 {
			return false, fmt.Errorf("%s: enum/const arrays together with array keywords cannot be checked", n.path)
		}
		return true, nil
	}
	if n.types&tObject == 0 {
		return false, nil
	}
	if len(n.props) > 0 || len(n.required) > 0 || len(n.additional) > 0 || n.noAdd || n.minProps > 0 || n.maxProps >= 0 {
		return false, fmt.Errorf("%s: enum/const objects together with object keywords cannot be checked", n.path)
	}
	return true, nil
}

func matchExpr(e *g.Expr, s string) (bool, error) {
	gr, err := g.FromExpr(e)
	if err != nil {
		return false, err
	}
	ok, err := g.Match(gr, s)
	if errors.Is(err, g.ErrEmpty) {
		return false, nil
	}
	return ok, err
}

// disjoint reports whether no value can satisfy both a and b (for oneOf, whose branches must not overlap).
// It answers false when it cannot tell.
func (c *converter) disjoint(a, b *node) bool {
	if a.hasEnum || b.hasEnum {
		x, y := a, b
		if !x.hasEnum {
			x, y = y, x
		}
		for _, v := range x.enum {
			ok, err := c.allows(y, v)
			if err != nil || ok && (!y.hasEnum || inEnum(y.enum, v)) {
				return false
			}
		}
		return true
	}
	common := a.types & b.types
	for t := typeSet(1); t <= tObject; t <<= 1 {
		if common&t == 0 {
			continue
		}
		switch t {
		case tNull, tBool, tArray:
			return false
		case tInt, tFrac:
			if !rangesDisjoint(a, b) {
				return false
			}
		case tString:
			if !c.stringsDisjoint(a, b) {
				return false
			}
		case tObject:
			if !c.discriminated(a, b) {
				return false
			}
		}
	}
	return true
}

func inEnum(enum []*value, v *value) bool {
	for _, e := range enum {
		if equal(e, v) {
			return true
		}
	}
	return false
}

func rangesDisjoint(a, b *node) bool {
	below := func(hi, lo bound) bool { // every value <= hi is < every value >= lo
		if hi.v == nil || lo.v == nil {
			return false
		}
		c := hi.v.Cmp(lo.v)
		return c < 0 || c == 0 && (hi.excl || lo.excl)
	}
	return below(a.hi, b.lo) || below(b.hi, a.lo)
}

// stringsDisjoint checks that the string grammars of a and b have no string in common.
func (c *converter) stringsDisjoint(a, b *node) bool {
	ea, err1 := c.stringBody(a)
	eb, err2 := c.stringBody(b)
	if err1 != nil || err2 != nil {
		return false
	}
	return empty(g.And(ea, eb))
}

// discriminated reports whether a property required by both has const/enum values in common nowhere.
func (c *converter) discriminated(a, b *node) bool {
	for _, pa := range a.props {
		if !contains(a.required, pa.name) || !contains(b.required, pa.name) {
			continue
		}
		for _, pb := range b.props {
			if pb.name != pa.name || len(pa.schemas) != 1 || len(pb.schemas) != 1 {
				continue
			}
			na, err1 := parse(pa.schemas[0], a.path)
			nb, err2 := parse(pb.schemas[0], b.path)
			if err1 == nil && err2 == nil && (na.hasEnum || nb.hasEnum) && c.disjoint(na, nb) {
				return true
			}
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
