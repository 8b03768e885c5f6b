package server

import "strings"

// outKind says what a piece of generated text is.
type outKind uint8

const (
	outContent   outKind = iota // the answer
	outReasoning                // thinking (reasoning_content, thinking blocks)
)

// segment is a piece of generated text and its kind.
type segment struct {
	kind outKind
	text string
}

// outputParser turns the generated text, as it streams, into segments. The structured-output work will add a
// tool-call parser here; today there are two: plain text, and the <think> splitter.
type outputParser interface {
	// push takes the next text and appends to out the segments now settled.
	push(out []segment, text string) []segment
	// flush appends what is still held back at the end of the generation.
	flush(out []segment) []segment
}

// newOutputParser returns the parser for a model and prompt: the reasoning splitter for templates that think.
func newOutputParser(e *modelEntry, p prompt) outputParser {
	if !e.thinks {
		return plainText{}
	}
	t := &thinkSplitter{}
	if p.thinking {
		t.state = inThink
	}
	return t
}

type plainText struct{}

func (plainText) push(out []segment, text string) []segment {
	if text == "" {
		return out
	}
	return append(out, segment{outContent, text})
}

func (plainText) flush(out []segment) []segment { return out }

const (
	openThink  = "<think>"
	closeThink = "</think>"
)

// thinkSplitter splits <think>…</think> at the start of an answer into reasoning and content, across token
// boundaries (text that may begin a tag is held back until it is settled). Whitespace around the tags is not
// part of either.
type thinkSplitter struct {
	state   thinkState
	held    string
	thought bool // some reasoning has been emitted
}

type thinkState uint8

const (
	beforeThink thinkState = iota // nothing but whitespace yet: a <think> may still come
	inThink
	afterThink // the reasoning ended: drop whitespace before the answer
	inContent
)

func (t *thinkSplitter) push(out []segment, text string) []segment {
	s := t.held + text
	t.held = ""
	for s != "" {
		switch t.state {
		case beforeThink:
			trim := strings.TrimLeft(s, " \t\r\n")
			switch {
			case strings.HasPrefix(trim, openThink):
				s, t.state = strings.TrimLeft(trim[len(openThink):], " \t\r\n"), inThink
			case trim == "" || strings.HasPrefix(openThink, trim):
				t.held = s
				return out
			default:
				t.state = inContent
			}
		case inThink:
			if !t.thought {
				if s = strings.TrimLeft(s, " \t\r\n"); s == "" {
					return out
				}
			}
			if i := strings.Index(s, closeThink); i >= 0 {
				if r := strings.TrimRight(s[:i], " \t\r\n"); r != "" {
					out = append(out, segment{outReasoning, r})
					t.thought = true
				}
				s, t.state = s[i+len(closeThink):], afterThink
				continue
			}
			// Hold back what may begin the tag, and whitespace that may end the reasoning.
			keep := partialSuffix(s, closeThink)
			r := strings.TrimRight(s[:len(s)-keep], " \t\r\n")
			if r != "" {
				out = append(out, segment{outReasoning, r})
				t.thought = true
			}
			t.held = s[len(r):]
			return out
		case afterThink:
			s = strings.TrimLeft(s, " \t\r\n")
			if s != "" {
				t.state = inContent
			}
		case inContent:
			return append(out, segment{outContent, s})
		}
	}
	return out
}

func (t *thinkSplitter) flush(out []segment) []segment {
	s := t.held
	t.held = ""
	if s == "" {
		return out
	}
	if t.state == inThink {
		return append(out, segment{outReasoning, s})
	}
	if t.state == beforeThink && strings.TrimSpace(s) == "" {
		return out
	}
	return append(out, segment{outContent, s})
}

// partialSuffix returns the length of the longest end of s that begins tag (shorter than tag).
func partialSuffix(s, tag string) int {
	for l := min(len(tag)-1, len(s)); l > 0; l-- {
		if strings.HasSuffix(s, tag[:l]) {
			return l
		}
	}
	return 0
}
