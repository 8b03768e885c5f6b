package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/tokenizer"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// The reply layer of a generation: for a chat template that thinks or calls tools, the text the model writes is
// split into reasoning, answer and tool calls as it streams (toolcall.Parser), and the output constraints start
// where they apply — a JSON Schema or grammar once the reasoning is over, a tool call's grammar from its trigger
// (tool_choice auto) or from the first token (a forced call, whose grammar leaves the reasoning free).

// ToolFamily returns the tool-call and reasoning syntax of the model's chat template (toolcall.Plain without a
// template).
func (m *Model) ToolFamily() toolcall.Family {
	if m.template == nil {
		return toolcall.Plain
	}
	return toolcall.Detect(m.template.Source())
}

// replyState is the per-generation state of the reply layer; nil parser: plain text.
type replyState struct {
	parser  *toolcall.Parser
	family  toolcall.Family
	raw     []byte             // the text released so far (stop strings settled)
	pending *grammar.Compiled  // a constraint that starts later (after the reasoning, or at a trigger)
	lazy    []toolcall.Trigger // for a tool constraint: where it starts
	reply   toolcall.Reply     // after the generation
	err     error              // the parser's, after the generation
	calls   []toolcall.Delta   // scratch of one token's call deltas
	content bytes.Buffer
	reason  bytes.Buffer
}

// ErrToolsAndFormat is returned for a generation asking for tool calls and a JSON Schema or grammar at once.
var ErrToolsAndFormat = errors.New("runtime: tools and a grammar or JSON Schema cannot constrain one answer")

// startReply sets up the reply layer for opt: the parser when the template thinks or tools are given, and the
// constraint (g.match now, or pending until it applies). thinking says the prompt opened the reasoning, closed
// that it ends with an empty reasoning block (thinking switched off), after which the answer comes at once.
func (s *Session) startReply(opt GenerateOptions, promptLen int, thinking, closed bool) error {
	r := &s.gen.out
	fam := s.m.ToolFamily()
	open, _ := fam.Reasoning()
	tools := len(opt.Tools) > 0 && opt.ToolChoice.Mode != toolcall.None
	if opt.RawReply {
		if tools {
			return fmt.Errorf("%w: RawReply leaves no parser to read tool calls", ErrConstraint)
		}
		return nil
	}
	if open == "" && !tools && fam != toolcall.Harmony {
		return nil // plain text: newMatcher already made the constraint, if any
	}
	r.family = fam
	r.parser = toolcall.NewParser(toolcall.Options{Family: fam, Calls: tools, InReasoning: thinking})
	if tools {
		if s.gen.match != nil {
			return ErrToolsAndFormat
		}
		mode := toolcall.NoThinking
		if thinking {
			mode = toolcall.InThinking
		} else if open != "" && !closed {
			mode = toolcall.MayThink
		}
		c, err := toolcall.BuildConstraint(fam, opt.Tools, toolcall.ConstraintOptions{Choice: opt.ToolChoice,
			Parallel: opt.ParallelToolCalls, Convert: gbnfOfSchema, Thinking: mode})
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConstraint, err)
		}
		g, err := grammar.Parse(c.Grammar)
		if err != nil {
			return fmt.Errorf("%w: tool grammar: %w", ErrConstraint, err)
		}
		cg, err := s.m.GrammarVocab().Compile(g)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConstraint, err)
		}
		if !c.Lazy {
			s.gen.match = cg.NewMatcher()
			s.setBudget(s.gen.match, opt, promptLen)
			return nil
		}
		r.pending, r.lazy = cg, c.Triggers
		return nil
	}
	if s.gen.match != nil {
		// A schema or grammar applies to the answer: before it, the reasoning the prompt opened, or a block the
		// model may open, is free text up to the close tag.
		mode := toolcall.MayThink
		if thinking {
			mode = toolcall.InThinking
		} else if closed {
			mode = toolcall.NoThinking
		}
		head, err := toolcall.ReasoningGrammar(fam, mode)
		if err != nil || head == "" {
			return err
		}
		hg, err := grammar.Parse(head)
		if err != nil {
			return fmt.Errorf("%w: reasoning grammar: %w", ErrConstraint, err)
		}
		user, err := opt.Constraint()
		if err != nil {
			return err
		}
		cg, err := s.m.GrammarVocab().Compile(grammar.Concat(hg, user))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConstraint, err)
		}
		m := cg.NewMatcher()
		m.SetBudget(s.gen.match.Budget())
		s.gen.match = m
	}
	return nil
}

