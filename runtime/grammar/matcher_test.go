package grammar

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// testGrammar reads testdata/name.gbnf.
func testGrammar(tb testing.TB, name string) *Grammar {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".gbnf"))
	if err != nil {
		tb.Fatal(err)
	}
	g, err := Parse(string(src))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return g
}

var textGrammars = []string{"arithmetic", "list", "chess", "c", "japanese", "json"}

func has(mask []uint64, id int32) bool { return mask[id>>6]&(1<<(id&63)) != 0 }

func count(mask []uint64) int {
	n := 0
	for _, w := range mask {
		n += bits.OnesCount64(w)
	}
	return n
}

// randomWalk generates with uniformly random logits under a budget and checks at every step that the mask is
// exactly the set of tokens Allowed says (the cached masks and the unsure checks agree with a direct walk
// from the whole stack), that it is never empty, and that the output ends complete. It returns the text.
func randomWalk(t *testing.T, c *Compiled, rng *rand.Rand, budget int, exact bool) (string, []int32) {
	t.Helper()
	v := c.Vocab()
	m := c.NewMatcher()
	m.SetBudget(budget)
	mask := make([]uint64, c.MaskWords())
	logits := make([]float32, v.Len())
	var out []byte
	var ids []int32
	for step := 0; step < budget+1; step++ {
		if m.Done() {
			break
		}
		m.FillMask(mask)
		if count(mask) == 0 {
			t.Fatalf("no token allowed after %q (a dead end)", out)
		}
		if exact && step%7 == 0 {
			for id := int32(0); int(id) < v.Len(); id++ {
				if has(mask, id) != m.Allowed(id) {
					t.Fatalf("after %q: token %d %q: mask %v, Allowed %v", out, id, v.pieces[id], has(mask, id), m.Allowed(id))
				}
			}
		}
		for i := range logits {
			logits[i] = rng.Float32()
		}
		ApplyMask(logits, mask, v.Len())
		best := int32(0)
		for i, l := range logits {
			if l > logits[best] {
				best = int32(i)
			}
		}
		id, err := m.Choose(best, logits)
		if err != nil {
			t.Fatalf("after %q: %v", out, err)
		}
		if v.isEOG(id) {
			break
		}
		out = append(out, v.pieces[id]...)
		ids = append(ids, id)
	}
	if !m.Complete() {
		t.Fatalf("the output is not complete within a budget of %d tokens (needs %d more): %q", budget, m.MinTokens(), out)
	}
	return string(out), ids
}

func TestRandomWalks(t *testing.T) {
	models := []string{qwenModel, storiesModel}
	if raceEnabled {
		models = models[1:] // the small vocabulary only: the race detector slows the exact checks 10x
	}
	for _, model := range models {
		v, _ := modelVocab(t, model)
		for _, name := range textGrammars {
			t.Run(model+"/"+name, func(t *testing.T) {
				g := testGrammar(t, name)
				c, err := v.Compile(g)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, uint64(len(name))))
				walks := 6
				if testing.Short() || raceEnabled {
					walks = 2
				}
				for i := range walks {
					budget := c.NewMatcher().MinTokens() + 10 + 20*i
					text, _ := randomWalk(t, c, rng, budget, i < 2)
					if !recognize(g, text) {
						t.Fatalf("the recognizer rejects the output %q", text)
					}
				}
			})
		}
	}
}

func TestTokensNamed(t *testing.T) {
	v, tk := modelVocab(t, qwenModel)
	c, err := v.Compile(testGrammar(t, "think"))
	if err != nil {
		t.Fatal(err)
	}
	think, _ := tk.ID("<think>")
	end, _ := tk.ID("</think>")
	imEnd, _ := tk.ID("<|im_end|>")
	m := c.NewMatcher()
	mask := make([]uint64, c.MaskWords())
	m.FillMask(mask)
	if count(mask) != 1 || !has(mask, think) {
		t.Fatalf("the first token must be <think> alone, got %d tokens", count(mask))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		_, ids := randomWalk(t, c, rng, 60, true)
		if ids[0] != think {
			t.Fatalf("output starts with %d", ids[0])
		}
		n := 0
		for _, id := range ids {
			if id == end {
				n++
			}
			if id == imEnd || tk.IsControl(id) {
				t.Fatalf("control token %d in the output", id)
			}
		}
		if n != 1 {
			t.Fatalf("</think> appears %d times", n)
		}
	}
	// A control token is not text: a grammar over any text never allows it.
	c2, err := v.Compile(testGrammar(t, "json"))
	if err != nil {
		t.Fatal(err)
	}
	m2 := c2.NewMatcher()
	m2.AcceptBytes([]byte(`"`))
	m2.FillMask(mask)
	if has(mask, imEnd) || has(mask, think) == false {
		t.Errorf("inside a string: <|im_end|> allowed %v (want false), <think> text allowed %v (want true)", has(mask, imEnd), has(mask, think))
	}
}

func TestEOGOnlyWhenComplete(t *testing.T) {
	v, tk := modelVocab(t, qwenModel)
	g, _ := Parse(`root ::= "ab" "c"?`)
	c, err := v.Compile(g)
	if err != nil {
		t.Fatal(err)
	}
	eog := tk.EOS()
	m := c.NewMatcher()
	mask := make([]uint64, c.MaskWords())
	m.FillMask(mask)
	if has(mask, eog) || m.Complete() {
		t.Fatal("EOG allowed before the grammar is complete")
	}
	if err := m.Accept(eog); err == nil {
		t.Fatal("EOG accepted before the grammar is complete")
	}
	if !m.AcceptBytes([]byte("ab")) {
		t.Fatal("ab rejected")
	}
	m.FillMask(mask)
	if !has(mask, eog) || !m.Complete() || m.Done() {
		t.Fatalf("after ab: EOG allowed %v, complete %v, done %v", has(mask, eog), m.Complete(), m.Done())
	}
	m.AcceptBytes([]byte("c"))
	if !m.Done() {
		t.Fatal("after abc nothing can follow, but the matcher is not done")
	}
	m.FillMask(mask)
	for id := int32(0); int(id) < v.Len(); id++ {
		if has(mask, id) != tk.IsEOG(id) {
			t.Fatalf("after abc: token %d allowed %v", id, has(mask, id))
		}
	}
}

