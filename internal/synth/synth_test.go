package synth

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/modelinfo"
	"github.com/forma-llm/forma/internal/testdir"
)

func write(t *testing.T, opts Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), opts.Preset+".gguf")
	if err := Write(path, opts); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, path string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The tiny presets have the hyperparameters they declare, and their metadata describes their tensors.
func TestTinyPresets(t *testing.T) {
	for _, name := range Presets() {
		if !strings.HasPrefix(name, "tiny-") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p, _ := Lookup(name)
			f := open(t, write(t, Options{Preset: name, Type: quant.Q8_0, Seed: 7}))
			in, err := modelinfo.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			kvHeads, headDim := p.KVHeads, p.HeadDim
			if p.Arch == DeepSeek2 { // latent attention: one compressed key row per cell
				kvHeads, headDim = 1, p.KVLoraRank+p.QKRope
			}
			if in.Architecture != string(p.Arch) || in.Layers != p.Layers || in.Embedding != p.Embd ||
				in.Heads != p.Heads || in.KVHeads != kvHeads || in.HeadDim != headDim || in.FeedForward != p.FFN ||
				in.VocabSize != p.VocabSize || in.ContextLength != p.ContextLength {
				t.Errorf("info %+v does not match preset %+v", in, p)
			}
			emb, err := f.Tensor("token_embd.weight")
			if err != nil || emb.Dims[1] != uint64(p.VocabSize) || emb.Type != quant.Q8_0 {
				t.Errorf("token_embd: %v %v", emb.TensorInfo, err)
			}
			if f.HasTensor("output.weight") == p.Tied {
				t.Errorf("output.weight present: %v, tied: %v", f.HasTensor("output.weight"), p.Tied)
			}
			for _, ti := range f.Tensors {
				// An encoder's position and token-type embeddings stay F32, as llama.cpp's tools keep them; so do
				// vectors, biases, MoE routers and lfm2's convolution kernels.
				f32 := len(ti.Dims) == 1 || strings.Contains(ti.Name, "ffn_gate_inp") || strings.HasSuffix(ti.Name, ".bias") ||
					ti.Name == "position_embd.weight" || ti.Name == "token_types.weight" ||
					strings.HasSuffix(ti.Name, "shortconv.conv.weight")
				if f32 && ti.Type != quant.F32 || !f32 && ti.Type != quant.Q8_0 {
					t.Errorf("%s: %s %v", ti.Name, ti.Type, ti.Dims)
				}
			}
		})
	}
}

