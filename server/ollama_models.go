package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/forma-llm/forma/internal/modelinfo"
	"github.com/forma-llm/forma/runtime/toolcall"
	"github.com/forma-llm/forma/web"
)

// Ollama's listing endpoints: /api/tags, /api/ps, /api/show, /api/version and GET /.

// ollamaDetails describes a model as Ollama's listings do.
type ollamaDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

func details(e *modelEntry) ollamaDetails {
	d := ollamaDetails{Format: "gguf", Family: e.m.HParams().Arch, Families: []string{e.m.HParams().Arch}}
	if in, err := modelinfo.Read(e.m.File); err == nil {
		d.ParameterSize = modelinfo.FormatCount(in.Params)
		if len(in.TypeMix) > 0 {
			d.QuantizationLevel = strings.ToUpper(in.TypeMix[0].Type.String())
		}
	}
	return d
}

// digest identifies a model file (its path, size and time; not a hash of its bytes, which would read it all).
func digest(e *modelEntry) string {
	st, _ := os.Stat(e.path)
	var mod int64
	if st != nil {
		mod = st.ModTime().UnixNano()
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d", e.path, e.size, mod))
	return hex.EncodeToString(h[:])
}

func modTime(path string) time.Time {
	if st, err := os.Stat(path); err == nil {
		return st.ModTime()
	}
	return time.Time{}
}

// ollamaTags is GET /api/tags: the models loaded.
func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) error {
	models := []map[string]any{}
	for _, e := range s.reg.list() {
		models = append(models, map[string]any{"name": e.name, "model": e.name, "modified_at": modTime(e.path),
			"size": e.size, "digest": digest(e), "details": details(e)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
	return nil
}

// ollamaPS is GET /api/ps: the models loaded and when they unload.
func (s *Server) ollamaPS(w http.ResponseWriter, r *http.Request) error {
	models := []map[string]any{}
	for _, e := range s.reg.list() {
		exp := s.reg.expiry(e)
		m := map[string]any{"name": e.name, "model": e.name, "size": e.size, "digest": digest(e),
			"details": details(e), "size_vram": 0, "context_length": e.eng.ctx}
		if !exp.IsZero() {
			m["expires_at"] = exp
		} else {
			m["expires_at"] = time.Time{}
		}
		models = append(models, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
	return nil
}

// ollamaShow is POST /api/show.
func (s *Server) ollamaShow(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model   string `json:"model"`
		Name    string `json:"name"`
		Verbose bool   `json:"verbose"`
		System  string `json:"system"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	if q.Model == "" {
		q.Model = q.Name
	}
	if q.Model == "" {
		return badRequest("model", "required")
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	tmpl := ""
	if t, err := e.m.Template(); err == nil {
		tmpl = t.Source()
		if tmpl == "" {
			tmpl = t.Builtin().String()
		}
	}
	info := map[string]any{"general.architecture": e.m.HParams().Arch, "general.name": e.m.Name()}
	hp := e.m.HParams()
	info[hp.Arch+".context_length"] = hp.CtxTrain
	info[hp.Arch+".embedding_length"] = hp.Embd
	info[hp.Arch+".block_count"] = hp.Layers
	so := e.m.Sampling()
	params := fmt.Sprintf("temperature %g\ntop_k %d\ntop_p %g\nmin_p %g", so.Temperature, so.TopK, so.TopP, so.MinP)
	caps := []string{"completion"}
	if open, _ := e.family.Reasoning(); open != "" || e.family == toolcall.Harmony {
		caps = append(caps, "thinking")
	}
	if e.family.SupportsTools() {
		caps = append(caps, "tools")
	}
	writeJSON(w, http.StatusOK, map[string]any{"modelfile": "FROM " + e.path, "parameters": params, "template": tmpl,
		"details": details(e), "model_info": info, "capabilities": caps, "modified_at": modTime(e.path)})
	return nil
}

// ollamaVersion is GET /api/version.
func (s *Server) ollamaVersion(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"version": ollamaVersion})
	return nil
}

// root answers GET / as Ollama does, so that clients probing for a server find one.
func (s *Server) root(w http.ResponseWriter, r *http.Request) error {
	if strings.Contains(r.Header.Get("Accept"), "text/html") { // a browser: the chat page
		web.Handler().ServeHTTP(w, r)
		return nil
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if r.Method == http.MethodGet {
		w.Write([]byte("forma is running\n"))
	}
	return nil
}
