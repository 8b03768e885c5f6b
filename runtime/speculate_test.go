package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// repeating is a prompt whose continuation repeats it: a story told twice, then its beginning again.
const repeating = "Once upon a time, there was a little girl named Lily. She loved to play outside in the sun. " +
	"One day, she saw a big red ball in the park. Once upon a time, there was a little girl named Lily. She loved to play " +
	"outside in the sun. One day, she saw a big red ball in the park. Once upon a time, there was a little girl"

// TestSpeculativeGreedyEqual: at temperature 0, prompt lookup and a draft model (the model itself, so every draft
// the model would choose stands) give exactly the tokens of plain decoding.
func TestSpeculativeGreedyEqual(t *testing.T) {
	m := load(t, storiesModel)
	draft := load(t, storiesModel)
	opt := runtime.GenerateOptions{MaxTokens: 60, Sampling: greedy(), IgnoreEOG: true}
	want, _ := generate(t, session(t, m, runtime.SessionOptions{Ctx: 128}), repeating, opt)
	for _, sp := range []*runtime.Speculation{{Lookup: 3}, {Lookup: 1, Max: 4}, {Lookup: 3, Min: 6, Max: 8},
		{Draft: draft, Max: 5, PMin: 0.01}, {Draft: draft, Min: 3}} {
		s := session(t, m, runtime.SessionOptions{Ctx: 128})
		o := opt
		o.Speculation = sp
		got, _ := generate(t, s, repeating, o)
		st := s.Stats()
		if !equalIDs(got, want) {
			t.Errorf("%+v: speculative %v, plain %v", *sp, got, want)
		}
		t.Logf("lookup %d, draft %v: %d drafts, %d accepted", sp.Lookup, sp.Draft != nil, st.Drafted, st.Accepted)
		if st.Drafted == 0 || st.Accepted == 0 {
			t.Errorf("%+v: nothing drafted or accepted (%+v)", *sp, st)
		}
		if sp.Draft != nil && sp.PMin < 0.1 && st.Accepted != st.Drafted {
			t.Errorf("the model drafting for itself had %d of %d drafts rejected", st.Drafted-st.Accepted, st.Drafted)
		}
	}
}

// TestLookupDrafts: prompt lookup takes a long story's repeats (it repeats its own phrases) from its drafts,
// with and without a minimum of drafts a step (Min: a step with fewer evaluates the chosen token alone). How
// many drafts a step takes depends on the pass costs the engine has timed, which a busy machine moves (a
// draft costs a row whether it stands or not, and where rows are cheap the sizer takes more of them), so the
// choice itself is TestDraftSizer's, on given costs.
func TestLookupDrafts(t *testing.T) {
	m := load(t, storiesModel)
	for _, sp := range []runtime.Speculation{{Lookup: 3}, {Lookup: 3, Min: 3}} {
		opt := runtime.GenerateOptions{MaxTokens: 400, Sampling: greedy(), IgnoreEOG: true, Speculation: &sp}
		s := session(t, m, runtime.SessionOptions{Ctx: 512})
		if _, _, err := collect(s.Generate(context.Background(), "Once upon a time", opt)); err != nil {
			t.Fatal(err)
		}
		st := s.Stats()
		t.Logf("%+v: %d tokens: %d drafts, %d accepted", sp, st.Generated, st.Drafted, st.Accepted)
		if st.Accepted < st.Generated/4 {
			t.Errorf("%+v: %d of %d tokens came from drafts: the story's repeats should give more", sp, st.Accepted, st.Generated)
		}
	}
}

