package model_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/model"
)

// mib is a size as llama.cpp logs it: MiB with two decimals.
func mib(b int64) string { return fmt.Sprintf("%.2f", float64(b)/(1<<20)) }

// llamaKV is a llama.cpp KV cache as it logs it (llama_kv_cache: size = …, K (f16): …, V (f16): …), summed over
// the non-SWA and SWA caches, in MiB with two decimals.
type llamaKV struct {
	ctx, seqs, ubatch int
	k, v              string
}

// TestKVMemoryLlamaCpp loads tiny synth models and holds model.KVMemory to the sizes llama.cpp allocates for the
// same files (F16 cache, llama-server's defaults: swa_full off, one stream per sequence), measured with the
// native build's llama_init_from_model (n_ctx, n_seq_max, n_ubatch = n_batch; the log's K and V MiB): gpt-oss
// and gemma2 keep only window + ubatch cells on their sliding-window layers, deepseek2 keeps one compressed row
// per cell and no values. It also checks the layers' cache shapes the loaders report.
func TestKVMemoryLlamaCpp(t *testing.T) {
	for _, tc := range []struct {
		preset string
		shapes []model.KVShape
		sizes  []llamaKV
	}{
		{"tiny-gpt-oss", []model.KVShape{{Heads: 2, KSize: 64, VSize: 64, Window: 8}, {Heads: 2, KSize: 64, VSize: 64}},
			[]llamaKV{{32768, 1, 512, "8.19", "8.19"}, {32768, 4, 512, "8.75", "8.75"}, {5000, 1, 256, "1.37", "1.37"}}},
		// gemma2's window on layer 0 of 2 (pattern 2), llama.cpp's iswa cache as for gpt-oss.
		{"tiny-gemma2", []model.KVShape{{Heads: 2, KSize: 64, VSize: 64, Window: 8}, {Heads: 2, KSize: 64, VSize: 64}},
			[]llamaKV{{32768, 1, 512, "8.19", "8.19"}, {32768, 4, 512, "8.75", "8.75"}, {5000, 1, 256, "1.37", "1.37"}}},
		{"tiny-deepseek2", []model.KVShape{{Heads: 1, KSize: 80, VSize: 64, VInK: true}, {Heads: 1, KSize: 80, VSize: 64, VInK: true}},
			[]llamaKV{{32768, 1, 512, "10.00", "0.00"}, {32768, 4, 512, "10.00", "0.00"}, {5000, 1, 256, "1.56", "0.00"}}},
		{"tiny-qwen3moe", []model.KVShape{{Heads: 2, KSize: 64, VSize: 64}, {Heads: 2, KSize: 64, VSize: 64}},
			[]llamaKV{{32768, 1, 512, "16.00", "16.00"}, {32768, 4, 512, "16.00", "16.00"}, {5000, 1, 256, "2.50", "2.50"}}},
	} {
		t.Run(tc.preset, func(t *testing.T) {
			hp := loadHParams(t, synth.Options{Preset: tc.preset, Type: quant.F16, Seed: 1})
			if fmt.Sprint(hp.KV) != fmt.Sprint(tc.shapes) {
				t.Errorf("layer caches %+v, want %+v", hp.KV, tc.shapes)
			}
			for _, s := range tc.sizes {
				k, v := model.KVMemory(hp, s.ctx, s.seqs, s.ubatch, 2)
				// llama.cpp logs each of its two caches rounded: compare within their rounding.
				if math.Abs(float64(k)/(1<<20)-atof(s.k)) > 0.011 || math.Abs(float64(v)/(1<<20)-atof(s.v)) > 0.011 {
					t.Errorf("ctx %d, %d seqs, ubatch %d: K %s V %s MiB, llama.cpp %s and %s", s.ctx, s.seqs, s.ubatch, mib(k), mib(v), s.k, s.v)
				}
			}
		})
	}
}

