package toolcall

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// errMore says the text ends before the construct does: the parse is retried when more text arrives.
var errMore = errors.New("toolcall: incomplete")

// syntaxError is malformed call syntax at a byte offset of the call's text.
type syntaxError struct {
	at   int
	want string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("at byte %d of the call: want %s", e.at, e.want)
}

// cursor reads a call's text, which may be cut anywhere: a read past the end is errMore.
type cursor struct {
	b     []byte
	i     int
	final bool // no more text will come: what may go on has ended
}

func (c *cursor) fail(want string) error {
	if c.i >= len(c.b) {
		return errMore
	}
	return &syntaxError{c.i, want}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// space skips whitespace. With more text to come, it cannot know the whitespace has ended: callers that need
// the next byte check for it.
func (c *cursor) space() {
	for c.i < len(c.b) && isSpace(c.b[c.i]) {
		c.i++
	}
}

// lit consumes s; errMore when the text ends inside it.
func (c *cursor) lit(s string) error {
	for k := 0; k < len(s); k++ {
		if c.i+k >= len(c.b) {
			return errMore
		}
		if c.b[c.i+k] != s[k] {
			return &syntaxError{c.i + k, fmt.Sprintf("%q", s)}
		}
	}
	c.i += len(s)
	return nil
}

// optLit consumes s if it is next; errMore if the text ends while it may still be.
func (c *cursor) optLit(s string) (bool, error) {
	for k := 0; k < len(s); k++ {
		if c.i+k >= len(c.b) {
			return false, errMore
		}
		if c.b[c.i+k] != s[k] {
			return false, nil
		}
	}
	c.i += len(s)
	return true, nil
}

// until returns the text up to the first of the delimiters (not consumed) and which one it is.
func (c *cursor) until(delims ...string) (string, int, error) {
	for j := c.i; j < len(c.b); j++ {
		for d, s := range delims {
			if hasPrefixAt(c.b, j, s) {
				out := string(c.b[c.i:j])
				c.i = j
				return out, d, nil
			}
		}
	}
	return "", -1, errMore
}

func hasPrefixAt(b []byte, i int, s string) bool {
	return len(b)-i >= len(s) && string(b[i:i+len(s)]) == s
}

// value skips one JSON value. On errMore the cursor is at the end of the text.
func (c *cursor) value() error {
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.container('}', true)
	case ch == '[':
		return c.container(']', false)
	case ch == '"':
		_, err := c.str(nil)
		return err
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't':
		return c.lit("true")
	case ch == 'f':
		return c.lit("false")
	case ch == 'n':
		return c.lit("null")
	}
	return c.fail("a JSON value")
}

func (c *cursor) container(end byte, object bool) error {
	c.i++
	c.space()
	if c.i >= len(c.b) {
		return errMore
	}
	if c.b[c.i] == end {
		c.i++
		return nil
	}
	for {
		if object {
			c.space()
			if c.i >= len(c.b) {
				return errMore
			}
			if c.b[c.i] != '"' {
				return c.fail("an object key")
			}
			if _, err := c.str(nil); err != nil {
				return err
			}
			c.space()
			if err := c.lit(":"); err != nil {
				return err
			}
		}
		if err := c.value(); err != nil {
			return err
		}
		c.space()
		if c.i >= len(c.b) {
			return errMore
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case end:
			c.i++
			return nil
		default:
			return c.fail(fmt.Sprintf("',' or %q", end))
		}
	}
}

// number skips a JSON number. A number at the end of the text may go on: errMore.
func (c *cursor) number() error {
	start := c.i
	for c.i < len(c.b) {
		ch := c.b[c.i]
		if ch >= '0' && ch <= '9' || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E' {
			c.i++
			continue
		}
		break
	}
	if c.i >= len(c.b) {
		return errMore
	}
	if !validNumber(c.b[start:c.i]) {
		c.i = start
		return c.fail("a JSON number")
	}
	return nil
}

func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// str reads a JSON string, appending its decoded text to dst. On errMore dst holds the text decoded so far
// (whole characters only).
func (c *cursor) str(dst []byte) ([]byte, error) {
	if err := c.lit(`"`); err != nil {
		return dst, err
	}
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			c.i++
			return dst, nil
		case ch == '\\':
			r, n, err := unescape(c.b[c.i:])
			if err == errMore {
				c.i = len(c.b)
				return dst, errMore
			}
			if err != nil {
				return dst, &syntaxError{c.i, "a JSON escape"}
			}
			dst = utf8.AppendRune(dst, r)
			c.i += n
		case ch < 0x20:
			return dst, &syntaxError{c.i, "no control character in a JSON string"}
		default:
			r, n := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && n <= 1 && !utf8.FullRune(c.b[c.i:]) {
				c.i = len(c.b)
				return dst, errMore
			}
			dst = append(dst, c.b[c.i:c.i+n]...)
			c.i += n
		}
	}
	return dst, errMore
}

// unescape decodes the escape at the start of b (a backslash), surrogate pairs included.
func unescape(b []byte) (rune, int, error) {
	if len(b) < 2 {
		return 0, 0, errMore
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r, err := hex4(b[2:])
		if err != nil {
			return 0, 0, err
		}
		if r < 0xD800 || r > 0xDBFF {
			return r, 6, nil
		}
		if len(b) < 12 {
			return 0, 0, errMore
		}
		if b[6] != '\\' || b[7] != 'u' {
			return utf8.RuneError, 6, nil
		}
		lo, err := hex4(b[8:])
		if err != nil {
			return 0, 0, err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return utf8.RuneError, 6, nil
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, nil
	}
	return 0, 0, errors.New("bad escape")
}

func hex4(b []byte) (rune, error) {
	if len(b) < 4 {
		for _, ch := range b {
			if !isHex(ch) {
				return 0, errors.New("bad hex")
			}
		}
		return 0, errMore
	}
	var r rune
	for _, ch := range b[:4] {
		if !isHex(ch) {
			return 0, errors.New("bad hex")
		}
		r = r<<4 | rune(hexVal(ch))
	}
	return r, nil
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

func hexVal(ch byte) byte {
	switch {
	case ch >= 'a':
		return ch - 'a' + 10
	case ch >= 'A':
		return ch - 'A' + 10
	}
	return ch - '0'
}

// completeUTF8 returns the length of b without a UTF-8 sequence cut at its end.
func completeUTF8(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		ch := b[len(b)-k]
		if ch < 0x80 {
			return len(b)
		}
		if ch >= 0xC0 { // a lead byte: is its sequence whole?
			if utf8.FullRune(b[len(b)-k:]) {
				return len(b)
			}
			return len(b) - k
		}
	}
	return len(b)
}
