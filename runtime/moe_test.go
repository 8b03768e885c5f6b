package runtime_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
)

// TestBatchInvarianceMoE is TestBatchInvariance on tiny mixture-of-experts models (written here): 16 staggered
// sessions whose prompts are evaluated in chunks beside other sequences' steps must get the bits they get
// alone, though a pass groups its tokens by expert (MatMulID), routes them through TopK and weighs them, and
// gpt-oss's sliding window and sinks and deepseek2's latent attention see cells of several sequences.
func TestBatchInvarianceMoE(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		preset string
		typ    quant.Type
		kv     runtime.KVType
	}{{"tiny-qwen3moe", quant.Q4_K, runtime.KVF16}, {"tiny-gpt-oss", quant.MXFP4, runtime.KVF16}, {"tiny-deepseek2", quant.Q8_0, runtime.KVF16}} {
		t.Run(c.preset+"/"+c.typ.String(), func(t *testing.T) { batchInvariance(t, dir, c.preset, c.typ, c.kv) })
	}
}

// batchInvariance writes a tiny model of preset and checks that 16 staggered sessions, their prompts evaluated in
// chunks beside other sequences' steps, get the bits each gets alone.
func batchInvariance(t *testing.T, dir, preset string, typ quant.Type, kv runtime.KVType) {
	path := filepath.Join(dir, preset+".gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: typ, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	n, steps, maxPrompt := 16, 8, 40
	if testing.Short() {
		n, steps, maxPrompt = 8, 4, 24
	}
	m := loadWith(t, path, runtime.Options{Parallel: 16, Batch: 64})
	sc := scripts(n, m.HParams().Vocab, maxPrompt, steps, 2)
	want := alone(t, path, kv, 128, sc)
	got, errs := make([]trace, n), make([]error, n)
	var wg sync.WaitGroup
	prev := make(chan struct{})
	close(prev)
	for i := range n {
		started, wait := make(chan struct{}), prev
		wg.Go(func() {
			<-wait // start once the previous sequence has its prompt in
			s, err := m.NewSession(runtime.SessionOptions{Ctx: 128, KV: kv, Batch: 8 + 5*i})
			if err != nil {
				errs[i] = err
				close(started)
				return
			}
			defer s.Close()
			got[i], errs[i] = runScript(context.Background(), s, sc[i], started)
		})
		prev = started
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("sequence %d: %v", i, errs[i])
		}
		if d := sameBits(got[i], want[i]); d != "" {
			t.Errorf("sequence %d (prompt %d): batched and alone differ: %s", i, len(sc[i].prompt), d)
		}
	}
	if st := m.EngineStats(kv); st.Tokens <= st.Passes {
		t.Errorf("no pass carried more than one token: %+v", st)
	}
}
