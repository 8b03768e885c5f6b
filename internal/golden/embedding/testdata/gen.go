//go:build ignore

// gen.go regenerates the golden embeddings of this folder with native llama.cpp (../shared/bin/llama-native).
// Run from the module root:
//
//	go run ./internal/golden/embedding/testdata/gen.go
//
// For each case of cases.txt it writes the model with forma synth (into a temporary folder; only its SHA-256
// is kept), then asks llama.cpp for each input's tokens (llref's, or llama-server's /tokenize) and its result:
//   - an encoder's pooled embedding: llref --embd, one process per text (llama_encode, flash attention off);
//   - a decoder's (qwen3, last-token pooling): llama-server --embeddings, POST /embedding with embd_normalize -1
//     (llama_decode, causal; F32 cache, flash attention off, as forma's embedding passes);
//   - a reranker's scores: llref --embd on each (query, document) pair as llama-server's format_prompt_rerank
//     forms it (the rank head's output), and llama-server --reranking's POST /v1/rerank relevance scores
//     (NAME.server.f32) for the order it gives the documents.
//
// On a CPU without AVX-VNNI (the native build uses its VEX form), vnni.c is built and preloaded to emulate it.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

const here = "internal/golden/embedding/testdata"

var (
	native = filepath.Join("..", "shared", "bin", "llama-native", "run")
	tmp    string
	env    []string
)

func main() {
	log.SetFlags(0)
	var err error
	if tmp, err = os.MkdirTemp("", "embd-gen"); err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	env = os.Environ()
	if cpu, _ := os.ReadFile("/proc/cpuinfo"); !bytes.Contains(cpu, []byte(" avx_vnni")) {
		shim := filepath.Join(tmp, "vnni.so")
		run("gcc", "-O2", "-shared", "-fPIC", filepath.Join(here, "vnni.c"), "-o", shim)
		env = append(env, "LD_PRELOAD="+shim)
	}
	raw, err := os.ReadFile(filepath.Join(here, "cases.txt"))
	if err != nil {
		log.Fatal(err)
	}
	only := os.Args[1:] // case names to remake (all when none)
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || len(only) > 0 && !slices.Contains(only, f[0]) {
			continue
		}
		gen(f[0], f[1], f[2], f[3], f[4])
	}
}

// gen makes case name.
func gen(name, preset, typ, seedStr, input string) {
	t, err := quant.ParseType(typ)
	check(err)
	seed, err := strconv.ParseUint(seedStr, 10, 64)
	check(err)
	model := filepath.Join(tmp, name+".gguf")
	check(synth.Write(model, synth.Options{Preset: preset, Type: t, Seed: seed}))
	data, err := os.ReadFile(model)
	check(err)
	sum := sha256.Sum256(data)
	var in struct {
		Texts, Documents []string
		Query            *string
	}
	raw, err := os.ReadFile(filepath.Join(here, input))
	check(err)
	check(json.Unmarshal(raw, &in))
	p, err := synth.Lookup(preset)
	check(err)
	var ids [][]int32
	var vals []float32
	var how string
	switch {
	case in.Query != nil:
		var server []float32
		ids, server = rerank(model, *in.Query, in.Documents)
		for _, pair := range ids {
			out := filepath.Join(tmp, "llref")
			run(native, "llref", "-m", model, "--ids", strings.Trim(fmt.Sprint(pair), "[]"), "--embd", "-t", "2", "-o", out)
			vals = append(vals, readF32(out + ".embd.f32")[0]) // the rank head's one output; llref writes n_embd floats
		}
		writeF32(filepath.Join(here, name+".server.f32"), server)
		how = "llref --embd --ids PAIR (pairs as llama-server forms them); llama-server --reranking -fa off: POST /v1/rerank into .server.f32"
	case p.Arch == synth.Bert || p.Arch == synth.NomicBert:
		for _, text := range in.Texts {
			out := filepath.Join(tmp, "llref")
			run(native, "llref", "-m", model, "-p", text, "--embd", "-t", "2", "-o", out)
			ids = append(ids, readIDs(out+".ids.txt"))
			vals = append(vals, readF32(out+".embd.f32")...)
		}
		how = "llref --embd -t 2 (one process per text)"
	default:
		ids, vals = serverEmbed(model, in.Texts)
		how = "llama-server --embeddings -fa off -ctk f32 -ctv f32: POST /embedding, embd_normalize -1"
	}
	var idLines bytes.Buffer
	for _, l := range ids {
		b, _ := json.Marshal(l)
		idLines.Write(append(b, '\n'))
	}
	check(os.WriteFile(filepath.Join(here, name+".ids.txt"), idLines.Bytes(), 0o644))
	writeF32(filepath.Join(here, name+".f32"), vals)
	meta := fmt.Sprintf("preset=%s\ntype=%s\nseed=%d\ninput=%s\nmodel_sha256=%s\nreference=%s\n", preset, typ, seed, input,
		hex.EncodeToString(sum[:]), how)
	check(os.WriteFile(filepath.Join(here, name+".meta.txt"), []byte(meta), 0o644))
	log.Printf("%s: %d inputs, %d values", name, len(ids), len(vals))
}

