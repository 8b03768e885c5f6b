package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/forma-llm/forma/model"
	"github.com/forma-llm/forma/runtime"
)

func init() {
	register(command{name: "embed", summary: "print the embedding of each text (an embedding model: bert, nomic-bert, Qwen3-Embedding)", run: runEmbed})
	register(command{name: "rerank", summary: "score documents against a query with a reranker, most relevant first", run: runRerank})
}

// embedFlags are the flags embed and rerank share.
type embedFlags struct {
	*backendFlags
	model   *string
	json    *bool
	verbose *bool
}

func addEmbedFlags(fs *flag.FlagSet, stderr io.Writer) embedFlags {
	return embedFlags{backendFlags: addBackendFlags(fs, stderr),
		model:   fs.String("m", "", "model `file` (GGUF) or name"),
		json:    fs.Bool("json", false, "print JSON"),
		verbose: fs.Bool("v", false, "print the number of texts, passes and tokens on stderr"),
	}
}

// texts returns the positional arguments, or with a single "-", stdin's lines.
func texts(pos []string) ([]string, error) {
	if len(pos) != 1 || pos[0] != "-" {
		return pos, nil
	}
	var out []string
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

func (f embedFlags) stats(m *runtime.Model, stderr io.Writer) {
	if *f.verbose {
		st := m.EmbedStats()
		fmt.Fprintf(stderr, "%d texts, %d passes, %d tokens\n", st.Texts, st.Passes, st.Tokens)
	}
}

func runEmbed(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("embed", "-m MODEL [--json] [--pooling P] [--dims N] [--no-normalize] [--truncate] TEXT... | -", stderr)
	ef := addEmbedFlags(fs, stderr)
	pooling := fs.String("pooling", "", "pooling `type` instead of the model's: mean, cls or last")
	dims := fs.Int("dims", 0, "keep the first `N` dimensions (Matryoshka), then normalise")
	raw := fs.Bool("no-normalize", false, "print the pooled vectors without L2 normalisation")
	trunc := fs.Bool("truncate", false, "shorten texts longer than the model's context instead of failing")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *ef.model == "" || len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	opt := runtime.EmbedOptions{Dimensions: *dims, Truncate: *trunc}
	if *raw {
		opt.Normalize = runtime.NormNone
	}
	if *pooling != "" {
		if opt.Pooling, err = model.ParsePooling(*pooling); err != nil {
			return err
		}
	}
	in, err := texts(pos)
	if err != nil {
		return err
	}
	m, closeAll, err := ef.load(*ef.model)
	if err != nil {
		return err
	}
	defer closeAll()
	vecs, err := m.Embed(context.Background(), in, opt)
	if err != nil {
		return err
	}
	ef.stats(m, stderr)
	w := bufio.NewWriter(stdout)
	if *ef.json {
		if err := json.NewEncoder(w).Encode(vecs); err != nil {
			return err
		}
		return w.Flush()
	}
	for _, v := range vecs {
		for i, x := range v {
			if i > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

// rerankResult is one document's line of forma rerank --json (llama-server's /v1/rerank result, with the text).
type rerankResult struct {
	Index          int     `json:"index"`
	RelevanceScore float32 `json:"relevance_score"`
	Document       string  `json:"document"`
}

func runRerank(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("rerank", "-m MODEL --query TEXT [--json] DOCUMENT... | -", stderr)
	ef := addEmbedFlags(fs, stderr)
	query := fs.String("query", "", "the `text` the documents are scored against")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *ef.model == "" || *query == "" || len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	docs, err := texts(pos)
	if err != nil {
		return err
	}
	m, closeAll, err := ef.load(*ef.model)
	if err != nil {
		return err
	}
	defer closeAll()
	scores, err := m.Rerank(context.Background(), *query, docs)
	if errors.Is(err, runtime.ErrNoEmbeddings) {
		return fmt.Errorf("%w (a reranker's GGUF has pooling type rank and a cls.output head)", err)
	}
	if err != nil {
		return err
	}
	ef.stats(m, stderr)
	order := runtime.RankOrder(scores)
	res := make([]rerankResult, len(order))
	for i, k := range order {
		res[i] = rerankResult{Index: k, RelevanceScore: scores[k], Document: docs[k]}
	}
	w := bufio.NewWriter(stdout)
	if *ef.json {
		if err := json.NewEncoder(w).Encode(res); err != nil {
			return err
		}
		return w.Flush()
	}
	for _, r := range res {
		fmt.Fprintf(w, "%.6f\t%d\t%s\n", r.RelevanceScore, r.Index, strings.ReplaceAll(r.Document, "\n", " "))
	}
	return w.Flush()
}
