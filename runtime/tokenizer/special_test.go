package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
)

// TestChatPromptGolden tokenizes the rendered chat prompt of the golden chat case (add_special and parse_special
// on, as llama.cpp's run did) and compares with llama.cpp's ids: <|im_start|>, <|im_end|> (control) and
// <think>, </think> (user-defined) must be recognized.
func TestChatPromptGolden(t *testing.T) {
	dir := testdir.Dir(t)
	f, err := gguf.Open(filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.meta.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var prompt string
	for _, l := range strings.Split(string(meta), "\n") {
		if v, ok := strings.CutPrefix(l, "prompt_json="); ok {
			if prompt, err = strconv.Unquote(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := readIDs(t, filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.ids.txt"))
	got, err := tk.Encode(prompt, EncodeOptions{AddSpecial: true, ParseSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if tk.Detokenize(got, DecodeOptions{Special: true}) != prompt {
		t.Errorf("detokenized prompt differs")
	}
	// Without special parsing the control tokens are text; user-defined ones are still cut out.
	plain, _ := tk.Encode(prompt, EncodeOptions{})
	if slices.Contains(plain, 151644) || !slices.Contains(plain, 151667) {
		t.Errorf("parse_special off: %v", plain)
	}
}

func readIDs(tb testing.TB, path string) []int32 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []int32
	for _, s := range strings.Fields(string(b)) {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, int32(v))
	}
	return ids
}

// TestSpecialTokens checks special ids, the end-of-generation set, the load-time fixups and add_special.
func TestSpecialTokens(t *testing.T) {
	qwen := openVocab(t, "qwen2")
	for _, c := range []struct {
		text string
		eog  bool
	}{{"<|im_end|>", true}, {"<|endoftext|>", true}, {"</s>", true}, {"<|im_start|>", false}, {"<think>", false}, {"Hello", false}} {
		id, ok := qwen.ID(c.text)
		if !ok {
			t.Fatalf("qwen2 has no %q", c.text)
		}
		if qwen.IsEOG(id) != c.eog {
			t.Errorf("qwen2 IsEOG(%q) = %v", c.text, !c.eog)
		}
	}
	if id, _ := qwen.ID("</s>"); !qwen.IsControl(id) {
		t.Errorf("qwen2 </s> (NORMAL in the file) should be CONTROL after load")
	}
	if qwen.BOS() != 151643 || qwen.EOS() != 151645 || qwen.PAD() != 151643 || qwen.AddBOS() {
		t.Errorf("qwen2 specials: bos %d eos %d pad %d addbos %v", qwen.BOS(), qwen.EOS(), qwen.PAD(), qwen.AddBOS())
	}

	spm := openVocab(t, "llama-spm")
	ids, _ := spm.Encode("Hello world", EncodeOptions{AddSpecial: true})
	if !slices.Equal(ids, []int32{1, 15043, 3186}) {
		t.Errorf("llama-spm add_special: %v", ids)
	}
	// Text after a special token gets the SPM space prefix again.
	ids, _ = spm.Encode("<s>Hello", EncodeOptions{ParseSpecial: true})
	if !slices.Equal(ids, []int32{1, 15043}) {
		t.Errorf("llama-spm <s>Hello: %v", ids)
	}
	// llama.cpp keeps the space when it removed the BOS; the control EOS renders as nothing without Special.
	if got := spm.Detokenize([]int32{1, 15043, 3186, 2}, DecodeOptions{RemoveSpecial: true}); got != " Hello world" {
		t.Errorf("llama-spm remove_special: %q", got)
	}

	// phi-3: special tokens swallow the whitespace after them.
	phi := openVocab(t, "phi-3")
	end, _ := phi.ID("<|end|>")
	a, _ := phi.Encode("<|end|>\nHi", EncodeOptions{ParseSpecial: true})
	b, _ := phi.Encode("<|end|>Hi", EncodeOptions{ParseSpecial: true})
	if !slices.Equal(a, b) || a[0] != end {
		t.Errorf("phi-3 rstrip: %v vs %v", a, b)
	}

	bert := openVocab(t, "bert-bge")
	ids, _ = bert.Encode("hello", EncodeOptions{AddSpecial: true})
	if !slices.Equal(ids, []int32{101, 7592, 102}) {
		t.Errorf("bert add_special: %v", ids)
	}

	llama3 := openVocab(t, "llama-bpe")
	ids, _ = llama3.Encode("<|begin_of_text|>Hi<|eot_id|>", EncodeOptions{AddSpecial: true, ParseSpecial: true})
	if len(ids) != 4 || ids[0] != 128000 || ids[1] != 128000 || ids[3] != 128009 {
		t.Errorf("llama-bpe: %v", ids)
	}
	if !llama3.IsEOG(128009) || !llama3.IsEOG(128001) || llama3.IsEOG(128000) {
		t.Errorf("llama-bpe EOG set: %v", llama3.EOG())
	}
	if got := llama3.Detokenize(ids, DecodeOptions{}); got != "Hi" {
		t.Errorf("llama-bpe without special: %q", got)
	}
}
