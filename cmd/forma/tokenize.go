package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

func init() {
	register(command{name: "tokenize", summary: "print the token ids of a text, as llama-tokenize", run: runTokenize})
}

func runTokenize(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tokenize", "-m MODEL [--no-bos] [--no-special] [--pieces] TEXT|-", stderr)
	model := fs.String("m", "", "model `file` (GGUF) or name")
	noBOS := fs.Bool("no-bos", false, "add no BOS/EOS even where the vocabulary asks for them")
	noSpecial := fs.Bool("no-special", false, "treat special-token text such as <|im_start|> as plain text")
	pieces := fs.Bool("pieces", false, "print one `id<TAB>piece` per line")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *model == "" || len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	text := pos[0]
	if text == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		text = string(b)
	}
	tk, err := loadTokenizer(*model)
	if err != nil {
		return err
	}
	ids, err := tk.Encode(text, tokenizer.EncodeOptions{AddSpecial: !*noBOS, ParseSpecial: !*noSpecial})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	if *pieces {
		for _, id := range ids {
			fmt.Fprintf(w, "%d\t%s\n", id, escapePiece(tk.TokenToPiece(id, tokenizer.PieceOptions{Special: true})))
		}
	} else {
		for i, id := range ids {
			if i > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(strconv.Itoa(int(id)))
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

// loadTokenizer opens a GGUF file and reads its tokenizer; the file is closed again (the tokenizer copies what it
// needs).
func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	path, err := resolveModel(path)
	if err != nil {
		return nil, err
	}
	f, err := bundle.OpenModel(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tk, err := tokenizer.Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if tk.Model() == tokenizer.ModelNone {
		return nil, fmt.Errorf("%s: %w", path, tokenizer.ErrNoVocab)
	}
	return tk, nil
}

// escapePiece writes a piece on one line: tab, newline, carriage return and backslash escaped, bytes that are not
// valid UTF-8 (part of a character) as \xNN.
func escapePiece(p []byte) string {
	var out []byte
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && n == 1:
			out = fmt.Appendf(out, `\x%02x`, p[0])
		case r == '\n':
			out = append(out, `\n`...)
		case r == '\t':
			out = append(out, `\t`...)
		case r == '\r':
			out = append(out, `\r`...)
		case r == '\\':
			out = append(out, `\\`...)
		default:
			out = append(out, p[:n]...)
		}
		p = p[n:]
	}
	return string(out)
}
