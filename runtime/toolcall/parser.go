package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Kind says what a Delta carries.
type Kind uint8

const (
	Content   Kind = iota // answer text
	Reasoning             // reasoning text
	CallStart             // a call begins: Index, ID and Name
	CallArgs              // the next fragment of call Index's arguments JSON
)

func (k Kind) String() string {
	return [...]string{"content", "reasoning", "call", "args"}[k]
}

// Delta is one piece of a streamed reply. A call's CallArgs fragments, concatenated, are its whole arguments
// JSON; calls are numbered from 0 in the order they start.
type Delta struct {
	Kind  Kind
	Text  string // Content, Reasoning: the text; CallArgs: the fragment
	Index int    // CallStart, CallArgs: the call's number
	ID    string // CallStart
	Name  string // CallStart
}

// Call is a whole tool call.
type Call struct {
	ID        string
	Name      string
	Arguments string // a JSON object
}

// Reply is a parsed reply.
type Reply struct {
	Reasoning string
	Content   string
	Calls     []Call
}

// ErrIncomplete is returned (wrapped) by Parser.Result when the reply ended inside a tool call or before the
// reasoning closed: cut by a token limit, or by a stop string.
var ErrIncomplete = errors.New("toolcall: the reply is incomplete")

// Options configure a Parser.
type Options struct {
	Family Family
	// Calls turns on tool-call parsing (tools were given and tool_choice is not "none"); without it call syntax
	// is content.
	Calls bool
	// InReasoning says the prompt opened the reasoning (Family.PromptThinking): the reply starts inside it.
	InReasoning bool
	// NewID returns the id of call n; nil gives random ids of the family's form ("call_" and 24 letters and
	// digits; 9 for Mistral's). Ids the model writes are not kept: clients echo the given ids back.
	NewID func(n int) string
}

type mode uint8

const (
	modeStart     mode = iota // the answer's start (or after a call): whitespace, open tag, start-only triggers
	modeContent               // answer text, watching for triggers
	modeReasoning             // reasoning text, watching for the close tag
	modeCall                  // call syntax, from its trigger on
	modeDone                  // after Finish
)

// Parser splits a model's reply, fed in pieces of any size, into reasoning, content and tool calls, as deltas.
// Leading and trailing whitespace of the reasoning, and whitespace at the start of the answer and after a call,
// are dropped. A Parser is used by one goroutine.
type Parser struct {
	opt     Options
	syn     *syntax
	mode    mode
	buf     []byte // received text not yet emitted: a held-back tail, or the current call block
	thought bool   // the reasoning block has been read (only one, at the start, is)
	started bool   // past the answer's start
	trig    *trigger
	sent    [][]byte // per call of the current block: the arguments sent so far
	first   int      // the index in reply.Calls of the current block's first call
	next    int      // the index of the next call announced (calls dropped from the reply keep theirs)
	reply   Reply
	out     []Delta
	err     error
	cut     bool // the reply ended inside a call block
	harmony harmonyState
}

// NewParser returns a parser for one reply.
func NewParser(opt Options) *Parser {
	p := &Parser{opt: opt, syn: opt.Family.syn()}
	if opt.InReasoning && p.syn.think[0] != "" {
		p.mode, p.thought = modeReasoning, true
	}
	return p
}

// Feed parses the next piece of the reply and returns the deltas it completes (valid until the next call).
func (p *Parser) Feed(text string) []Delta {
	p.out = p.out[:0]
	if p.mode == modeDone {
		return p.out
	}
	p.buf = append(p.buf, text...)
	p.run(false)
	return p.out
}

// Finish ends the reply and returns the deltas of the text held back.
func (p *Parser) Finish() []Delta {
	p.out = p.out[:0]
	if p.mode != modeDone {
		p.run(true)
		p.mode = modeDone
	}
	return p.out
}

// InAnswer reports whether the reply is past its reasoning (or can no longer have any): a lazy constraint's
// triggers count only from then on.
func (p *Parser) InAnswer() bool {
	if p.opt.Family == Harmony {
		return !(p.harmony.phase == hBody && p.harmony.kind == Reasoning)
	}
	switch p.mode {
	case modeReasoning:
		return false
	case modeStart:
		return p.thought || p.started || p.syn.think[0] == ""
	}
	return true
}

