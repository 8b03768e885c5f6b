package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/golden/embedding"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
)

// synthModel writes a synth preset (Q8_0) into dir and returns its path; the model's name is the preset.
func synthModel(t testing.TB, dir, preset string) string {
	t.Helper()
	path := filepath.Join(dir, preset+".gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: quant.Q8_0, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	return path
}

// embedServer serves tiny-bert (the default model), the golden synth reranker and stories260K, with a context
// of 64 tokens.
func embedServer(t testing.TB) (*testServer, *embedding.Case) {
	t.Helper()
	c, err := embedding.Load("tiny-bert-reranker-q8_0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	reranker, err := c.Model(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Models: []string{synthModel(t, dir, "tiny-bert"), reranker, modelFile(t, stories)},
		Session: runtime0(64), Parallel: 2}
	return startServer(t, cfg), c
}

// loaded returns the server's model of that name.
func (ts *testServer) loaded(t testing.TB, name string) *runtime.Model {
	t.Helper()
	for _, e := range ts.reg.list() {
		if e.name == name {
			return e.m
		}
	}
	t.Fatalf("model %s is not loaded", name)
	return nil
}

// f32 returns the float32 values a client's float64s stand for (JSON carries a float32's shortest decimal).
func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func fromBase64(t testing.TB, s string) []float32 {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		t.Fatalf("base64 embedding: %v (%d bytes)", err, len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// /v1/embeddings through openai-go gives the vectors Model.Embed gives, as floats and as base64, for strings and
// token arrays; dimensions keep the first values renormalised; usage counts the tokens.
func TestOpenAIEmbeddings(t *testing.T) {
	ts, _ := embedServer(t)
	m := ts.loaded(t, "tiny-bert")
	c := openaiClient(ts)
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
		res, err := c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny-bert", EncodingFormat: format,
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Data) != len(texts) || res.Model != "tiny-bert" || res.Object != "list" ||
			res.Usage.PromptTokens != int64(tokens) || res.Usage.TotalTokens != int64(tokens) {
			t.Fatalf("%s: %d results, model %q, usage %+v", format, len(res.Data), res.Model, res.Usage)
		}
		for i, d := range res.Data {
			got := f32(d.Embedding)
			if format == openai.EmbeddingNewParamsEncodingFormatBase64 {
				var s string
				if err := json.Unmarshal([]byte(d.JSON.Embedding.Raw()), &s); err != nil {
					t.Fatalf("base64: the embedding is %.30s", d.JSON.Embedding.Raw())
				}
				got = fromBase64(t, s)
			}
			if int(d.Index) != i || d.Object != "embedding" || !slices.Equal(got, want[i]) {
				t.Errorf("%s: result %d differs from Model.Embed", format, i)
			}
		}
	}

	// One string; token arrays (taken as they are) with 32 dimensions.
	res, err := c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny-bert",
		Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String(texts[1])}})
	if err != nil || len(res.Data) != 1 || !slices.Equal(f32(res.Data[0].Embedding), want[1]) {
		t.Fatalf("one string: %v", err)
	}
	ids, _ := m.EmbedTokenize("hello world", runtime.EmbedOptions{})
	toks := make([]int64, len(ids))
	for i, id := range ids {
		toks[i] = int64(id)
	}
	res, err = c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny-bert", Dimensions: openai.Int(32),
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokenArrays: [][]int64{toks, toks[1:3]}}})
	if err != nil {
		t.Fatal(err)
	}
	short, _ := m.Embed(ctx, texts[:1], runtime.EmbedOptions{Dimensions: 32})
	if len(res.Data) != 2 || !slices.Equal(f32(res.Data[0].Embedding), short[0]) || len(res.Data[1].Embedding) != 32 {
		t.Fatalf("token arrays with 32 dimensions: %d results", len(res.Data))
	}
	var n, dot float64
	for i, x := range res.Data[0].Embedding {
		n += x * x
		dot += x * float64(want[0][i])
	}
	if math.Abs(n-1) > 1e-5 || res.Usage.PromptTokens != int64(len(toks)+2) {
		t.Errorf("32 dimensions: norm² %g, usage %+v", n, res.Usage)
	}
	// The first 32 values of the full unit vector, renormalised: their dot product with it is their norm.
	if head := math.Sqrt(sumSquares(want[0][:32])); math.Abs(dot-head) > 1e-4 {
		t.Errorf("32 dimensions: dot %g with the full vector, want %g", dot, head)
	}
	res, err = c.Embeddings.New(ctx, openai.EmbeddingNewParams{Model: "tiny-bert",
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokens: toks}})
	if err != nil || len(res.Data) != 1 || !slices.Equal(f32(res.Data[0].Embedding), want[0]) {
		t.Errorf("one token array: %v", err)
	}

	// The request's log line and the metrics count the inputs.
	if logs := ts.logs.String(); !strings.Contains(logs, "path=/v1/embeddings") || !strings.Contains(logs, "inputs=3") {
		t.Errorf("no log line with the inputs:\n%s", logs)
	}
	if _, body := get(t, ts.url+"/metrics"); !strings.Contains(body, "forma_embedding_inputs_total 10") ||
		!strings.Contains(body, `forma_requests_total{api="openai",endpoint="/v1/embeddings",code="200"} 5`) {
		t.Errorf("metrics:\n%s", body)
	}
}

