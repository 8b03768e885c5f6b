package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

const storiesModel = "stories260K-Q8_0.gguf"

// TestConcurrentSessions runs 8 sessions over one Model at once (run it with -race) and checks that each
// produces what the same session produces alone.
func TestConcurrentSessions(t *testing.T) {
	m := load(t, storiesModel)
	const n = 8
	prompts := []string{"Once upon a time", "Lily had a ball", "The cat", "One day", "Tom was", "The sun", "A bird", "She said"}
	run := func(i int) ([]int32, error) {
		s, err := m.NewSession(runtime.SessionOptions{Ctx: 64})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		ids, _, err := collect(s.Generate(context.Background(), prompts[i], runtime.GenerateOptions{MaxTokens: 24, Sampling: seeded(uint64(i))}))
		return ids, err
	}
	want := make([][]int32, n)
	for i := range want {
		var err error
		if want[i], err = run(i); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]int32, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = run(i) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !equalIDs(got[i], want[i]) {
			t.Errorf("session %d: concurrent %v, sequential %v", i, got[i], want[i])
		}
	}
}

// TestSeededRepeats: the same seed gives the same tokens on every run, a fresh session or the same one.
func TestSeededRepeats(t *testing.T) {
	m := load(t, storiesModel)
	opt := runtime.GenerateOptions{MaxTokens: 40, Sampling: seeded(42)}
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	a, _ := generate(t, s, "Once upon a time", opt)
	b, _ := generate(t, s, "Once upon a time", opt)
	c, _ := generate(t, session(t, m, runtime.SessionOptions{Ctx: 128}), "Once upon a time", opt)
	if !equalIDs(a, b) || !equalIDs(a, c) {
		t.Errorf("seed 42 gave different tokens:\n%v\n%v\n%v", a, b, c)
	}
	if s.Stats().Seed != 42 {
		t.Errorf("Stats().Seed = %d, want 42", s.Stats().Seed)
	}
	d, _ := generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 40, Sampling: seeded(43)})
	if equalIDs(a, d) {
		t.Error("seeds 42 and 43 gave the same 40 tokens")
	}
	r := sample.Defaults()
	generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 1, Sampling: &r})
	if s.Stats().Seed == sample.RandomSeed {
		t.Error("a random seed was not reported")
	}
}

// TestCancel cancels the context while a token is being handed out: no further token comes, the stream ends
// with context.Canceled, and the session goes on to produce exactly what a fresh one does.
func TestCancel(t *testing.T) {
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after int
	var cancelled bool
	var err error
	for tok, e := range s.Generate(ctx, "Once upon a time", runtime.GenerateOptions{MaxTokens: 50, Sampling: greedy()}) {
		if e != nil {
			err = e
			break
		}
		if cancelled {
			after++
		}
		if tok.ID >= 0 && !cancelled && s.Stats().Generated == 5 {
			cancel()
			cancelled = true
		}
	}
	if !errors.Is(err, context.Canceled) || after != 0 {
		t.Fatalf("after cancel: %d more tokens, error %v; want 0 and context.Canceled", after, err)
	}
	if st := s.Stats(); st.Stop != runtime.StopCancelled || st.Generated != 5 {
		t.Errorf("stats after cancel: %+v", st)
	}
	got, _ := generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 20, Sampling: greedy()})
	want, _ := generate(t, session(t, m, runtime.SessionOptions{Ctx: 128}), "Once upon a time", runtime.GenerateOptions{MaxTokens: 20, Sampling: greedy()})
	if !equalIDs(got, want) {
		t.Errorf("after a cancel: %v, fresh session %v", got, want)
	}
	// A context cancelled before the start stops before evaluating anything.
	pos := s.Pos()
	_, _, err = collect(s.Generate(ctx, "A different prompt entirely", runtime.GenerateOptions{MaxTokens: 5}))
	if !errors.Is(err, context.Canceled) || s.Pos() > pos {
		t.Errorf("cancelled before the start: %v, position %d → %d", err, pos, s.Pos())
	}
}

// TestBreakStops: leaving the loop stops generation; the session stays usable.
func TestBreakStops(t *testing.T) {
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	n := 0
	for range s.Generate(context.Background(), "Once upon a time", runtime.GenerateOptions{Sampling: greedy()}) {
		if n++; n == 3 {
			break
		}
	}
	if st := s.Stats(); st.Stop != runtime.StopCancelled || st.Generated != 3 {
		t.Errorf("stats after break: %+v", st)
	}
	generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 3})
}

