package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// value is a JSON value that keeps the order of object members (property order is part of the output).
type value struct {
	kind   kind
	str    string // kString; kNumber: the number as written
	b      bool
	arr    []*value
	keys   []string // kObject, in order
	fields map[string]*value
}

type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// parseValue reads one JSON document. A duplicate key is an error (a schema with one is ambiguous).
func parseValue(data []byte) (*value, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := readValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

func readValue(d *json.Decoder) (*value, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case nil:
		return &value{kind: kNull}, nil
	case bool:
		return &value{kind: kBool, b: t}, nil
	case json.Number:
		return &value{kind: kNumber, str: string(t)}, nil
	case string:
		return &value{kind: kString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &value{kind: kArray}
			for d.More() {
				x, err := readValue(d)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, x)
			}
			_, err := d.Token()
			return v, err
		case '{':
			v := &value{kind: kObject, fields: map[string]*value{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				x, err := readValue(d)
				if err != nil {
					return nil, err
				}
				if _, dup := v.fields[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				v.keys = append(v.keys, k)
				v.fields[k] = x
			}
			_, err := d.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", t)
}

func (v *value) get(k string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	return v.fields[k]
}

// encode writes v as compact JSON, strings in the canonical form the grammars produce.
func (v *value) encode(b *strings.Builder) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kNumber:
		b.WriteString(v.str)
	case kString:
		b.WriteString(quote(v.str))
	case kArray:
		b.WriteByte('[')
		for i, x := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			x.encode(b)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(k))
			b.WriteByte(':')
			v.fields[k].encode(b)
		}
		b.WriteByte('}')
	}
}

func (v *value) String() string {
	var b strings.Builder
	v.encode(&b)
	return b.String()
}

// quote writes s as a JSON string in the canonical form of this package: every character as itself except
// '"', '\\' and control characters, which use the short escapes where JSON has one and \u00XX otherwise.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		b.WriteString(escapeRune(r))
	}
	b.WriteByte('"')
	return b.String()
}

// escapeRune is the canonical JSON encoding of one character inside a string.
func escapeRune(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	if r < 0x20 {
		return fmt.Sprintf(`\u%04x`, r)
	}
	if r == utf8.RuneError {
		return string(utf8.RuneError)
	}
	return string(r)
}

// equal reports whether two JSON values are equal as JSON Schema compares them (numbers by value).
func equal(a, b *value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kNull:
		return true
	case kBool:
		return a.b == b.b
	case kNumber:
		x, ok1 := parseRat(a.str)
		y, ok2 := parseRat(b.str)
		return ok1 && ok2 && x.Cmp(y) == 0
	case kString:
		return a.str == b.str
	case kArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equal(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.keys) != len(b.keys) {
		return false
	}
	for _, k := range a.keys {
		y, ok := b.fields[k]
		if !ok || !equal(a.fields[k], y) {
			return false
		}
	}
	return true
}
