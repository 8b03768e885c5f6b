package jsonschema

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// typeSet is a set of JSON types; "number" is tInt|tFrac, so that intersecting it with "integer" is integer.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBool
	tInt
	tFrac
	tString
	tArray
	tObject
	tAll = tNull | tBool | tInt | tFrac | tString | tArray | tObject
)

var typeNames = map[string]typeSet{"null": tNull, "boolean": tBool, "integer": tInt, "number": tInt | tFrac,
	"string": tString, "array": tArray, "object": tObject}

// node is one schema's keywords, read and checked. Subschemas stay JSON values until generated (a slot holds
// the list of schemas its value must satisfy at once), so recursive schemas are read lazily.
type node struct {
	path    string
	types   typeSet
	enum    []*value
	hasEnum bool
	isFalse bool
	refs    []string // $ref targets still to apply
	pure    bool     // the schema is a lone $ref (with annotations at most)

	props      []prop
	required   []string
	additional []*value // schemas of additional properties (all must hold)
	noAdd      bool     // additionalProperties: false
	minProps   int
	maxProps   int // -1: none

	prefix   [][]*value
	items    []*value
	noItems  bool
	minItems int
	maxItems int

	minLength int
	maxLength int
	patterns  []string
	format    string

	lo, hi bound

	groups []group // anyOf / oneOf, each a choice among schemas
}

type prop struct {
	name    string
	schemas []*value
}

type group struct {
	keyword  string // "anyOf" or "oneOf"
	branches []*value
}

// errUnsat marks a schema that admits no value (as opposed to one that cannot be enforced).
var errUnsat = errors.New("the schema admits no value")

func unsat(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", errUnsat, path, fmt.Sprintf(format, args...))
}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{"title": true, "description": true, "examples": true, "$schema": true, "$id": true,
	"default": true, "$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$defs": true,
	"definitions": true}

func newNode(path string) *node {
	return &node{path: path, types: tAll, maxProps: -1, maxItems: -1, maxLength: -1, pure: true}
}

// parse reads the keywords of schema v found at path.
func parse(v *value, path string) (*node, error) {
	n := newNode(path)
	switch v.kind {
	case kBool:
		n.isFalse = !v.b
		return n, nil
	case kObject:
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %s", path, v.kind)
	}
	for _, k := range v.keys {
		x := v.fields[k]
		if annotations[k] {
			continue
		}
		if k != "$ref" {
			n.pure = false
		}
		if err := n.keyword(k, x, v); err != nil {
			return nil, err
		}
	}
	if n.pure && len(n.refs) == 0 {
		n.pure = false
	}
	return n, nil
}

