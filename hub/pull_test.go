package hub

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/hub/hubtest"
	"github.com/forma-llm/forma/internal/testdir"
)

const repoName = "forma/stories-GGUF"

// fixture is a fake Hub with a repository of the testdata's story models, a fake Ollama registry, and a client
// pointed at both with a fresh store.
type fixture struct {
	t      *testing.T
	hub    *hubtest.Hub
	reg    *hubtest.Registry
	c      *Client
	files  map[string][]byte
	split  [][]byte
	mu     sync.Mutex
	waits  []time.Duration
	events []Progress
}

func model(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join(testdir.Sub(t, "models"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, hub: hubtest.NewHub(), reg: hubtest.NewRegistry()}
	t.Cleanup(func() { f.hub.Close(); f.reg.Close() })
	f.files = map[string][]byte{"README.md": []byte("# stories\n")}
	for _, q := range []string{"Q8_0", "Q4_0", "F16", "Q5_0"} {
		f.files["stories260K-"+q+".gguf"] = model(t, "stories260K-"+q+".gguf")
	}
	split, err := hubtest.Split(filepath.Join(testdir.Sub(t, "models"), "stories260K-Q5_1.gguf"), t.TempDir(), "stories260K-Q5_1", 3)
	if err != nil {
		t.Fatal(err)
	}
	f.split = split
	for i, b := range split {
		f.files["Q5_1/stories260K-Q5_1-0000"+string(rune('1'+i))+"-of-00003.gguf"] = b
	}
	f.files["mmproj-stories-F16.gguf"] = []byte("not really a projector")
	f.hub.AddRepo(repoName, f.files, false)
	f.c = &Client{Store: Store{Dir: t.TempDir()}, HFEndpoint: f.hub.URL, Registry: f.reg.URL, HTTP: &http.Client{},
		Connections: 1, Retries: 4, RetryBase: time.Millisecond, StallTimeout: 5 * time.Second,
		DiskFree: func(string) (uint64, error) { return 1 << 40, nil }}
	f.c.sleep = func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		f.waits = append(f.waits, d)
		f.mu.Unlock()
		return ctx.Err()
	}
	return f
}

func (f *fixture) pull(ref string, opt PullOptions) (*Model, error) {
	f.t.Helper()
	opt.Progress = func(p Progress) { f.events = append(f.events, p) } // calls are serialized
	return f.c.Pull(context.Background(), ref, opt)
}

func (f *fixture) mustPull(ref string, opt PullOptions) *Model {
	f.t.Helper()
	m, err := f.pull(ref, opt)
	if err != nil {
		f.t.Fatalf("pull %s: %v", ref, err)
	}
	return m
}

func sameFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes differ from the %d served", path, len(got), len(want))
	}
}

// storeFiles lists the regular files and links under the store, relative to it.
func storeFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// Every Hub REF form pulls the same file once, lays it out as huggingface_hub does, and resolves by name.
func TestPullHFRefForms(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	for i, ref := range []string{"hf.co/forma/stories-GGUF:Q8_0", "forma/stories-GGUF:q8_0",
		"huggingface.co/forma/stories-GGUF:Q8_0", "https://huggingface.co/forma/stories-GGUF:Q8_0"} {
		m := f.mustPull(ref, PullOptions{})
		if m.Name != "hf.co/forma/stories-GGUF:Q8_0" || m.Manifest.Quant != "Q8_0" || m.Manifest.Architecture != "llama" {
			t.Errorf("%s: %+v", ref, m.Manifest)
		}
		sameFile(t, m.Path, want)
		if sent, _ := f.hub.Files.Sent(d); sent != int64(len(want)) {
			t.Errorf("after pull %d (%s): %d bytes sent for a %d-byte file", i+1, ref, sent, len(want))
		}
	}
	if f.hub.Files.AuthSeen() {
		t.Error("the file host got an Authorization header")
	}
	repo := filepath.Join(f.c.Store.Dir, "models--forma--stories-GGUF")
	commit, _ := os.ReadFile(filepath.Join(repo, "refs", "main"))
	snap := filepath.Join(repo, "snapshots", string(commit), "stories260K-Q8_0.gguf")
	if target, err := os.Readlink(snap); err != nil || filepath.ToSlash(target) != "../../blobs/"+hexOf(d) {
		t.Errorf("snapshot link %s -> %q, %v", snap, target, err)
	}
	sameFile(t, snap, want)
	if a, _ := os.Stat(filepath.Join(repo, "blobs", hexOf(d))); a == nil || !sameInode(t, a, f.c.Store.BlobPath(d)) {
		t.Error("the Hub-layout blob is not a link to the store's")
	}
	for _, name := range []string{"hf.co/forma/stories-GGUF:Q8_0", "forma/stories-GGUF:Q8_0", "stories-gguf:q8_0", "forma/stories", "stories-GGUF"} {
		r, err := f.c.Resolve(name)
		if err != nil || r.Path != m0(f).Path {
			t.Errorf("Resolve(%q) = %+v, %v", name, r, err)
		}
	}
}

func m0(f *fixture) *Model { m, _ := f.c.Resolve("hf.co/forma/stories-GGUF:Q8_0"); return m }

func sameInode(t *testing.T, a fs.FileInfo, p string) bool {
	b, err := os.Stat(p)
	return err == nil && os.SameFile(a, b)
}

