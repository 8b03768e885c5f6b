package model_test

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/model"
)

// load writes spec to a temporary file and loads it on the CPU backend, and describes it (no backend), which
// must succeed where loading does.
func load(t *testing.T, spec gguf.Spec) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := gguf.WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	_, err = model.Load(f, be, model.LoadOptions{})
	if _, derr := model.Describe(f); derr != nil && err == nil {
		t.Fatalf("Load: %v, but Describe: %v", err, derr)
	}
	return err
}

func tinySpec(t *testing.T, preset string) gguf.Spec {
	layers := 1
	if preset == "tiny-deepseek2" || preset == "tiny-lfm2" {
		layers = 2 // deepseek2's first layer is dense; lfm2's is a short convolution, its second attention
	}
	spec, err := synth.Spec(synth.Options{Preset: preset, Type: quant.Q8_0, Seed: 1, NumLayers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestLoadArchitectures loads a small model of every registered architecture synth can write.
func TestLoadArchitectures(t *testing.T) {
	for _, p := range []string{"tiny-llama", "tiny-qwen2", "tiny-qwen3", "tiny-gemma3", "tiny-phi3", "tiny-qwen3moe",
		"tiny-gpt-oss", "tiny-deepseek2", "tiny-mistral3", "tiny-granite", "tiny-olmo2", "tiny-smollm3",
		"tiny-gemma2", "tiny-lfm2"} {
		t.Run(p, func(t *testing.T) {
			if err := load(t, tinySpec(t, p)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLoadErrors checks that a broken model fails to load with an error naming the problem.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*gguf.Spec)
		expect []string
		preset string // tiny-llama when empty
	}{
		{"unknown architecture", func(s *gguf.Spec) { setKV(s, gguf.KeyArchitecture, gguf.NewString("mamba9")) },
			[]string{`"mamba9"`, "llama", "qwen3", "gemma3", "phi3"}, ""},
		{"missing tensor", func(s *gguf.Spec) { drop(s, "blk.0.attn_k.weight") }, []string{`"blk.0.attn_k.weight"`}, ""},
		{"unsupported type", func(s *gguf.Spec) { retype(s, "blk.0.ffn_up.weight", quant.IQ2_XXS) },
			[]string{`"blk.0.ffn_up.weight"`, "IQ2_XXS"}, ""},
		{"wrong shape", func(s *gguf.Spec) { reshape(s, "blk.0.attn_q.weight", 2) }, []string{`"blk.0.attn_q.weight"`, "shape"}, ""},
		{"missing key", func(s *gguf.Spec) { dropKV(s, ".block_count") }, []string{"block_count"}, ""},
		{"no expert count", func(s *gguf.Spec) { dropKV(s, ".expert_count") }, []string{"expert_count"}, "tiny-qwen3moe"},
		{"wrong expert shape", func(s *gguf.Spec) { reshape(s, "blk.0.ffn_up_exps.weight", 2) },
			[]string{`"blk.0.ffn_up_exps.weight"`, "shape"}, "tiny-gpt-oss"},
		{"missing expert bias", func(s *gguf.Spec) { drop(s, "blk.0.ffn_down_exps.bias") },
			[]string{`"blk.0.ffn_down_exps.bias"`}, "tiny-gpt-oss"},
		{"no latent rank", func(s *gguf.Spec) { dropKV(s, ".attention.kv_lora_rank") }, []string{"kv_lora_rank"}, "tiny-deepseek2"},
		{"missing shared expert", func(s *gguf.Spec) { drop(s, "blk.1.ffn_up_shexp.weight") },
			[]string{`"blk.1.ffn_up_shexp.weight"`}, "tiny-deepseek2"},
		{"olmo2 without output", func(s *gguf.Spec) { drop(s, "output.weight") }, []string{`"output.weight"`}, "tiny-olmo2"},
		{"lfm2 without l_cache", func(s *gguf.Spec) { dropKV(s, ".shortconv.l_cache") }, []string{"shortconv.l_cache"},
			"tiny-lfm2"},
		{"lfm2 with a quantized kernel", func(s *gguf.Spec) { retype(s, "blk.0.shortconv.conv.weight", quant.F16) },
			[]string{`"blk.0.shortconv.conv.weight"`, "f32"}, "tiny-lfm2"},
		{"lfm2 without its final norm", func(s *gguf.Spec) { drop(s, "token_embd_norm.weight") },
			[]string{`"token_embd_norm.weight"`}, "tiny-lfm2"},
		{"kv heads 0 outside lfm2", func(s *gguf.Spec) { setKV(s, "llama.attention.head_count_kv", gguf.NewInt32s([]int32{0})) },
			[]string{"layer 0", "head_count_kv"}, ""},
		{"granite without logit scale", func(s *gguf.Spec) { dropKV(s, ".logit_scale") }, []string{"logit_scale"},
			"tiny-granite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			preset := tc.preset
			if preset == "" {
				preset = "tiny-llama"
			}
			spec := tinySpec(t, preset)
			tc.edit(&spec)
			err := load(t, spec)
			if err == nil {
				t.Fatal("loaded without error")
			}
			for _, want := range tc.expect {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %s", err, want)
				}
			}
		})
	}
}

func setKV(s *gguf.Spec, key string, v gguf.Value) {
	for i := range s.KV {
		if s.KV[i].Key == key {
			s.KV[i].Value = v
		}
	}
}

func dropKV(s *gguf.Spec, suffix string) {
	s.KV = slices.DeleteFunc(s.KV, func(kv gguf.KV) bool { return strings.HasSuffix(kv.Key, suffix) })
}

func drop(s *gguf.Spec, name string) {
	s.Tensors = slices.DeleteFunc(s.Tensors, func(t gguf.WriteTensor) bool { return t.Name == name })
}

// zeros writes a tensor's size in zero bytes.
func zeros(t gguf.WriteTensor) func(io.Writer) error {
	return func(w io.Writer) error {
		n, err := t.Size()
		if err != nil {
			return err
		}
		_, err = w.Write(make([]byte, n))
		return err
	}
}

func retype(s *gguf.Spec, name string, typ quant.Type) {
	for i := range s.Tensors {
		if s.Tensors[i].Name == name {
			s.Tensors[i].Type = typ
			s.Tensors[i].Data = zeros(s.Tensors[i])
		}
	}
}

func reshape(s *gguf.Spec, name string, div uint64) {
	for i := range s.Tensors {
		if s.Tensors[i].Name == name {
			d := slices.Clone(s.Tensors[i].Dims)
			d[1] /= div
			s.Tensors[i].Dims = d
			s.Tensors[i].Data = zeros(s.Tensors[i])
		}
	}
}