func (n *node) keyword(k string, x, parent *value) error {
	at := n.path + "/" + k
	switch k {
	case "$ref":
		if x.kind != kString {
			return fmt.Errorf("%s: must be a string", at)
		}
		n.refs = append(n.refs, x.str)
	case "type":
		return n.readType(x, at)
	case "enum":
		if x.kind != kArray {
			return fmt.Errorf("%s: must be an array", at)
		}
		n.hasEnum, n.enum = true, x.arr
	case "const":
		n.hasEnum, n.enum = true, []*value{x}
	case "properties":
		if x.kind != kObject {
			return fmt.Errorf("%s: must be an object", at)
		}
		for _, name := range x.keys {
			n.props = append(n.props, prop{name, []*value{x.fields[name]}})
		}
	case "required":
		if x.kind != kArray {
			return fmt.Errorf("%s: must be an array of strings", at)
		}
		for _, r := range x.arr {
			if r.kind != kString {
				return fmt.Errorf("%s: must be an array of strings", at)
			}
			if !slices.Contains(n.required, r.str) {
				n.required = append(n.required, r.str)
			}
		}
	case "additionalProperties":
		if x.kind == kBool && !x.b {
			n.noAdd = true
		} else if !(x.kind == kBool && x.b) {
			n.additional = append(n.additional, x)
		}
	case "minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength":
		c, err := count(x, at)
		if err != nil {
			return err
		}
		*map[string]*int{"minProperties": &n.minProps, "maxProperties": &n.maxProps, "minItems": &n.minItems,
			"maxItems": &n.maxItems, "minLength": &n.minLength, "maxLength": &n.maxLength}[k] = c
	case "items":
		if x.kind == kArray { // draft 4-7: a tuple
			for _, s := range x.arr {
				n.prefix = append(n.prefix, []*value{s})
			}
			return nil
		}
		n.setItems(x)
	case "prefixItems":
		if x.kind != kArray {
			return fmt.Errorf("%s: must be an array", at)
		}
		for _, s := range x.arr {
			n.prefix = append(n.prefix, []*value{s})
		}
	case "additionalItems":
		if it := parent.get("items"); it == nil || it.kind != kArray {
			return nil // without a tuple "items", additionalItems has no effect
		}
		n.setItems(x)
	case "uniqueItems":
		if x.kind != kBool || x.b {
			return fmt.Errorf("%s: uniqueItems true cannot be enforced by a grammar", at)
		}
	case "pattern":
		if x.kind != kString {
			return fmt.Errorf("%s: must be a string", at)
		}
		n.patterns = append(n.patterns, x.str)
	case "format":
		if x.kind != kString {
			return fmt.Errorf("%s: must be a string", at)
		}
		if _, ok := formats[x.str]; !ok {
			return fmt.Errorf("%s: format %q cannot be enforced (supported: %s)", at, x.str, formatNames())
		}
		n.format = x.str
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return n.readBound(k, x, at)
	case "anyOf", "oneOf", "allOf":
		if x.kind != kArray || len(x.arr) == 0 {
			return fmt.Errorf("%s: must be a non-empty array of schemas", at)
		}
		if k == "allOf" {
			n.groups = append(n.groups, group{k, x.arr})
			return nil
		}
		n.groups = append(n.groups, group{k, x.arr})
	default:
		return fmt.Errorf("%s: keyword %q cannot be enforced", at, k)
	}
	return nil
}

func (n *node) setItems(x *value) {
	if x.kind == kBool && !x.b {
		n.noItems = true
	} else if !(x.kind == kBool && x.b) {
		n.items = append(n.items, x)
	}
}

func (n *node) readType(x *value, at string) error {
	var names []*value
	switch x.kind {
	case kString:
		names = []*value{x}
	case kArray:
		names = x.arr
	default:
		return fmt.Errorf("%s: must be a type name or an array of them", at)
	}
	var t typeSet
	for _, s := range names {
		if s.kind != kString || typeNames[s.str] == 0 {
			return fmt.Errorf("%s: unknown type %s", at, s)
		}
		t |= typeNames[s.str]
	}
	n.types &= t
	return nil
}

func count(x *value, at string) (int, error) {
	r, ok := parseRat(x.str)
	if x.kind != kNumber || !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, fmt.Errorf("%s: must be a non-negative integer", at)
	}
	c, err := strconv.ParseInt(r.Num().String(), 10, 64)
	if err != nil || c > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %s is too large", at, x.str)
	}
	return int(c), nil
}

func (n *node) readBound(k string, x *value, at string) error {
	if x.kind == kBool && (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
		return fmt.Errorf("%s: the draft-4 boolean form is not supported; give the bound as a number", at)
	}
	r, ok := parseRat(x.str)
	if x.kind != kNumber || !ok {
		return fmt.Errorf("%s: must be a number", at)
	}
	b := bound{r, strings.HasPrefix(k, "exclusive")}
	if strings.HasSuffix(k, "inimum") {
		n.lo = tighterLo(n.lo, b)
	} else {
		n.hi = tighterHi(n.hi, b)
	}
	return nil
}

func tighterLo(a, b bound) bound {
	if a.v == nil {
		return b
	}
	if b.v == nil {
		return a
	}
	switch c := a.v.Cmp(b.v); {
	case c > 0:
		return a
	case c < 0:
		return b
	}
	return bound{a.v, a.excl || b.excl}
}

