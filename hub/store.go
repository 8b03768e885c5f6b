package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// EnvModels names the store folder's environment variable.
const EnvModels = "FORMA_MODELS"

// DefaultDir returns the store folder: $FORMA_MODELS, else ~/.forma/models.
func DefaultDir() string {
	if d := os.Getenv(EnvModels); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".forma", "models")
	}
	return filepath.Join(home, ".forma", "models")
}

// Store is forma's model folder:
//
//	blobs/sha256-HEX                       every file pulled, once, named by its digest
//	manifests/HOST/NAMESPACE/NAME/TAG.json one per model name (lower case): a Manifest
//	models--ORG--REPO/                     Hub pulls in the layout huggingface_hub and llama.cpp read:
//	  blobs/HEX                            a hard link to the blob
//	  snapshots/COMMIT/PATH                a relative symbolic link to ../../blobs/HEX
//	  refs/main                            the commit
//	NAME.gguf                              a model file put there by hand, found by NAME
type Store struct{ Dir string }

// Manifest describes one model name in the store.
type Manifest struct {
	Name         string    `json:"name"`     // canonical: hf.co/ORG/REPO:QUANT or ollama.com/NAMESPACE/NAME:TAG
	Registry     Registry  `json:"registry"` // hf or ollama
	Repo         string    `json:"repo"`
	Tag          string    `json:"tag"`
	Revision     string    `json:"revision,omitempty"` // the Hub commit the files were listed at
	Source       string    `json:"source"`             // where it came from: the registry's URL, or another tool's store
	Quant        string    `json:"quant,omitempty"`
	Architecture string    `json:"architecture,omitempty"`
	Size         int64     `json:"size"`   // bytes of all files
	Digest       string    `json:"digest"` // sha256:HEX of the model file (its first part when split)
	Files        []File    `json:"files"`
	PulledAt     time.Time `json:"pulled_at"`
	// Path is set for a model found in another tool's store (the Hugging Face cache, Ollama's): its file
	// there, which forma uses in place and never deletes.
	Path string `json:"path,omitempty"`
}

// Role of a file in a manifest.
const (
	RoleModel    = "model"    // the GGUF (one entry per part of a split model)
	RoleMMProj   = "mmproj"   // the vision projector GGUF
	RoleTemplate = "template" // Ollama's Go template of the chat format
	RoleParams   = "params"   // Ollama's default parameters (JSON)
	RoleSystem   = "system"   // Ollama's system message
	RoleLicense  = "license"
)

// File is one file of a model.
type File struct {
	Path   string `json:"path"` // in the Hub repository; for Ollama layers, the role
	Role   string `json:"role"`
	Digest string `json:"digest"` // sha256:HEX
	Size   int64  `json:"size"`
}

// hexOf returns the hex part of a sha256:HEX digest.
func hexOf(digest string) string { return strings.TrimPrefix(digest, "sha256:") }

// validDigest reports whether d is sha256: and 64 lower-case hex digits.
func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// BlobPath is where the store keeps the file of a digest.
func (s Store) BlobPath(digest string) string {
	return filepath.Join(s.Dir, "blobs", "sha256-"+hexOf(digest))
}

func (s Store) manifestPath(name string) string {
	n := strings.ToLower(strings.Replace(name, ":", "/", 1))
	return filepath.Join(s.Dir, "manifests", filepath.FromSlash(n)+".json")
}

