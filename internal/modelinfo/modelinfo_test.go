package modelinfo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
)

// Parameter counts: llama.cpp's llama_model_n_params (through node-llama-cpp 3.22.1's addon,
// model._model.getTotalParameters()) for the models it loads; node-llama-cpp aborts loading the four no_vocab
// models (a tokenizer assertion), so theirs are summed by hand from the README's shapes, e.g. qwen2:
// 2*(256*2048) + 256 + 2*(256*256*2 + 256*128*2 + 256+128+128 + 3*256*512 + 2*256) = 2230528.
var infoCases = []struct {
	model              string
	params             uint64
	heads, kv, headDim int
	vocab              int
	vocabSrc           string
	bos, eos           int64
	tmpl               bool
	ctx                int
	freqBase           float64
}{
	{"stories260K-F32", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-F16", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-BF16", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-Q8_0", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-Q4_0", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-Q4_1", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-Q5_0", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"stories260K-Q5_1", 292800, 8, 4, 8, 512, "tokenizer.ggml.tokens", 1, 2, false, 128, 10000},
	{"rand-llama-q4_k", 9372928, 4, 2, 64, 32000, "tokenizer.ggml.tokens", 1, 2, false, 4096, 10000},
	{"rand-qwen2-q8_0", 2230528, 4, 2, 64, 2048, "qwen2.vocab_size", -1, -1, false, 4096, 10000},
	{"rand-qwen3-q6_k", 2098688, 4, 2, 64, 2048, "qwen3.vocab_size", -1, -1, false, 4096, 10000},
	{"rand-gemma3-f16", 2723456, 4, 1, 64, 2048, "gemma3.vocab_size", -1, -1, false, 4096, 1e6},
	{"rand-phi3-q5_k", 2360576, 4, 4, 64, 2048, "phi3.vocab_size", -1, -1, false, 4096, 10000},
	{"rand-qwen3-chat-q8_0", 4958048, 4, 2, 8, 151669, "tokenizer.ggml.tokens", 151643, 151645, true, 40960, 1e6},
}

