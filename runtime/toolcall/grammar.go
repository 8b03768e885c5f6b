package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// SchemaConverter turns a JSON Schema into GBNF (llama.cpp's grammar format) whose start rule is root; an
// unsupported keyword is an error naming it. The grammar package's JSON Schema converter is one.
type SchemaConverter func(schema json.RawMessage) (gbnf string, err error)

// Constraint is what the grammar engine must enforce on a reply to make its tool calls valid.
type Constraint struct {
	// Grammar is GBNF whose root matches the family's call syntax — each call's name one of the tools' and its
	// arguments valid for that tool's parameters — from a trigger's first byte when Lazy, else from the start
	// of the answer (after any reasoning, which the constraint leaves alone).
	Grammar string
	// Lazy is tool_choice "auto": the reply is free until a trigger appears in it; the grammar then applies from
	// the trigger's first byte (the trigger's text is fed to it) to its end.
	Lazy     bool
	Triggers []Trigger
}

// Trigger is a text at which a lazy constraint turns on.
type Trigger struct {
	Text    string
	AtStart bool // only at the start of the answer (after whitespace)
}

// ErrNoToolSyntax is returned by BuildConstraint for a family without a tool-call syntax.
var ErrNoToolSyntax = errors.New("toolcall: the chat template has no tool-call syntax")

// ThinkMode says how a reply may start, for a forced constraint.
type ThinkMode uint8

const (
	NoThinking ThinkMode = iota // the reply starts with the answer
	MayThink                    // the reply may start with a reasoning block (thinking on)
	InThinking                  // the prompt opened the reasoning (Family.PromptThinking): the reply starts inside it
)

// ConstraintOptions are the request's choices.
type ConstraintOptions struct {
	Choice   Choice
	Parallel bool            // several calls in one reply (OpenAI's parallel_tool_calls)
	Convert  SchemaConverter // converts each tool's parameters (Gemma 4's are converted here)
	// Thinking lets a forced constraint's grammar begin with the reasoning, unconstrained up to its close tag.
	// A lazy constraint leaves the reasoning alone: its triggers count only in the answer (Parser.InAnswer).
	Thinking ThinkMode
}

// BuildConstraint returns the constraint for tools in family f's syntax, nil for tool_choice "none" or no
// tools. A family without tool syntax, a schema the converter cannot enforce or a named function not among the
// tools is an error.
func BuildConstraint(f Family, tools []Tool, opt ConstraintOptions) (*Constraint, error) {
	choice, parallel, conv := opt.Choice, opt.Parallel, opt.Convert
	if choice.Mode == None || len(tools) == 0 {
		return nil, nil
	}
	if !f.SupportsTools() {
		return nil, fmt.Errorf("%w (%s)", ErrNoToolSyntax, f)
	}
	if choice.Mode == Function {
		var named []Tool
		for _, t := range tools {
			if t.Name == choice.Name {
				named = append(named, t)
			}
		}
		if len(named) == 0 {
			return nil, fmt.Errorf("toolcall: tool_choice names %q, which is not among the tools", choice.Name)
		}
		tools = named
	}
	var g gbnf
	calls := make([]string, len(tools))
	var chans, roles []string // Harmony's two headers
	for i, t := range tools {
		var args string
		var err error
		if f == Gemma4 {
			args, err = g.gemmaSchema(fmt.Sprintf("t%d", i), t.Parameters)
		} else {
			args, err = g.addSchema(fmt.Sprintf("t%d-", i), t.Parameters, conv)
		}
		if err != nil {
			return nil, fmt.Errorf("toolcall: tool %s: parameters: %w", t.Name, err)
		}
		calls[i] = fmt.Sprintf("call-%d", i)
		if f == Harmony {
			chans = append(chans, gbnfString(t.Name+" <|constrain|>json"+hMessage)+" "+args)
			roles = append(roles, gbnfString(t.Name+hChannel+"commentary json"+hMessage)+" "+args)
			continue
		}
		g.rule(calls[i], callRule(f, t.Name, args))
	}
	if f == Harmony {
		g.rule("harmony-chan", strings.Join(chans, " | "))
		g.rule("harmony-role", strings.Join(roles, " | "))
	} else {
		g.rule("call", strings.Join(calls, " | "))
	}
	c := &Constraint{Lazy: choice.Mode == Auto}
	root := rootRule(f, parallel)
	if !c.Lazy {
		if f != Harmony {
			root = "[ \\n]{0,2} " + root // the answer may start after a line break or two
		}
		think, err := g.reasoningPrefix(f, opt.Thinking)
		if err != nil {
			return nil, err
		}
		root = think + root
	}
	g.rules = append([]string{"root ::= " + root}, g.rules...)
	c.Grammar = strings.Join(g.rules, "\n") + "\n"
	if c.Lazy {
		c.Triggers = triggers(f)
	}
	return c, nil
}

