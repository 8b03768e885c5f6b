package chat

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ardanlabs/jinja"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// KeyTemplate is the GGUF key holding the model's chat template.
const KeyTemplate = "tokenizer.chat_template"

// Template renders conversations into prompts: a Jinja template (the model's, or one given), or one of
// llama.cpp's built-in formats.
type Template struct {
	src     string          // Jinja source, "" for a built-in
	tmpl    *jinja.Template // nil for a built-in
	builtin Builtin         // set when rendering with a built-in format
	opt     Options
}

// Options are the model facts a template needs.
type Options struct {
	BOS, EOS       string // texts of the BOS and EOS tokens (bos_token, eos_token)
	AddBOS, AddEOS bool   // the tokenizer adds BOS/EOS itself: a rendered leading BOS / trailing EOS is removed
}

// Load returns the chat template of a GGUF file. override, when not empty, replaces the file's template the way
// llama.cpp's --chat-template does: a built-in name (chatml, llama3, gemma, phi3, mistral-v7, ...) or Jinja source.
// A file without a template gets chatml. bos_token and eos_token are the texts of the file's BOS/EOS tokens.
func Load(f *gguf.File, override string) (*Template, error) {
	src := override
	if src == "" {
		s, err := f.String(KeyTemplate)
		switch {
		case err == nil:
			src = s
		case gguf.IsNotFound(err):
			src = "chatml" // llama.cpp's fallback
		default:
			return nil, fmt.Errorf("chat: %w", err)
		}
	}
	toks, _ := f.StringArray(tokenizer.KeyTokens) // two texts: not worth decoding 150k strings
	opt := Options{BOS: specialText(f, toks, tokenizer.KeyBOS), EOS: specialText(f, toks, tokenizer.KeyEOS)}
	model, _ := f.String(tokenizer.KeyModel)
	pre, _ := f.String(tokenizer.KeyPre)
	opt.AddBOS, opt.AddEOS = tokenizer.DefaultAddSpecial(model, pre)
	if v, err := f.Bool(tokenizer.KeyAddBOS); err == nil {
		opt.AddBOS = v
	}
	if v, err := f.Bool(tokenizer.KeyAddEOS); err == nil {
		opt.AddEOS = v
	}
	return New(src, opt)
}

// specialText returns the text of the token whose id the key holds, "" when there is none.
func specialText(f *gguf.File, toks gguf.StringArray, key string) string {
	id, err := f.Int(key)
	if err != nil || id < 0 || id >= int64(toks.Len()) {
		return ""
	}
	return string(toks.At(int(id)))
}

// New returns a template from Jinja source or a built-in name. A source the Jinja engine cannot compile falls
// back, as llama.cpp does, to the built-in format detected from its text; if none is recognized the compile error
// is returned, quoting the template line.
func New(src string, opt Options) (*Template, error) {
	t := &Template{src: src, opt: opt}
	if b, ok := builtinNames[strings.TrimSpace(src)]; ok {
		t.src, t.builtin = "", b
		return t, nil
	}
	tmpl, err := jinja.Compile(rewriteFilters(src))
	if err != nil {
		if b := Detect(src); b != BuiltinUnknown {
			t.builtin = b
			return t, nil
		}
		return nil, templateError(src, "compile", err)
	}
	t.tmpl = tmpl
	return t, nil
}

// Builtin returns the built-in format the template renders with, BuiltinUnknown for a Jinja template.
func (t *Template) Builtin() Builtin { return t.builtin }

// Source returns the Jinja source ("" for a built-in format).
func (t *Template) Source() string { return t.src }

// Render turns a conversation into the prompt text.
func (t *Template) Render(c Conversation) (string, error) {
	if t.tmpl == nil {
		return renderBuiltin(t.builtin, c)
	}
	vars, err := c.vars(t.opt.BOS, t.opt.EOS)
	if err != nil {
		return "", fmt.Errorf("chat: %w", err)
	}
	addExtensions(vars)
	out, err := t.tmpl.RenderValues(vars)
	if err != nil {
		return "", templateError(t.src, "render", err)
	}
	// As llama.cpp: the tokenizer adds BOS/EOS itself, so a template that writes them would double them.
	if t.opt.AddBOS && t.opt.BOS != "" {
		out = strings.TrimPrefix(out, t.opt.BOS)
	}
	if t.opt.AddEOS && t.opt.EOS != "" {
		out = strings.TrimSuffix(out, t.opt.EOS)
	}
	return out, nil
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// templateError wraps a Jinja error with the template line it comes from: the line the engine names, else the
// first line holding a name or text quoted in the message.
func templateError(src, what string, err error) error {
	msg := err.Error()
	line := 0
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	} else {
		line = findLine(src, msg)
	}
	if q := quoteLine(src, line); q != "" {
		return fmt.Errorf("chat template: %s: %w (line %d: %s)", what, err, line, q)
	}
	return fmt.Errorf("chat template: %s: %w", what, err)
}

var (
	quotedRE   = regexp.MustCompile(`"([^"]+)"|'([^']+)'`)
	unclosedRE = regexp.MustCompile(`unclosed (\w+) (?:block|tag)`)
)

func findLine(src, msg string) int {
	lines := strings.Split(src, "\n")
	if m := unclosedRE.FindStringSubmatch(msg); m != nil {
		open := regexp.MustCompile(`\{%-?\s*` + regexp.QuoteMeta(m[1]) + `\b`)
		for i := len(lines) - 1; i >= 0; i-- {
			if open.MatchString(lines[i]) {
				return i + 1
			}
		}
	}
	var needles []string
	for _, m := range quotedRE.FindAllStringSubmatch(msg, -1) {
		needles = append(needles, m[1]+m[2])
	}
	// raise_exception messages are the error text itself
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		needles = append(needles, msg[i+2:])
	}
	needles = append(needles, msg)
	for _, n := range needles {
		if n == "" {
			continue
		}
		for i, l := range lines {
			if strings.Contains(l, n) {
				return i + 1
			}
		}
	}
	return 0
}

// ErrUnknownBuiltin is returned for a built-in name llama.cpp knows but this package does not implement.
var ErrUnknownBuiltin = errors.New("chat: built-in template not supported")