// The tiny presets of qwen3, gemma3 and phi3 have the shapes of the testdata models of those architectures,
// whose tensors llama.cpp itself created: the same tensor names and dimensions.
func TestTensorsMatchLlamaCpp(t *testing.T) {
	dir := testdir.Sub(t, "models")
	for preset, model := range map[string]string{"tiny-qwen3": "rand-qwen3-q6_k", "tiny-gemma3": "rand-gemma3-f16",
		"tiny-phi3": "rand-phi3-q5_k", "tiny-qwen2": "rand-qwen2-q8_0", "tiny-llama": "rand-llama-q4_k"} {
		t.Run(preset, func(t *testing.T) {
			ours := open(t, write(t, Options{Preset: preset, Type: quant.Q8_0}))
			ref := open(t, filepath.Join(dir, model+".gguf"))
			shapes := func(f *gguf.File) []string {
				var out []string
				for _, ti := range f.Tensors {
					dims := slices.Clone(ti.Dims)
					if ti.Name == "token_embd.weight" || ti.Name == "output.weight" {
						dims[1] = 0 // vocabulary sizes differ
					}
					if ti.Name != "output.weight" { // tied in one, separate in the other
						out = append(out, fmt.Sprint(ti.Name, dims))
					}
				}
				slices.Sort(out)
				return out
			}
			if a, b := shapes(ours), shapes(ref); !slices.Equal(a, b) {
				t.Errorf("tensors differ from llama.cpp's:\nours %v\nref  %v", a, b)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	opts := Options{Preset: "tiny-llama", Type: quant.Q4_K, Seed: 42}
	a, _ := os.ReadFile(write(t, opts))
	prev := runtime.GOMAXPROCS(1)
	b, _ := os.ReadFile(write(t, opts))
	runtime.GOMAXPROCS(prev)
	opts.Seed = 43
	c, _ := os.ReadFile(write(t, opts))
	if !bytes.Equal(a, b) {
		t.Error("the same seed wrote different files with 1 and many workers")
	}
	if bytes.Equal(a, c) || len(a) != len(c) {
		t.Error("another seed wrote the same file (or one of another size)")
	}
}

// Matrices have the spread asked for (std 1/sqrt(row)), norms are near 1, biases small.
func TestWeightStatistics(t *testing.T) {
	f := open(t, write(t, Options{Preset: "tiny-qwen2", Type: quant.F16, Seed: 3}))
	for _, c := range []struct {
		name      string
		mean, std float64
	}{
		{"blk.0.ffn_down.weight", 0, 1 / math.Sqrt(512)},
		{"blk.1.attn_q.weight", 0, 1 / math.Sqrt(256)},
		{"token_embd.weight", 0, 1 / math.Sqrt(256)},
		{"blk.0.attn_norm.weight", 1, 0.05},
		{"blk.0.attn_k.bias", 0, 0.02},
	} {
		x := tensorValues(t, f, c.name)
		var s, ss float64
		for _, v := range x {
			s += float64(v)
			ss += float64(v) * float64(v)
		}
		mean := s / float64(len(x))
		std := math.Sqrt(ss/float64(len(x)) - mean*mean)
		if math.Abs(mean-c.mean) > 4*c.std/math.Sqrt(float64(len(x))) || math.Abs(std/c.std-1) > 0.15 {
			t.Errorf("%s: mean %.4f std %.4f; want %.4f, %.4f", c.name, mean, std, c.mean, c.std)
		}
	}
}

// With Denormals, an eighth of a matrix's weights are denormal (or zero, the smallest), about two thirds of the output head's, and the
// final norm's weights are scaled up to match.
func TestDenormals(t *testing.T) {
	f := open(t, write(t, Options{Preset: "tiny-llama", Type: quant.BF16, Seed: 3, Denormals: true}))
	for _, c := range []struct {
		name   string
		lo, hi float64 // the share of denormal values
	}{{"blk.0.ffn_down.weight", 0.07, 0.11}, {"output.weight", 0.6, 0.75}, {"output_norm.weight", 0, 0}} {
		x := tensorValues(t, f, c.name)
		den := 0
		for _, v := range x {
			if v != 0 && math.Abs(float64(v)) < 0x1p-126 {
				den++
			}
		}
		if share := float64(den) / float64(len(x)); share < c.lo || share > c.hi {
			t.Errorf("%s: %.3f of the values denormal; want %.2f…%.2f", c.name, share, c.lo, c.hi)
		}
		if c.name == "output_norm.weight" && math.Abs(float64(x[0])/0x1p122-1) > 0.3 {
			t.Errorf("%s: %g; want about 2^122", c.name, x[0])
		}
	}
}

func TestVocabularies(t *testing.T) {
	for _, name := range []string{"tiny-llama", "tiny-qwen2", "tiny-phi3", "llama-3.2-1b", "qwen3-0.6b", "gemma3-1b"} {
		t.Run(name, func(t *testing.T) {
			p, _ := Lookup(name)
			v, err := makeVocab(p)
			if err != nil {
				t.Fatal(err)
			}
			ids := make(map[string]int, len(v.tokens))
			for i, tok := range v.tokens {
				if j, dup := ids[tok]; dup {
					t.Fatalf("token %q at %d and %d", tok, j, i)
				}
				ids[tok] = i
			}
			if len(v.types) != len(v.tokens) || v.scores != nil && len(v.scores) != len(v.tokens) {
				t.Fatalf("%d tokens, %d types, %d scores", len(v.tokens), len(v.types), len(v.scores))
			}
			if v.tokens[v.bos] != p.BOS || v.tokens[v.eos] != p.EOS || v.types[v.bos] != tokControl {
				t.Errorf("bos %d %q eos %d %q", v.bos, v.tokens[v.bos], v.eos, v.tokens[v.eos])
			}
			for i, m := range v.merges { // each merge joins two tokens into a third, ranked in order
				l, r, ok := strings.Cut(m, " ")
				_, okl := ids[l]
				_, okr := ids[r]
				if j, okj := ids[l+r]; !ok || !okl || !okr || !okj || j != 256+i {
					t.Fatalf("merge %d %q is not consistent with the tokens", i, m)
				}
			}
			if p.Vocab == SPM && (v.tokens[0] != "<unk>" || v.tokens[3] != "<0x00>" || v.tokens[258] != "<0xFF>") {
				t.Errorf("SPM layout: %q", v.tokens[:4])
			}
		})
	}
	p, _ := Lookup("llama-3.2-1b")
	if v, _ := makeVocab(p); v.bos != 128000 || v.eos != 128001 {
		t.Errorf("llama 3 BOS/EOS %d/%d, want 128000/128001", v.bos, v.eos)
	}
}

func TestLlama3RopeFreqs(t *testing.T) {
	spec, err := Spec(Options{Preset: "llama-3.2-1b", Type: quant.Q4_0, NumLayers: 1, ContextLength: 512})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(spec.Tensors, func(w gguf.WriteTensor) bool { return w.Name == "rope_freqs.weight" })
	if i < 0 {
		t.Fatal("no rope_freqs.weight")
	}
	var buf bytes.Buffer
	if err := spec.Tensors[i].Data(&buf); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, buf.Len()/4)
	quant.Dequantize(quant.F32, buf.Bytes(), x)
	if len(x) != 32 || x[0] != 1 || x[31] != 32 || !slices.IsSorted(x) {
		t.Errorf("rope_freqs %v", x)
	}
	kv := map[string]gguf.Value{}
	for _, e := range spec.KV {
		kv[e.Key] = e.Value
	}
	if n, _ := kv["llama.block_count"].IntValue(); n != 1 {
		t.Errorf("block_count %d with NumLayers 1", n)
	}
	if n, _ := kv["llama.context_length"].IntValue(); n != 512 {
		t.Errorf("context_length %d", n)
	}
	if n := len(spec.Tensors); n != 1+1+9+1 { // embeddings, rope_freqs, one layer, output_norm (tied)
		t.Errorf("%d tensors", n)
	}
}

func TestMatrixTypeFallback(t *testing.T) {
	for _, c := range []struct {
		want quant.Type
		row  int
		got  quant.Type
	}{
		{quant.Q4_K, 2048, quant.Q4_K}, {quant.Q4_K, 896, quant.Q8_0}, {quant.Q4_0, 172, quant.F16},
		{quant.F16, 172, quant.F16}, {quant.IQ4_XS, 1152, quant.Q8_0},
	} {
		if got := matrixType(c.want, c.row); got != c.got {
			t.Errorf("%s at row %d: %s, want %s", c.want, c.row, got, c.got)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Preset: "nope", Type: quant.Q8_0}, "unknown preset"},
		{Options{Preset: "tiny-llama", Type: quant.IQ2_XXS}, "cannot write weights of type IQ2_XXS"},
		{Options{Preset: "tiny-llama", Type: quant.Q8_0, NumLayers: -1}, "negative"},
		{Options{Preset: "tiny-llama", Type: quant.F16, Denormals: true}, "denormals need BF16"},
		{Options{Preset: "tiny-qwen2", Type: quant.BF16, Denormals: true}, "untied"},
	} {
		err := Write(filepath.Join(dir, "x.gguf"), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.opts, err, c.want)
		}
	}
}

func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "synth")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tiny.gguf")
	if err := Write(path, Options{Preset: "tiny-qwen3", Type: quant.Q4_K, Seed: 1}); err != nil {
		panic(err)
	}
	f, _ := gguf.Open(path)
	defer f.Close()
	arch, _ := f.Architecture()
	fmt.Println(arch, len(f.Tensors))
	// Output: qwen3 24
}

