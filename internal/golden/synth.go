package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"sync"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
)

// SynthDir is the folder of the golden cases whose models forma synth writes (testdata/synth beside this
// package; its README says how each case was made). The models are not stored: SynthModel writes them again.
func SynthDir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "synth")
}

// SynthF16Cache bounds runs with an F16 KV cache against the F32-cache reference for mixtures of experts: a
// cache's rounding that moves a router's scores can choose another expert, so the distance is larger than a
// dense model's. llama.cpp's own F16-cache runs of these cases differ from its F32 reference by KL up to 0.0173
// (tiny-qwen3moe Q8_0), with argmax flips where the reference's top two are 0.0017–0.052 apart; forma's F16
// runs measure the same (tiny-deepseek2 Q8_0: equal to llama.cpp's F16-cache logits bit for bit).
var SynthF16Cache = Criteria{MaxKL: 0.02, TieGap: 0.1}

// SynthExactPrompt are the synth batch cases whose every prompt row forma computes with the reference build's
// kernels in their order, so each must have its logits bit for bit (the others' batches take kernels whose
// last rows the reference computes in another order: repacked Q4_K's n mod 4, BF16's tinyBLAS lanes). The
// IQ4_XS case holds forma to the reference build's IQ4_XS order (ggml_vec_dot_iq4_xs_q8_K for every batch:
// that build has no IQ panel gemm), which the KL bound alone does not tell from another on these small shapes.
var SynthExactPrompt = map[string]bool{
	"tiny-deepseek2-q8_0.long": true, "tiny-gpt-oss-mxfp4.long": true, "tiny-granite-q6_k.long": true,
	"tiny-qwen3-iq4_xs.long": true, "tiny-qwen3moe-q8_0.long": true, "tiny-smollm3-q6_k.long": true,
}

// SynthDeviations are synth cases that batch invariance keeps from Strict, with the bound they meet.
var SynthDeviations = map[string]Criteria{
	// Token by token, the reference build multiplies single rows by F32 weights (the router) and F32 values with
	// ggml_vec_dot's 4×16 lanes; forma takes tinyBLAS's 16 lanes for every row (accel/cpu orderFor, the
	// attention's V). The logits stay within KL 1.4e-4, and greedy step 46 (reference top-2 gap 0.011) chooses
	// the other token.
	"tiny-qwen3moe-q6_k": {MaxKL: 1e-3, TieGap: 0.02},
}

var synthMu sync.Mutex

// SynthModel writes the model of case c — meta keys synth_preset, synth_type, synth_seed and, for a model of
// denormal weights, synth_denormals=1 (synth.Options.Denormals) — into dir (once per dir and file name),
// checks that its SHA-256 is model_sha256, the digest of the file the reference was made from, and points
// c.Model at it.
func SynthModel(c *Case, dir string) error {
	typ, err := quant.ParseType(c.Meta["synth_type"])
	if err != nil {
		return fmt.Errorf("golden %s: %w", c.Name, err)
	}
	seed, err := strconv.ParseUint(c.Meta["synth_seed"], 10, 64)
	if err != nil {
		return fmt.Errorf("golden %s: synth_seed: %w", c.Name, err)
	}
	path := filepath.Join(dir, c.Meta["model"])
	synthMu.Lock()
	defer synthMu.Unlock()
	if _, err := os.Stat(path); err != nil {
		opts := synth.Options{Preset: c.Meta["synth_preset"], Type: typ, Seed: seed, Denormals: c.Meta["synth_denormals"] == "1"}
		if err := synth.Write(path, opts); err != nil {
			return fmt.Errorf("golden %s: %w", c.Name, err)
		}
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return err
	}
	if want := c.Meta["model_sha256"]; sum != want {
		return fmt.Errorf("golden %s: synth wrote %s with SHA-256 %s, the reference's model had %s: the generator changed",
			c.Name, path, sum, want)
	}
	c.Model = path
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