// gbnfOfSchema is the JSON Schema converter the tool constraints use.
func gbnfOfSchema(schema json.RawMessage) (string, error) {
	g, err := jsonschema.Compile(schema, jsonschema.Options{})
	if err != nil {
		return "", err
	}
	return g.String(), nil
}

// feed passes released text to the parser and fills t's Text (the answer), Reasoning and Calls; then it starts a
// pending constraint if its place has come.
func (s *Session) feed(t *Token, text []byte) error {
	r := &s.gen.out
	if r.parser == nil {
		t.Text = s.gen.arena.string(text)
		return nil
	}
	r.raw = append(r.raw, text...)
	s.fillToken(t, r.parser.Feed(string(text)))
	return s.startPending()
}

// fillToken sets t's fields from deltas.
func (s *Session) fillToken(t *Token, deltas []toolcall.Delta) {
	r := &s.gen.out
	r.content.Reset()
	r.reason.Reset()
	r.calls = r.calls[:0]
	for _, d := range deltas {
		switch d.Kind {
		case toolcall.Content:
			r.content.WriteString(d.Text)
		case toolcall.Reasoning:
			r.reason.WriteString(d.Text)
		default:
			r.calls = append(r.calls, d)
		}
	}
	t.Text = s.gen.arena.string(r.content.Bytes())
	t.Reasoning = s.gen.arena.string(r.reason.Bytes())
	t.Calls = r.calls
}

// startPending starts the pending constraint once the reasoning is over: a schema or grammar at once (fed the
// answer written so far), a tool grammar at the first trigger of the answer (fed from the trigger on).
func (s *Session) startPending() error {
	r := &s.gen.out
	if r.pending == nil || !r.parser.InAnswer() {
		return nil
	}
	answer := r.raw
	if _, close := r.family.Reasoning(); close != "" {
		if i := bytes.LastIndex(answer, []byte(close)); i >= 0 {
			answer = answer[i+len(close):]
		}
	}
	answer = bytes.TrimLeft(answer, " \t\r\n")
	from := 0
	if r.lazy != nil {
		from = -1
		for _, tr := range r.lazy {
			i := bytes.Index(answer, []byte(tr.Text))
			if i >= 0 && (!tr.AtStart || i == 0) && (from < 0 || i < from) {
				from = i
			}
		}
		if from < 0 {
			return nil // no call yet
		}
	}
	m := r.pending.NewMatcher()
	r.pending = nil
	if !m.AcceptBytes(answer[from:]) {
		return fmt.Errorf("runtime: the answer %q does not begin as its constraint requires", truncate(answer[from:], 60))
	}
	s.gen.match = m
	return nil
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// finishReply ends the parse: the deltas of text held back, and the reply.
func (s *Session) finishReply() (Token, bool) {
	r := &s.gen.out
	if r.parser == nil {
		return Token{}, false
	}
	t := Token{ID: -1}
	s.fillToken(&t, r.parser.Finish())
	r.reply, r.err = r.parser.Result()
	return t, t.Text != "" || t.Reasoning != "" || len(t.Calls) > 0
}

// Result returns the last generation's reply split by the template's syntax: reasoning, answer and tool calls
// (a plain-text model's answer is all content), and what went wrong parsing it (toolcall.ErrIncomplete for a
// reply cut inside a call or its reasoning).
func (s *Session) Result() (toolcall.Reply, error) {
	r := &s.gen.out
	if r.parser == nil {
		return toolcall.Reply{Content: string(s.gen.reply)}, nil
	}
	return r.reply, r.err
}

// promptThinking reports whether the prompt's end opens the reasoning for the family (the template put the open
// tag in the generation prompt, as Qwen3's and DeepSeek-R1's do), and whether it closes it (the template wrote
// an empty block, as Qwen3's does with enable_thinking false).
func (s *Session) promptThinking(f toolcall.Family, prompt []int32) (opened, closed bool) {
	open, close := f.Reasoning()
	if open == "" {
		return false, false
	}
	var tail []byte
	for _, id := range prompt[max(0, len(prompt)-16):] {
		tail = s.m.Tokenizer.AppendPiece(tail, id, tokenizer.PieceOptions{Special: true})
	}
	t := string(tail)
	opened = strings.LastIndex(t, open) > strings.LastIndex(t, close)
	return opened, !opened && strings.HasSuffix(strings.TrimRight(t, " \t\r\n"), close)
}
