package tokenizer

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
)

// wpmCases exercise WordPiece: lower-casing and accents, punctuation and ASCII symbols split off, CJK
// ideographs one per word, whitespace and control characters, the longest match from the left with
// continuations, words no token covers ([UNK]), and special-token text.
var wpmCases = []string{
	"Hello, World!", "hello world", " ", "  leading and trailing  ", "UPPER lower MiXeD",
	"élan naïve café Ångström straße ØRESUND", "中文日本語 mixed 中文text", "tabs\tand\nnewlines\r\nhere",
	"don't stop-me now... (please) [ok] {fine} <tag> a+b=c 100% $5 #1 @you ~x `y` ^z _u_ |p| \\q",
	"numbers 123 4.56 7,890 12abc abc12", "zzzzzzzzzzzzzz qqqqqq abcdefghijklmnopqrstuvwxyz",
	"emoji 🙂 and ™ ©", "non\u00a0breaking\u2003spaces\u200bzero width", "combining e\u0301 a\u0308",
	"A [SEP] and [CLS] and [MASK] and [UNK] inside", "##ing ## #", "ctrl\x01\x07chars\u0085",
	"Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "ﬁ ligature ß ẞ",
}

// wpmSynthVocab writes the vocabulary (no tensors) of the bge-small-en-v1.5 synth preset: BERT's special ids
// and 30522 tokens, word starts and continuations over a-z.
func wpmSynthVocab(tb testing.TB) string {
	tb.Helper()
	spec, err := synth.Spec(synth.Options{Preset: "bge-small-en-v1.5", Type: quant.F16})
	if err != nil {
		tb.Fatal(err)
	}
	spec.Tensors = nil
	path := filepath.Join(tb.TempDir(), "wpm-synth.gguf")
	if err := gguf.WriteFile(path, spec); err != nil {
		tb.Fatal(err)
	}
	return path
}

type wpmWant struct {
	Text    string  `json:"text"`
	Special []int32 `json:"special"` // add_special and parse_special (llama-tokenize's default)
	Plain   []int32 `json:"plain"`   // neither (--no-bos --no-parse-special)
}

// TestWordPieceSynth tokenizes wpmCases with a synth BERT vocabulary and compares with llama.cpp's ids
// (testdata/wpm-synth.jsonl). FORMA_WPM_REGEN=1 remakes that file with ../shared/bin/llama-native's
// llama-tokenize.
func TestWordPieceSynth(t *testing.T) {
	path := wpmSynthVocab(t)
	want := filepath.Join("testdata", "wpm-synth.jsonl")
	if os.Getenv("FORMA_WPM_REGEN") != "" {
		regenWPM(t, path, want)
	}
	f, err := os.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Load(g)
	g.Close()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var w wpmWant
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			opt  EncodeOptions
			want []int32
		}{{EncodeOptions{AddSpecial: true, ParseSpecial: true}, w.Special}, {EncodeOptions{}, w.Plain}} {
			got, err := tk.Encode(w.Text, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("%q %+v:\n got  %v\n want %v", w.Text, c.opt, got, c.want)
			}
		}
		n++
	}
	if n != len(wpmCases) {
		t.Errorf("%d cases in %s, %d in wpmCases: regenerate it", n, want, len(wpmCases))
	}
}

func regenWPM(t *testing.T, vocab, out string) {
	tool := filepath.Join("..", "..", "..", "shared", "bin", "llama-native", "run")
	if d := os.Getenv("FORMA_TESTDATA"); d != "" {
		tool = filepath.Join(d, "..", "bin", "llama-native", "run")
	}
	tokenize := func(text string, extra ...string) []int32 {
		args := append([]string{"llama-tokenize", "-m", vocab, "-p", text, "--ids", "--log-disable"}, extra...)
		b, err := exec.Command(tool, args...).Output()
		if err != nil {
			t.Fatalf("llama-tokenize %q: %v", text, err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var ids []int32
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ids); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	var buf []byte
	for _, text := range wpmCases {
		b, _ := json.Marshal(wpmWant{Text: text, Special: tokenize(text), Plain: tokenize(text, "--no-bos", "--no-parse-special")})
		buf = append(append(buf, b...), '\n')
	}
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
