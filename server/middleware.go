package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"github.com/forma-llm/forma/web"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// reqInfo is what a request's log line reports; handlers fill it through the request's context.
type reqInfo struct {
	id       string
	api      apiKind
	endpoint string
	model    string
	stats    []statsLine
	wrote    bool // a streamed response has started: errors go into the stream
	err      string
}

// statsLine is one sequence's figures for the log line.
type statsLine struct {
	prompt, cached, generated int
	stop                      string
}

type infoKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	i, _ := ctx.Value(infoKey{}).(*reqInfo)
	return i
}

// statusWriter records the status and size of a response. It keeps http.ResponseController working (Unwrap).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (k apiKind) String() string { return [...]string{"openai", "anthropic", "ollama", "native"}[k] }

// middleware gives every request an id and a log line, then applies CORS, the API key and the body limit, and
// turns a panic into a 500 (logged with its stack).
func (s *Server) middleware(next http.Handler) http.Handler {
	keys := make([][32]byte, len(s.cfg.APIKeys))
	for i, k := range s.cfg.APIKeys {
		keys[i] = sha256.Sum256([]byte(k))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{id: requestID(r), api: kindNative, endpoint: "other"}
		sw := &statusWriter{ResponseWriter: w}
		w = sw
		w.Header().Set("X-Request-Id", info.id)
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "id", info.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeError(w, r, info.api, fmt.Errorf("internal error: %v", p))
				}
			}
			s.logRequest(r, info, sw, time.Since(start))
		}()
		if s.cors(w, r) {
			return
		}
		if len(keys) > 0 && r.URL.Path != "/health" && !isPageFile(r) && !authorized(r, keys) {
			writeError(w, r, apiOf(r.URL.Path), errUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
		next.ServeHTTP(w, r)
	})
}

func (s *Server) logRequest(r *http.Request, info *reqInfo, sw *statusWriter, d time.Duration) {
	status := sw.status
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.countRequest(info.api.String(), info.endpoint, status)
	attrs := []slog.Attr{slog.String("id", info.id), slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", status), slog.Int64("bytes", sw.bytes), slog.Float64("ms", float64(d.Microseconds())/1e3)}
	if info.model != "" {
		attrs = append(attrs, slog.String("model", info.model))
	}
	for i, st := range info.stats {
		p := ""
		if len(info.stats) > 1 {
			p = fmt.Sprintf("%d.", i)
		}
		attrs = append(attrs, slog.Int(p+"prompt", st.prompt), slog.Int(p+"cached", st.cached),
			slog.Int(p+"generated", st.generated), slog.String(p+"stop", st.stop))
	}
	if info.err != "" {
		attrs = append(attrs, slog.String("error", info.err))
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// requestID returns the client's X-Request-Id when it is short and printable, else a new random id.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && !strings.ContainsFunc(id, func(c rune) bool {
		return c < 0x21 || c > 0x7e
	}) {
		return id
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// authorized reports whether the request carries one of the keys (compared as SHA-256 digests in constant time,
// so neither the key nor its length leaks through timing).
func authorized(r *http.Request, keys [][32]byte) bool {
	got := r.Header.Get("x-api-key")
	if a := r.Header.Get("Authorization"); got == "" && len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		got = strings.TrimSpace(a[7:])
	}
	if got == "" {
		return false
	}
	h := sha256.Sum256([]byte(got))
	ok := 0
	for _, k := range keys {
		ok |= subtle.ConstantTimeCompare(h[:], k[:])
	}
	return ok == 1
}

// cors sets the CORS headers for an allowed origin and answers preflight requests; it reports whether the
// request has been answered.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if len(s.cfg.CORS) == 0 || origin == "" {
		return false
	}
	if !slices.Contains(s.cfg.CORS, "*") && !slices.Contains(s.cfg.CORS, origin) {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After")
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Api-Key, Anthropic-Version, Anthropic-Beta, X-Request-Id, OpenAI-Organization, OpenAI-Project, X-Stainless-Lang, X-Stainless-Package-Version, X-Stainless-OS, X-Stainless-Arch, X-Stainless-Runtime, X-Stainless-Runtime-Version, X-Stainless-Retry-Count, X-Stainless-Timeout")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	return false
}

// apiOf guesses a path's API for errors written before routing.
func apiOf(path string) apiKind {
	switch {
	case strings.HasPrefix(path, "/api/"):
		return kindOllama
	case strings.HasPrefix(path, "/v1/messages"):
		return kindAnthropic
	case strings.HasPrefix(path, "/v1/"):
		return kindOpenAI
	}
	return kindNative
}

// isPageFile reports whether r fetches a file of the chat page, which a browser loads without a key (the page's
// API calls carry one).
func isPageFile(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.URL.Path == "/" {
		return strings.Contains(r.Header.Get("Accept"), "text/html")
	}
	return web.IsPage(r.URL.Path)
}
