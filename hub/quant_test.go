package hub

import (
	"strings"
	"testing"
)

func TestChooseModel(t *testing.T) {
	full := []string{
		"README.md", "m-Q4_K_M.gguf", "m-Q8_0.gguf", "m-F16.gguf", "mmproj-m-F16.gguf", "m.imatrix.gguf",
		"big/m-Q6_K-00001-of-00002.gguf", "big/m-Q6_K-00002-of-00002.gguf",
		"UD/m-UD-Q4_K_XL.gguf", "Q2_K/m-Q2_K-00001-of-00002.gguf", "Q2_K/m-Q2_K-00002-of-00002.gguf",
		"broken/m-Q3_K_M-00001-of-00002.gguf", // its second part is missing
	}
	noDefault := []string{"x-Q8_0.gguf", "x-Q5_K_S.gguf", "x-Q4_0.gguf", "x-F16.gguf", "x-IQ4_XS.gguf"}
	for _, tc := range []struct {
		paths []string
		tag   string
		want  string // joined parts, or "error: TEXT"
	}{
		{full, "", "m-Q4_K_M.gguf"},
		{full, "q8_0", "m-Q8_0.gguf"},
		{full, "F16", "m-F16.gguf"},
		{full, "Q6_K", "big/m-Q6_K-00001-of-00002.gguf big/m-Q6_K-00002-of-00002.gguf"},
		{full, "UD-Q4_K_XL", "UD/m-UD-Q4_K_XL.gguf"},
		{full, "Q2_K", "Q2_K/m-Q2_K-00001-of-00002.gguf Q2_K/m-Q2_K-00002-of-00002.gguf"},
		{full, "Q3_K_M", "error: has no GGUF file for quant Q3_K_M; it has: Q2_K, Q4_K_XL, Q6_K, F16, Q4_K_M, Q8_0"},
		{noDefault, "", "x-Q4_0.gguf"}, // 4.5 bits: nearest Q4_K_M's 4.75 (IQ4_XS is 4.25, Q5_K_S 5.5)
		{[]string{"x-Q8_0.gguf", "x-F16.gguf"}, "", "x-Q8_0.gguf"},
		{[]string{"model.gguf"}, "", "model.gguf"},
		{[]string{"README.md", "mmproj-F16.gguf"}, "", "error: has no GGUF model file"},
	} {
		c, err := chooseModel("r", tc.paths, tc.tag)
		if w, ok := strings.CutPrefix(tc.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q in %v: %v, %v; want an error with %q", tc.tag, tc.paths, c.Parts, err, w)
			}
			continue
		}
		if err != nil || strings.Join(c.Parts, " ") != tc.want {
			t.Errorf("%q in %v: %v, %v; want %s", tc.tag, tc.paths, c.Parts, err, tc.want)
		}
	}
}

func TestQuantTag(t *testing.T) {
	for stem, want := range map[string]string{
		"Qwen3-0.6B-Q8_0": "Q8_0", "llama.Q4_K_M": "Q4_K_M", "ggml-model-f16": "F16", "x-IQ4_XS": "IQ4_XS",
		"x-bf16": "BF16", "Qwen3-0.6B": "", "Llama-3-Instruct": "", "dir/x-UD-Q4_K_XL": "Q4_K_XL",
	} {
		if got := quantTag(stem); got != want {
			t.Errorf("quantTag(%q) = %q, want %q", stem, got, want)
		}
	}
}

func TestChooseMMProj(t *testing.T) {
	paths := []string{"m-Q4_K_M.gguf", "mmproj-F16.gguf", "mmproj-Q8_0.gguf", "sub/m-Q8_0.gguf", "sub/mmproj-BF16.gguf"}
	for model, want := range map[string]string{"m-Q4_K_M.gguf": "mmproj-Q8_0.gguf", "sub/m-Q8_0.gguf": "sub/mmproj-BF16.gguf"} {
		c := candidates([]string{model})[0]
		if got, ok := chooseMMProj(paths, c); !ok || got != want {
			t.Errorf("mmproj for %s: %q, want %q", model, got, want)
		}
	}
}
