package hub

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Entry is one model in a listing of the store.
type Entry struct {
	Name         string    `json:"name"`
	Path         string    `json:"path"` // the file to open
	Size         int64     `json:"size"` // bytes of all its files
	Quant        string    `json:"quant,omitempty"`
	Architecture string    `json:"architecture,omitempty"`
	Modified     time.Time `json:"modified"` // when it was pulled (a loose file: its modification time)
	Source       string    `json:"source,omitempty"`
}

// List returns the store's models by name: every manifest, then the loose .gguf files.
func (c *Client) List() ([]Entry, error) {
	ms, err := c.Store.Manifests()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(ms))
	for _, m := range ms {
		out = append(out, Entry{Name: m.Name, Path: c.Store.ModelPath(m), Size: m.Size, Quant: m.Quant,
			Architecture: m.Architecture, Modified: m.PulledAt, Source: m.Source})
	}
	for _, name := range c.looseFiles() {
		p := filepath.Join(c.Store.Dir, name)
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		m := &Manifest{}
		describe(m, p)
		out = append(out, Entry{Name: name, Path: p, Size: st.Size(), Quant: m.Quant, Architecture: m.Architecture,
			Modified: st.ModTime().UTC().Truncate(time.Second)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove deletes a model from the store by any name Resolve accepts for it (see Store.Remove); a loose file
// is deleted. A model that is only in another tool's store is not touched: that is an error.
func (c *Client) Remove(name string) (*Model, error) {
	m, err := c.Resolve(name)
	if err != nil {
		return nil, err
	}
	switch {
	case m.Where == "store" && m.Manifest != nil:
		return m, c.Store.Remove(m.Manifest.Name)
	case m.Where == "store":
		return m, os.Remove(m.Path)
	}
	return nil, &ForeignError{Name: name, Path: m.Path}
}

// ForeignError is an attempt to remove a model that is not forma's to delete.
type ForeignError struct{ Name, Path string }

func (e *ForeignError) Error() string {
	return "model " + e.Name + " is not in forma's store (" + e.Path + "); forma does not delete other tools' files"
}

// Resolve resolves a name with a client FromEnv.
func Resolve(name string) (*Model, error) { return FromEnv().Resolve(name) }

// Pull pulls with a client FromEnv.
func Pull(ctx context.Context, ref string, opt PullOptions) (*Model, error) {
	return FromEnv().Pull(ctx, ref, opt)
}
