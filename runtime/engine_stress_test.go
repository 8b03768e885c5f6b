package runtime_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/forma-llm/forma/runtime"
)

// TestEngineStress drives a small pool with several sessions doing random things at once — prompts that share
// prefixes, decode steps, truncations (inside shared pages too), cancellations, closing and reopening — and
// checks every logit row any request returns against the same tokens evaluated from scratch on a model of its
// own: the prefix tree, copy-on-write, eviction and preemption must never change a bit.
func TestEngineStress(t *testing.T) {
	const workers, ctx = 6, 96
	ops := 40
	if testing.Short() {
		ops = 15
	}
	m := loadWith(t, storiesModel, runtime.Options{Parallel: 4, KVSize: ctx + ctx/2, Batch: 24})
	ref := loadWith(t, storiesModel, runtime.Options{Parallel: 1})
	var refMu sync.Mutex
	// reference returns every row's logits of toks evaluated alone from an empty cache.
	reference := func(toks []int32) []float32 {
		refMu.Lock()
		defer refMu.Unlock()
		s, err := ref.NewSession(runtime.SessionOptions{Ctx: ctx})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		out, err := s.Eval(toks, true)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), out...)
	}
	shared := []int32{1, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220}
	V := m.HParams().Vocab
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 99))
			s, err := m.NewSession(runtime.SessionOptions{Ctx: ctx, Batch: 1 + r.IntN(20)})
			if err != nil {
				t.Error(err)
				return
			}
			defer func() { s.Close() }()
			for range ops {
				hist := append([]int32(nil), s.Tokens()...)
				var add []int32
				switch op := r.IntN(10); {
				case op < 3: // a new prompt with the shared prefix
					hist = hist[:0]
					s.Truncate(0)
					add = append(add, shared[:r.IntN(len(shared))+1]...)
					for range r.IntN(30) {
						add = append(add, int32(r.IntN(V)))
					}
				case op < 7: // decode steps
					add = []int32{int32(r.IntN(V))}
				case op < 8: // back up, inside a page or not
					n := r.IntN(len(hist) + 1)
					s.Truncate(n)
					hist = hist[:n]
					add = []int32{int32(r.IntN(V)), int32(r.IntN(V))}
				case op < 9: // a cancelled request
					cctx, cancel := context.WithCancel(context.Background())
					cancel()
					if _, err := s.EvalBatches(cctx, []int32{5, 6, 7}); err == nil {
						t.Error("a cancelled request succeeded")
					}
					continue
				default: // close and start over
					s.Close()
					if s, err = m.NewSession(runtime.SessionOptions{Ctx: ctx, Batch: 1 + r.IntN(20)}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if len(hist)+len(add) > ctx {
					s.Truncate(0)
					hist = hist[:0]
				}
				got, err := s.Eval(add, true)
				if err != nil {
					t.Error(err)
					return
				}
				want := reference(append(hist, add...))
				want = want[len(hist)*V:]
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Errorf("worker %d: after %d cached tokens, row %d of %d added differs", w, len(hist), i/V, len(add))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%+v", m.EngineStats(runtime.KVF16))
}
