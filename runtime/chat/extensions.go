package chat

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"
)

// Filters that make the Jinja engine render like Hugging Face transformers. The engine resolves its own filters
// before template variables, so a built-in filter cannot be replaced by a variable; instead the template source
// is rewritten to call ours under another name (rewriteFilters) and ours is passed as a variable of that name.
// This keeps the engine unforked.
var filterOverrides = map[string]func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error){
	"tojson": filterToJSON,
}

const overridePrefix = "forma_"

var filterUseRE = regexp.MustCompile(`\|(\s*)(tojson)\b`)

// rewriteFilters renames uses of overridden filters ("| tojson" becomes "| forma_tojson").
func rewriteFilters(src string) string {
	return filterUseRE.ReplaceAllString(src, "|${1}"+overridePrefix+"${2}")
}

func addExtensions(vars map[string]jinja.Value) {
	for name, fn := range filterOverrides {
		vars[overridePrefix+name] = jinja.NewCallable(name, fn)
	}
}

// filterToJSON is transformers' tojson: json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
// sort_keys=sort_keys). Floats print as Python does (1.0, 1e-07, 1e+16), non-ASCII text stays as it is.
func filterToJSON(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.NewString(""), nil
	}
	e := jsonEncoder{item: ", ", key: ": "}
	if v, ok := kwargs["indent"]; ok && !v.IsNone() && !v.IsUndefined() {
		switch {
		case v.IsInt():
			e.indent = strings.Repeat(" ", int(max(0, v.AsInt())))
		case v.IsString():
			e.indent = v.AsString()
		default:
			return jinja.Value{}, fmt.Errorf("tojson: indent must be an integer or a string")
		}
		e.pretty, e.item = true, ","
	}
	if v, ok := kwargs["separators"]; ok && !v.IsNone() && !v.IsUndefined() {
		if !v.IsList() || v.AsList().Len() != 2 || !v.AsList().Get(0).IsString() || !v.AsList().Get(1).IsString() {
			return jinja.Value{}, fmt.Errorf("tojson: separators must be two strings")
		}
		e.item, e.key = v.AsList().Get(0).AsString(), v.AsList().Get(1).AsString()
	}
	if v, ok := kwargs["sort_keys"]; ok {
		e.sortKeys = v.IsTruthy()
	}
	if v, ok := kwargs["ensure_ascii"]; ok {
		e.ascii = v.IsTruthy()
	}
	var sb strings.Builder
	if err := e.encode(&sb, args[0], 0); err != nil {
		return jinja.Value{}, err
	}
	return jinja.NewString(sb.String()), nil
}

type jsonEncoder struct {
	item, key, indent string
	pretty, sortKeys  bool
	ascii             bool
}

func (e *jsonEncoder) newline(sb *strings.Builder, depth int) {
	if e.pretty {
		sb.WriteByte('\n')
		for range depth {
			sb.WriteString(e.indent)
		}
	}
}

func (e *jsonEncoder) encode(sb *strings.Builder, v jinja.Value, depth int) error {
	switch {
	case v.IsUndefined(), v.IsNone():
		sb.WriteString("null")
	case v.IsBool():
		sb.WriteString(strconv.FormatBool(v.AsBool()))
	case v.IsInt():
		sb.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		s, err := pyFloat(v.AsFloat())
		if err != nil {
			return err
		}
		sb.WriteString(s)
	case v.IsString():
		e.str(sb, v.AsString())
	case v.IsList():
		items := v.AsList().Items
		if len(items) == 0 {
			sb.WriteString("[]")
			return nil
		}
		sb.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				sb.WriteString(e.item)
			}
			e.newline(sb, depth+1)
			if err := e.encode(sb, it, depth+1); err != nil {
				return err
			}
		}
		e.newline(sb, depth)
		sb.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		keys := d.OrderedKeys()
		if e.sortKeys {
			sort.Strings(keys)
		}
		if len(keys) == 0 {
			sb.WriteString("{}")
			return nil
		}
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteString(e.item)
			}
			e.newline(sb, depth+1)
			e.str(sb, k)
			sb.WriteString(e.key)
			val, _ := d.Get(k)
			if err := e.encode(sb, val, depth+1); err != nil {
				return err
			}
		}
		e.newline(sb, depth)
		sb.WriteByte('}')
	default:
		return fmt.Errorf("tojson: cannot encode %s", v.String())
	}
	return nil
}

// str writes a JSON string as Python's json module does.
func (e *jsonEncoder) str(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (e.ascii && r >= 0x7F && r < 0x10000) || r == utf8.RuneError && e.ascii:
				fmt.Fprintf(sb, `\u%04x`, r)
			case e.ascii && r >= 0x10000:
				r -= 0x10000
				fmt.Fprintf(sb, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			default:
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}

// pyFloat formats a float as Python's repr: the shortest round-trip digits, in positional form for exponents
// from -4 to 15 (with ".0" when integral), else in exponent form with a sign and at least two exponent digits.
func pyFloat(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		return "NaN", nil
	case math.IsInf(f, 1):
		return "Infinity", nil
	case math.IsInf(f, -1):
		return "-Infinity", nil
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp), nil
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s, nil
}
