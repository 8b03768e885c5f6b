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
)

// Model is a model name resolved to a file.
type Model struct {
	Name string // the name it is known by (canonical for the store's, the file name for a loose file)
	Path string // the file to open: the first part of a split model, its siblings beside it
	// Where says where it was found: "path", "store", or the folder of another tool's store.
	Where    string
	Manifest *Manifest // the store's manifest, or one describing a model found elsewhere; nil for a path
}

// NotFoundError is returned for a name that is neither a file nor a model in any store.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("model %q not found; try `forma pull %s`", e.Name, e.Name)
}

// Is makes errors.Is(err, fs.ErrNotExist) hold for it.
func (e *NotFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// Resolve turns a name into a model file, trying in order:
//
//  1. an existing file path;
//  2. a name in the store, exactly (any case): hf.co/ORG/REPO:QUANT, ORG/REPO:QUANT, REPO:QUANT,
//     ollama.com/library/NAME:TAG, NAME:TAG, NAME for NAME:latest; or NAME / NAME.gguf of a loose file there;
//  3. a Hub reference ([hf.co/]ORG/REPO[:QUANT]) in a Hugging Face-layout cache: the store itself, the
//     HF_HUB_CACHE one, LLAMA_CACHE's; then in Ollama's store, which keeps hf.co pulls too;
//  4. an Ollama reference ([ollama.com/][NAMESPACE/]NAME[:TAG]) in Ollama's store;
//  5. the start of one name in the store (several are an error listing them).
//
// A name found nowhere gives a *NotFoundError. No network is used.
func (c *Client) Resolve(name string) (*Model, error) {
	if name == "" {
		return nil, errors.New("empty model name")
	}
	st, statErr := os.Stat(name)
	if statErr == nil && !st.IsDir() {
		return &Model{Name: name, Path: name, Where: "path"}, nil
	}
	ms, err := c.Store.Manifests()
	if err != nil {
		return nil, err
	}
	loose := c.looseFiles()
	if m, err := exactName(name, ms, loose, c.Store); m != nil || err != nil {
		return m, err
	}
	if r, err := ParseRef(name, ""); err == nil && r.Registry == HuggingFace {
		if m := c.findHF(r); m != nil {
			if m.Where == c.Store.Dir { // a Hub pull of the store's own: the name it has there
				if sm, err := c.Store.Get(m.Name); err == nil {
					return manifestModel(c.Store, sm), nil
				}
			}
			return m, nil
		}
	}
	if r, err := ParseRef(name, Ollama); err == nil {
		if m := findOllama(c.OllamaDir, r); m != nil {
			return m, nil
		}
	}
	if m, err := prefixName(name, ms, loose, c.Store); m != nil || err != nil {
		return m, err
	}
	if strings.ContainsAny(name, `/\`) && !IsRemoteRef(name) || strings.HasSuffix(name, ".gguf") {
		var pe *fs.PathError
		if errors.As(statErr, &pe) {
			statErr = pe.Err
		} else if statErr == nil {
			statErr = errors.New("is a folder")
		}
		return nil, fmt.Errorf("model file %s: %w", name, statErr)
	}
	return nil, &NotFoundError{Name: name}
}

// aliases are the names a manifest answers to, lower case: canonical, without the host, without the
// namespace, and an Ollama NAME for NAME:latest.
func aliases(m *Manifest) []string {
	full := strings.ToLower(m.Name)
	_, rest, _ := strings.Cut(full, "/")
	out := []string{full, rest}
	if _, short, ok := strings.Cut(rest, "/"); ok {
		out = append(out, short)
		if m.Registry == Ollama && strings.HasPrefix(rest, "library/") {
			if n, ok := strings.CutSuffix(short, ":latest"); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// looseFiles lists the .gguf files lying directly in the store folder.
func (c *Client) looseFiles() []string {
	es, _ := os.ReadDir(c.Store.Dir)
	var out []string
	for _, e := range es {
		if !e.IsDir() && strings.HasSuffix(strings.ToLower(e.Name()), ".gguf") {
			out = append(out, e.Name())
		}
	}
	return out
}

func manifestModel(s Store, m *Manifest) *Model {
	return &Model{Name: m.Name, Path: s.ModelPath(m), Where: "store", Manifest: m}
}

func exactName(name string, ms []*Manifest, loose []string, s Store) (*Model, error) {
	lower := strings.ToLower(name)
	var hits []*Manifest
	for _, m := range ms {
		for _, a := range aliases(m) {
			if a == lower {
				hits = append(hits, m)
				break
			}
		}
	}
	var files []string
	for _, f := range loose {
		if l := strings.ToLower(f); l == lower || l == lower+".gguf" {
			files = append(files, f)
		}
	}
	return pick(name, "is", hits, files, s)
}

func prefixName(name string, ms []*Manifest, loose []string, s Store) (*Model, error) {
	lower := strings.ToLower(name)
	var hits []*Manifest
	for _, m := range ms {
		for _, a := range aliases(m) {
			if strings.HasPrefix(a, lower) {
				hits = append(hits, m)
				break
			}
		}
	}
	var files []string
	for _, f := range loose {
		if strings.HasPrefix(strings.ToLower(f), lower) {
			files = append(files, f)
		}
	}
	return pick(name, "starts", hits, files, s)
}

// pick returns the one model among hits and files, nil for none, or an error naming them all.
func pick(name, how string, hits []*Manifest, files []string, s Store) (*Model, error) {
	switch {
	case len(hits)+len(files) == 0:
		return nil, nil
	case len(hits) == 1 && len(files) == 0:
		return manifestModel(s, hits[0]), nil
	case len(hits) == 0 && len(files) == 1:
		return &Model{Name: files[0], Path: filepath.Join(s.Dir, files[0]), Where: "store"}, nil
	}
	names := append([]string(nil), files...)
	for _, m := range hits {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	what := "names"
	if how == "starts" {
		what = "is the start of the names of"
	}
	return nil, fmt.Errorf("model name %q %s %d models in %s: %s", name, what, len(names), s.Dir, strings.Join(names, ", "))
}

// findHF looks for a Hub reference in the Hugging Face-layout caches, without a network.
func (c *Client) findHF(r Ref) *Model {
	roots := append([]string{c.Store.Dir}, c.HFCaches...)
	for _, root := range roots {
		if m := findInHFCache(root, r); m != nil {
			return m
		}
	}
	tag := r.Tag
	if tag == "" {
		tag = "latest"
	}
	return findOllama(c.OllamaDir, Ref{Registry: Ollama, Repo: hfHost + "/" + r.Repo, Tag: tag})
}

// findInHFCache looks for r's repository in one cache (a folder of models--ORG--REPO) and picks the model for
// r's tag among the files of the snapshot its refs/main (else any ref) names.
func findInHFCache(root string, r Ref) *Model {
	want := strings.ToLower("models--" + strings.ReplaceAll(r.Repo, "/", "--"))
	es, _ := os.ReadDir(root)
	for _, e := range es {
		if !e.IsDir() || strings.ToLower(e.Name()) != want {
			continue
		}
		repoDir := filepath.Join(root, e.Name())
		commit := cachedRef(repoDir)
		if commit == "" {
			continue
		}
		snap := filepath.Join(repoDir, "snapshots", commit)
		var paths []string
		filepath.WalkDir(snap, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if _, err := os.Stat(p); err == nil { // a dangling link is no file
					rel, _ := filepath.Rel(snap, p)
					paths = append(paths, filepath.ToSlash(rel))
				}
			}
			return nil
		})
		cand, err := chooseModel(r.Repo, paths, r.Tag)
		if err != nil {
			continue
		}
		first := filepath.Join(snap, filepath.FromSlash(cand.Parts[0]))
		var size int64
		for _, p := range cand.Parts {
			if st, err := os.Stat(filepath.Join(snap, filepath.FromSlash(p))); err == nil {
				size += st.Size()
			}
		}
		m := &Manifest{Name: Ref{Registry: HuggingFace, Repo: r.Repo, Tag: cand.Tag}.Name(), Registry: HuggingFace,
			Repo: r.Repo, Tag: cand.Tag, Revision: commit, Source: root, Quant: cand.Tag, Size: size, Path: first}
		for _, p := range cand.Parts {
			m.Files = append(m.Files, File{Path: p, Role: RoleModel})
		}
		return &Model{Name: m.Name, Path: first, Where: root, Manifest: m}
	}
	return nil
}

// cachedRef reads refs/main of a cached repository, else the first ref that names a commit.
func cachedRef(repoDir string) string {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		c := strings.TrimSpace(string(b))
		if st, err := os.Stat(filepath.Join(repoDir, "snapshots", c)); c == "" || err != nil || !st.IsDir() {
			return ""
		}
		return c
	}
	if c := read(filepath.Join(repoDir, "refs", "main")); c != "" {
		return c
	}
	es, _ := os.ReadDir(filepath.Join(repoDir, "refs"))
	for _, e := range es {
		if c := read(filepath.Join(repoDir, "refs", e.Name())); c != "" {
			return c
		}
	}
	return ""
}

// ollamaManifest is the JSON of a manifest in Ollama's registry and store (a Docker image manifest v2).
type ollamaManifest struct {
	SchemaVersion int           `json:"schemaVersion"`
	MediaType     string        `json:"mediaType"`
	Config        ollamaLayer   `json:"config"`
	Layers        []ollamaLayer `json:"layers"`
}

type ollamaLayer struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// Ollama's layer media types, and the roles forma keeps them under.
var ollamaRoles = map[string]string{
	"application/vnd.ollama.image.model":     RoleModel,
	"application/vnd.ollama.image.projector": RoleMMProj,
	"application/vnd.ollama.image.template":  RoleTemplate,
	"application/vnd.ollama.image.params":    RoleParams,
	"application/vnd.ollama.image.system":    RoleSystem,
	"application/vnd.ollama.image.license":   RoleLicense,
}

// ollamaStoreHost is the folder Ollama keeps its registry's manifests under.
const ollamaStoreHost = "registry.ollama.ai"

// findOllama reads r from Ollama's store (manifests/registry.ollama.ai/NAMESPACE/NAME/TAG, blobs/sha256-HEX).
// A Repo starting with hf.co/ is looked up under manifests/hf.co/.
func findOllama(dir string, r Ref) *Model {
	if dir == "" {
		return nil
	}
	p := filepath.Join(dir, "manifests", ollamaStoreHost, filepath.FromSlash(r.Repo), r.Tag)
	if strings.HasPrefix(r.Repo, hfHost+"/") {
		p = filepath.Join(dir, "manifests", filepath.FromSlash(r.Repo), r.Tag)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var om ollamaManifest
	if json.Unmarshal(b, &om) != nil {
		return nil
	}
	m := &Manifest{Name: r.Name(), Registry: Ollama, Repo: r.Repo, Tag: r.Tag, Source: dir}
	if strings.HasPrefix(r.Repo, hfHost+"/") {
		m.Name = r.Repo + ":" + r.Tag
	}
	for _, l := range om.Layers {
		role, ok := ollamaRoles[l.MediaType]
		if !ok || !validDigest(l.Digest) {
			continue
		}
		blob := filepath.Join(dir, "blobs", "sha256-"+hexOf(l.Digest))
		if _, err := os.Stat(blob); err != nil {
			return nil
		}
		m.Files = append(m.Files, File{Path: role, Role: role, Digest: l.Digest, Size: l.Size})
		m.Size += l.Size
		if role == RoleModel && m.Path == "" {
			m.Path, m.Digest = blob, l.Digest
		}
	}
	if m.Path == "" {
		return nil
	}
	return &Model{Name: m.Name, Path: m.Path, Where: dir, Manifest: m}
}