func atof(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// TestKVMemoryRealShapes checks the formula at 32k context on the caches of gpt-oss-20b and DeepSeek-V2-Lite
// against llama.cpp's figures for files with those models' attention (synth presets gpt-oss-20b and
// deepseek-v2-lite with 4 experts of 32, a 512-token vocabulary; F16 cache, one sequence, ubatch 512):
// gpt-oss-20b 384 + 9 MiB of K and as much V (a full cache would be 1536 MiB), DeepSeek-V2-Lite 972 MiB of K
// and none of V (its 16 heads of 192 + 128 as plain attention would be 8640 MiB).
func TestKVMemoryRealShapes(t *testing.T) {
	oss := make([]model.KVShape, 24)
	for l := range oss {
		oss[l] = model.KVShape{Heads: 8, KSize: 64, VSize: 64}
		if l%2 == 0 {
			oss[l].Window = 128
		}
	}
	ds := make([]model.KVShape, 27)
	for l := range ds {
		ds[l] = model.KVShape{Heads: 1, KSize: 576, VSize: 512, VInK: true}
	}
	for _, tc := range []struct {
		name   string
		shapes []model.KVShape
		k, v   string
	}{{"gpt-oss-20b", oss, "393.00", "393.00"}, {"deepseek-v2-lite", ds, "972.00", "0.00"}} {
		k, v := model.KVMemory(&model.HParams{Layers: len(tc.shapes), KV: tc.shapes}, 32768, 1, 512, 2)
		if mib(k) != tc.k || mib(v) != tc.v {
			t.Errorf("%s: K %s V %s MiB, llama.cpp %s and %s", tc.name, mib(k), mib(v), tc.k, tc.v)
		}
	}
}

// loadHParams writes a synth model and loads it on the CPU backend.
func loadHParams(t *testing.T, opts synth.Options) *model.HParams {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := synth.Write(path, opts); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	m, err := model.Load(f, be, model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m.HParams()
}

// TestKVShortConv checks the caches of lfm2's layers: its short convolutions keep one F32 row of their inputs
// per cell, read 3 cells back (the window of their taps), whatever the cache's type, and count nothing in
// llama.cpp's KV cache (their state is its recurrent memory), which holds the two attention layers' cells.
func TestKVShortConv(t *testing.T) {
	hp := loadHParams(t, synth.Options{Preset: "tiny-lfm2", Type: quant.F16, Seed: 1})
	conv := model.KVShape{Heads: 1, KSize: 256, VInK: true, Window: 3, Conv: true}
	attn := model.KVShape{Heads: 2, KSize: 64, VSize: 64}
	if want := []model.KVShape{conv, attn, conv, attn, conv}; fmt.Sprint(hp.KV) != fmt.Sprint(want) {
		t.Errorf("layer caches %+v, want %+v", hp.KV, want)
	}
	if w := hp.MaxWindow(); w != 3 {
		t.Errorf("MaxWindow %d, want the convolutions' 3 taps", w)
	}
	k, v := model.KVMemory(hp, 32768, 1, 512, 2)
	if want := int64(32768 * 2 * 64 * 2 * 2); k != want || v != want {
		t.Errorf("KVMemory: K %d V %d bytes, want %d each (the attention layers only)", k, v, want)
	}
	// 64 rows everywhere; the convolutions' rows are F32 in a Q8_0 cache: 3·64·256·4 bytes, and 2·64·2·(2·34)
	// for the attention layers' keys and values.
	if got, want := model.KVCacheBytes(hp, 64, 64, quant.Q8_0), int64(3*64*256*4+2*2*64*2*68); got != want {
		t.Errorf("KVCacheBytes with a q8_0 cache: %d, want %d", got, want)
	}
}

// TestKVShortConvWindow: an lfm2 file with a sliding window uses it on every attention layer (llama.cpp's
// is_swa for the layers that are not recurrent), never on the convolutions, whose window stays their taps.
func TestKVShortConvWindow(t *testing.T) {
	spec := tinySpec(t, "tiny-lfm2")
	spec.KV = append(spec.KV, gguf.KV{Key: "lfm2.attention.sliding_window", Value: gguf.NewUint32(16)})
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := gguf.WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hp, err := model.Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.KVShape{{Heads: 1, KSize: 256, VInK: true, Window: 3, Conv: true}, {Heads: 2, KSize: 64, VSize: 64, Window: 16}}
	if fmt.Sprint(hp.KV) != fmt.Sprint(want) {
		t.Errorf("layer caches %+v, want %+v", hp.KV, want)
	}
}
