package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
)

var synthMu sync.Mutex

// synthModel writes a synth preset once per test binary and loads it on a 2-thread CPU backend.
func synthModel(t testing.TB, preset string, typ quant.Type, opt runtime.Options) *runtime.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), preset+".gguf")
	synthMu.Lock()
	err := synth.Write(path, synth.Options{Preset: preset, Type: typ, Seed: 9})
	synthMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	opt.Backend, opt.CloseBackend = newCPU(t, 2), true
	m, err := runtime.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// manyTexts returns n texts of varied lengths (1 to about 60 words).
func manyTexts(n int) []string {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards quietly box nine jugs of liquid")
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for j := 0; j < 1+(i*37)%60; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(i+j*j)%len(words)])
		}
		if i%5 == 0 {
			b.WriteString(fmt.Sprintf(", number %d!", i))
		}
		out[i] = b.String()
	}
	return out
}

// 64 texts are embedded in a few batched passes, and each vector is the one the text gets alone: a text sees
// only its own tokens, whatever shares its pass: an encoder (mean pooling), a decoder (last token) and lfm2
// asked for mean pooling (its short convolutions read their sequence's cells of the pass's cache only).
func TestEmbedBatchedEqualsAlone(t *testing.T) {
	if raceEnabled {
		t.Skip("arithmetic, not concurrency: TestEmbedConcurrent runs under the race detector")
	}
	texts := manyTexts(64)
	for _, c := range []struct {
		preset string
		pool   runtime.Pooling
	}{{"tiny-bert", runtime.PoolDefault}, {"tiny-qwen3-embedding", runtime.PoolDefault}, {"tiny-lfm2", runtime.PoolMean}} {
		preset, opt := c.preset, runtime.EmbedOptions{Pooling: c.pool}
		t.Run(preset, func(t *testing.T) {
			if testing.Short() && preset != "tiny-bert" {
				t.Skip("short mode: the encoder only")
			}
			m := synthModel(t, preset, quant.Q8_0, runtime.Options{})
			ctx := context.Background()
			all, err := m.Embed(ctx, texts, opt)
			if err != nil {
				t.Fatal(err)
			}
			st := m.EmbedStats()
			if st.Texts != 64 || st.Passes < 1 || st.Passes > st.Tokens/2048+2 { // at most 2048 tokens a pass
				t.Errorf("64 texts took %d passes (%+v), want a few batched ones", st.Passes, st)
			}
			for i, text := range texts {
				one, err := m.Embed(ctx, []string{text}, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(one[0], all[i]) {
					t.Fatalf("text %d: alone %v…, batched %v…", i, one[0][:4], all[i][:4])
				}
			}
			if got := m.EmbedStats().Passes - st.Passes; got != 64 {
				t.Errorf("one text at a time took %d passes, want 64", got)
			}
		})
	}
}

// Embed calls from several goroutines share the model's passes and get what each gets alone; Close while they
// run ends them with ErrClosed or lets them finish.
func TestEmbedConcurrent(t *testing.T) {
	m := synthModel(t, "tiny-bert", quant.Q8_0, runtime.Options{})
	ctx := context.Background()
	texts := make([]string, 12) // short, so that every pass of one text has the same compiled size
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d of %d", i, len(texts))
	}
	want, err := m.Embed(ctx, texts, runtime.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 3; k++ {
				i := (g*3 + k) % len(texts)
				got, err := m.Embed(ctx, texts[i:i+1], runtime.EmbedOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(got[0], want[i]) {
					t.Errorf("text %d differs when embedded concurrently", i)
				}
				_ = m.EmbedStats()
			}
		}()
	}
	wg.Wait()
	done := make(chan error)
	go func() {
		_, err := m.Embed(ctx, texts, runtime.EmbedOptions{})
		done <- err
	}()
	m.Close()
	if err := <-done; err != nil && !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("Embed across Close: %v", err)
	}
	if _, err := m.Embed(ctx, texts[:1], runtime.EmbedOptions{}); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("Embed after Close: %v", err)
	}
}