// Result returns the reply parsed so far (after Finish, the whole reply) and what went wrong: ErrIncomplete, or
// call syntax the parser could not read (possible only without a grammar constraint).
func (p *Parser) Result() (Reply, error) {
	r := p.reply
	r.Calls = append([]Call(nil), r.Calls...)
	if p.mode == modeCall || p.cut {
		r.Calls = r.Calls[:min(p.first, len(r.Calls))] // the calls of a block cut short are left out
	}
	return r, p.err
}

func (p *Parser) run(final bool) {
	if p.opt.Family == Harmony {
		p.runHarmony(final)
		return
	}
	for {
		switch p.mode {
		case modeStart:
			if !p.start(final) {
				return
			}
		case modeContent:
			p.content(final)
			return
		case modeReasoning:
			if !p.reasoning(final) {
				return
			}
		case modeCall:
			if !p.block(final) {
				return
			}
		default:
			return
		}
	}
}

// start handles the answer's start; it reports whether the mode changed.
func (p *Parser) start(final bool) bool {
	i := 0
	for i < len(p.buf) && isSpace(p.buf[i]) {
		i++
	}
	p.buf = p.buf[i:]
	if len(p.buf) == 0 {
		if final {
			p.mode = modeDone
			return true
		}
		return false
	}
	if open := p.syn.think[0]; open != "" && !p.thought && !p.started {
		if bytes.HasPrefix(p.buf, []byte(open)) {
			p.buf, p.mode, p.thought = p.buf[len(open):], modeReasoning, true
			return true
		}
		if isPrefixOf(p.buf, open) && !final {
			return false
		}
	}
	if p.opt.Calls && !p.started {
		for k := range p.syn.triggers {
			t := &p.syn.triggers[k]
			if !t.atStart {
				continue
			}
			if bytes.HasPrefix(p.buf, []byte(t.text)) {
				p.started = true
				p.enter(t)
				return true
			}
			if isPrefixOf(p.buf, t.text) && !final {
				return false
			}
		}
	}
	p.started, p.mode = true, modeContent
	return true
}

// content emits answer text up to a trigger, holding back a tail that may be the start of one.
func (p *Parser) content(final bool) {
	if p.opt.Calls {
		at, t := -1, (*trigger)(nil)
		for k := range p.syn.triggers {
			tr := &p.syn.triggers[k]
			if tr.atStart {
				continue
			}
			if i := bytes.Index(p.buf, []byte(tr.text)); i >= 0 && (at < 0 || i < at) {
				at, t = i, tr
			}
		}
		if t != nil {
			p.emitText(Content, p.buf[:at])
			p.buf = p.buf[at:]
			p.enter(t)
			p.run(final)
			return
		}
	}
	n := len(p.buf)
	if !final {
		n = completeUTF8(p.buf)
		if p.opt.Calls {
			for _, t := range p.syn.triggers {
				if !t.atStart {
					n = min(n, len(p.buf)-partialSuffix(p.buf, t.text))
				}
			}
		}
	}
	p.emitText(Content, p.buf[:n])
	p.buf = append(p.buf[:0], p.buf[n:]...)
}

// reasoning emits reasoning text up to the close tag; it reports whether the mode changed.
func (p *Parser) reasoning(final bool) bool {
	close := []byte(p.syn.think[1])
	if p.reply.Reasoning == "" {
		i := 0
		for i < len(p.buf) && isSpace(p.buf[i]) {
			i++
		}
		p.buf = p.buf[i:]
	}
	if at := bytes.Index(p.buf, close); at >= 0 {
		p.emitText(Reasoning, bytes.TrimRight(p.buf[:at], " \t\r\n"))
		p.buf = p.buf[at+len(close):]
		p.mode = modeStart
		return true
	}
	n := len(p.buf)
	if !final {
		n = min(completeUTF8(p.buf), len(p.buf)-partialSuffix(p.buf, string(close)))
		for n > 0 && isSpace(p.buf[n-1]) { // trailing whitespace waits: it is dropped before the close tag
			n--
		}
	}
	chunk := p.buf[:n]
	if final {
		chunk = bytes.TrimRight(chunk, " \t\r\n")
		p.err = errors.Join(p.err, fmt.Errorf("%w: the reasoning is not closed (no %s)", ErrIncomplete, close))
	}
	p.emitText(Reasoning, chunk)
	p.buf = append(p.buf[:0], p.buf[n:]...)
	if final {
		p.mode = modeDone
		return true
	}
	return false
}

