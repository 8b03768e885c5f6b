package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/runtime"
)

func init() {
	register(command{name: "logits", summary: "write a model's logits for token ids (llama.cpp's reference format)", run: runLogits})
}

func runLogits(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("logits", "-m MODEL --ids \"1 2 3\" [-n N] -o PREFIX", stderr)
	modelPath := fs.String("m", "", "model `file` (GGUF) or name")
	idsFlag := fs.String("ids", "", "prompt token `ids`, space- or comma-separated")
	all := fs.Bool("all", false, "write the logits of every prompt position (default: the last)")
	seq := fs.Bool("seq", false, "feed the prompt one token per step")
	nGen := fs.Int("n", 0, "greedily generate `N` tokens (ties to the lowest id)")
	out := fs.String("o", "out", "output `prefix`")
	be := addBackendFlags(fs, stderr)
	if _, err := parseFlags(fs, args); err != nil {
		return errUsage
	}
	if *modelPath == "" || *idsFlag == "" {
		fs.Usage()
		return errUsage
	}
	ids, err := golden.ParseIDs(*idsFlag)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("--ids is empty")
	}
	m, closeAll, err := be.load(*modelPath)
	if err != nil {
		return err
	}
	defer closeAll()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: len(ids) + *nGen + 16, KV: be.kvType})
	if err != nil {
		return err
	}
	defer s.Close()
	vocab := m.Arch.HParams().Vocab
	var rows, last []float32
	if *seq {
		for i, t := range ids {
			if last, err = s.Eval([]int32{t}, false); err != nil {
				return err
			}
			if *all || i == len(ids)-1 {
				rows = append(rows, last...)
			}
		}
	} else {
		out, err := s.Eval(ids, *all)
		if err != nil {
			return err
		}
		rows = append(rows, out...)
		last = rows[len(rows)-vocab:]
	}
	if err := writeF32(*out+".logits.f32", rows); err != nil {
		return err
	}
	if err := writeIDs(*out+".ids.txt", ids); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rows=%d n_vocab=%d -> %s.logits.f32\n", len(rows)/vocab, vocab, *out)
	if *nGen <= 0 {
		return nil
	}
	gen := make([]int32, 0, *nGen)
	genLogits := make([]float32, 0, *nGen*vocab)
	for g := 0; g < *nGen; g++ {
		genLogits = append(genLogits, last...)
		id := int32(golden.Argmax(last))
		gen = append(gen, id)
		if g == *nGen-1 {
			break
		}
		if last, err = s.Eval([]int32{id}, false); err != nil {
			return err
		}
	}
	if err := writeF32(*out+".gen_logits.f32", genLogits); err != nil {
		return err
	}
	if err := writeIDs(*out+".gen.txt", gen); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "generated %d tokens -> %s.gen.txt\n", len(gen), *out)
	return nil
}

func writeF32(path string, x []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var b [4]byte
	for _, v := range x {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeIDs(path string, ids []int32) error {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return os.WriteFile(path, []byte(strings.Join(s, " ")+"\n"), 0o644)
}
