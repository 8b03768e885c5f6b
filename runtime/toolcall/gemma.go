package toolcall

import "fmt"

// gemmaQuote delimits strings in Gemma 4's call syntax: call:NAME{key:<|"|>text<|"|>,n:3,xs:[1,2]} (keys bare,
// text unescaped).
const gemmaQuote = `<|"|>`

// gemmaArgs reads Gemma 4's arguments object and writes it as JSON into call.args. The JSON of a cut text is a
// prefix of the JSON of the whole text.
func (c *cursor) gemmaArgs(call *rawCall) error {
	out := call.args[:0]
	c.space()
	if c.i < len(c.b) && c.b[c.i] != '{' {
		return c.fail("'{'")
	}
	err := c.gemmaValue(&out)
	call.args = out
	if err == nil {
		call.argsDone = true
	}
	return err
}

func (c *cursor) gemmaValue(out *[]byte) error {
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	switch ch := c.b[c.i]; {
	case hasPrefixAt(c.b, c.i, gemmaQuote):
		c.i += len(gemmaQuote)
		return c.gemmaString(out)
	case isPrefixOf(c.b[c.i:], gemmaQuote):
		return errMore
	case ch == '{':
		return c.gemmaContainer(out, '}')
	case ch == '[':
		return c.gemmaContainer(out, ']')
	}
	start := c.i // a number, true, false or null, written as in JSON
	for c.i < len(c.b) && !isSpace(c.b[c.i]) && c.b[c.i] != ',' && c.b[c.i] != '}' && c.b[c.i] != ']' {
		c.i++
	}
	*out = append(*out, c.b[start:c.i]...)
	if c.i >= len(c.b) {
		return errMore
	}
	if tok := string(c.b[start:c.i]); tok != "true" && tok != "false" && tok != "null" && !validNumber(c.b[start:c.i]) {
		return &syntaxError{start, fmt.Sprintf("a value, not %q", tok)}
	}
	return nil
}

// gemmaContainer reads an object (end '}') or an array (end ']').
func (c *cursor) gemmaContainer(out *[]byte, end byte) error {
	*out = append(*out, c.b[c.i])
	c.i++
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	if c.b[c.i] == end {
		c.i++
		*out = append(*out, end)
		return nil
	}
	for {
		if end == '}' {
			if err := c.gemmaKey(out); err != nil {
				return err
			}
		}
		if err := c.gemmaValue(out); err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		switch c.b[c.i] {
		case ',':
			c.i++
			*out = append(*out, ',')
		case end:
			c.i++
			*out = append(*out, end)
			return nil
		default:
			return c.fail(fmt.Sprintf("',' or %q", end))
		}
	}
}

// gemmaKey reads a key (bare, or between quote marks) and its colon.
func (c *cursor) gemmaKey(out *[]byte) error {
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	switch {
	case hasPrefixAt(c.b, c.i, gemmaQuote):
		c.i += len(gemmaQuote)
		if err := c.gemmaString(out); err != nil {
			return err
		}
	case isPrefixOf(c.b[c.i:], gemmaQuote):
		return errMore
	default:
		start := c.i
		for c.i < len(c.b) && c.b[c.i] != ':' && !isSpace(c.b[c.i]) {
			if ch := c.b[c.i]; ch == '{' || ch == '}' || ch == ',' || ch == '"' || ch == '[' || ch == ']' {
				return &syntaxError{c.i, "a key"}
			}
			c.i++
		}
		if c.i == start {
			return &syntaxError{c.i, "a key"}
		}
		*out = append(*out, '"')
		*out = appendJSONText(*out, c.b[start:c.i])
		if c.i >= len(c.b) {
			return errMore
		}
		*out = append(*out, '"')
	}
	c.space()
	if err := c.lit(":"); err != nil {
		return err
	}
	*out = append(*out, ':')
	return nil
}

// gemmaString reads text up to the closing quote mark (the opening one consumed) and writes it as a JSON string.
func (c *cursor) gemmaString(out *[]byte) error {
	*out = append(*out, '"')
	start := c.i
	for c.i < len(c.b) {
		if hasPrefixAt(c.b, c.i, gemmaQuote) {
			*out = appendJSONText(*out, c.b[start:c.i])
			*out = append(*out, '"')
			c.i += len(gemmaQuote)
			return nil
		}
		if isPrefixOf(c.b[c.i:], gemmaQuote) {
			break
		}
		c.i++
	}
	text := c.b[start:c.i]
	*out = appendJSONText(*out, text[:completeUTF8(text)])
	c.i = len(c.b)
	return errMore
}

// isPrefixOf reports whether b (not empty) is a proper prefix of s.
func isPrefixOf(b []byte, s string) bool {
	return len(b) > 0 && len(b) < len(s) && string(b) == s[:len(b)]
}

// appendJSONText appends text escaped for a JSON string.
func appendJSONText(dst, text []byte) []byte {
	const hex = "0123456789abcdef"
	for _, ch := range text {
		switch {
		case ch == '"' || ch == '\\':
			dst = append(dst, '\\', ch)
		case ch == '\n':
			dst = append(dst, '\\', 'n')
		case ch == '\r':
			dst = append(dst, '\\', 'r')
		case ch == '\t':
			dst = append(dst, '\\', 't')
		case ch < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[ch>>4], hex[ch&15])
		default:
			dst = append(dst, ch)
		}
	}
	return dst
}
