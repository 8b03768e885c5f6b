package toolcall

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// gpt-oss writes its reply as messages in the Harmony format: a header (an optional <|start|>assistant, a
// channel, an optional recipient " to=functions.NAME" and a constraint such as " <|constrain|>json"), then
// <|message|> and a body up to <|end|>, <|call|> or <|return|>. The analysis channel is reasoning, final and
// commentary are content, and a message to a function is a call whose body is its arguments:
//
//	<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{…}<|call|>
//	<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{…}<|call|>
const (
	hMessage = "<|message|>"
	hChannel = "<|channel|>"
	hStart   = "<|start|>assistant"
	hTo      = " to=functions."
)

var hEnds = []string{"<|end|>", "<|call|>", "<|return|>"}

type harmonyPhase uint8

const (
	hHeader harmonyPhase = iota
	hBody
	hArgs
	hAfterArgs // between a call's arguments and its end tag
)

type harmonyState struct {
	phase harmonyPhase
	kind  Kind // of the body: Content or Reasoning
	call  rawCall
	sent  int // argument bytes sent
}

func (p *Parser) runHarmony(final bool) {
	h := &p.harmony
	for {
		var progress bool
		switch h.phase {
		case hHeader:
			progress = p.harmonyHeader(final)
		case hBody:
			progress = p.harmonyBody(final)
		case hArgs:
			progress = p.harmonyArgs(final)
		case hAfterArgs:
			progress = p.harmonyAfterArgs(final)
		}
		if !progress {
			return
		}
	}
}

// harmonyHeader reads a message header; text that is not one is a content body.
func (p *Parser) harmonyHeader(final bool) bool {
	h := &p.harmony
	i := 0
	for i < len(p.buf) && (p.buf[i] == '\n' || p.buf[i] == '\r') {
		i++
	}
	p.buf = p.buf[i:]
	if len(p.buf) == 0 {
		return false
	}
	if !startsHeader(p.buf) {
		if !final && isHeaderPrefix(p.buf) {
			return false
		}
		h.phase, h.kind = hBody, Content
		return true
	}
	at := bytes.Index(p.buf, []byte(hMessage))
	if at < 0 {
		if final {
			p.err = errors.Join(p.err, fmt.Errorf("%w: a message header without %s", ErrIncomplete, hMessage))
			p.buf = p.buf[:0]
		}
		return false
	}
	header := string(p.buf[:at])
	p.buf = p.buf[at+len(hMessage):]
	channel := ""
	if _, rest, ok := strings.Cut(header, hChannel); ok {
		channel = rest
		if k := strings.IndexAny(channel, " <"); k >= 0 {
			channel = channel[:k]
		}
	}
	if _, rest, ok := strings.Cut(header, hTo); ok && p.opt.Calls {
		name := rest
		if k := strings.IndexAny(name, " <\t\n"); k >= 0 {
			name = name[:k]
		}
		if name == "" {
			p.err = errors.Join(p.err, fmt.Errorf("toolcall: harmony call without a function name: %q", header))
			h.phase, h.kind = hBody, Content
			return true
		}
		h.phase, h.call, h.sent = hArgs, rawCall{name: name, nameDone: true}, 0
		p.first = len(p.reply.Calls)
		p.announce(name)
		return true
	}
	h.phase, h.kind = hBody, Content
	if channel == "analysis" {
		h.kind = Reasoning
	}
	return true
}

func startsHeader(b []byte) bool {
	for _, s := range []string{hChannel, hStart, hTo, "<|constrain|>"} {
		if bytes.HasPrefix(b, []byte(s)) {
			return true
		}
	}
	return false
}

func isHeaderPrefix(b []byte) bool {
	for _, s := range []string{hChannel, hStart, hTo, "<|constrain|>"} {
		if isPrefixOf(b, s) {
			return true
		}
	}
	return false
}

// harmonyBody emits a body's text up to its end tag.
func (p *Parser) harmonyBody(final bool) bool {
	h := &p.harmony
	if h.kind == Reasoning && p.reply.Reasoning == "" || h.kind == Content && p.reply.Content == "" {
		i := 0
		for i < len(p.buf) && isSpace(p.buf[i]) {
			i++
		}
		p.buf = p.buf[i:]
	}
	at, end := -1, ""
	for _, e := range hEnds {
		if i := bytes.Index(p.buf, []byte(e)); i >= 0 && (at < 0 || i < at) {
			at, end = i, e
		}
	}
	if at >= 0 {
		text := p.buf[:at]
		if h.kind == Reasoning {
			text = bytes.TrimRight(text, " \t\r\n")
		}
		p.emitText(h.kind, text)
		p.buf = p.buf[at+len(end):]
		h.phase = hHeader
		return true
	}
	n := len(p.buf)
	if !final {
		n = completeUTF8(p.buf)
		for _, e := range hEnds {
			n = min(n, len(p.buf)-partialSuffix(p.buf, e))
		}
		if h.kind == Reasoning {
			for n > 0 && isSpace(p.buf[n-1]) {
				n--
			}
		}
	}
	p.emitText(h.kind, p.buf[:n])
	p.buf = append(p.buf[:0], p.buf[n:]...)
	return false
}

// harmonyArgs streams a call's arguments, then skips to the message's end.
func (p *Parser) harmonyArgs(final bool) bool {
	h := &p.harmony
	c := cursor{b: p.buf, final: final}
	err := c.args(&h.call)
	if len(h.call.args) > h.sent {
		frag := string(h.call.args[h.sent:])
		p.out = append(p.out, Delta{Kind: CallArgs, Index: p.next - 1, Text: frag})
		p.reply.Calls[p.first].Arguments += frag
		h.sent = len(h.call.args)
	}
	switch {
	case err == errMore && !final:
		return false
	case err == errMore:
		p.err = errors.Join(p.err, fmt.Errorf("%w: harmony call cut short", ErrIncomplete))
		p.cut, p.buf, h.phase = true, p.buf[:0], hHeader
		return false
	case err != nil: // the message's body is text
		p.err = errors.Join(p.err, fmt.Errorf("toolcall: harmony call: %w", err))
		p.reply.Calls = p.reply.Calls[:p.first]
		h.phase, h.kind = hBody, Content
		return true
	}
	if a := p.reply.Calls[p.first].Arguments; len(a) == 0 || a[0] != '{' {
		p.err = errors.Join(p.err, fmt.Errorf("toolcall: the arguments of %s are not a JSON object: %s", h.call.name, a))
	}
	p.first = len(p.reply.Calls)
	p.buf = append(p.buf[:0], p.buf[c.i:]...)
	h.phase = hAfterArgs
	return true
}

// harmonyAfterArgs skips whitespace and the end tag after a call's arguments.
func (p *Parser) harmonyAfterArgs(final bool) bool {
	i := 0
	for i < len(p.buf) && isSpace(p.buf[i]) {
		i++
	}
	for _, e := range hEnds {
		if hasPrefixAt(p.buf, i, e) {
			p.buf, p.harmony.phase = p.buf[i+len(e):], hHeader
			return true
		}
		if !final && (i == len(p.buf) || isPrefixOf(p.buf[i:], e)) {
			return false
		}
	}
	p.buf, p.harmony.phase = p.buf[i:], hHeader
	return true
}