// Options: L2 normalisation (the default), none, Matryoshka truncation renormalised, another pooling.
func TestEmbedOptions(t *testing.T) {
	m := synthModel(t, "tiny-bert", quant.F16, runtime.Options{})
	ctx := context.Background()
	texts := []string{"first text", "a second, longer text with more words"}
	raw, err := m.Embed(ctx, texts, runtime.EmbedOptions{Normalize: runtime.NormNone})
	if err != nil {
		t.Fatal(err)
	}
	unit, err := m.Embed(ctx, texts, runtime.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	short, err := m.Embed(ctx, texts, runtime.EmbedOptions{Dimensions: 64})
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if n := norm(unit[i]); math.Abs(n-1) > 1e-6 || norm(raw[i]) < 2 {
			t.Errorf("text %d: norms %g (normalised) and %g (raw)", i, n, norm(raw[i]))
		}
		if len(short[i]) != 64 || math.Abs(norm(short[i])-1) > 1e-6 {
			t.Errorf("text %d: Matryoshka vector of %d values, norm %g", i, len(short[i]), norm(short[i]))
		}
		n := norm(raw[i][:64])
		for j, x := range short[i] {
			if math.Abs(float64(x)-float64(raw[i][j])/n) > 1e-6 {
				t.Fatalf("text %d: value %d is %g, want the raw value renormalised %g", i, j, x, float64(raw[i][j])/n)
			}
		}
	}
	cls, err := m.Embed(ctx, texts, runtime.EmbedOptions{Pooling: runtime.PoolCLS})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(cls[0], unit[0]) {
		t.Error("CLS pooling gave the mean's vector")
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// Bad requests are errors naming the problem; the model stays usable.
func TestEmbedErrors(t *testing.T) {
	m := synthModel(t, "tiny-bert", quant.Q8_0, runtime.Options{Ctx: 32})
	ctx := context.Background()
	long := strings.Repeat("word ", 40)
	if _, err := m.Embed(ctx, []string{"ok", long}, runtime.EmbedOptions{}); !errors.Is(err, runtime.ErrContextFull) ||
		!strings.Contains(err.Error(), "input 1") {
		t.Errorf("a text over the context: %v", err)
	}
	v, err := m.Embed(ctx, []string{long}, runtime.EmbedOptions{Truncate: true})
	if err != nil || len(v) != 1 {
		t.Errorf("truncated: %v", err)
	}
	ids, _ := m.EmbedTokenize(long, runtime.EmbedOptions{Truncate: true})
	if len(ids) != 32 || ids[0] != m.Tokenizer.BOS() || ids[31] != m.Tokenizer.SEP() {
		t.Errorf("truncated tokens %v: want 32 from [CLS] to [SEP]", ids)
	}
	for _, c := range []struct {
		in   [][]int32
		want string
	}{{[][]int32{{101, 102}, {}}, "input 1 has no tokens"}, {[][]int32{{101, 5000, 102}}, "outside the vocabulary"},
		{[][]int32{{101, -1}}, "outside the vocabulary"}} {
		if _, err := m.EmbedTokens(ctx, c.in, runtime.EmbedOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.in, err, c.want)
		}
	}
	for _, opt := range []runtime.EmbedOptions{{Dimensions: 257}, {Dimensions: -1}, {Normalize: 7}} {
		if _, err := m.Embed(ctx, []string{"x"}, opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
	if _, err := m.Embed(ctx, []string{"x"}, runtime.EmbedOptions{Pooling: runtime.PoolRank}); !errors.Is(err, runtime.ErrNoEmbeddings) {
		t.Errorf("rank pooling without a head: %v", err)
	}
	if _, err := m.Rerank(ctx, "q", []string{"d"}); !errors.Is(err, runtime.ErrNoEmbeddings) {
		t.Errorf("Rerank on an embedding model: %v", err)
	}
	if _, err := m.NewSession(runtime.SessionOptions{}); !errors.Is(err, runtime.ErrNoGeneration) {
		t.Errorf("a session on an encoder: %v", err)
	}
	if _, err := m.Embed(ctx, []string{"still fine"}, runtime.EmbedOptions{}); err != nil {
		t.Error(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Embed(cancelled, []string{"x"}, runtime.EmbedOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A chat model's file names no pooling: it embeds when asked for one.
	chat := synthModel(t, "tiny-qwen3", quant.Q8_0, runtime.Options{})
	if _, err := chat.Embed(ctx, []string{"x"}, runtime.EmbedOptions{}); !errors.Is(err, runtime.ErrNoEmbeddings) {
		t.Errorf("no pooling: %v", err)
	}
	if _, err := chat.Embed(ctx, []string{"x"}, runtime.EmbedOptions{Pooling: runtime.PoolMean}); err != nil {
		t.Errorf("mean pooling on a chat model: %v", err)
	}
}

// A reranker scores each document on its own: the same scores one at a time, and llama-server's pair tokens.
func TestRerank(t *testing.T) {
	m := synthModel(t, "tiny-bert-reranker", quant.Q8_0, runtime.Options{})
	ctx := context.Background()
	docs := manyTexts(9)
	if raceEnabled {
		docs = docs[:3]
	}
	scores, err := m.Rerank(ctx, "a quick fox", docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		one, err := m.Rerank(ctx, "a quick fox", []string{d})
		if err != nil {
			t.Fatal(err)
		}
		if one[0] != scores[i] {
			t.Errorf("document %d: %g alone, %g with the others", i, one[0], scores[i])
		}
	}
	ids, _ := m.RerankTokens("ab", "cd")
	q, _ := m.EmbedTokenize("ab", runtime.EmbedOptions{}) // [CLS] ab [SEP]
	d, _ := m.EmbedTokenize("cd", runtime.EmbedOptions{})
	want := append(q, d[1:len(d)-1]...) // [CLS] ab [SEP] cd: no [SEP] after the document (add_eos is false)
	if !slices.Equal(ids, want) {
		t.Errorf("pair tokens %v, want %v", ids, want)
	}
	if _, err := m.Embed(ctx, docs, runtime.EmbedOptions{}); !errors.Is(err, runtime.ErrNoEmbeddings) {
		t.Errorf("Embed on a reranker: %v", err)
	}
	if got := runtime.RankOrder([]float32{0.5, 2, -1, 2}); !slices.Equal(got, []int{1, 3, 0, 2}) {
		t.Errorf("RankOrder: %v", got)
	}
}

// Embedding allocates the result and a few slices per call, not per text: the passes reuse their inputs and
// the host buffer, and no weight is on the Go heap.
func TestEmbedAllocs(t *testing.T) {
	m := synthModel(t, "tiny-bert", quant.Q8_0, runtime.Options{})
	ctx := context.Background()
	count := func(n int) float64 {
		in := make([][]int32, n)
		for i := range in {
			in[i] = []int32{101, int32(200 + i), 102}
		}
		if _, err := m.EmbedTokens(ctx, in, runtime.EmbedOptions{}); err != nil { // compiles the pass
			t.Fatal(err)
		}
		return testing.AllocsPerRun(5, func() {
			if _, err := m.EmbedTokens(ctx, in, runtime.EmbedOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := count(4), count(60)
	if few > 8 || many != few {
		t.Errorf("%g allocations for 4 texts, %g for 60: want a few, the same", few, many)
	}
}

// One decoder model embeds and generates at once: the embedding passes (their own scratch cache) run beside the
// engine's generation passes, and each gets what it gets alone.
func TestEmbedWhileGenerating(t *testing.T) {
	m := synthModel(t, "tiny-qwen3-embedding", quant.Q8_0, runtime.Options{})
	ctx := context.Background()
	texts := manyTexts(6)
	want, err := m.Embed(ctx, texts, runtime.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	greedy := m.Sampling()
	greedy.Temperature = 0
	opt := runtime.GenerateOptions{MaxTokens: 12, Sampling: &greedy, IgnoreEOG: true}
	prompt := []int32{1, 5, 9, 30, 2, 17}
	generate := func() ([]int32, error) {
		s, err := m.NewSession(runtime.SessionOptions{Ctx: 64})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		var ids []int32
		for tok, err := range s.GenerateTokens(ctx, prompt, opt) {
			if err != nil {
				return nil, err
			}
			ids = append(ids, tok.ID)
		}
		return ids, nil
	}
	alone, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 2 {
				if g%2 == 0 {
					ids, err := generate()
					if err != nil || !slices.Equal(ids, alone) {
						t.Errorf("generation beside embeddings: %v %v, alone %v", err, ids, alone)
					}
					continue
				}
				i := (g + k) % len(texts)
				got, err := m.Embed(ctx, texts[i:i+1], runtime.EmbedOptions{})
				if err != nil || !slices.Equal(got[0], want[i]) {
					t.Errorf("text %d embedded beside a generation: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
}
