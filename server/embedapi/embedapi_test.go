package embedapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/server/embedapi"
)

func load(t *testing.T, preset string, opt runtime.Options) *runtime.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), preset+".gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: quant.Q8_0, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	be, err := cpu.New(cpu.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	opt.Backend, opt.CloseBackend = be, true
	m, err := runtime.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// handle serves one endpoint the way a server wires these functions: decode, call, encode (or the status).
func handle[Req any, Res any](f func(context.Context, *Req) (Res, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad JSON"}}`, http.StatusBadRequest)
			return
		}
		res, err := f(r.Context(), &req)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(embedapi.Status(err))
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
			return
		}
		json.NewEncoder(w).Encode(res)
	}
}

func serve(t *testing.T, m *runtime.Model) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/embeddings", handle(func(ctx context.Context, r *embedapi.OpenAIRequest) (*embedapi.OpenAIResponse, error) {
		return embedapi.OpenAI(ctx, m, "tiny", r)
	}))
	mux.Handle("POST /api/embed", handle(func(ctx context.Context, r *embedapi.OllamaRequest) (*embedapi.OllamaResponse, error) {
		return embedapi.Ollama(ctx, m, "tiny", r)
	}))
	mux.Handle("POST /api/embeddings", handle(func(ctx context.Context, r *embedapi.OllamaLegacyRequest) (*embedapi.OllamaLegacyResponse, error) {
		return embedapi.OllamaLegacy(ctx, m, r)
	}))
	mux.Handle("POST /v1/rerank", handle(func(ctx context.Context, r *embedapi.RerankRequest) (any, error) {
		return embedapi.Rerank(ctx, m, "tiny", r)
	}))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func client(s *httptest.Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(s.URL+"/v1/"), option.WithAPIKey("none"), option.WithMaxRetries(0))
}

// f32 returns the float32 values a client's float64s stand for (JSON carries a float32's shortest decimal).
func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// The openai-go client gets the vectors Model.Embed gives, as floats and as base64, for strings and token
// arrays, and Matryoshka dimensions renormalised.
func TestOpenAI(t *testing.T) {
	m := load(t, "tiny-bert", runtime.Options{Ctx: 64})
	c := client(serve(t, m))
	ctx := context.Background()
	texts := []string{"hello world", "An embedding maps text to a vector.", "x"}
	want, err := m.Embed(ctx, texts, runtime.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tokens := 0
	for _, text := range texts {
		ids, _ := m.EmbedTokenize(text, runtime.EmbedOptions{})
		tokens += len(ids)
	}
	for _, format := range []openai.EmbeddingNewParamsEncodingFormat{openai.EmbeddingNewParamsEncodingFormatFloat,
		openai.EmbeddingNewParamsEncodingFormatBase64} {
		res, err := c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny", EncodingFormat: format,
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Data) != len(texts) || res.Model != "tiny" || res.Usage.PromptTokens != int64(tokens) {
			t.Fatalf("%s: %d results, usage %+v", format, len(res.Data), res.Usage)
		}
		for i, d := range res.Data {
			if int(d.Index) != i || !slices.Equal(f32(d.Embedding), want[i]) {
				t.Errorf("%s: result %d differs from Model.Embed", format, i)
			}
			if raw := d.JSON.Embedding.Raw(); (format == "base64") != strings.HasPrefix(raw, `"`) {
				t.Errorf("%s: embedding sent as %.20s", format, raw)
			}
		}
	}
	ids, _ := m.EmbedTokenize("hello world", runtime.EmbedOptions{})
	toks := make([]int64, len(ids))
	for i, id := range ids {
		toks[i] = int64(id)
	}
	res, err := c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny", Dimensions: openai.Int(32),
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokenArrays: [][]int64{toks, toks[1:3]}}})
	if err != nil {
		t.Fatal(err)
	}
	short, _ := m.Embed(ctx, texts[:1], runtime.EmbedOptions{Dimensions: 32})
	if len(res.Data) != 2 || !slices.Equal(f32(res.Data[0].Embedding), short[0]) || len(res.Data[1].Embedding) != 32 {
		t.Errorf("token arrays with 32 dimensions: %d results", len(res.Data))
	}
	var n float64
	for _, x := range res.Data[1].Embedding {
		n += x * x
	}
	if math.Abs(n-1) > 1e-6 || res.Usage.PromptTokens != int64(len(toks)+2) {
		t.Errorf("norm² %g, usage %+v", n, res.Usage)
	}

	for _, c2 := range []struct {
		body, want string
	}{
		{`{"input": []}`, "must not be empty"},
		{`{"input": 5}`, "string or an array"},
		{`{"model": "tiny"}`, "is required"},
		{`{"input": ["ok", 3]}`, "input[1]"},
		{`{"input": [[101, 99999]]}`, "outside the vocabulary"},
		{`{"input": "x", "encoding_format": "int8"}`, "encoding_format"},
		{`{"input": "x", "dimensions": 4096}`, "dimensions"},
		{`{"input": "` + strings.Repeat("word ", 100) + `"}`, "more than the 64"},
	} {
		var apiErr *openai.Error
		err := c.Post(ctx, "embeddings", json.RawMessage(c2.body), nil)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.Message, c2.want) {
			t.Errorf("%s: %v, want 400 and %q", c2.body, err, c2.want)
		}
	}
}