// partialSuffix returns the length of the longest end of b that is a proper prefix of s.
func partialSuffix(b []byte, s string) int {
	for k := min(len(s)-1, len(b)); k > 0; k-- {
		if string(b[len(b)-k:]) == s[:k] {
			return k
		}
	}
	return 0
}

func (p *Parser) enter(t *trigger) {
	p.mode, p.trig, p.sent, p.first = modeCall, t, p.sent[:0], len(p.reply.Calls)
}

// block parses the current call block again with the text received, announcing calls whose name is whole and
// sending their new argument text; it reports whether the block ended.
func (p *Parser) block(final bool) bool {
	c := cursor{b: p.buf, final: final}
	calls, err := p.trig.parse(&c)
	for i := range calls {
		rc := &calls[i]
		if !rc.nameDone {
			break
		}
		if i == len(p.sent) {
			p.announce(rc.name)
			p.sent = append(p.sent, nil)
		}
		if sent := p.sent[i]; len(rc.args) > len(sent) && bytes.HasPrefix(rc.args, sent) {
			frag := string(rc.args[len(sent):])
			p.out = append(p.out, Delta{Kind: CallArgs, Index: p.next - len(p.sent) + i, Text: frag})
			p.reply.Calls[p.first+i].Arguments += frag
			p.sent[i] = append(sent, frag...)
		}
	}
	var se *syntaxError
	switch {
	case err == nil:
		for i := range calls {
			if a := p.reply.Calls[p.first+i].Arguments; !json.Valid([]byte(a)) || a[0] != '{' {
				p.err = errors.Join(p.err, fmt.Errorf("toolcall: the arguments of %s are not a JSON object: %s",
					calls[i].name, a))
			}
		}
		p.buf = append(p.buf[:0], p.buf[c.i:]...)
		p.first, p.mode = len(p.reply.Calls), modeStart
		return true
	case err == errMore && !final:
		return false
	case err == errMore:
		p.err = errors.Join(p.err, fmt.Errorf("%w: %s call cut short", ErrIncomplete, p.syn.name))
		p.cut, p.mode = true, modeDone
		return true
	case errors.As(err, &se) && len(p.sent) == 0:
		// Not a call after all: the trigger is text.
		p.emitText(Content, p.buf[:len(p.trig.text)])
		p.buf = p.buf[len(p.trig.text):]
		p.mode = modeContent
		return true
	default:
		p.err = errors.Join(p.err, fmt.Errorf("toolcall: %s call: %w", p.syn.name, err))
		if se != nil {
			p.buf = p.buf[min(se.at, len(p.buf)):]
		}
		whole := 0 // the reply keeps the calls read whole before the error
		for whole < len(calls) && whole < len(p.sent) && calls[whole].argsDone {
			whole++
		}
		p.reply.Calls = p.reply.Calls[:p.first+whole]
		p.first, p.mode = len(p.reply.Calls), modeContent
		return true
	}
}

// announce starts a call: a delta, and the call in the reply.
func (p *Parser) announce(name string) {
	n := p.next
	p.next++
	id := p.newID(n)
	p.reply.Calls = append(p.reply.Calls, Call{ID: id, Name: name})
	p.out = append(p.out, Delta{Kind: CallStart, Index: n, ID: id, Name: name})
}

func (p *Parser) emitText(k Kind, b []byte) {
	if len(b) == 0 {
		return
	}
	s := string(b)
	if k == Content {
		p.reply.Content += s
	} else {
		p.reply.Reasoning += s
	}
	if n := len(p.out); n > 0 && p.out[n-1].Kind == k {
		p.out[n-1].Text += s
		return
	}
	p.out = append(p.out, Delta{Kind: k, Text: s})
}

const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (p *Parser) newID(n int) string {
	if p.opt.NewID != nil {
		return p.opt.NewID(n)
	}
	size, prefix := p.syn.idLen, ""
	if size == 0 {
		size, prefix = 24, "call_"
	}
	b := make([]byte, size)
	for i := range b {
		b[i] = idChars[rand.IntN(len(idChars))]
	}
	return prefix + string(b)
}
