package grammar_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// qwenTokenizer is Qwen3's tokenizer (151,669 tokens; Qwen3's output rows are 151,936, the rest padding).
func qwenTokenizer(b *testing.B) *tokenizer.Tokenizer {
	f, err := gguf.Open(filepath.Join(testdir.Sub(b, "models"), "rand-qwen3-chat-q8_0.gguf"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.Load(f)
	if err != nil {
		b.Fatal(err)
	}
	return tk
}

// BenchmarkMask measures the per-token work of a constraint on Qwen3's vocabulary: computing the mask and
// applying it to the logits (MaskLogits), then accepting the token (Choose), along the tokens of a document
// valid against a nested schema. Caches are warm (one pass first, as in any generation after the first with
// this schema); the first pass is reported as cold-µs/doc. Each token's time is the least over the passes (the
// machine is shared: the least is the cost without interference); µs/mask is their mean, p99-µs/mask their
// 99th percentile, and raw-µs/mask the plain mean over every pass.
func BenchmarkMask(b *testing.B) {
	tk := qwenTokenizer(b)
	schema, _ := os.ReadFile(filepath.Join("testdata", "nested-schema.json"))
	doc, _ := os.ReadFile(filepath.Join("testdata", "nested-sample.json"))
	g, err := jsonschema.Compile(schema, jsonschema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	v := grammar.FromTokenizer(tk)
	c, err := grammar.Compile(g, v)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := tk.Encode(string(slices.DeleteFunc(doc, func(c byte) bool { return c == '\n' })), tokenizer.EncodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	logits := make([]float32, 151936)
	m := c.NewMatcher()
	best := make([]time.Duration, len(ids))
	var total time.Duration
	pass := func() {
		m.Reset()
		for i, id := range ids {
			t0 := time.Now()
			m.MaskLogits(logits)
			if _, err := m.Choose(id, logits); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			total += d
			if best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
		if !m.Complete() {
			b.Fatal("the document is not complete")
		}
	}
	t0 := time.Now()
	pass()
	cold := time.Since(t0)
	clear(best)
	total = 0
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	var sum time.Duration
	for _, t := range best {
		sum += t
	}
	slices.Sort(best)
	b.ReportMetric(float64(sum.Nanoseconds())/1e3/float64(len(best)), "µs/mask")
	b.ReportMetric(float64(best[len(best)*99/100].Nanoseconds())/1e3, "p99-µs/mask")
	b.ReportMetric(float64(total.Nanoseconds())/1e3/float64(len(ids)*b.N), "raw-µs/mask")
	b.ReportMetric(float64(cold.Microseconds()), "cold-µs/doc")
	b.ReportMetric(float64(len(ids)), "tokens/doc")
	b.SetBytes(int64(len(doc)))
}
