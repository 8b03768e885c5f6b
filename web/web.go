package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// asset is one embedded file, ready to serve.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

// assets maps URL paths ("/", "/app.js", ...) to files; built once, read-only afterwards.
var assets = func() map[string]asset {
	m := map[string]asset{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(p))
		if path.Ext(p) == ".js" {
			ctype = "text/javascript; charset=utf-8" // whatever the system's MIME table says
		}
		name := strings.TrimPrefix(p, "static")
		m[name] = asset{body: b, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic("web: embedded files: " + err.Error()) // cannot happen: the files are compiled in
	}
	m["/"] = m["/index.html"]
	return m
}()

// csp allows the page its own files and its own server, nothing else: no inline or remote script, no remote
// images, no frames.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the chat page at / and its files (GET and HEAD); any other path is 404. The page's heartbeats
// (PresencePath) are answered as untracked, so that the page stops sending them: a desktop launch routes that
// path to a Presence before this handler sees it.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PresencePath {
			w.Header().Set(presenceHeader, "off")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		a, ok := assets[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache") // revalidate: a new forma binary may bring new files
		h.Set("ETag", a.etag)
		if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodGet {
			w.Write(a.body)
		}
	})
}

// IsPage reports whether Handler serves path: one of the page's files ("/" included) or the presence path. A
// server mounting the page beside an API sends these paths to Handler and keeps the others.
func IsPage(path string) bool {
	_, ok := assets[path]
	return ok || path == PresencePath
}
