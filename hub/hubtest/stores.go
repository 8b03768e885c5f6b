package hubtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// WriteStore lays a model out as Ollama's store keeps it, under dir: manifests/registry.ollama.ai/NAMESPACE/
// NAME/TAG and blobs/sha256-HEX.
func WriteStore(dir, name, tag string, model []byte) error {
	d := Digest(model)
	blob := filepath.Join(dir, "blobs", "sha256-"+strings.TrimPrefix(d, "sha256:"))
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(blob, model, 0o644); err != nil {
		return err
	}
	m := Manifest{SchemaVersion: 2, MediaType: MediaManifest, Layers: []Layer{{MediaType: MediaModel, Digest: d, Size: int64(len(model))}}}
	b, _ := json.Marshal(m)
	p := filepath.Join(dir, "manifests", "registry.ollama.ai", filepath.FromSlash(name), tag)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// WriteHFCache lays files out as huggingface_hub's cache keeps them under dir (models--ORG--REPO/blobs/HEX,
// snapshots/COMMIT/PATH linking to them, refs/main naming COMMIT).
func WriteHFCache(dir, repo, commit string, files map[string][]byte) error {
	root := filepath.Join(dir, "models--"+strings.ReplaceAll(repo, "/", "--"))
	for p, b := range files {
		blob := filepath.Join(root, "blobs", strings.TrimPrefix(Digest(b), "sha256:"))
		snap := filepath.Join(root, "snapshots", commit, filepath.FromSlash(p))
		for _, d := range []string{filepath.Dir(blob), filepath.Dir(snap)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(blob, b, 0o644); err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(snap), blob)
		if err := os.Symlink(rel, snap); err != nil {
			if err := os.WriteFile(snap, b, 0o644); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "refs"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "refs", "main"), []byte(commit), 0o644)
}