// TestChatPrefixReuse: a second chat turn evaluates only the tokens after the longest common prefix with the
// cache, which covers the whole first turn's prompt, and answers exactly as a fresh session given the whole
// conversation.
func TestChatPrefixReuse(t *testing.T) {
	for _, name := range []string{storiesModel, "rand-qwen3-chat-q8_0.gguf"} {
		t.Run(name, func(t *testing.T) {
			if raceEnabled && name != storiesModel {
				t.Skip("a 151669-token vocabulary is slow under the race detector")
			}
			m := load(t, name)
			opt := runtime.GenerateOptions{MaxTokens: 8, Sampling: greedy()}
			so := runtime.SessionOptions{Ctx: 512, System: "You tell storiesModel.", TemplateVars: map[string]any{"enable_thinking": false}}
			s := session(t, m, so)
			if _, _, err := collect(s.Chat(context.Background(), "Tell me a story.", opt)); err != nil {
				t.Fatal(err)
			}
			first := s.Stats()
			cached := append([]int32(nil), s.Tokens()...)
			ids2, _, err := collect(s.Chat(context.Background(), "Another one, please.", opt))
			if err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			prompt2 := s.Tokens()[:st.PromptTokens]
			lcp := 0
			for lcp < len(cached) && lcp < len(prompt2) && cached[lcp] == prompt2[lcp] {
				lcp++
			}
			if st.CachedTokens != lcp || st.CachedTokens < first.PromptTokens-8 {
				t.Errorf("turn 2 reused %d tokens; common prefix %d, turn 1 prompt %d", st.CachedTokens, lcp, first.PromptTokens)
			}
			t.Logf("turn 1: %d prompt tokens; turn 2: %d prompt tokens, %d evaluated", first.PromptTokens, st.PromptTokens, st.PromptTokens-st.CachedTokens)

			// A fresh session given the same history answers the same, from the pages of the first session's
			// conversation that the engine's prefix cache shares (all full pages before the last prompt token).
			f := session(t, m, so)
			h := s.History()
			f.SetHistory(h[:len(h)-2])
			ids, _, err := collect(f.Chat(context.Background(), "Another one, please.", opt))
			if err != nil {
				t.Fatal(err)
			}
			if fs := f.Stats(); fs.CachedTokens != (st.PromptTokens-1)/runtime.PageSize*runtime.PageSize || fs.PromptTokens != st.PromptTokens {
				t.Errorf("fresh session: %+v", fs)
			}
			if !equalIDs(ids, ids2) {
				t.Errorf("reused cache answered %v, fresh session %v", ids2, ids)
			}
			if got := len(s.History()); got != 5 {
				t.Errorf("history has %d messages after two turns, want 5", got)
			}
		})
	}
}

// TestStopStrings: a stop string spanning tokens ends generation; its text and what follows are not returned;
// text before it is, and no text that could start a stop string leaks out early.
func TestStopStrings(t *testing.T) {
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	_, full := generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 32, Sampling: greedy()})
	i := strings.Index(full, " Lily")
	if i < 0 {
		t.Fatalf("continuation %q has no ' Lily'", full)
	}
	for _, stop := range []string{"ily. S", " Lil", "named Lily"} {
		j := strings.Index(full, stop)
		var pieces []string
		for tok, err := range s.Generate(context.Background(), "Once upon a time", runtime.GenerateOptions{MaxTokens: 32, Sampling: greedy(), Stop: []string{"zzz", stop}}) {
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, tok.Text)
		}
		got := strings.Join(pieces, "")
		if got != full[:j] || s.Stats().Stop != runtime.StopString {
			t.Errorf("stop %q: got %q (%v), want %q", stop, got, s.Stats().Stop, full[:j])
		}
	}
	// A held-back prefix of a stop string that never completes comes out at the end.
	_, got := generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 32, Sampling: greedy(), Stop: []string{full[len(full)-3:] + "zz"}})
	if got != full {
		t.Errorf("with an unmatched stop string: %q, want %q", got, full)
	}
}