// reasoningPrefix is the start of a forced grammar's root that lets the reasoning come first.
func (g *gbnf) reasoningPrefix(f Family, th ThinkMode) (string, error) {
	open, close := f.Reasoning()
	if f == Harmony {
		open, close = hChannel+"analysis"+hMessage, "<|end|>"
	}
	if th == NoThinking || close == "" {
		return "", nil
	}
	body, err := notContaining(close)
	if err != nil {
		return "", err
	}
	g.rule("reasoning-text", body)
	if th == InThinking {
		return "reasoning-text* " + gbnfString(close) + " ", nil
	}
	return "(" + gbnfString(open) + " reasoning-text* " + gbnfString(close) + ")? ", nil
}

// notContaining is a GBNF alternation of pieces whose repetition never contains tag: a character other than its
// first, or a proper prefix of it followed by a character that neither continues it nor starts it again.
func notContaining(tag string) (string, error) {
	class := func(chars ...byte) string {
		var sb strings.Builder
		sb.WriteString("[^")
		for _, ch := range chars {
			if ch >= 0x80 {
				return ""
			}
			if ch == ']' || ch == '\\' || ch == '^' || ch == '-' || ch == '[' {
				sb.WriteByte('\\')
			}
			sb.WriteByte(ch)
		}
		return sb.String() + "]"
	}
	alts := []string{class(tag[0])}
	for k := 1; k < len(tag); k++ {
		alts = append(alts, gbnfString(tag[:k])+" "+class(tag[k], tag[0]))
	}
	for _, a := range alts {
		if strings.Contains(a, "[^]") || a == "" || strings.HasSuffix(a, " ") {
			return "", fmt.Errorf("toolcall: cannot write a grammar for text without %q", tag)
		}
	}
	return strings.Join(alts, " | "), nil
}

// callRule is one call of function name with arguments rule args, in the family's canonical layout.
func callRule(f Family, name, args string) string {
	q := func(s string) string { return gbnfString(s) }
	switch f {
	case Hermes:
		return q("<tool_call>\n{\"name\": \""+name+"\", \"arguments\": ") + " " + args + " " + q("}\n</tool_call>")
	case Llama3:
		return q("{") + " (" + q(`"type": "function", `) + ")? " + q(`"name": "`+name+`", "parameters": `) + " " + args + " " + q("}")
	case Mistral:
		return q(`{"name": "`+name+`", "arguments": `) + " " + args + " " + q(`, "id": "`) + ` [a-zA-Z0-9]{9} ` + q(`"}`)
	case MistralV11:
		return q("[TOOL_CALLS]"+name+"[ARGS]") + " " + args
	case Phi4:
		return q(`{"name": "`+name+`", "arguments": `) + " " + args + " " + q("}")
	case Gemma4:
		return q("<|tool_call>call:"+name) + " " + args + " " + q("<tool_call|>")
	case DeepSeekR1:
		return q(dsCallBegin+"function"+dsSep+name+"\n```json\n") + " " + args + " " + q("\n```"+dsCallEnd)
	}
	return args
}