// hfRepoDir is the repository's folder in the Hub layout.
func hfRepoDir(root, repo string) string {
	return filepath.Join(root, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// ModelPath returns the file to open for m: its first model part (whose siblings are the other parts).
func (s Store) ModelPath(m *Manifest) string {
	if m.Path != "" {
		return m.Path
	}
	for _, f := range m.Files {
		if f.Role != RoleModel {
			continue
		}
		if m.Registry == HuggingFace {
			return filepath.Join(hfRepoDir(s.Dir, m.Repo), "snapshots", m.Revision, filepath.FromSlash(f.Path))
		}
		return s.BlobPath(f.Digest)
	}
	return ""
}

// FilePath returns where the store keeps one file of m.
func (s Store) FilePath(m *Manifest, f File) string {
	if m.Registry == HuggingFace && m.Path == "" {
		return filepath.Join(hfRepoDir(s.Dir, m.Repo), "snapshots", m.Revision, filepath.FromSlash(f.Path))
	}
	return s.BlobPath(f.Digest)
}

// Manifests returns every manifest in the store, by name. Unreadable ones are skipped.
func (s Store) Manifests() ([]*Manifest, error) {
	var out []*Manifest
	root := filepath.Join(s.Dir, "manifests")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		if m, err := readManifest(p); err == nil {
			out = append(out, m)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

func readManifest(p string) (*Manifest, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if m.Name == "" || len(m.Files) == 0 {
		return nil, fmt.Errorf("%s: not a model manifest", p)
	}
	return &m, nil
}

// Get returns the manifest of a canonical name (any case), or an error wrapping fs.ErrNotExist.
func (s Store) Get(name string) (*Manifest, error) { return readManifest(s.manifestPath(name)) }

// put writes m's manifest atomically.
func (s Store) put(m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.manifestPath(m.Name), append(b, '\n'))
}

// writeAtomic writes b to a temporary file beside p and renames it over p.
func writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+filepath.Base(p)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// linkHF lays m's files out in the Hub layout under the store (blobs hard-linked, snapshot entries linked to
// them), so that huggingface_hub and llama.cpp, pointed at the store, find them too.
func (s Store) linkHF(m *Manifest) error {
	repoDir := hfRepoDir(s.Dir, m.Repo)
	for _, f := range m.Files {
		blob := filepath.Join(repoDir, "blobs", hexOf(f.Digest))
		if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
			return err
		}
		if err := os.Link(s.BlobPath(f.Digest), blob); err != nil && !errors.Is(err, fs.ErrExist) {
			if err := os.Symlink(s.BlobPath(f.Digest), blob); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("linking %s into the Hub layout: %w", f.Path, err)
			}
		}
		snap := filepath.Join(repoDir, "snapshots", m.Revision, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(snap), blob)
		if err != nil {
			return err
		}
		if _, err := os.Stat(snap); err == nil {
			continue
		}
		os.Remove(snap) // a dangling link
		if err := os.Symlink(rel, snap); err != nil && !errors.Is(err, fs.ErrExist) {
			// Windows without the symlink privilege: huggingface_hub then keeps files in snapshots/ itself.
			if err := os.Link(blob, snap); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("linking %s into the snapshot: %w", f.Path, err)
			}
		}
	}
	return writeAtomic(filepath.Join(repoDir, "refs", "main"), []byte(m.Revision))
}

// Remove deletes a model name: its manifest, then every file no other manifest uses (blob, Hub-layout links,
// emptied folders). A model found in another tool's store only loses its name here; its files stay.
func (s Store) Remove(name string) error {
	m, err := s.Get(name)
	if err != nil {
		return err
	}
	if err := os.Remove(s.manifestPath(m.Name)); err != nil {
		return err
	}
	removeEmptyDirs(filepath.Dir(s.manifestPath(m.Name)), filepath.Join(s.Dir, "manifests"))
	if m.Path != "" {
		return nil
	}
	others, err := s.Manifests()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	snaps := map[string]bool{}
	for _, o := range others {
		for _, f := range o.Files {
			used[f.Digest] = true
			if o.Registry == HuggingFace {
				snaps[s.FilePath(o, f)] = true
			}
		}
	}
	var errs []error
	for _, f := range m.Files {
		if m.Registry == HuggingFace && !snaps[s.FilePath(m, f)] {
			snap := s.FilePath(m, f)
			errs = append(errs, ignoreMissing(os.Remove(snap)))
			removeEmptyDirs(filepath.Dir(snap), hfRepoDir(s.Dir, m.Repo))
		}
		if used[f.Digest] {
			continue
		}
		if m.Registry == HuggingFace {
			errs = append(errs, ignoreMissing(os.Remove(filepath.Join(hfRepoDir(s.Dir, m.Repo), "blobs", hexOf(f.Digest)))))
		}
		errs = append(errs, ignoreMissing(os.Remove(s.BlobPath(f.Digest))))
	}
	if m.Registry == HuggingFace {
		repoDir := hfRepoDir(s.Dir, m.Repo)
		if isEmptyDir(filepath.Join(repoDir, "snapshots")) {
			errs = append(errs, os.RemoveAll(repoDir))
		}
	}
	return errors.Join(errs...)
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func isEmptyDir(p string) bool {
	es, err := os.ReadDir(p)
	return err != nil || len(es) == 0
}

// removeEmptyDirs removes dir and its parents up to (not including) stop while they are empty.
func removeEmptyDirs(dir, stop string) {
	for dir != stop && strings.HasPrefix(dir, stop) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