func tighterHi(a, b bound) bound {
	if a.v == nil {
		return b
	}
	if b.v == nil {
		return a
	}
	switch c := a.v.Cmp(b.v); {
	case c < 0:
		return a
	case c > 0:
		return b
	}
	return bound{a.v, a.excl || b.excl}
}

// merge returns a node for "a and b": the value must satisfy both.
func merge(a, b *node) (*node, error) {
	m := *a
	m.pure = false
	m.types = a.types & b.types
	m.isFalse = a.isFalse || b.isFalse
	m.refs = append(slices.Clip(a.refs), b.refs...)
	m.groups = append(slices.Clip(a.groups), b.groups...)
	switch {
	case a.hasEnum && b.hasEnum:
		m.enum = nil
		for _, x := range a.enum {
			for _, y := range b.enum {
				if equal(x, y) {
					m.enum = append(m.enum, x)
					break
				}
			}
		}
	case b.hasEnum:
		m.hasEnum, m.enum = true, b.enum
	}
	mergeObject(&m, a, b)
	if err := mergeArray(&m, a, b); err != nil {
		return nil, err
	}
	m.minLength = max(a.minLength, b.minLength)
	m.maxLength = minLimit(a.maxLength, b.maxLength)
	m.patterns = append(slices.Clip(a.patterns), b.patterns...)
	if a.format != "" && b.format != "" && a.format != b.format {
		return nil, fmt.Errorf("%s: allOf: formats %q and %q together cannot be enforced", a.path, a.format, b.format)
	}
	if m.format == "" {
		m.format = b.format
	}
	m.lo, m.hi = tighterLo(a.lo, b.lo), tighterHi(a.hi, b.hi)
	return &m, nil
}

// minLimit is the smaller of two limits where -1 means none.
func minLimit(a, b int) int {
	if a < 0 {
		return b
	}
	if b < 0 {
		return a
	}
	return min(a, b)
}

func mergeObject(m, a, b *node) {
	// A property named by one side only is an additional property of the other.
	side := func(n *node, name string) ([]*value, bool) {
		for _, p := range n.props {
			if p.name == name {
				return p.schemas, true
			}
		}
		if n.noAdd {
			return []*value{{kind: kBool, b: false}}, true
		}
		return n.additional, false
	}
	m.props = nil
	var names []string
	for _, p := range a.props {
		names = append(names, p.name)
	}
	for _, p := range b.props {
		if !slices.Contains(names, p.name) {
			names = append(names, p.name)
		}
	}
	for _, name := range names {
		sa, _ := side(a, name)
		sb, _ := side(b, name)
		m.props = append(m.props, prop{name, append(slices.Clip(sa), sb...)})
	}
	m.required = slices.Clone(a.required)
	for _, r := range b.required {
		if !slices.Contains(m.required, r) {
			m.required = append(m.required, r)
		}
	}
	m.additional = append(slices.Clip(a.additional), b.additional...)
	m.noAdd = a.noAdd || b.noAdd
	m.minProps = max(a.minProps, b.minProps)
	m.maxProps = minLimit(a.maxProps, b.maxProps)
}

func mergeArray(m, a, b *node) error {
	at := func(n *node, i int) []*value {
		if i < len(n.prefix) {
			return n.prefix[i]
		}
		if n.noItems {
			return []*value{{kind: kBool, b: false}}
		}
		return n.items
	}
	m.prefix = nil
	for i := range max(len(a.prefix), len(b.prefix)) {
		m.prefix = append(m.prefix, append(slices.Clip(at(a, i)), at(b, i)...))
	}
	m.items = append(slices.Clip(a.items), b.items...)
	m.noItems = a.noItems || b.noItems
	m.minItems = max(a.minItems, b.minItems)
	m.maxItems = minLimit(a.maxItems, b.maxItems)
	return nil
}