func TestReadTestdata(t *testing.T) {
	dir := testdir.Sub(t, "models")
	for _, c := range infoCases {
		t.Run(c.model, func(t *testing.T) {
			f, err := gguf.Open(filepath.Join(dir, c.model+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			in, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if in.Params != c.params {
				t.Errorf("params %d, llama.cpp %d", in.Params, c.params)
			}
			if in.Heads != c.heads || in.KVHeads != c.kv || in.HeadDim != c.headDim || in.HeadDimV != c.headDim {
				t.Errorf("heads %d/%d dim %d/%d; want %d/%d dim %d", in.Heads, in.KVHeads, in.HeadDim, in.HeadDimV,
					c.heads, c.kv, c.headDim)
			}
			if in.VocabSize != c.vocab || in.VocabSource != c.vocabSrc {
				t.Errorf("vocab %d from %s; want %d from %s", in.VocabSize, in.VocabSource, c.vocab, c.vocabSrc)
			}
			if in.BOS != c.bos || in.EOS != c.eos || in.HasChatTemplate != c.tmpl {
				t.Errorf("bos %d eos %d template %v", in.BOS, in.EOS, in.HasChatTemplate)
			}
			if in.ContextLength != c.ctx || in.RoPE.FreqBase != c.freqBase || in.RoPE.Dims != c.headDim {
				t.Errorf("ctx %d rope %+v", in.ContextLength, in.RoPE)
			}
			// The weights are the file less its header: at most the header's size apart.
			if in.WeightBytes > uint64(in.FileSize) || uint64(in.FileSize)-in.WeightBytes > 8<<20 {
				t.Errorf("weights %d of a %d-byte file", in.WeightBytes, in.FileSize)
			}
			var mixBytes uint64
			var mixCount int
			for _, m := range in.TypeMix {
				mixBytes += m.Bytes
				mixCount += m.Count
			}
			if mixBytes != in.WeightBytes || mixCount != in.TensorCount {
				t.Errorf("type mix adds to %d bytes / %d tensors; want %d / %d", mixBytes, mixCount, in.WeightBytes, in.TensorCount)
			}
			// KV cache, F16: 2 (K and V) * layers * ctx * kv heads * head dim * 2 bytes; gemma3's two
			// sliding-window layers (window 8) keep 8 + 512 cells, rounded up to 768, as llama.cpp's SWA cache.
			m := in.Estimate(1000)
			cells := in.Layers * 1000
			if c.model == "rand-gemma3-f16" {
				cells = 2*768 + 1000
			}
			if want := uint64(2 * cells * c.kv * c.headDim * 2); m.KVCache != want || m.Context != 1000 {
				t.Errorf("KV cache at 1000: %d, want %d", m.KVCache, want)
			}
			if m.Total != m.Weights+m.KVCache+m.Compute || m.Weights != in.WeightBytes {
				t.Errorf("memory %+v does not add up", m)
			}
			if d := in.Estimate(0); d.Context != c.ctx {
				t.Errorf("default context %d, want %d", d.Context, c.ctx)
			}
		})
	}
}

// A model with per-layer KV head counts, separate K/V head sizes and linear RoPE scaling.
func TestReadVariants(t *testing.T) {
	kvHeads, _ := gguf.NewArray(gguf.TypeInt32, []gguf.Value{gguf.NewInt32(2), gguf.NewInt32(0), gguf.NewInt32(4)})
	f := writeOpen(t, gguf.Spec{KV: []gguf.KV{
		{Key: "general.architecture", Value: gguf.NewString("x")},
		{Key: "x.block_count", Value: gguf.NewUint32(3)},
		{Key: "x.embedding_length", Value: gguf.NewUint32(64)},
		{Key: "x.attention.head_count", Value: gguf.NewUint32(8)},
		{Key: "x.attention.head_count_kv", Value: kvHeads},
		{Key: "x.attention.key_length", Value: gguf.NewUint32(16)},
		{Key: "x.attention.value_length", Value: gguf.NewUint32(8)},
		{Key: "x.rope.scaling.factor", Value: gguf.NewFloat32(4)},
	}, Tensors: []gguf.WriteTensor{{Name: "token_embd.weight", Type: quant.F32, Dims: []uint64{64, 10},
		Data: gguf.BytesData(make([]byte, 64*10*4))}, {Name: "rope_freqs.weight", Type: quant.F32, Dims: []uint64{8},
		Data: gguf.BytesData(make([]byte, 8*4))}}})
	in, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if in.KVHeads != 4 || len(in.KVHeadsLayer) != 3 || in.HeadDim != 16 || in.HeadDimV != 8 {
		t.Errorf("kv heads %d %v, head dims %d/%d", in.KVHeads, in.KVHeadsLayer, in.HeadDim, in.HeadDimV)
	}
	if in.RoPE.FreqScale != 0.25 || in.RoPE.ScalingType != "linear" || in.RoPE.FreqBase != defaultFreqBase ||
		!in.RoPE.FreqFactors {
		t.Errorf("rope %+v", in.RoPE)
	}
	if in.VocabSize != 10 || in.VocabSource != "token_embd.weight rows" || in.Params != 648 {
		t.Errorf("vocab %d from %q, params %d", in.VocabSize, in.VocabSource, in.Params)
	}
	if m := in.Estimate(100); m.KVCache != 100*(2+0+4)*(16+8)*2 {
		t.Errorf("KV cache %d", m.KVCache)
	}
	r, err := NewReport(f, in, 100)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["architecture"] != "x" || back["memory"].(map[string]any)["context"] != 100.0 ||
		len(back["tensors"].([]any)) != 2 {
		t.Errorf("JSON: %s", buf.String())
	}
	buf.Reset()
	in.WriteText(&buf, in.Estimate(100))
	for _, want := range []string{"KV heads 4 (per layer [2 0 4])", "16 (K), 8 (V)", "scaling linear, frequency factors", "memory @ ctx 100"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestReadBadMetadata(t *testing.T) {
	f := writeOpen(t, gguf.Spec{KV: []gguf.KV{
		{Key: "general.architecture", Value: gguf.NewString("x")},
		{Key: "x.block_count", Value: gguf.NewString("three")},
	}})
	if _, err := Read(f); err == nil || !strings.Contains(err.Error(), "x.block_count") {
		t.Errorf("error %v; want one naming x.block_count", err)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n          uint64
		bytes, cnt string
	}{{512, "512 B", "512"}, {1536, "1.50 KiB", "1.54K"}, {1100048384, "1.02 GiB", "1.10B"}} {
		if b, n := FormatBytes(c.n), FormatCount(c.n); b != c.bytes || n != c.cnt {
			t.Errorf("%d: %q %q, want %q %q", c.n, b, n, c.bytes, c.cnt)
		}
	}
}

// writeOpen writes spec to a temporary file and opens it; the file is closed when the test ends.
func writeOpen(t *testing.T, spec gguf.Spec) *gguf.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := gguf.WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func ExampleInfo_Estimate() {
	dir, _ := os.MkdirTemp("", "modelinfo")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "m.gguf")
	if err := synth.Write(path, synth.Options{Preset: "tiny-llama", Type: quant.Q8_0}); err != nil {
		panic(err)
	}
	f, _ := gguf.Open(path)
	defer f.Close()
	in, _ := Read(f)
	m := in.Estimate(1024)
	fmt.Println(in.Architecture, FormatCount(in.Params), "KV cache at 1024:", FormatBytes(m.KVCache))
	// Output: llama 1.71M KV cache at 1024: 1.00 MiB
}

// TestReadMoE holds the parameter counts of synth mixture-of-experts models to llama.cpp's (model_n_params of
// the native build's llama-bench on the same files, e.g. `llama-bench -m tiny-qwen3moe-q4_k.gguf -p 0 -n 1 -o
// json`) and checks the active parameters (the experts a token does not use left out) and the KV cache the
// architectures load: gpt-oss's sliding-window layers keep 128+512 → 768 cells at 32k, deepseek2 one latent row
// per cell and no values. (Preset qwen3-30b-a3b with --layers 2, too slow to write here, gives llama.cpp's
// 1868573184 parameters and 736111104 active: 30.5B and 3.3B with all 48 layers.)
func TestReadMoE(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		preset         string
		typ            quant.Type
		params, active uint64
		experts, used  int
		kv32k          string
	}{
		{"tiny-qwen3moe", quant.Q4_K, 6858240, 2139648, 16, 4, "32.00 MiB"},
		{"tiny-gpt-oss", quant.MXFP4, 3722008, 1353496, 8, 2, "16.38 MiB"},
		{"tiny-deepseek2", quant.Q8_0, 2567552, 1584512, 8, 3, "10.00 MiB"},
	} {
		t.Run(c.preset, func(t *testing.T) {
			path := filepath.Join(dir, c.preset+".gguf")
			if err := synth.Write(path, synth.Options{Preset: c.preset, Type: c.typ, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			in, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if in.Params != c.params || in.ActiveParams != c.active || in.Experts != c.experts || in.ExpertsUsed != c.used {
				t.Errorf("params %d, active %d, %d of %d experts; want %d, %d, %d of %d", in.Params, in.ActiveParams,
					in.ExpertsUsed, in.Experts, c.params, c.active, c.used, c.experts)
			}
			if kv := FormatBytes(in.Estimate(32768).KVCache); kv != c.kv32k {
				t.Errorf("KV cache at 32k: %s, want %s", kv, c.kv32k)
			}
			var buf bytes.Buffer
			in.WriteText(&buf, in.Estimate(0))
			if want := fmt.Sprintf("%d of %d experts", c.used, c.experts); !strings.Contains(buf.String(), want) {
				t.Errorf("text lacks %q:\n%s", want, buf.String())
			}
		})
	}
}

// TestReadLFM2 checks lfm2's estimate: the KV cache of its two attention layers (2 KV heads of 64, K and V in
// F16, 32768 cells) and, for its three short-convolution layers, llama.cpp's recurrent state (2 rows of 256
// F32 each), not a cache per cell.
func TestReadLFM2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny-lfm2.gguf")
	if err := synth.Write(path, synth.Options{Preset: "tiny-lfm2", Type: quant.Q8_0, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Estimate(32768).KVCache, uint64(2*32768*2*(64+64)*2+3*2*256*4); got != want {
		t.Errorf("KV cache at 32k: %d bytes, want %d", got, want)
	}
}