// qwen3-30b-a3b-dense is Qwen3-30B-A3B as the dense model that reads as much per token: its parameters are the
// MoE's active ones less the router (one layer, a small vocabulary and 8 experts of the real size here).
func TestDenseTwinOfMoE(t *testing.T) {
	small := Options{Type: quant.Q8_0, Seed: 1, NumLayers: 1, VocabSize: 1000}
	moe, dense := small, small
	moe.Preset, moe.Experts = "qwen3-30b-a3b", 8
	dense.Preset = "qwen3-30b-a3b-dense"
	info := func(o Options) *modelinfo.Info {
		in, err := modelinfo.Read(open(t, write(t, o)))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	m, d := info(moe), info(dense)
	p, _ := Lookup(moe.Preset)
	if router := uint64(p.Embd * moe.Experts); m.ActiveParams-router != d.Params || d.Params != d.ActiveParams {
		t.Errorf("qwen3-30b-a3b: %d active parameters (%d of them the router); qwen3-30b-a3b-dense: %d", m.ActiveParams,
			router, d.Params)
	}
}

// tensorValues returns the named tensor of f dequantized.
func tensorValues(t *testing.T, f *gguf.File, name string) []float32 {
	t.Helper()
	tn, err := f.Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, tn.Elements())
	if err := quant.Dequantize(tn.Type, tn.Data, x); err != nil {
		t.Fatal(err)
	}
	return x
}