// rootRule is the family's block of calls.
func rootRule(f Family, parallel bool) string {
	many := func(sep string) string {
		if !parallel {
			return "call"
		}
		if sep == "" {
			return "call+"
		}
		return "call (" + gbnfString(sep) + " call)*"
	}
	switch f {
	case Hermes:
		return many("\n")
	case Llama3:
		return many("; ") + " | " + gbnfString("<|python_tag|>") + " call"
	case Mistral:
		return gbnfString("[TOOL_CALLS][") + " " + many(", ") + " " + gbnfString("]")
	case Phi4:
		return gbnfString("functools[") + " " + many(", ") + " " + gbnfString("]")
	case Harmony:
		// the call's message: in the channel header, or in the role header (optionally after <|start|>assistant)
		return "(" + gbnfString(hStart) + ")? (" + gbnfString(hChannel) + " (" + gbnfString("commentary") + " | " +
			gbnfString("analysis") + ") " + gbnfString(hTo) + " harmony-chan | " + gbnfString(hTo) + " harmony-role)"
	case DeepSeekR1:
		return gbnfString(dsCallsBegin) + " " + many("") + " " + gbnfString(dsCallsEnd)
	}
	return many("")
}

// triggers are the texts where a lazy constraint turns on.
func triggers(f Family) []Trigger {
	switch f {
	case Llama3:
		return []Trigger{{Text: `{"name"`, AtStart: true}, {Text: `{"type"`, AtStart: true}, {Text: "<|python_tag|>"}}
	case Harmony:
		return []Trigger{{Text: hChannel + "commentary" + hTo}, {Text: hChannel + "analysis" + hTo},
			{Text: hStart + hTo}, {Text: hTo, AtStart: true}}
	case Hermes:
		return []Trigger{{Text: "<tool_call>"}}
	}
	var out []Trigger
	for _, t := range f.syn().triggers {
		out = append(out, Trigger{Text: t.text, AtStart: t.atStart})
	}
	return out
}

// gbnf collects rules.
type gbnf struct {
	rules     []string
	gemmaBase bool // the shared Gemma rules are in
}

func (g *gbnf) rule(name, body string) { g.rules = append(g.rules, name+" ::= "+body) }

// addSchema converts a schema and adds its rules under prefix; it returns the name of its root rule.
func (g *gbnf) addSchema(prefix string, schema json.RawMessage, conv SchemaConverter) (string, error) {
	if conv == nil {
		return "", errors.New("no JSON Schema converter")
	}
	src, err := conv(schema)
	if err != nil {
		return "", err
	}
	renamed, err := prefixRules(src, prefix)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(strings.TrimSpace(renamed), "\n") {
		g.rules = append(g.rules, line)
	}
	return prefix + "root", nil
}

// prefixRules puts prefix before every rule name of a GBNF grammar, definitions and references; strings,
// character classes, repetition counts and comments are left as they are.
func prefixRules(src, prefix string) (string, error) {
	var sb strings.Builder
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j
		case ch == '"' || ch == '[' || ch == '{':
			end := map[byte]byte{'"': '"', '[': ']', '{': '}'}[ch]
			j := i + 1
			for j < len(src) && src[j] != end {
				if src[j] == '\\' && ch != '{' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return "", fmt.Errorf("unterminated %c in the converted grammar", ch)
			}
			sb.WriteString(src[i : j+1])
			i = j + 1
		case isRuleChar(ch):
			j := i
			for j < len(src) && isRuleChar(src[j]) {
				j++
			}
			sb.WriteString(prefix + src[i:j])
			i = j
		default:
			sb.WriteByte(ch)
			i++
		}
	}
	return sb.String(), nil
}

func isRuleChar(ch byte) bool {
	return ch == '-' || ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9'
}

// gbnfString is s as a GBNF string literal.
func gbnfString(s string) string {
	var sb strings.Builder
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
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// ReasoningGrammar returns GBNF of what may come before an answer in family f when a constraint applies to the
// answer alone: nothing (NoThinking), an optional reasoning block (MayThink), or the rest of one the prompt
// opened (InThinking), then the whitespace the model may put before the answer. It is "" when the family has
// no reasoning syntax or th is NoThinking.
func ReasoningGrammar(f Family, th ThinkMode) (string, error) {
	var g gbnf
	prefix, err := g.reasoningPrefix(f, th)
	if err != nil || prefix == "" {
		return "", err
	}
	g.rules = append([]string{"root ::= " + prefix + "[ \\t\\n]{0,4}"}, g.rules...)
	return strings.Join(g.rules, "\n") + "\n", nil
}