func sumSquares(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

// Malformed embedding and rerank requests are 400s in their API's error shape naming the problem, and a model
// asked for what it does not do says so; never a 5xx.
func TestEmbedBadRequests(t *testing.T) {
	ts, _ := embedServer(t)
	long := strings.Repeat("word ", 100)
	for _, c := range []struct {
		path, body string
		want       string // in the message
		param      string // OpenAI's param, when the shape has one
	}{
		{"/v1/embeddings", `{"input": []}`, "must not be empty", "input"},
		{"/v1/embeddings", `{"input": ""}`, "empty string", "input"},
		{"/v1/embeddings", `{"input": ["a", ""]}`, "input[1] is an empty string", "input[1]"},
		{"/v1/embeddings", `{"input": 5}`, "string or an array, not a number", "input"},
		{"/v1/embeddings", `{"input": {"text": "a"}}`, "string or an array, not an object", "input"},
		{"/v1/embeddings", `{"model": "tiny-bert"}`, `"input" is required`, "input"},
		{"/v1/embeddings", `{"input": ["ok", 3]}`, "input[1] must be a string or an array of token ids", "input[1]"},
		{"/v1/embeddings", `{"input": [[]]}`, "input[0] has no tokens", "input[0]"},
		{"/v1/embeddings", `{"input": ["a", []]}`, "input[1] has no tokens", "input[1]"},
		{"/v1/embeddings", `{"input": [[101, 99999]]}`, "outside the vocabulary", "input"},
		{"/v1/embeddings", `{"input": [[101, -1]]}`, "outside the vocabulary", "input"},
		{"/v1/embeddings", `{"input": [1.5]}`, "must be a string or an array of token ids", "input[0]"},
		{"/v1/embeddings", `{"input": "x", "encoding_format": "int8"}`, "float or base64", "encoding_format"},
		{"/v1/embeddings", `{"input": "x", "encoding_format": 1}`, "expected a string", "encoding_format"},
		{"/v1/embeddings", `{"input": "x", "dimensions": 4096}`, "256 dimensions", "dimensions"},
		{"/v1/embeddings", `{"input": "x", "dimensions": 0}`, "at least 1", "dimensions"},
		{"/v1/embeddings", `{"input": "x", "dimensions": "8"}`, "expected an integer", "dimensions"},
		{"/v1/embeddings", `{"input": "` + long + `"}`, "more than the 64", "input"},
		{"/v1/embeddings", `{"input": "x", "pooling": "max"}`, "unknown field", "pooling"},
		{"/v1/embeddings", `{"input": "x"`, "malformed JSON", ""},
		{"/v1/embeddings", ``, "body is empty", ""},
		{"/v1/embeddings", `{"input": "x", "model": "stories260K-Q8_0"}`, "does not produce embeddings", "model"},
		{"/v1/embeddings", `{"input": "x", "model": "tiny-bert-reranker-q8_0-5"}`, "is a reranker", "model"},
		{"/v1/embeddings", `{"input": "x", "model": "nonesuch"}`, "not loaded", ""},
		{"/embeddings", `{"input": []}`, "must not be empty", "input"},
		{"/api/embed", `{"input": 5}`, "string or an array", ""},
		{"/api/embed", `{"input": [[1, 2]]}`, "input[0] must be a string", ""},
		{"/api/embed", `{"input": "` + long + `", "truncate": false}`, "more than the 64", ""},
		{"/api/embed", `{"input": "x", "dimensions": -1}`, "dimensions", ""},
		{"/api/embed", `{"input": "x", "keep_alive": "soon"}`, "keep_alive", ""},
		{"/api/embed", `{"input": "x", "model": "stories260K-Q8_0"}`, "does not produce embeddings", ""},
		{"/api/embeddings", `{"prompt": 3}`, "expected a string", ""},
		{"/v1/rerank", `{"documents": ["a"]}`, `"query" must be provided`, "query"},
		{"/v1/rerank", `{"query": 1, "documents": ["a"]}`, "expected a string", "query"},
		{"/v1/rerank", `{"query": "q", "documents": []}`, "must not be empty", "documents"},
		{"/v1/rerank", `{"query": "q"}`, `"documents" is required`, "documents"},
		{"/v1/rerank", `{"query": "q", "documents": "a"}`, "array of strings", "documents"},
		{"/v1/rerank", `{"query": "q", "documents": ["a", 2]}`, "documents[1] must be a string", "documents[1]"},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "top_n": -1}`, "must not be negative", "top_n"},
		{"/v1/rerank", `{"query": "q", "documents": ["` + long + `"]}`, "more than the 64", "documents"},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "model": "tiny-bert"}`, "is not a reranker", "model"},
		{"/v1/rerank", `{"query": "q", "documents": ["a"], "model": "stories260K-Q8_0"}`, "is not a reranker", "model"},
		{"/rerank", `{"query": "q", "texts": []}`, "must not be empty", "texts"},
		// Chat requests to an embedding model.
		{"/v1/chat/completions", `{"model": "tiny-bert", "messages": [{"role": "user", "content": "hi"}]}`,
			"is an embedding model", "model"},
		{"/v1/completions", `{"model": "tiny-bert", "prompt": "hi"}`, "is an embedding model", "model"},
		{"/v1/responses", `{"model": "tiny-bert-reranker-q8_0-5", "input": "hi"}`, "is an embedding model", "model"},
		{"/api/chat", `{"model": "tiny-bert", "messages": [{"role": "user", "content": "hi"}]}`, "is an embedding model", ""},
		{"/api/generate", `{"model": "tiny-bert", "prompt": "hi"}`, "is an embedding model", ""},
		{"/v1/messages", `{"model": "tiny-bert", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}`,
			"is an embedding model", ""},
	} {
		t.Run(c.path, func(t *testing.T) {
			status, hdr, body := post(t, ts.url+c.path, c.body)
			want := http.StatusBadRequest
			if c.want == "not loaded" {
				want = http.StatusNotFound
			}
			if status != want || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Fatalf("%s: status %d %s, want %d", c.body, status, body, want)
			}
			msg := ""
			switch apiOf(c.path) {
			case kindOllama:
				var e struct{ Error string }
				decodeJSON(t, body, &e)
				msg = e.Error
			case kindAnthropic:
				var e struct {
					Type  string
					Error struct{ Message string }
				}
				if decodeJSON(t, body, &e); e.Type != "error" {
					t.Errorf("not Anthropic's error shape: %s", body)
				}
				msg = e.Error.Message
			default:
				var e struct {
					Error struct {
						Message, Type string
						Param         *string
					}
				}
				decodeJSON(t, body, &e)
				if e.Error.Type != "invalid_request_error" || c.param != "" && (e.Error.Param == nil || *e.Error.Param != c.param) {
					t.Errorf("OpenAI's error shape with param %q: %s", c.param, body)
				}
				msg = e.Error.Message
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: message %q, want %q in it", c.body, msg, c.want)
			}
		})
	}
}

