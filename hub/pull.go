package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/forma-llm/forma/gguf"
)

// PullOptions configure a pull.
type PullOptions struct {
	Registry Registry       // for a REF without a host: HuggingFace (the default for ORG/REPO) or Ollama
	MMProj   bool           // also fetch the repository's vision projector (Hub only)
	Progress func(Progress) // called with each report, one call at a time; nil for none
}

// Pull brings the model ref names into the store (see ParseRef for the forms of ref) and returns it. A model
// already in another tool's store (the Hugging Face cache, llama.cpp's, Ollama's) is recorded and used in
// place, without the network. Otherwise the registry is asked what the model is now, and only files the store
// lacks are downloaded: see the package documentation for how. Cancelling ctx stops the pull; what it fetched
// stays in .part files for the next one.
func (c *Client) Pull(ctx context.Context, ref string, opt PullOptions) (*Model, error) {
	r, err := ParseRef(ref, opt.Registry)
	if err != nil {
		return nil, err
	}
	c = c.withDefaults()
	rep := &reporter{fn: opt.Progress}
	if !opt.MMProj {
		if m := c.findElsewhere(r); m != nil {
			return c.record(m, rep)
		}
	}
	var (
		m     *Manifest
		blobs []blob
	)
	if r.Registry == HuggingFace {
		m, blobs, err = c.hfPlan(ctx, r, opt.MMProj)
	} else {
		m, blobs, err = c.ollamaPlan(ctx, r)
	}
	if err != nil {
		return nil, err
	}
	if err := c.checkSpace(blobs); err != nil {
		return nil, err
	}
	for _, b := range blobs {
		if err := c.fetch(ctx, b, rep); err != nil {
			return nil, err
		}
	}
	if m.Registry == HuggingFace {
		if err := c.Store.linkHF(m); err != nil {
			return nil, err
		}
	}
	m.PulledAt = time.Now().UTC().Truncate(time.Second)
	describe(m, c.Store.ModelPath(m))
	if err := c.Store.put(m); err != nil {
		return nil, err
	}
	return manifestModel(c.Store, m), nil
}

// findElsewhere looks for r in the other tools' stores.
func (c *Client) findElsewhere(r Ref) *Model {
	if r.Registry == Ollama {
		return findOllama(c.OllamaDir, r)
	}
	for _, root := range c.HFCaches {
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

// record names a model found in another tool's store in this one, so that list shows it and its name resolves.
func (c *Client) record(found *Model, rep *reporter) (*Model, error) {
	m := found.Manifest
	m.PulledAt = time.Now().UTC().Truncate(time.Second)
	describe(m, m.Path)
	for _, f := range m.Files {
		rep.send(Progress{File: f.Path, Status: StatusCached, Done: f.Size, Total: f.Size})
	}
	if err := c.Store.put(m); err != nil {
		return nil, err
	}
	found.Name = m.Name
	return found, nil
}

// describe fills the architecture, and the quant when the name gave none, from the model file's header.
func describe(m *Manifest, path string) {
	f, err := gguf.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	m.Architecture, _ = f.Architecture()
	if m.Quant == "" {
		if ft, err := f.Int("general.file_type"); err == nil {
			m.Quant = fileTypes[ft]
		}
	}
}

// checkSpace stops a pull whose remaining bytes do not fit on the store's disk.
func (c *Client) checkSpace(blobs []blob) error {
	dir := filepath.Join(c.Store.Dir, "blobs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	if c.DiskFree == nil {
		return nil
	}
	var need int64
	seen := map[string]bool{}
	for _, b := range blobs {
		if !seen[b.digest] {
			seen[b.digest] = true
			need += c.Store.remaining(b)
		}
	}
	if need == 0 {
		return nil
	}
	free, err := c.DiskFree(dir)
	if err != nil {
		return nil // unknown: the writes will tell
	}
	if free < uint64(need) {
		return &DiskSpaceError{Dir: dir, Need: uint64(need), Free: free}
	}
	return nil
}
