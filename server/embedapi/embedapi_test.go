package embedapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// parseInputs reads every shape the APIs allow and names the field of every shape they do not.
func TestParseInputs(t *testing.T) {
	for _, c := range []struct {
		raw               string
		tokensOK, emptyOK bool
		texts             []string  // the inputs that are texts ("" for tokens)
		tokens            [][]int32 // the inputs that are tokens (nil for texts)
		param, err        string
	}{
		{raw: `"a"`, texts: []string{"a"}, tokens: [][]int32{nil}},
		{raw: `["a", "b"]`, texts: []string{"a", "b"}, tokens: [][]int32{nil, nil}},
		{raw: `[1, 2]`, tokensOK: true, texts: []string{""}, tokens: [][]int32{{1, 2}}},
		{raw: `[[1], "b"]`, tokensOK: true, texts: []string{"", "b"}, tokens: [][]int32{{1}, nil}},
		{raw: `""`, emptyOK: true, texts: []string{""}, tokens: [][]int32{nil}},
		{raw: `""`, param: "input", err: "empty string"},
		{raw: `["a", ""]`, param: "input[1]", err: "empty string"},
		{raw: ``, param: "input", err: "required"},
		{raw: `null`, param: "input", err: "required"},
		{raw: `[]`, param: "input", err: "must not be empty"},
		{raw: `{}`, param: "input", err: "not an object"},
		{raw: `true`, param: "input", err: "not a boolean"},
		{raw: `[1, 2]`, param: "input[0]", err: "must be a string, not a number"},
		{raw: `[[1]]`, param: "input[0]", err: "must be a string, not an array"},
		{raw: `[[]]`, tokensOK: true, param: "input[0]", err: "no tokens"},
		{raw: `[["a"]]`, tokensOK: true, param: "input[0]", err: "array of token ids, not an array"},
		{raw: `[` + strings.Repeat(`"a",`, MaxInputs) + `"a"]`, param: "input", err: "more than 2048"},
	} {
		in, err := parseInputs("input", json.RawMessage(c.raw), c.tokensOK, c.emptyOK)
		var e *Error
		if c.err != "" {
			if !errors.As(err, &e) || e.Param != c.param || !strings.Contains(e.Msg, c.err) {
				t.Errorf("%.40s: %v, want %q about %s", c.raw, err, c.err, c.param)
			}
			continue
		}
		if err != nil || len(in) != len(c.texts) {
			t.Fatalf("%s: %v, %d inputs", c.raw, err, len(in))
		}
		for i, it := range in {
			if it.text != c.texts[i] || !slices.Equal(it.tokens, c.tokens[i]) || it.isText != (c.tokens[i] == nil) {
				t.Errorf("%s: input %d is %+v", c.raw, i, it)
			}
		}
	}
}

// The base64 encoding is the little-endian float32 bytes, as OpenAI's.
func TestBase64Floats(t *testing.T) {
	b, _ := base64.StdEncoding.DecodeString(base64Floats([]float32{1, -2.5}))
	if want := []byte{0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0}; !slices.Equal(b, want) {
		t.Errorf("% x, want % x", b, want)
	}
}