// Ollama's /api/embed: unit vectors equal to Model.Embed's, long inputs truncated unless truncate is false, no
// input only loads the model; /api/embeddings: one vector that is not normalised.
func TestOllamaEmbed(t *testing.T) {
	ts, _ := embedServer(t)
	m := ts.loaded(t, "tiny-bert")
	long := strings.Repeat("word ", 100)
	var res struct {
		Model           string
		Embeddings      [][]float32
		PromptEvalCount int   `json:"prompt_eval_count"`
		TotalDuration   int64 `json:"total_duration"`
	}
	status, _, body := post(t, ts.url+"/api/embed", `{"model": "tiny-bert", "input": ["a b", "`+long+`"], "keep_alive": "10m"}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	decodeJSON(t, body, &res)
	ab, _ := m.EmbedTokenize("a b", runtime.EmbedOptions{})
	if res.Model != "tiny-bert" || len(res.Embeddings) != 2 || res.PromptEvalCount != len(ab)+64 || res.TotalDuration <= 0 {
		t.Errorf("%d vectors, %d tokens, %+v", len(res.Embeddings), res.PromptEvalCount, res)
	}
	want, _ := m.Embed(context.Background(), []string{"a b", long}, runtime.EmbedOptions{Truncate: true})
	if !slices.Equal(res.Embeddings[0], want[0]) || !slices.Equal(res.Embeddings[1], want[1]) {
		t.Error("/api/embed differs from Model.Embed")
	}
	status, _, body = post(t, ts.url+"/api/embed", `{"input": "a b", "dimensions": 16}`)
	decodeJSON(t, body, &res)
	if status != 200 || len(res.Embeddings) != 1 || len(res.Embeddings[0]) != 16 {
		t.Errorf("dimensions 16: status %d: %s", status, body)
	}
	for _, none := range []string{`{"model": "tiny-bert"}`, `{"input": ""}`, `{"input": []}`} {
		status, _, body = post(t, ts.url+"/api/embed", none)
		if status != 200 || !strings.Contains(body, `"embeddings":[]`) {
			t.Errorf("%s: status %d: %s", none, status, body)
		}
	}
	var old struct{ Embedding []float32 }
	raw, _ := m.Embed(context.Background(), []string{"a b"}, runtime.EmbedOptions{Normalize: runtime.NormNone})
	status, _, body = post(t, ts.url+"/api/embeddings", `{"model": "tiny-bert", "prompt": "a b", "options": {"num_ctx": 64}}`)
	if decodeJSON(t, body, &old); status != 200 || !slices.Equal(old.Embedding, raw[0]) {
		t.Errorf("/api/embeddings: status %d", status)
	}
	if status, _, body = post(t, ts.url+"/api/embeddings", `{"prompt": ""}`); status != 200 || body != "{\"embedding\":[]}\n" {
		t.Errorf("/api/embeddings without a prompt: %d %s", status, body)
	}
	var show struct{ Capabilities []string }
	status, _, body = post(t, ts.url+"/api/show", `{"model": "tiny-bert"}`)
	if decodeJSON(t, body, &show); status != 200 || !slices.Equal(show.Capabilities, []string{"embedding"}) {
		t.Errorf("/api/show of an embedding model: %d %s", status, body)
	}
}

// /v1/rerank orders the golden reranker's documents as llama-server's /v1/rerank did, with scores within the
// golden bound of its; top_n and return_documents; TEI's shape with "texts"; every alias path.
func TestRerank(t *testing.T) {
	ts, c := embedServer(t)
	name := "tiny-bert-reranker-q8_0-5"
	wantOrder := runtime.RankOrder(c.ServerScores)
	top := slices.Max(c.ServerScores)
	type result struct {
		Index          int
		RelevanceScore float32 `json:"relevance_score"`
		Document       *struct{ Text string }
	}
	var res struct {
		Model, Object string
		Usage         struct {
			PromptTokens int `json:"prompt_tokens"`
		}
		Results []result
	}
	tokens := 0
	for _, ids := range c.IDs {
		tokens += len(ids)
	}
	for _, path := range []string{"/v1/rerank", "/v1/reranking", "/rerank", "/reranking"} {
		body, _ := json.Marshal(map[string]any{"model": name, "query": c.Query, "documents": c.Texts})
		status, _, out := post(t, ts.url+path, string(body))
		if status != 200 {
			t.Fatalf("%s: status %d: %s", path, status, out)
		}
		decodeJSON(t, out, &res)
		if res.Model != name || res.Object != "list" || len(res.Results) != len(c.Texts) || res.Usage.PromptTokens != tokens {
			t.Fatalf("%s: %s", path, out)
		}
		for i, r := range res.Results {
			if r.Index != wantOrder[i] || math.Abs(float64(r.RelevanceScore-c.ServerScores[r.Index])) > embedding.MaxScoreDiff*math.Max(1, math.Abs(float64(top))) {
				t.Errorf("%s: result %d is document %d with %g; llama-server: document %d with %g", path, i, r.Index,
					r.RelevanceScore, wantOrder[i], c.ServerScores[wantOrder[i]])
			}
		}
	}
	body, _ := json.Marshal(map[string]any{"query": c.Query, "documents": c.Texts, "top_n": 2, "return_documents": true,
		"model": name})
	if status, _, out := post(t, ts.url+"/v1/rerank", string(body)); status != 200 {
		t.Fatalf("top_n: %d %s", status, out)
	} else if decodeJSON(t, out, &res); len(res.Results) != 2 || res.Results[1].Index != wantOrder[1] ||
		res.Results[1].Document == nil || res.Results[1].Document.Text != c.Texts[wantOrder[1]] {
		t.Errorf("top_n 2 with documents: %s", out)
	}
	var tei []struct {
		Index int
		Score float32
		Text  string
	}
	body, _ = json.Marshal(map[string]any{"query": c.Query, "texts": c.Texts, "return_text": true, "model": name})
	if status, _, out := post(t, ts.url+"/rerank", string(body)); status != 200 {
		t.Fatalf("TEI: %d %s", status, out)
	} else if decodeJSON(t, out, &tei); len(tei) != len(c.Texts) || tei[0].Index != wantOrder[0] || tei[0].Text != c.Texts[wantOrder[0]] {
		t.Errorf("TEI: %s", out)
	}
}

// Embedding requests run beside chat requests (and beside each other) on one server: each gets what it gets
// alone. Under the race detector this checks the server's shared state; runtime's TestEmbedWhileGenerating
// checks one model doing both.
func TestEmbedBesideChat(t *testing.T) {
	ts, _ := embedServer(t)
	m := ts.loaded(t, "tiny-bert")
	texts := []string{"one two three", "four", "five six seven eight nine ten"}
	want, err := m.Embed(context.Background(), texts, runtime.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chatBody := `{"model": "stories260K-Q8_0", "prompt": "Once upon a time", "max_tokens": 12, "temperature": 0}`
	_, _, alone := post(t, ts.url+"/v1/completions", chatBody)
	var first struct{ Choices []struct{ Text string } }
	decodeJSON(t, alone, &first)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 6 {
		wg.Go(func() {
			for k := range 2 {
				if g%3 == 0 {
					_, _, out := post(t, ts.url+"/v1/completions", chatBody)
					var got struct{ Choices []struct{ Text string } }
					if jsonUnmarshal(out, &got) != nil || len(got.Choices) != 1 || got.Choices[0].Text != first.Choices[0].Text {
						errs <- fmt.Errorf("chat beside embeddings: %s", out)
					}
					continue
				}
				i := (g + k) % len(texts)
				body, _ := json.Marshal(map[string]any{"model": "tiny-bert", "input": texts[i:]})
				status, _, out := post(t, ts.url+"/v1/embeddings", string(body))
				var got struct {
					Data []struct{ Embedding []float32 }
				}
				if status != 200 || jsonUnmarshal(out, &got) != nil || len(got.Data) != len(texts)-i {
					errs <- fmt.Errorf("embeddings beside chat: %d %s", status, out)
					continue
				}
				for j, d := range got.Data {
					if !slices.Equal(d.Embedding, want[i+j]) {
						errs <- fmt.Errorf("text %d differs beside chat", i+j)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// More embedding requests at once than Parallel + MaxQueue are refused with 503, not queued without bound.
func TestEmbedAdmission(t *testing.T) {
	q := newEmbeds(1, 1)
	if q.enter() != nil || q.enter() != nil {
		t.Fatal("two slots expected")
	}
	if err := q.enter(); !errors.Is(err, errQueueFull) {
		t.Errorf("third request: %v", err)
	}
	q.leave()
	if q.enter() != nil {
		t.Error("a slot freed is not reused")
	}
}

// embedFuzzEndpoints are the embedding and rerank endpoints.
var embedFuzzEndpoints = []string{"/v1/embeddings", "/api/embed", "/api/embeddings", "/v1/rerank", "/rerank"}

// FuzzEmbedHandlers posts arbitrary bodies to the embedding and rerank endpoints of a server with an embedding
// model and a reranker: no panic, every answer a 200 or a 4xx with a JSON body.
func FuzzEmbedHandlers(f *testing.F) {
	c, err := embedding.Load("tiny-bert-reranker-q8_0")
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	reranker, err := c.Model(dir)
	if err != nil {
		f.Fatal(err)
	}
	s := New(Config{Models: []string{synthModel(f, dir, "tiny-bert"), reranker}, Load: oneThread,
		Session: runtime0(32), Parallel: 2, Logger: slog.New(slog.DiscardHandler)})
	if err := s.Load(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	for i, body := range []string{`{"input": "hello"}`, `{"input": ["a", "b"], "dimensions": 8}`,
		`{"input": [[1, 2, 3]], "encoding_format": "base64"}`, `{"input": ["a", [5]]}`, `{"prompt": "x"}`,
		`{"query": "q", "documents": ["a", "b"], "top_n": 1}`, `{"query": "q", "texts": ["a"], "return_text": true}`,
		`{"input": "x", "truncate": false}`, `{"input": [[]]}`, `{"query": "", "documents": [""]}`} {
		f.Add(uint8(i), []byte(body))
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, endpoint uint8, body []byte) {
		url := embedFuzzEndpoints[int(endpoint)%len(embedFuzzEndpoints)]
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", url, bytes.NewReader(body)))
		if rec.Code != http.StatusOK && (rec.Code < 400 || rec.Code >= 500) {
			t.Fatalf("%s %q: status %d: %s", url, body, rec.Code, rec.Body)
		}
		if err := checkJSONBody(rec.Header().Get("Content-Type"), rec.Body.Bytes()); err != "" {
			t.Fatalf("%s %q: %s: %q", url, body, err, rec.Body)
		}
	})
}