func TestStopMatcher(t *testing.T) {
	for _, tc := range []struct {
		stops  []string
		pieces []string
		want   []string // released after each piece
		match  int      // piece index where a stop matched (-1: none)
	}{
		{[]string{"END"}, []string{"ab", "cE", "N", "x"}, []string{"ab", "c", "", "ENx"}, -1},
		{[]string{"END"}, []string{"ab", "cE", "ND", "x"}, []string{"ab", "c", ""}, 2},
		{[]string{"END", "NDX"}, []string{"aEN", "DX"}, []string{"a", ""}, 1},
		{[]string{"abc"}, []string{"ababab", "c"}, []string{"abab", ""}, 1},
		{nil, []string{"a", "b"}, []string{"a", "b"}, -1},
		{[]string{""}, []string{"a"}, []string{"a"}, -1},
		{[]string{"日本"}, []string{"x日", "本y"}, []string{"x", ""}, 1},
	} {
		got, match := runtime.StopMatch(tc.stops, tc.pieces)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || match != tc.match {
			t.Errorf("stops %q pieces %q: released %q match %d; want %q %d", tc.stops, tc.pieces, got, match, tc.want, tc.match)
		}
	}
}

// TestContextLimits: a prompt over the context is ErrContextFull; generation stops at a full context; with
// context shift a long prompt is cut and generation runs past the context size.
func TestContextLimits(t *testing.T) {
	m := load(t, storiesModel)
	long := strings.Repeat("Lily had a little red ball. ", 10)
	s := session(t, m, runtime.SessionOptions{Ctx: 32})
	if _, _, err := collect(s.Generate(context.Background(), long, runtime.GenerateOptions{})); !errors.Is(err, runtime.ErrContextFull) {
		t.Errorf("over-long prompt: %v, want ErrContextFull", err)
	}
	ids, _ := generate(t, s, "Once upon a time", runtime.GenerateOptions{Sampling: greedy(), IgnoreEOG: true})
	if st := s.Stats(); st.Stop != runtime.StopContext || st.PromptTokens+len(ids) != 33 {
		t.Errorf("generation in a context of 32: %d tokens, %+v", len(ids), st)
	}

	sh := session(t, m, runtime.SessionOptions{Ctx: 32, ContextShift: true, Keep: 2})
	ids, _ = generate(t, sh, long, runtime.GenerateOptions{MaxTokens: 60, Sampling: greedy(), IgnoreEOG: true})
	st := sh.Stats()
	if len(ids) != 60 || st.Stop != runtime.StopMaxTokens || st.Shifts < 2 {
		t.Errorf("with context shift: %d tokens, %+v", len(ids), st)
	}
	// The kept start: BOS and the first two prompt tokens.
	want, _ := m.Tokenizer.Encode(long, tokenizer.EncodeOptions{AddSpecial: true})
	if got := sh.Tokens()[:3]; !equalIDs(got, want[:3]) {
		t.Errorf("kept tokens %v, want %v", got, want[:3])
	}
}