// Without a quant the default is taken, else the nearest; a quant the repository lacks is an error listing
// what it has.
func TestPullQuantSelection(t *testing.T) {
	f := newFixture(t)
	m := f.mustPull("forma/stories-GGUF", PullOptions{})
	if m.Name != "hf.co/forma/stories-GGUF:Q4_0" {
		t.Errorf("default quant: %s", m.Name)
	}
	sameFile(t, m.Path, f.files["stories260K-Q4_0.gguf"])
	_, err := f.pull("forma/stories-GGUF:Q3_K_M", PullOptions{})
	if err == nil || !strings.Contains(err.Error(), "no GGUF file for quant Q3_K_M; it has: Q5_1, F16, Q4_0, Q5_0, Q8_0") {
		t.Errorf("missing quant: %v", err)
	}
}

// A split model comes whole, and opens from its first part.
func TestPullSplit(t *testing.T) {
	f := newFixture(t)
	m := f.mustPull("forma/stories-GGUF:Q5_1", PullOptions{})
	if len(m.Manifest.Files) != 3 || !strings.HasSuffix(m.Path, "stories260K-Q5_1-00001-of-00003.gguf") {
		t.Fatalf("%+v", m.Manifest)
	}
	for i, fl := range m.Manifest.Files {
		sameFile(t, f.c.Store.FilePath(m.Manifest, fl), f.split[i])
	}
	g, err := gguf.Open(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	whole, err := gguf.Open(filepath.Join(testdir.Sub(t, "models"), "stories260K-Q5_1.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if len(g.Paths) != 3 || len(g.Tensors) != len(whole.Tensors) {
		t.Errorf("%d parts, %d tensors (want 3, %d)", len(g.Paths), len(g.Tensors), len(whole.Tensors))
	}
}

func TestPullMMProj(t *testing.T) {
	f := newFixture(t)
	m := f.mustPull("forma/stories-GGUF:Q8_0", PullOptions{MMProj: true})
	if len(m.Manifest.Files) != 2 || m.Manifest.Files[1].Role != RoleMMProj {
		t.Fatalf("%+v", m.Manifest.Files)
	}
	sameFile(t, f.c.Store.FilePath(m.Manifest, m.Manifest.Files[1]), f.files["mmproj-stories-F16.gguf"])
}

// A long listing comes in pages.
func TestPullPagedTree(t *testing.T) {
	f := newFixture(t)
	f.hub.PageSize = 2
	f.mustPull("forma/stories-GGUF:Q5_1", PullOptions{})
	if n := f.hub.Calls("tree"); n < 5 {
		t.Errorf("%d tree pages", n)
	}
}

// A gated repository needs the token; without it the error says what to do; the token never reaches the CDN.
func TestPullGated(t *testing.T) {
	f := newFixture(t)
	f.hub.Token = "hf_secret"
	f.hub.AddRepo("corp/gated-GGUF", map[string][]byte{"g-Q8_0.gguf": f.files["stories260K-Q8_0.gguf"]}, true)
	_, err := f.pull("corp/gated-GGUF", PullOptions{})
	var ae *AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "accept its licence at "+f.hub.URL+"/corp/gated-GGUF") ||
		!strings.Contains(err.Error(), "HF_TOKEN") {
		t.Fatalf("without a token: %v", err)
	}
	f.c.Token = "hf_secret"
	f.mustPull("corp/gated-GGUF", PullOptions{})
	if f.hub.Files.AuthSeen() {
		t.Error("the token was sent to the file host")
	}
}

func TestPullOllama(t *testing.T) {
	f := newFixture(t)
	b := f.files["stories260K-Q8_0.gguf"]
	f.reg.AddModel("library/stories", "latest", b, "{{ .Prompt }}", `{"stop":["<|end|>"]}`)
	f.reg.AddModel("someone/tiny", "q8", b, "", "")
	for _, tc := range []struct {
		ref  string
		reg  Registry
		name string
	}{
		{"ollama.com/library/stories", "", "ollama.com/library/stories:latest"},
		{"stories", "", "ollama.com/library/stories:latest"},
		{"stories:latest", Ollama, "ollama.com/library/stories:latest"},
		{"registry.ollama.ai/library/stories:latest", "", "ollama.com/library/stories:latest"},
		{"someone/tiny:q8", Ollama, "ollama.com/someone/tiny:q8"},
	} {
		m := f.mustPull(tc.ref, PullOptions{Registry: tc.reg})
		if m.Name != tc.name || m.Manifest.Architecture != "llama" {
			t.Errorf("%s: %s %+v", tc.ref, m.Name, m.Manifest)
		}
		sameFile(t, m.Path, b)
	}
	if sent, _ := f.reg.Files.Sent(hubtest.Digest(b)); sent != int64(len(b)) {
		t.Errorf("%d bytes sent for two names of one %d-byte blob", sent, len(b))
	}
	m, err := f.c.Resolve("stories")
	if err != nil || len(m.Manifest.Files) != 3 {
		t.Fatalf("Resolve: %+v, %v", m, err)
	}
	for _, fl := range m.Manifest.Files[1:] {
		if _, err := os.Stat(f.c.Store.FilePath(m.Manifest, fl)); err != nil {
			t.Errorf("%s layer: %v", fl.Role, err)
		}
	}
	if _, err := f.pull("nosuch:1b", PullOptions{}); err == nil || !strings.Contains(err.Error(), "not found in the registry") {
		t.Errorf("a missing model: %v", err)
	}
}