// TestSpeculativeErrors: a draft model of another vocabulary, speculation with mirostat, negative bounds and a
// minimum above the maximum are refused.
func TestSpeculativeErrors(t *testing.T) {
	m := load(t, storiesModel)
	other := load(t, "rand-qwen2-q8_0.gguf")
	s := session(t, m, runtime.SessionOptions{Ctx: 64})
	so := greedy()
	so.Mirostat = 2
	for _, o := range []runtime.GenerateOptions{
		{MaxTokens: 4, Speculation: &runtime.Speculation{Draft: other}},
		{MaxTokens: 4, Speculation: &runtime.Speculation{Lookup: 2}, Sampling: so},
		{MaxTokens: 4, Speculation: &runtime.Speculation{Lookup: 2, Max: -1}},
		{MaxTokens: 4, Speculation: &runtime.Speculation{Lookup: 2, Min: 20, Max: 4}},
		{MaxTokens: 4, Speculation: &runtime.Speculation{Lookup: 2, Min: 17}}, // above the default maximum
	} {
		if _, _, err := collect(s.Generate(context.Background(), "Once", o)); err == nil {
			t.Errorf("%+v: no error", *o.Speculation)
		}
	}
}

// BenchmarkLookup measures prompt lookup on docs/performance.md's repeating-prompt case: the model's own greedy
// 400-token story from "Once upon a time" as the prompt, then 400 greedy tokens (the answer repeats its
// phrases). Each iteration generates with and without lookup (which first alternating), each on a new session
// of one model, so that both see the same machine within milliseconds (its speed drifts by tens of percent
// over seconds); the programs of every pass size are compiled and the engine has timed its passes
// (draftSizer) after the first iterations. It reports the tokens per second of each generation and their
// ratio, the effective decode speed-up once warm (`forma run` measures the first generation of a process).
func BenchmarkLookup(b *testing.B) {
	m := load(b, storiesModel)
	const n = 400
	story := session(b, m, runtime.SessionOptions{Ctx: 1024})
	_, text := generate(b, story, "Once upon a time", runtime.GenerateOptions{MaxTokens: n, Sampling: greedy()})
	prompt := strings.TrimRight("Once upon a time"+text, "\n")
	plain := runtime.GenerateOptions{MaxTokens: n, Sampling: greedy(), IgnoreEOG: true}
	lookup := plain
	lookup.Speculation = &runtime.Speculation{Lookup: 3}
	var gen [2]time.Duration
	var tokens [2]int
	accepted, i := 0, 0
	for b.Loop() {
		for k := range 2 {
			mode := (i + k) % 2 // 0 plain, 1 lookup
			opt := plain
			if mode == 1 {
				opt = lookup
			}
			s := session(b, m, runtime.SessionOptions{Ctx: 1024})
			generate(b, s, prompt, opt)
			st := s.Stats()
			gen[mode] += st.GenTime
			tokens[mode] += st.Generated
			if mode == 1 {
				accepted += st.Accepted
			}
			s.Close()
		}
		i++
	}
	plainRate, lookupRate := float64(tokens[0])/gen[0].Seconds(), float64(tokens[1])/gen[1].Seconds()
	b.ReportMetric(plainRate, "plain-tokens/s")
	b.ReportMetric(lookupRate, "lookup-tokens/s")
	b.ReportMetric(lookupRate/plainRate, "speedup")
	b.ReportMetric(float64(accepted)/float64(b.N), "accepted/op")
}

// TestSpeculativeWithConstraint: drafts are checked against the grammar at their positions; a constrained
// greedy answer is the same with and without speculation (the model drafting for itself, and prompt lookup).
func TestSpeculativeWithConstraint(t *testing.T) {
	m := load(t, storiesModel)
	draft := load(t, storiesModel)
	schema := []byte(`{"type":"object","properties":{"story":{"type":"string","maxLength":60},"n":{"type":"integer"}},"required":["story","n"]}`)
	opt := runtime.GenerateOptions{MaxTokens: 80, Sampling: greedy(), JSONSchema: schema}
	want, wantText := generate(t, session(t, m, runtime.SessionOptions{Ctx: 256}), repeating, opt)
	for _, sp := range []*runtime.Speculation{{Lookup: 2}, {Draft: draft, PMin: 0.01}} {
		o := opt
		o.Speculation = sp
		s := session(t, m, runtime.SessionOptions{Ctx: 256})
		got, text := generate(t, s, repeating, o)
		if !equalIDs(got, want) {
			t.Errorf("lookup %d, draft %v: %q, plain %q", sp.Lookup, sp.Draft != nil, text, wantText)
		}
		t.Logf("%q: %d drafts, %d accepted", text, s.Stats().Drafted, s.Stats().Accepted)
	}
}
