// Package embedding holds llama.cpp's pooled embeddings and rank scores of small random-weight models that forma
// synth writes (testdata/, made by testdata/make.sh; its README says how), and runs a backend against them: the
// same token ids, each vector's cosine similarity to llama.cpp's at least MinCosine, a reranker's documents in
// llama.cpp's order. The models are not stored: each case names its preset, type and seed, and Model writes the
// file again and checks its SHA-256 against the one the reference was made from.
package embedding

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
)

// The acceptance bounds: each text's vector against llama.cpp's, and a rerank score's difference relative to
// the largest score. (With F16 weights, a difference of 1e-7 upstream can flip the rounding of an activation to
// F16, 1e-3 of it: measured 2.3e-4 on tiny-bert-reranker-f16, whose rank head sees 1 row in llama.cpp's
// one-sequence pass and a batch's rows here.)
const (
	MinCosine    = 0.9999
	MaxScoreDiff = 1e-3
)

// Case is one model and its inputs with llama.cpp's results.
type Case struct {
	Name                string
	Preset, Type, Input string
	Seed                uint64
	SHA256              string
	Texts               []string  // embedding inputs, or the documents of a rerank
	Query               string    // a rerank's query ("" for embeddings)
	Rerank              bool      // the case scores Texts against Query
	IDs                 [][]int32 // the tokens llama.cpp evaluated, per input
	Want                [][]float32
	ServerScores        []float32 // a rerank's scores from llama-server's /v1/rerank
}

// Dir is the folder of the cases.
func Dir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Cases returns the names of the cases, in cases.txt's order.
func Cases() ([]string, error) {
	f, err := os.Open(filepath.Join(Dir(), "cases.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) > 0 && !strings.HasPrefix(fs[0], "#") {
			names = append(names, fs[0])
		}
	}
	return names, sc.Err()
}

// Load reads case name.
func Load(name string) (*Case, error) {
	dir := Dir()
	meta, err := readMeta(filepath.Join(dir, name+".meta.txt"))
	if err != nil {
		return nil, err
	}
	c := &Case{Name: name, Preset: meta["preset"], Type: meta["type"], Input: meta["input"], SHA256: meta["model_sha256"]}
	if c.Seed, err = strconv.ParseUint(meta["seed"], 10, 64); err != nil {
		return nil, fmt.Errorf("embedding %s: seed: %w", name, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, c.Input))
	if err != nil {
		return nil, err
	}
	var in struct {
		Texts, Documents []string
		Query            *string
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("embedding %s: %s: %w", name, c.Input, err)
	}
	c.Texts = in.Texts
	if in.Query != nil {
		c.Rerank, c.Query, c.Texts = true, *in.Query, in.Documents
	}
	if c.IDs, err = readIDs(filepath.Join(dir, name+".ids.txt")); err != nil {
		return nil, err
	}
	vals, err := readF32(filepath.Join(dir, name+".f32"))
	if err != nil {
		return nil, err
	}
	if len(c.IDs) != len(c.Texts) || len(vals)%len(c.Texts) != 0 {
		return nil, fmt.Errorf("embedding %s: %d inputs, %d token lists, %d values", name, len(c.Texts), len(c.IDs), len(vals))
	}
	w := len(vals) / len(c.Texts)
	for i := range c.Texts {
		c.Want = append(c.Want, vals[i*w:(i+1)*w])
	}
	if c.Rerank {
		if c.ServerScores, err = readF32(filepath.Join(dir, name+".server.f32")); err != nil {
			return nil, err
		}
		if len(c.ServerScores) != len(c.Texts) {
			return nil, fmt.Errorf("embedding %s: %d server scores for %d documents", name, len(c.ServerScores), len(c.Texts))
		}
	}
	return c, nil
}

