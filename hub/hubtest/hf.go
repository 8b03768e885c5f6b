package hubtest

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Hub is a fake Hugging Face Hub: the API (/api/models/ORG/REPO/refs, /api/models/ORG/REPO/tree/REV) and
// /ORG/REPO/resolve/REV/FILE, which answers with X-Linked-Etag, X-Linked-Size and X-Repo-Commit and redirects
// to Files, a file host on another host name. Start one with NewHub and point HF_ENDPOINT (or Client.HFEndpoint)
// at URL.
type Hub struct {
	Server *httptest.Server
	Files  *Files
	// URL is the Hub's base URL. Its host is "localhost" and the file host's "127.0.0.1", so that a client
	// sees the redirect go to another host (and must not send its token there).
	URL string
	// Token, when set, is the bearer token gated repositories require.
	Token string
	// PageSize, when positive, splits tree listings into pages linked by Link: <…>; rel="next".
	PageSize int

	mu    sync.Mutex
	repos map[string]*repo
	calls map[string]int
}

type repo struct {
	commit string
	gated  bool
	files  map[string][]byte
}

// NewHub starts a fake Hub with no repositories.
func NewHub() *Hub {
	h := &Hub{Files: newFiles(), repos: map[string]*repo{}, calls: map[string]int{}}
	api, files, mux := http.NewServeMux(), http.NewServeMux(), http.NewServeMux()
	api.HandleFunc("GET /api/models/{org}/{name}/refs", h.refs)
	api.HandleFunc("GET /api/models/{org}/{name}/tree/{rev}", h.tree)
	files.HandleFunc("/{org}/{name}/resolve/{rev}/{file...}", h.resolve)
	mux.Handle("/api/", api)
	mux.Handle("/", files)
	h.Server = httptest.NewServer(mux)
	h.URL = strings.Replace(h.Server.URL, "127.0.0.1", "localhost", 1)
	return h
}

// AddRepo adds (or replaces) a repository ORG/REPO with files by path; gated ones answer 401 without Token.
// It returns the repository's commit.
func (h *Hub) AddRepo(name string, files map[string][]byte, gated bool) string {
	sum := sha1.New()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(sum, "%s %s\n", p, Digest(files[p]))
		h.Files.add(files[p])
	}
	r := &repo{commit: hex.EncodeToString(sum.Sum(nil)), gated: gated, files: files}
	h.mu.Lock()
	h.repos[strings.ToLower(name)] = r
	h.mu.Unlock()
	return r.commit
}

// Calls returns how many requests an endpoint kind ("refs", "tree", "resolve") has had.
func (h *Hub) Calls(kind string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[kind]
}

// Close stops the Hub and its file host.
func (h *Hub) Close() { h.Server.Close(); h.Files.Close() }

// lookup finds the repository of a request and checks access, answering the error itself (as the Hub does:
// 401 with a JSON error).
func (h *Hub) lookup(w http.ResponseWriter, r *http.Request, kind string) *repo {
	h.mu.Lock()
	h.calls[kind]++
	rp := h.repos[strings.ToLower(r.PathValue("org")+"/"+r.PathValue("name"))]
	h.mu.Unlock()
	if rp == nil {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Repository not found"})
		return nil
	}
	if rp.gated && r.Header.Get("Authorization") != "Bearer "+h.Token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Access to model " + r.PathValue("org") + "/" +
			r.PathValue("name") + " is restricted. You must have access to it and be authenticated to access it. Please log in."})
		return nil
	}
	if rev := r.PathValue("rev"); rev != "" && rev != rp.commit && rev != "main" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Invalid rev id: " + rev})
		return nil
	}
	return rp
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (h *Hub) refs(w http.ResponseWriter, r *http.Request) {
	rp := h.lookup(w, r, "refs")
	if rp == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"branches": []map[string]string{{"name": "main", "ref": "refs/heads/main", "targetCommit": rp.commit}},
		"converts": []any{}, "tags": []any{},
	})
}

type lfsInfo struct {
	OID         string `json:"oid"`
	Size        int64  `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

type treeEntry struct {
	Type string   `json:"type"`
	OID  string   `json:"oid"`
	Size int64    `json:"size"`
	LFS  *lfsInfo `json:"lfs,omitempty"`
	Path string   `json:"path"`
}

// tree lists the files (and the folders above them), LFS files with their SHA-256, in pages if PageSize says.
func (h *Hub) tree(w http.ResponseWriter, r *http.Request) {
	rp := h.lookup(w, r, "tree")
	if rp == nil {
		return
	}
	dirs := map[string]bool{}
	var out []treeEntry
	for p, b := range rp.files {
		for d := path.Dir(p); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			out = append(out, treeEntry{Type: "directory", OID: gitOID([]byte(d)), Path: d})
		}
		out = append(out, treeEntry{Type: "file", OID: gitOID(b), Size: int64(len(b)), Path: p,
			LFS: &lfsInfo{OID: strings.TrimPrefix(Digest(b), "sha256:"), Size: int64(len(b)), PointerSize: 134}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if h.PageSize > 0 {
		from, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		to := min(from+h.PageSize, len(out))
		if to < len(out) {
			next := *r.URL
			q := next.Query()
			q.Set("cursor", strconv.Itoa(to))
			next.RawQuery = q.Encode()
			w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, h.URL, next.RequestURI()))
		}
		out = out[min(from, len(out)):to]
	}
	writeJSON(w, http.StatusOK, out)
}

func gitOID(b []byte) string {
	s := sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(b))), b...))
	return hex.EncodeToString(s[:])
}

// resolve answers a file's URL with its metadata and a redirect to the file host, for HEAD and GET alike.
func (h *Hub) resolve(w http.ResponseWriter, r *http.Request) {
	rp := h.lookup(w, r, "resolve")
	if rp == nil {
		return
	}
	b, ok := rp.files[r.PathValue("file")]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Entry not found"})
		return
	}
	d := strings.TrimPrefix(Digest(b), "sha256:")
	w.Header().Set("X-Repo-Commit", rp.commit)
	w.Header().Set("X-Linked-Etag", `"`+d+`"`)
	w.Header().Set("X-Linked-Size", strconv.Itoa(len(b)))
	w.Header().Set("ETag", `"`+gitOID(b)+`"`)
	w.Header().Set("Location", h.Files.Server.URL+"/blobs/"+d+"?X-Amz-Signature=fake")
	w.WriteHeader(http.StatusFound)
}