// compileDraftSizes evaluates a pass of every size lookup drafts can make (1 + up to DefaultDraftMax rows, all
// logits) once, so that the programs are built: which sizes a generation takes depends on the passes' timings
// (draftSizer), and a size's first pass compiles its program.
func compileDraftSizes(t *testing.T, s *runtime.Session) {
	t.Helper()
	batch := make([]int32, runtime.DefaultDraftMax+1)
	for i := range batch {
		batch[i] = int32(1 + i)
	}
	for k := 1; k <= len(batch); k++ {
		if _, err := s.Eval(batch[:k], true); err != nil {
			t.Fatal(err)
		}
		if err := s.Truncate(0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenerateAllocs: the generation loop allocates nothing per token (the string arena takes one allocation
// per 4 KiB of text, which these lengths stay under), with logprobs, prompt lookup and a draft model too.
func TestGenerateAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	m, draft := load(t, storiesModel), load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 256})
	for _, c := range []struct {
		top           int
		lookup, draft bool
	}{{0, false, false}, {5, false, false}, {0, true, false}, {0, false, true}} {
		allocs := func(n int) float64 {
			opt := runtime.GenerateOptions{MaxTokens: n, Sampling: greedy(), IgnoreEOG: true, Logprobs: c.top > 0, TopLogprobs: c.top}
			switch {
			case c.lookup:
				opt.Speculation = &runtime.Speculation{Lookup: 3}
			case c.draft:
				opt.Speculation = &runtime.Speculation{Draft: draft}
			}
			generate(t, s, repeating, opt) // compile the programs
			if c.lookup {
				compileDraftSizes(t, s)
			}
			return testing.AllocsPerRun(3, func() {
				for range s.Generate(context.Background(), repeating, opt) {
				}
			})
		}
		short, long := allocs(8), allocs(100)
		if long > short+1 {
			t.Errorf("%+v: 8 tokens: %v allocations, 100 tokens: %v", c, short, long)
		}
		t.Logf("%+v: allocations per generation: %v (8 tokens), %v (100 tokens)", c, short, long)
	}
}

// BenchmarkDecodeStep is one token of the decode loop on stories260K: a forward pass of one token and the
// default sampler chain. It must report 0 allocs/op.
func BenchmarkDecodeStep(b *testing.B) {
	m := load(b, storiesModel)
	s := session(b, m, runtime.SessionOptions{Ctx: 128})
	sm, err := sample.New(sample.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	id := []int32{1}
	b.ReportAllocs()
	for b.Loop() {
		if s.Pos() == s.Ctx() {
			s.Truncate(0)
		}
		logits, err := s.Eval(id, false)
		if err != nil {
			b.Fatal(err)
		}
		id[0] = sm.Sample(logits, s.Tokens())
	}
}

// TestLogprobs: Token.Logprob and Token.Top equal a log-softmax computed in float64 from the logits of a
// separate evaluation of the same tokens, the top list sorted and led by the greedy choice.
func TestLogprobs(t *testing.T) {
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	const prompt = "Once upon a time"
	var ids []int32
	var lps []float32
	var tops [][]runtime.TokenLogprob
	for tok, err := range s.Generate(context.Background(), prompt, runtime.GenerateOptions{MaxTokens: 12, Sampling: greedy(), TopLogprobs: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tok.ID)
		lps = append(lps, tok.Logprob)
		tops = append(tops, slices.Clone(tok.Top))
	}
	ref := session(t, m, runtime.SessionOptions{Ctx: 128})
	pids, _ := m.Tokenizer.Encode(prompt, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	all := append(pids, ids[:len(ids)-1]...)
	logits, err := ref.Eval(all, true)
	if err != nil {
		t.Fatal(err)
	}
	vocab := m.HParams().Vocab
	for i, id := range ids {
		row := logits[(len(pids)-1+i)*vocab : (len(pids)+i)*vocab]
		mx := math.Inf(-1)
		for _, x := range row {
			mx = math.Max(mx, float64(x))
		}
		sum := 0.0
		for _, x := range row {
			sum += math.Exp(float64(x) - mx)
		}
		want := func(id int32) float64 { return float64(row[id]) - mx - math.Log(sum) }
		if d := math.Abs(float64(lps[i]) - want(id)); d > 1e-4 {
			t.Errorf("token %d: logprob %g, want %g", i, lps[i], want(id))
		}
		if len(tops[i]) != 5 || tops[i][0].ID != id || tops[i][0].Logprob != lps[i] {
			t.Errorf("token %d (%d): top %v", i, id, tops[i])
		}
		for j, tl := range tops[i] {
			if math.Abs(float64(tl.Logprob)-want(tl.ID)) > 1e-4 || (j > 0 && tl.Logprob > tops[i][j-1].Logprob) {
				t.Errorf("token %d: top %v is not the sorted log-softmax", i, tops[i])
			}
		}
	}
	if _, _, err := collect(s.Generate(context.Background(), prompt, runtime.GenerateOptions{TopLogprobs: runtime.MaxTopLogprobs + 1})); err == nil {
		t.Error("TopLogprobs over the maximum was accepted")
	}
}

// TestStopStringReported: Stats.StopString names the stop string that ended the generation.
func TestStopStringReported(t *testing.T) {
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 128})
	_, full := generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 32, Sampling: greedy()})
	stop := full[4:9]
	generate(t, s, "Once upon a time", runtime.GenerateOptions{MaxTokens: 32, Sampling: greedy(), Stop: []string{"qqq", stop}})
	if st := s.Stats(); st.Stop != runtime.StopString || st.StopString != stop {
		t.Errorf("stats %+v, want stop string %q", st, stop)
	}
}