// Model writes the case's model into dir (once per file) and returns its path, after checking that its SHA-256
// is the reference's.
func (c *Case) Model(dir string) (string, error) {
	typ, err := quant.ParseType(c.Type)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.gguf", c.Preset, c.Type, c.Seed))
	if _, err := os.Stat(path); err != nil {
		if err := synth.Write(path, synth.Options{Preset: c.Preset, Type: typ, Seed: c.Seed}); err != nil {
			return "", err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != c.SHA256 {
		return "", fmt.Errorf("embedding %s: synth wrote %s with SHA-256 %s, the reference's model had %s: the generator changed",
			c.Name, path, sum, c.SHA256)
	}
	return path, nil
}

// Result is one case's comparison.
type Result struct {
	Cosines  []float64 // per input: the cosine similarity (embeddings), or 1 - the relative score difference (rerank)
	Failures []string
}

// MinCos is the least of Cosines.
func (r *Result) MinCos() float64 { return slices.Min(r.Cosines) }

// Options tune Run.
type Options struct {
	// MaxTokens, when set, leaves out the inputs of more tokens (a slow backend's run).
	MaxTokens int
}

// Run loads the case's model (written into dir) on be and compares it with llama.cpp.
func (c *Case) Run(dir string, be accel.Backend, opt Options) (*Result, error) {
	if opt.MaxTokens > 0 {
		short := *c
		short.Texts, short.IDs, short.Want, short.ServerScores = nil, nil, nil, nil
		for i, ids := range c.IDs {
			if len(ids) > opt.MaxTokens {
				continue
			}
			short.Texts, short.IDs, short.Want = append(short.Texts, c.Texts[i]), append(short.IDs, ids), append(short.Want, c.Want[i])
			if c.Rerank {
				short.ServerScores = append(short.ServerScores, c.ServerScores[i])
			}
		}
		c = &short
	}
	path, err := c.Model(dir)
	if err != nil {
		return nil, err
	}
	m, err := runtime.Load(path, runtime.Options{Backend: be})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	r := &Result{}
	ctx := context.Background()
	if c.Rerank {
		return r, c.compareRerank(ctx, m, r)
	}
	for i, t := range c.Texts {
		ids, err := m.EmbedTokenize(t, runtime.EmbedOptions{})
		if err != nil {
			return nil, err
		}
		if !slices.Equal(ids, c.IDs[i]) {
			r.Failures = append(r.Failures, fmt.Sprintf("text %d %q: tokens %v, llama.cpp's %v", i, t, ids, c.IDs[i]))
		}
	}
	got, err := m.Embed(ctx, c.Texts, runtime.EmbedOptions{Normalize: runtime.NormNone})
	if err != nil {
		return nil, err
	}
	for i := range got {
		cos := Cosine(got[i], c.Want[i])
		r.Cosines = append(r.Cosines, cos)
		if !(cos >= MinCosine) {
			r.Failures = append(r.Failures, fmt.Sprintf("text %d %q: cosine similarity %.7f to llama.cpp's < %g", i, c.Texts[i], cos, MinCosine))
		}
	}
	return r, nil
}

// compareRerank scores the documents: each score within MaxScoreDiff of llref's, and the documents in the
// order llama-server's /v1/rerank gives them.
func (c *Case) compareRerank(ctx context.Context, m *runtime.Model, r *Result) error {
	got, err := m.Rerank(ctx, c.Query, c.Texts)
	if err != nil {
		return err
	}
	for i, d := range c.Texts {
		ids, err := m.RerankTokens(c.Query, d)
		if err != nil {
			return err
		}
		if !slices.Equal(ids, c.IDs[i]) {
			r.Failures = append(r.Failures, fmt.Sprintf("document %d: tokens %v, llama-server's %v", i, ids, c.IDs[i]))
		}
	}
	scale := 0.0
	for _, w := range c.Want {
		scale = max(scale, math.Abs(float64(w[0])))
	}
	for i := range got {
		want := c.Want[i][0]
		d := math.Abs(float64(got[i]-want)) / max(scale, 1e-6)
		r.Cosines = append(r.Cosines, 1-d)
		if d > MaxScoreDiff {
			r.Failures = append(r.Failures, fmt.Sprintf("document %d: score %g, llama.cpp's %g", i, got[i], want))
		}
	}
	if g, w := runtime.RankOrder(got), runtime.RankOrder(c.ServerScores); !slices.Equal(g, w) {
		r.Failures = append(r.Failures, fmt.Sprintf("documents ranked %v, llama-server ranks them %v", g, w))
	}
	return nil
}

// Cosine is the cosine similarity of a and b, in float64.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb = dot+x*y, na+x*x, nb+y*y
	}
	return dot / math.Sqrt(na*nb)
}

func readMeta(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s: line %q is not key=value", path, line)
		}
		m[k] = v
	}
	return m, nil
}

func readIDs(path string) ([][]int32, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]int32
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var ids []int32
		if err := json.Unmarshal([]byte(line), &ids); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, ids)
	}
	return out, nil
}

func readF32(path string) ([]float32, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not whole float32s", path, len(raw))
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out, nil
}