// tokenize returns llama-server's tokens of text: add_special and parse_special unless plain (llama-tokenize
// refuses an empty text, so the server's /tokenize is asked).
func tokenize(url, text string, plain bool) []int32 {
	var res struct{ Tokens []int32 }
	post(url+"/tokenize", map[string]any{"content": text, "add_special": !plain, "parse_special": !plain}, &res)
	return res.Tokens
}

// serverEmbed returns the tokens and pooled embeddings of texts from llama-server.
func serverEmbed(model string, texts []string) ([][]int32, []float32) {
	url, stop := server(model, "--embeddings", "-fa", "off", "-ctk", "f32", "-ctv", "f32")
	defer stop()
	var ids [][]int32
	var vals []float32
	for _, t := range texts {
		var res []struct{ Embedding [][]float32 }
		post(url+"/embedding", map[string]any{"content": t, "embd_normalize": -1}, &res)
		ids = append(ids, tokenize(url, t, false))
		vals = append(vals, res[0].Embedding[0]...)
	}
	return ids, vals
}

// rerank returns llama-server's pair tokens (as format_prompt_rerank forms them, from llama-tokenize's) and
// relevance scores.
func rerank(model, query string, docs []string) ([][]int32, []float32) {
	f, err := gguf.Open(model)
	check(err)
	tk, err := tokenizer.Load(f)
	check(err)
	f.Close()
	url, stop := server(model, "--reranking", "-fa", "off")
	defer stop()
	var res struct {
		Results []struct {
			Index          int     `json:"index"`
			RelevanceScore float32 `json:"relevance_score"`
		} `json:"results"`
	}
	post(url+"/v1/rerank", map[string]any{"query": query, "documents": docs, "top_n": len(docs)}, &res)
	scores := make([]float32, len(docs))
	for _, r := range res.Results {
		scores[r.Index] = r.RelevanceScore
	}
	q := tokenize(url, query, true)
	eos := tk.EOS()
	if eos == tokenizer.None {
		eos = tk.SEP()
	}
	var ids [][]int32
	for _, d := range docs {
		var p []int32
		if tk.AddBOS() {
			p = append(p, tk.BOS())
		}
		p = append(p, q...)
		if tk.AddEOS() {
			p = append(p, eos)
		}
		if tk.AddSEP() {
			p = append(p, tk.SEP())
		}
		p = append(p, tokenize(url, d, true)...)
		if tk.AddEOS() {
			p = append(p, eos)
		}
		ids = append(ids, p)
	}
	return ids, scores
}

// server starts llama-server on a free port and waits until it is ready.
func server(model string, args ...string) (string, func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(native, append([]string{"llama-server", "-m", model, "--host", "127.0.0.1", "--port",
		strconv.Itoa(port), "-t", "2", "-c", "4096", "-b", "4096", "-ub", "4096", "-np", "1"}, args...)...)
	cmd.Env = env
	check(cmd.Start())
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i := 0; ; i++ {
		if r, err := http.Get(url + "/health"); err == nil && r.StatusCode == http.StatusOK {
			r.Body.Close()
			break
		}
		if i == 300 {
			log.Fatal("llama-server did not start")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return url, func() { cmd.Process.Kill(); cmd.Wait() }
}

func post(url string, body, out any) {
	b, _ := json.Marshal(body)
	r, err := http.Post(url, "application/json", bytes.NewReader(b))
	check(err)
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		log.Fatalf("%s: %s", url, r.Status)
	}
	check(json.NewDecoder(r.Body).Decode(out))
}

func run(name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func writeF32(path string, vals []float32) {
	buf := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	check(os.WriteFile(path, buf, 0o644))
}

func readIDs(path string) []int32 {
	raw, err := os.ReadFile(path)
	check(err)
	var ids []int32
	for _, f := range strings.Fields(string(raw)) {
		n, err := strconv.Atoi(f)
		check(err)
		ids = append(ids, int32(n))
	}
	return ids
}

func readF32(path string) []float32 {
	raw, err := os.ReadFile(path)
	check(err)
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
