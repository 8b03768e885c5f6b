package runtime

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
)

// TestSWARelease runs gpt-oss-shaped sequences (a sliding window of 8 on every other layer) on an engine that
// lets the sliding-window layers' pages go behind the window, and on one that keeps every cell in the pool's
// pages: the logits must be the same bits, while the first holds only the window's pages. The sequences share
// a prompt prefix (pages from the prefix tree, window cells held by two sequences), evaluate prompts in
// chunks longer than the window, decode past several pages, and go back before what they let go (the
// released window is computed again). tiny-lfm2 does the same with its short convolutions' inputs, whose
// cells a token reads 3 back (the cells of its attention layers are all kept).
func TestSWARelease(t *testing.T) {
	for _, c := range []struct {
		preset string
		window int
	}{{"tiny-gpt-oss", 8}, {"tiny-lfm2", 3}} {
		t.Run(c.preset, func(t *testing.T) { swaRelease(t, c.preset, c.window) })
	}
}

func swaRelease(t *testing.T, preset string, window int) {
	path := filepath.Join(t.TempDir(), preset+".gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: quant.Q8_0, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Options{Backend: be, CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if w := m.HParams().MaxWindow(); w != window {
		t.Fatalf("%s has a window of %d, the test expects %d", preset, w, window)
	}
	cfg := engineConfig{ctx: 256, nctx: 256, slots: 3 * 256, seqs: 3, batch: 40, maxQueue: 4, kv: accel.F32}
	keep := cfg
	keep.keepSWA = true
	released, err := newEngine(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer released.close()
	kept, err := newEngine(m, keep)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.close()
	if released.window != window || kept.window != 0 || released.stats.SWAPages >= released.stats.Pages {
		t.Fatalf("window %d/%d, %d sliding-window pages of %d", released.window, kept.window, released.stats.SWAPages,
			released.stats.Pages)
	}

	V := m.HParams().Vocab
	r := rand.New(rand.NewPCG(4, 5))
	prefix := randomTokens(r, V, 37)
	prompts := [][]int32{slices.Concat(prefix, randomTokens(r, V, 21)), slices.Concat(prefix, randomTokens(r, V, 5)),
		randomTokens(r, V, 3)}
	type pair struct{ a, b *sequence }
	seqs := make([]pair, len(prompts))
	for i := range seqs {
		seqs[i] = pair{released.newSequence(256, 24), kept.newSequence(256, 24)}
	}
	same := func(what string, a, b []float32) {
		t.Helper()
		for k := range a {
			if math.Float32bits(a[k]) != math.Float32bits(b[k]) {
				t.Fatalf("%s: logit %d is %g with the window's pages released, %g with every page kept", what, k, a[k], b[k])
			}
		}
	}
	eval := func(i, keepN int, add []int32, all bool) []float32 {
		t.Helper()
		a, err := seqs[i].a.run(context.Background(), keepN, add, all)
		if err != nil {
			t.Fatal(err)
		}
		a = append([]float32(nil), a...)
		b, err := seqs[i].b.run(context.Background(), keepN, add, all)
		if err != nil {
			t.Fatal(err)
		}
		same("sequence "+string(rune('0'+i)), a, b)
		return a
	}
	// The window's pages per sequence: the pages of cells held-window+1…held, and one allocated ahead.
	limit := len(prompts) * ((window-1+PageSize-1)/PageSize + 2)
	next := make([]int32, len(prompts))
	for i, p := range prompts {
		lg := eval(i, 0, p, true)
		next[i] = argmax(lg[len(lg)-V:])
	}
	for step := range 60 {
		for i := range prompts {
			s := seqs[i].a
			next[i] = argmax(eval(i, len(s.toks), []int32{next[i]}, false))
		}
		if h := released.snapshot().SWAHeld; h > limit {
			t.Fatalf("step %d: %d sliding-window pages held, more than the %d the windows span", step, h, limit)
		}
	}
	st := released.snapshot()
	t.Logf("%+v", st)
	if st.PagesHeld <= limit || st.SWAHeld > limit {
		t.Errorf("%d pages held, %d of them with window cells: nothing was released", st.PagesHeld, st.SWAHeld)
	}
	s := seqs[0].a
	if s.row >= 0 && released.in.swaTable[s.row*released.maxPages] != -1 {
		t.Errorf("the first page of sequence 0 (at %d cells) is still in its sliding-window table", s.held)
	}
	// Back to before the released cells: the window there is computed again.
	for i := range prompts {
		back := len(prompts[i]) + 2
		eval(i, back, randomTokens(r, V, 4), true)
	}
}

func randomTokens(r *rand.Rand, vocab, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.IntN(vocab))
	}
	return out
}

func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}