func post(t *testing.T, url, body string, out any) int {
	t.Helper()
	r, err := http.Post(url, "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode == http.StatusOK {
		if err := json.NewDecoder(r.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return r.StatusCode
}

// Ollama's /api/embed: unit vectors, long inputs truncated unless truncate is false; /api/embeddings: one raw
// vector.
func TestOllama(t *testing.T) {
	m := load(t, "tiny-bert", runtime.Options{Ctx: 32})
	s := serve(t, m)
	long := strings.Repeat("word ", 100)
	var res embedapi.OllamaResponse
	if code := post(t, s.URL+"/api/embed", `{"model": "tiny", "input": ["a b", "`+long+`"]}`, &res); code != 200 ||
		len(res.Embeddings) != 2 || res.PromptEvalCount != 4+32 {
		t.Errorf("status %d, %d vectors, %d tokens", code, len(res.Embeddings), res.PromptEvalCount)
	}
	want, _ := m.Embed(context.Background(), []string{"a b"}, runtime.EmbedOptions{})
	if !slices.Equal(res.Embeddings[0], want[0]) {
		t.Error("/api/embed differs from Model.Embed")
	}
	if code := post(t, s.URL+"/api/embed", `{"input": "`+long+`", "truncate": false}`, &res); code != 400 {
		t.Errorf("truncate false: status %d", code)
	}
	if code := post(t, s.URL+"/api/embed", `{"input": [[1, 2]]}`, &res); code != 400 {
		t.Errorf("tokens to Ollama: status %d", code)
	}
	var old embedapi.OllamaLegacyResponse
	raw, _ := m.Embed(context.Background(), []string{"a b"}, runtime.EmbedOptions{Normalize: runtime.NormNone})
	if code := post(t, s.URL+"/api/embeddings", `{"prompt": "a b"}`, &old); code != 200 || !slices.Equal(old.Embedding, raw[0]) {
		t.Errorf("/api/embeddings: status %d", code)
	}
}

// /v1/rerank orders the documents by the reranker's scores, as Model.Rerank gives them; top_n, documents, TEI.
func TestRerank(t *testing.T) {
	m := load(t, "tiny-bert-reranker", runtime.Options{})
	s := serve(t, m)
	docs := []string{"alpha beta", "gamma", "delta epsilon zeta", "", "eta theta"}
	scores, err := m.Rerank(context.Background(), "alpha", docs)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"query": "alpha", "documents": docs, "top_n": 3, "return_documents": true})
	var res embedapi.RerankResponse
	if code := post(t, s.URL+"/v1/rerank", string(body), &res); code != 200 || len(res.Results) != 3 || res.Usage.PromptTokens == 0 {
		t.Fatalf("status %d: %+v", code, res)
	}
	for i, r := range res.Results {
		if r.Index != runtime.RankOrder(scores)[i] || r.RelevanceScore != scores[r.Index] || r.Document.Text != docs[r.Index] {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	var tei []embedapi.TEIResult
	body, _ = json.Marshal(map[string]any{"query": "alpha", "texts": docs, "return_text": true})
	if code := post(t, s.URL+"/v1/rerank", string(body), &tei); code != 200 || len(tei) != len(docs) || tei[0].Score != scores[tei[0].Index] || tei[0].Text == "" && docs[tei[0].Index] != "" {
		t.Errorf("TEI: status %d: %+v", code, tei)
	}
	for _, bad := range []string{`{"documents": ["a"]}`, `{"query": "q", "documents": []}`, `{"query": "q", "documents": "a"}`,
		`{"query": "q", "documents": ["a"], "top_n": -1}`} {
		if code := post(t, s.URL+"/v1/rerank", bad, &res); code != 400 {
			t.Errorf("%s: status %d", bad, code)
		}
	}
	emb := load(t, "tiny-bert", runtime.Options{})
	if code := post(t, serve(t, emb).URL+"/v1/rerank", `{"query": "q", "documents": ["a"]}`, &res); code != http.StatusNotImplemented {
		t.Errorf("rerank on an embedding model: status %d", code)
	}
}
