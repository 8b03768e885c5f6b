package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/forma-llm/forma/internal/ppl"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

func init() {
	register(command{name: "perplexity", summary: "perplexity of a text, as llama-perplexity computes it", run: runPerplexity})
}

func runPerplexity(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("perplexity", "-m MODEL -f TEXT [-c CTX] [--kv f32|f16]", stderr)
	modelPath := fs.String("m", "", "model `file` (GGUF) or name")
	textPath := fs.String("f", "", "text `file` to score")
	ctx := fs.Int("c", 512, "tokens per chunk (`ctx`)")
	be := addBackendFlags(fs, stderr)
	if _, err := parseFlags(fs, args); err != nil {
		return errUsage
	}
	if *modelPath == "" || *textPath == "" {
		fs.Usage()
		return errUsage
	}
	text, err := os.ReadFile(*textPath)
	if err != nil {
		return err
	}
	m, closeAll, err := be.load(*modelPath)
	if err != nil {
		return err
	}
	defer closeAll()
	tk, err := tokenizer.Load(m.File)
	if err != nil {
		return err
	}
	tokens, err := tk.Encode(string(text), tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: false})
	if err != nil {
		return err
	}
	s, err := m.NewSession(runtime.SessionOptions{Ctx: *ctx, KV: be.kvType})
	if err != nil {
		return err
	}
	defer s.Close()
	bos := int32(-1)
	if tk.AddBOS() {
		bos = tk.BOS()
	}
	fmt.Fprintf(stdout, "perplexity: tokenized the text: %d tokens\n", len(tokens))
	fmt.Fprintf(stdout, "perplexity: calculating perplexity over %d chunks, n_ctx=%d\n", len(tokens) / *ctx, *ctx)
	r, err := ppl.Run(tokens, ppl.Options{Ctx: *ctx, Vocab: m.Arch.HParams().Vocab, BOS: bos}, func(chunk []int32) ([]float32, error) {
		if err := s.Truncate(0); err != nil {
			return nil, err
		}
		return s.Eval(chunk, true)
	})
	if err != nil {
		return err
	}
	var b strings.Builder
	for i, p := range r.Running {
		fmt.Fprintf(&b, "[%d]%.4f,", i+1, p)
	}
	fmt.Fprintln(stdout, strings.TrimSuffix(b.String(), ","))
	fmt.Fprintf(stdout, "Final estimate: PPL = %.4f +/- %.5f\n", r.PPL, r.Err)
	return nil
}
