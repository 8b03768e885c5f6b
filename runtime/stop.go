package runtime

import (
	"bytes"
	"unsafe"
)

// stopMatcher finds stop strings in streamed text across token boundaries. Text that might be the start of a
// stop string is held back until the following text settles it. It allocates nothing once its buffers have grown.
type stopMatcher struct {
	stops [][]byte
	names []string // the stop strings, for match
	match string   // the stop string release found
	held  []byte   // text not yet released
	out   []byte   // what add returns
}

func (m *stopMatcher) reset(stops []string) {
	m.stops, m.names, m.match = m.stops[:0], m.names[:0], ""
	for _, s := range stops {
		if s != "" {
			m.stops = append(m.stops, []byte(s))
			m.names = append(m.names, s)
		}
	}
	m.held = m.held[:0]
}

// push appends streamed text.
func (m *stopMatcher) push(text []byte) { m.held = append(m.held, text...) }

// release returns the text that can be released (valid until the next call) and whether a stop string matched;
// on a match the text from the stop string on is dropped. With final set (the stream ends here) nothing is held
// back.
func (m *stopMatcher) release(final bool) ([]byte, bool) {
	first := -1
	for k, st := range m.stops {
		if i := bytes.Index(m.held, st); i >= 0 && (first < 0 || i < first) {
			first, m.match = i, m.names[k]
		}
	}
	if first >= 0 {
		m.out = append(m.out[:0], m.held[:first]...)
		m.held = m.held[:0]
		return m.out, true
	}
	// Hold back the longest end of the text that begins a stop string.
	hold := 0
	for _, st := range m.stops {
		if final {
			break
		}
		for l := min(len(st)-1, len(m.held)); l > hold; l-- {
			if bytes.HasSuffix(m.held, st[:l]) {
				hold = l
				break
			}
		}
	}
	release := len(m.held) - hold
	m.out = append(m.out[:0], m.held[:release]...)
	m.held = m.held[:copy(m.held, m.held[release:])]
	return m.out, false
}

// arena turns byte slices into strings without an allocation per string: strings are carved from chunks that
// are only ever appended to, and a full chunk is replaced by a new one (the old one lives on in the strings
// that point into it). One allocation per arenaChunk bytes of text.
type arena struct{ buf []byte }

const arenaChunk = 4096

func (a *arena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(arenaChunk, len(b)))
	}
	off := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[off], len(b))
}