func TestRollback(t *testing.T) {
	v, tk := modelVocab(t, qwenModel)
	c, err := v.Compile(testGrammar(t, "json"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.NewMatcher()
	ids, err := tk.Encode(`{"a":[1,2,{"b":"c"}],"d":true}`, tokenizerOpts)
	if err != nil {
		t.Fatal(err)
	}
	masks := make([][]uint64, len(ids)+1)
	for i, id := range ids {
		masks[i] = make([]uint64, c.MaskWords())
		m.FillMask(masks[i])
		if err := m.Accept(id); err != nil {
			t.Fatalf("token %d (%q): %v", i, tk.Piece(id), err)
		}
	}
	if !m.Complete() {
		t.Fatal("the JSON is not complete")
	}
	mask := make([]uint64, c.MaskWords())
	for back := 1; back <= len(ids); back++ {
		if err := m.Rollback(1); err != nil {
			t.Fatal(err)
		}
		m.FillMask(mask)
		want := masks[len(ids)-back]
		for w := range mask {
			if mask[w] != want[w] {
				t.Fatalf("rolled back %d tokens: the mask differs from the one first computed there", back)
			}
		}
	}
	if err := m.Rollback(1); err == nil {
		t.Error("rolling back past the start should fail")
	}
}

func TestBudget(t *testing.T) {
	v, _ := modelVocab(t, qwenModel)
	c, err := v.Compile(testGrammar(t, "json"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.NewMatcher()
	if n := m.MinTokens(); n != 1 {
		t.Fatalf("MinTokens of any JSON value = %d, want 1", n)
	}
	m.AcceptBytes([]byte(`{"key":[[{"x":"ab`))
	if n := m.MinTokens(); n != len(`"}]]}`) {
		t.Fatalf("MinTokens = %d, want %d", n, len(`"}]]}`))
	}
	// With exactly enough budget, every choice is on a shortest way out, whatever the logits prefer.
	m.SetBudget(m.MinTokens())
	logits := make([]float32, v.Len())
	var out []byte
	open, _ := v.lookup("{") // string content: allowed, but it does not bring the end nearer
	for !m.Complete() {
		id, err := m.Choose(open, logits)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v.pieces[id]...)
	}
	if string(out) != `"}]]}` {
		t.Errorf("closed with %q, want %q", out, `"}]]}`)
	}
}

func TestMatcherAllocs(t *testing.T) {
	v, tk := modelVocab(t, qwenModel)
	c, err := v.Compile(testGrammar(t, "json"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.NewMatcher()
	m.AcceptBytes([]byte(`{"text":"`))
	word, _ := tk.Encode(" hello", tokenizerOpts)
	logits := make([]float32, v.Len())
	step := func() {
		m.MaskLogits(logits)
		if _, err := m.Choose(word[0], logits); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		step()
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Errorf("%v allocations per token in steady state", n)
	}
}

// FuzzGrammar checks that the matcher accepts exactly the strings the reference recognizer accepts, for the
// test grammars.
func FuzzGrammar(f *testing.F) {
	for _, s := range []string{"1 + 2 = 3\n", "- item\n", "1. e4 e5\n", "int f() {\n}\n", "ひらがな カタカナ", `{"a":[1,"x"]}`,
		"", "x", "(a*b) = 0.5\n", "1. O-O Nf3+\n2. exd5 Qxd8#\n"} {
		for i := range textGrammars {
			f.Add(i, s)
		}
	}
	gs := make([]*Grammar, len(textGrammars))
	for i, n := range textGrammars {
		gs[i] = testGrammar(f, n)
	}
	f.Fuzz(func(t *testing.T, i int, s string) {
		if i < 0 || len(s) > 200 {
			return
		}
		g := gs[i%len(gs)]
		got, err := Match(g, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := recognize(g, s); got != want {
			t.Fatalf("%s: %q: matcher %v, recognizer %v", textGrammars[i%len(gs)], s, got, want)
		}
		// Every prefix of an accepted string keeps the matcher alive.
		if got {
			c, _ := Compile(g, byteVocab)
			m := c.NewMatcher()
			for k := 0; k < len(s); k++ {
				if !m.AcceptBytes([]byte{s[k]}) {
					t.Fatalf("prefix %q rejected", s[:k+1])
				}
			}
		}
	})
}

// Matchers of one compiled grammar run concurrently, filling its shared mask cache as they go.
func TestConcurrentMatchers(t *testing.T) {
	v, _ := modelVocab(t, storiesModel)
	g := testGrammar(t, "json")
	c, err := Compile(g, v) // fresh: empty caches
	if err != nil {
		t.Fatal(err)
	}
	t.Run("walks", func(t *testing.T) {
		for i := range 4 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				text, _ := randomWalk(t, c, rand.New(rand.NewPCG(uint64(i), 9)), 60, false)
				if !recognize(g, text) {
					t.Errorf("not JSON: %q", text)
				}
			})
		}
	})
}
