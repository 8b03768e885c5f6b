package hub

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/hub/hubtest"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

// A model in huggingface_hub's cache, llama.cpp's or Ollama's store resolves and pulls without a request.
func TestFoundInOtherStores(t *testing.T) {
	f := newFixture(t)
	f.c.HFEndpoint, f.c.Registry = "http://127.0.0.1:1", "http://127.0.0.1:1" // any request fails
	hfCache, llamaCache, ollama := t.TempDir(), t.TempDir(), t.TempDir()
	f.c.HFCaches, f.c.OllamaDir = []string{hfCache, llamaCache}, ollama
	q8, q4 := f.files["stories260K-Q8_0.gguf"], f.files["stories260K-Q4_0.gguf"]
	if err := hubtest.WriteHFCache(hfCache, "Org/Cached-GGUF", commit, map[string][]byte{"c-Q8_0.gguf": q8, "README.md": nil}); err != nil {
		t.Fatal(err)
	}
	if err := hubtest.WriteHFCache(llamaCache, "org/llama-GGUF", commit, map[string][]byte{"sub/l-Q4_0.gguf": q4}); err != nil {
		t.Fatal(err)
	}
	if err := hubtest.WriteStore(ollama, "library/ostories", "latest", q8); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ref, name, file string }{
		{"hf.co/Org/Cached-GGUF:Q8_0", "hf.co/Org/Cached-GGUF:Q8_0", "c-Q8_0.gguf"},
		{"org/cached-gguf", "hf.co/org/cached-gguf:Q8_0", "c-Q8_0.gguf"},
		{"org/llama-GGUF:Q4_0", "hf.co/org/llama-GGUF:Q4_0", "l-Q4_0.gguf"},
		{"ostories", "ollama.com/library/ostories:latest", "sha256-" + hexOf(hubtest.Digest(q8))},
	} {
		r, err := f.c.Resolve(tc.ref)
		if err != nil || filepath.Base(r.Path) != tc.file || r.Where == "store" {
			t.Errorf("Resolve(%s) = %+v, %v", tc.ref, r, err)
			continue
		}
		m, err := f.pull(tc.ref, PullOptions{})
		if err != nil || m.Name != tc.name || m.Path != r.Path {
			t.Errorf("pull %s = %+v, %v", tc.ref, m, err)
		}
	}
	// Recorded in the store by name, files left where they are; rm forgets the name only.
	r, err := f.c.Resolve("Cached-GGUF:Q8_0")
	if err != nil || r.Where != "store" || r.Manifest.Path == "" || r.Manifest.Architecture != "llama" {
		t.Fatalf("%+v, %v", r, err)
	}
	if _, err := f.c.Remove("Cached-GGUF:Q8_0"); err != nil {
		t.Fatal(err)
	}
	sameFile(t, r.Path, q8)
	if got := storeFiles(t, f.c.Store.Dir); len(got) != 2 {
		t.Errorf("store after rm: %v", got)
	}
}

// The store's names: exact in any case, without host or namespace, a unique prefix, a loose file; a missing
// name says how to pull it.
func TestResolveNames(t *testing.T) {
	f := newFixture(t)
	f.c.HFCaches, f.c.OllamaDir = nil, ""
	f.reg.AddModel("library/stories", "latest", f.files["stories260K-Q8_0.gguf"], "", "")
	f.mustPull(q8, PullOptions{})
	f.mustPull("forma/stories-GGUF:F16", PullOptions{})
	f.mustPull("stories", PullOptions{Registry: Ollama})
	os.WriteFile(filepath.Join(f.c.Store.Dir, "Loose-Model.gguf"), f.files["stories260K-Q4_0.gguf"], 0o644)
	for _, tc := range []struct{ name, want string }{
		{"hf.co/forma/stories-GGUF:Q8_0", "hf.co/forma/stories-GGUF:Q8_0"},
		{"FORMA/STORIES-GGUF:f16", "hf.co/forma/stories-GGUF:F16"},
		{"stories-GGUF:F16", "hf.co/forma/stories-GGUF:F16"},
		{"stories", "ollama.com/library/stories:latest"},
		{"stories:latest", "ollama.com/library/stories:latest"},
		{"ollama.com/library/stories:latest", "ollama.com/library/stories:latest"},
		{"forma/stories-GGUF:Q8", "hf.co/forma/stories-GGUF:Q8_0"},
		{"loose-model", "Loose-Model.gguf"},
		{"loose", "Loose-Model.gguf"},
		{"forma/stories-GGUF", "hf.co/forma/stories-GGUF:Q8_0"}, // the default quant's nearest among those here
		{"forma/sto", "error: is the start of the names of 2 models"},
		{"nothing-here", "error: model \"nothing-here\" not found; try `forma pull nothing-here`"},
		{"dir/file.gguf", "error: model file dir/file.gguf"},
	} {
		m, err := f.c.Resolve(tc.name)
		if w, ok := strings.CutPrefix(tc.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Resolve(%q) = %+v, %v; want an error with %q", tc.name, m, err, w)
			}
			continue
		}
		if err != nil || m.Name != tc.want {
			t.Errorf("Resolve(%q) = %+v, %v; want %s", tc.name, m, err, tc.want)
		}
	}
	if m, err := f.c.Resolve("forma/stories-GGUF"); err != nil || m.Where != "store" || m.Manifest.PulledAt.IsZero() {
		t.Errorf("ORG/REPO of a pulled model: %+v, %v", m, err)
	}
	_, err := f.c.Resolve("nothing-here")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing name is not fs.ErrNotExist: %v", err)
	}
	list, err := f.c.List()
	if err != nil || len(list) != 4 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	for _, e := range list {
		if e.Architecture != "llama" || e.Quant == "" || e.Size == 0 || e.Modified.IsZero() {
			t.Errorf("list entry %+v", e)
		}
	}
}

// rm deletes a name and the files no other name uses: a blob shared by two names stays until both are gone.
func TestRemove(t *testing.T) {
	f := newFixture(t)
	f.c.HFCaches, f.c.OllamaDir = nil, ""
	b := f.files["stories260K-Q8_0.gguf"]
	f.reg.AddModel("library/stories", "latest", b, "T", "")
	hf := f.mustPull(q8, PullOptions{})
	ol := f.mustPull("stories", PullOptions{})
	if hf.Manifest.Digest != ol.Manifest.Digest {
		t.Fatal("different digests")
	}
	if _, err := f.c.Remove("stories"); err != nil {
		t.Fatal(err)
	}
	sameFile(t, hf.Path, b)
	if _, err := f.c.Resolve("ollama.com/library/stories:latest"); err == nil {
		t.Error("removed name still resolves")
	}
	if _, err := f.c.Remove(q8); err != nil {
		t.Fatal(err)
	}
	if got := storeFiles(t, f.c.Store.Dir); len(got) != 0 {
		t.Errorf("the store still holds %v", got)
	}
	if _, err := f.c.Remove(q8); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("rm of a missing name: %v", err)
	}
}
