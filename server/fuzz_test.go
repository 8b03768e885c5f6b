package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fuzzEndpoints are the endpoints that take a request body.
var fuzzEndpoints = []string{"/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages",
	"/v1/messages/count_tokens", "/api/chat", "/api/generate", "/api/show", "/tokenize", "/detokenize", "/apply-template"}

var fuzzServer struct {
	once sync.Once
	s    *Server
	err  error
}

// FuzzHandlers posts arbitrary bodies to every endpoint: no panic, and every answer a 2xx or a 4xx whose body is
// JSON (each event of a stream too). The seed corpus is testdata/fuzz/FuzzHandlers.
func FuzzHandlers(f *testing.F) {
	path := modelFile(f, stories)
	fuzzServer.once.Do(func() {
		// stories260K is the default model; the Qwen3 chat model serves requests with tools (its template has
		// tool-call syntax) and reasoning.
		s := New(Config{Models: []string{path, modelFile(f, qwenChat)}, Load: oneThread, Session: runtime0(256),
			Parallel: 2, MaxQueue: 16, Resolve: func(string) (string, error) { return path, nil },
			Logger: slog.New(slog.DiscardHandler)})
		fuzzServer.s, fuzzServer.err = s, s.Load(context.Background())
	})
	if fuzzServer.err != nil {
		f.Fatal(fuzzServer.err)
	}
	h := fuzzServer.s.Handler()
	f.Fuzz(func(t *testing.T, endpoint uint8, body []byte) {
		url := fuzzEndpoints[int(endpoint)%len(fuzzEndpoints)]
		req := httptest.NewRequest("POST", url, bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code >= 500 || (rec.Code >= 300 && rec.Code < 400) {
			t.Fatalf("%s %q: status %d: %s", url, body, rec.Code, rec.Body)
		}
		if err := checkJSONBody(rec.Header().Get("Content-Type"), rec.Body.Bytes()); err != "" {
			t.Fatalf("%s %q: %s: %q", url, body, err, rec.Body)
		}
	})
}

// checkJSONBody checks that a body is JSON: one value, or one per NDJSON line, or one per SSE data line.
func checkJSONBody(contentType string, body []byte) string {
	switch {
	case strings.HasPrefix(contentType, "application/json"):
		if !json.Valid(body) {
			return "not JSON"
		}
	case strings.HasPrefix(contentType, "application/x-ndjson"):
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				return "an NDJSON line is not JSON"
			}
		}
	case strings.HasPrefix(contentType, "text/event-stream"):
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && string(d) != "[DONE]" && !json.Valid(d) {
				return "an SSE event is not JSON"
			}
		}
	default:
		return "content type " + contentType
	}
	return ""
}
