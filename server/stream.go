package server

import (
	"encoding/json"
	"net/http"
)

// streamWriter writes Server-Sent Events or NDJSON lines, flushing each. A write error means the client left:
// the caller stops generating.
type streamWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	buf    []byte
	ndjson bool
}

func newSSE(w http.ResponseWriter) *streamWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &streamWriter{w: w, rc: http.NewResponseController(w)}
}

func newNDJSON(w http.ResponseWriter) *streamWriter {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	return &streamWriter{w: w, rc: http.NewResponseController(w), ndjson: true}
}

// event writes one event: "event: NAME" (when name is set) and "data: JSON" for SSE, a JSON line for NDJSON.
func (s *streamWriter) event(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.buf = s.buf[:0]
	if s.ndjson {
		s.buf = append(append(s.buf, b...), '\n')
	} else {
		if name != "" {
			s.buf = append(append(append(s.buf, "event: "...), name...), '\n')
		}
		s.buf = append(append(append(s.buf, "data: "...), b...), "\n\n"...)
	}
	return s.write(s.buf)
}

// done writes OpenAI's end of stream.
func (s *streamWriter) done() error { return s.write([]byte("data: [DONE]\n\n")) }

func (s *streamWriter) write(b []byte) error {
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}
