package hubtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Ollama's media types.
const (
	MediaManifest = "application/vnd.docker.distribution.manifest.v2+json"
	MediaConfig   = "application/vnd.docker.container.image.v1+json"
	MediaModel    = "application/vnd.ollama.image.model"
	MediaTemplate = "application/vnd.ollama.image.template"
	MediaParams   = "application/vnd.ollama.image.params"
	MediaLicense  = "application/vnd.ollama.image.license"
)

// Layer is one layer of an Ollama manifest.
type Layer struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// Manifest is an Ollama manifest as the registry serves it and Ollama's store keeps it.
type Manifest struct {
	SchemaVersion int     `json:"schemaVersion"`
	MediaType     string  `json:"mediaType"`
	Config        Layer   `json:"config"`
	Layers        []Layer `json:"layers"`
}

// Registry is a fake of Ollama's registry: GET /v2/NAMESPACE/NAME/manifests/TAG, and
// /v2/NAMESPACE/NAME/blobs/DIGEST redirecting to Files on another host name. Point FORMA_REGISTRY (or
// Client.Registry) at URL.
type Registry struct {
	Server *httptest.Server
	Files  *Files
	URL    string

	mu        sync.Mutex
	manifests map[string][]byte
}

// NewRegistry starts a fake registry with no models.
func NewRegistry() *Registry {
	g := &Registry{Files: newFiles(), manifests: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/{ns}/{name}/manifests/{tag}", g.manifest)
	mux.HandleFunc("/v2/{ns}/{name}/blobs/{digest}", g.blob)
	g.Server = httptest.NewServer(mux)
	g.URL = strings.Replace(g.Server.URL, "127.0.0.1", "localhost", 1)
	return g
}

// AddModel publishes NAMESPACE/NAME:TAG with a model layer and, when not empty, template and params layers.
// It returns the manifest.
func (g *Registry) AddModel(name, tag string, model []byte, template, params string) Manifest {
	layer := func(media string, b []byte) Layer {
		return Layer{MediaType: media, Digest: g.Files.add(b), Size: int64(len(b))}
	}
	cfg := []byte(`{"model_format":"gguf","model_family":"llama","file_type":"Q8_0"}`)
	m := Manifest{SchemaVersion: 2, MediaType: MediaManifest, Config: layer(MediaConfig, cfg),
		Layers: []Layer{layer(MediaModel, model)}}
	if template != "" {
		m.Layers = append(m.Layers, layer(MediaTemplate, []byte(template)))
	}
	if params != "" {
		m.Layers = append(m.Layers, layer(MediaParams, []byte(params)))
	}
	b, _ := json.Marshal(m)
	g.mu.Lock()
	g.manifests[name+":"+tag] = b
	g.mu.Unlock()
	return m
}

// Close stops the registry and its file host.
func (g *Registry) Close() { g.Server.Close(); g.Files.Close() }

func (g *Registry) manifest(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	b, ok := g.manifests[r.PathValue("ns")+"/"+r.PathValue("name")+":"+r.PathValue("tag")]
	g.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"errors": []map[string]string{{"code": "MANIFEST_UNKNOWN",
			"message": "manifest unknown"}}})
		return
	}
	w.Header().Set("Content-Type", MediaManifest)
	w.Header().Set("Docker-Content-Digest", Digest(b))
	w.Write(b)
}

func (g *Registry) blob(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, g.Files.Server.URL+"/blobs/"+r.PathValue("digest"), http.StatusTemporaryRedirect)
}
