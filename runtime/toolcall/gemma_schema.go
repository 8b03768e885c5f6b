package toolcall

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// gemmaSchema adds rules for Gemma 4's arguments syntax (keys bare, text between <|"|> marks) of a schema and
// returns its rule name. It takes a subset of JSON Schema: type (one type, or one and "null"), properties
// (written in sorted order, as Gemma's template sorts keys; only the declared ones), required, enum, const,
// items, and the annotations title, description, default, examples. Any other keyword is an error naming it.
func (g *gbnf) gemmaSchema(prefix string, schema json.RawMessage) (string, error) {
	if !g.gemmaBase {
		g.rule("gemma-char", `[^<] | "<" [^|<]`)
		g.rule("gemma-string", gbnfString(gemmaQuote)+" gemma-char* "+gbnfString(gemmaQuote))
		g.rule("gemma-int", `"-"? ("0" | [1-9] [0-9]{0,15})`)
		g.rule("gemma-number", `gemma-int ("." [0-9]+)? ([eE] [-+]? [0-9]+)?`)
		g.rule("gemma-bool", `"true" | "false"`)
		g.gemmaBase = true
	}
	n := 0
	return g.gemmaValue(prefix, &n, schema)
}

func (g *gbnf) gemmaValue(prefix string, n *int, raw json.RawMessage) (string, error) {
	var s map[string]json.RawMessage
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("a schema must be a JSON object: %s", raw)
	}
	for k := range s {
		switch k {
		case "type", "properties", "required", "enum", "const", "items", "title", "description", "default",
			"examples", "$schema", "additionalProperties":
		default:
			return "", fmt.Errorf("keyword %q is not supported in Gemma 4's argument syntax", k)
		}
	}
	name := fmt.Sprintf("%s-%d", prefix, *n)
	*n++
	if v, ok := s["const"]; ok {
		return g.gemmaLiterals(name, []json.RawMessage{v})
	}
	if v, ok := s["enum"]; ok {
		var vals []json.RawMessage
		if err := json.Unmarshal(v, &vals); err != nil || len(vals) == 0 {
			return "", fmt.Errorf("enum must be a non-empty array")
		}
		return g.gemmaLiterals(name, vals)
	}
	types, err := schemaTypes(s["type"])
	if err != nil {
		return "", err
	}
	var alts []string
	for _, t := range types {
		switch t {
		case "string":
			alts = append(alts, "gemma-string")
		case "integer":
			alts = append(alts, "gemma-int")
		case "number":
			alts = append(alts, "gemma-number")
		case "boolean":
			alts = append(alts, "gemma-bool")
		case "null":
			alts = append(alts, `"null"`)
		case "array":
			item := "gemma-any"
			if it, ok := s["items"]; ok {
				if item, err = g.gemmaValue(prefix, n, it); err != nil {
					return "", err
				}
			} else {
				return "", fmt.Errorf("an array needs items")
			}
			alts = append(alts, `"[" (`+item+` ("," `+item+`)*)? "]"`)
		case "object":
			obj, err := g.gemmaObject(prefix, n, s)
			if err != nil {
				return "", err
			}
			alts = append(alts, obj)
		default:
			return "", fmt.Errorf("type %q is not supported", t)
		}
	}
	g.rule(name, strings.Join(alts, " | "))
	return name, nil
}

// schemaTypes reads type: a name, or a list of names.
func schemaTypes(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, fmt.Errorf("a schema without type is not supported in Gemma 4's argument syntax")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, fmt.Errorf("type must be a name or a list of names")
	}
	return many, nil
}

// gemmaObject writes the declared properties in sorted order, the required ones always.
func (g *gbnf) gemmaObject(prefix string, n *int, s map[string]json.RawMessage) (string, error) {
	var props map[string]json.RawMessage
	if v, ok := s["properties"]; ok {
		if err := json.Unmarshal(v, &props); err != nil {
			return "", fmt.Errorf("properties must be an object")
		}
	}
	var required []string
	if v, ok := s["required"]; ok {
		if err := json.Unmarshal(v, &required); err != nil {
			return "", fmt.Errorf("required must be a list of names")
		}
	}
	for _, r := range required {
		if _, ok := props[r]; !ok {
			return "", fmt.Errorf("required property %q is not among the properties", r)
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		if !gemmaBareKey(k) {
			return "", fmt.Errorf("property name %q cannot be written bare in Gemma 4's syntax", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	items := make([]string, len(keys))
	opt := make([]bool, len(keys))
	for i, k := range keys {
		v, err := g.gemmaValue(prefix, n, props[k])
		if err != nil {
			return "", fmt.Errorf("property %s: %w", k, err)
		}
		items[i] = gbnfString(k+":") + " " + v
		opt[i] = !slices.Contains(required, k)
	}
	return `"{" ` + commaSeq(items, opt) + ` "}"`, nil
}

// commaSeq is items in order separated by commas, where opt marks the items that may be left out.
func commaSeq(items []string, opt []bool) string {
	tail := func(from int) string { // after something was written: each item comes with its comma
		var parts []string
		for i := from; i < len(items); i++ {
			p := `"," ` + items[i]
			if opt[i] {
				p = "(" + p + ")?"
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, " ")
	}
	var head func(i int) string // nothing written yet
	head = func(i int) string {
		if i == len(items) {
			return ""
		}
		first := strings.TrimSpace(items[i] + " " + tail(i+1))
		if !opt[i] {
			return first
		}
		if rest := head(i + 1); rest != "" {
			return "(" + first + " | " + rest + ")"
		}
		return "(" + first + ")?"
	}
	h := head(0)
	if h == "" {
		return ""
	}
	if allOptional(opt) && !strings.HasSuffix(h, ")?") {
		return "(" + h + ")?"
	}
	return h
}

func allOptional(opt []bool) bool {
	for _, o := range opt {
		if !o {
			return false
		}
	}
	return true
}

func gemmaBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isWord(k[i]) {
			return false
		}
	}
	return true
}

// gemmaLiterals is an alternation of constant values written in Gemma's syntax.
func (g *gbnf) gemmaLiterals(name string, vals []json.RawMessage) (string, error) {
	var alts []string
	for _, v := range vals {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return "", err
		}
		switch x := x.(type) {
		case string:
			if strings.Contains(x, "<|") {
				return "", fmt.Errorf("constant %q holds <|", x)
			}
			alts = append(alts, gbnfString(gemmaQuote+x+gemmaQuote))
		case float64, bool, nil:
			alts = append(alts, gbnfString(string(v)))
		default:
			return "", fmt.Errorf("constant %s: only strings, numbers, booleans and null", v)
		}
	}
	g.rule(name, strings.Join(alts, " | "))
	return name, nil
}
