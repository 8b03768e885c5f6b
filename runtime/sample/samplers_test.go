package sample

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// probsOf returns the candidates' probabilities by id (0 for tokens no longer in the list).
func probsOf(c *Candidates, n int) []float64 {
	c.Softmax()
	out := make([]float64, n)
	for _, it := range c.Items {
		out[it.ID] = float64(it.P)
	}
	return out
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestXTC: llama.cpp's test-sampling cases (probabilities .4 .3 .2 .1 at ids 0-3).
func TestXTC(t *testing.T) {
	for _, tc := range []struct {
		threshold float32
		u         float32
		want      []int32
	}{
		{0.09, 0, []int32{3}},
		{0.19, 0, []int32{2, 3}},
		{0.29, 0, []int32{1, 2, 3}},
		{0.39, 0, []int32{0, 1, 2, 3}},     // only one token above the threshold: nothing removed
		{0.09, 0.995, []int32{0, 1, 2, 3}}, // the draw is above the probability .99
	} {
		c := cands(logitsOf(0.4, 0.3, 0.2, 0.1)...)
		XTC(c, 0.99, tc.threshold, 1, tc.u)
		got := ids(c)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("threshold %v, u %v: kept %v, want %v", tc.threshold, tc.u, got, tc.want)
		}
	}
}

// TestTopNSigma: llama.cpp's cases. Logits ln .1 … ln .4: mean −1.5683, σ 0.5067; at n = 1 the cut is
// −0.9163 − 0.5067 = −1.4230, which keeps ln .3 and ln .4 (.3/.7, .4/.7).
func TestTopNSigma(t *testing.T) {
	for _, tc := range []struct {
		n    float32
		want []float64
	}{
		{1, []float64{0, 0, 0.428571, 0.571429}},
		{0, []float64{0.1, 0.2, 0.3, 0.4}},
		{3, []float64{0.1, 0.2, 0.3, 0.4}},
		{-1, []float64{0.1, 0.2, 0.3, 0.4}},
	} {
		c := cands(logitsOf(0.1, 0.2, 0.3, 0.4)...)
		TopNSigma(c, tc.n)
		if got := probsOf(c, 4); !near(got, tc.want, 1e-5) {
			t.Errorf("n %v: %v, want %v", tc.n, got, tc.want)
		}
	}
	c := cands(1, float32(math.Inf(-1)), 3, 2) // −Inf is left out of the statistics, and dropped
	TopNSigma(c, 1)                            // mean 2, σ 0.8165: cut 2.18
	if got := ids(c); !slices.Equal(got, []int32{2}) {
		t.Errorf("with −Inf: kept %v, want [2]", got)
	}
}

// letters is a vocabulary whose tokens are the given texts; Tokenize splits text greedily by longest token.
type letters []string

func (l letters) Len() int                               { return len(l) }
func (l letters) AppendText(dst []byte, id int32) []byte { return append(dst, l[id]...) }
func (l letters) Tokenize(text string) []int32 {
	var out []int32
	for text != "" {
		best := -1
		for i, s := range l {
			if len(s) > 0 && len(text) >= len(s) && text[:len(s)] == s && (best < 0 || len(s) > len(l[best])) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, int32(best))
		text = text[len(l[best]):]
	}
	return out
}

func dryOptions(mult, base float32, allowed, lastN int, breakers ...string) Options {
	o := Defaults()
	o.DRYMultiplier, o.DRYBase, o.DRYAllowedLength, o.DRYPenaltyLastN = mult, base, allowed, lastN
	o.DRYSequenceBreakers = breakers
	return o
}

// TestDRY: llama.cpp's test-sampling cases, and hand-computed ones with an exponent and multi-token breakers.
func TestDRY(t *testing.T) {
	vocab := letters{"a", "b", "c", ":", "d", "<", "br>", "<br>"}
	q, f := []float64{.25, .25, .25, .25}, []float64{.2, .2, .2, .2, .2}
	// p of a token penalized by d among n equally likely ones.
	pen := func(n int, d float64) (hit, rest float64) {
		e := math.Exp(-d)
		return e / (float64(n-1) + e), 1 / (float64(n-1) + e)
	}
	h3, r3 := pen(8, 1.1*1.1*1.1) // the exponent-3 case: 1.331
	for _, tc := range []struct {
		name  string
		probs []float64
		hist  []int32
		opt   Options
		want  []float64
	}{
		{"short history", q, []int32{0, 1}, dryOptions(1, 1.1, 2, 4), q},
		{"repeat of 2", q, []int32{0, 1, 2, 0, 1}, dryOptions(1, 1.1, 2, 5), []float64{0.296923, 0.296923, 0.109232, 0.296923}},
		{"breaker token", f, []int32{0, 1, 3, 4, 0, 1}, dryOptions(1, 1.1, 2, 6, ":"), f},
		{"multiplier 2", f, []int32{0, 1, 2, 0, 1}, dryOptions(2, 1.1, 2, 5), []float64{0.241818, 0.241818, 0.032727, 0.241818, 0.241818}},
		{"allowed 4", f, []int32{0, 1, 2, 3, 4, 0, 1}, dryOptions(1, 1.1, 4, 7), f},
		{"window", q, []int32{0, 1, 2, 0, 1}, dryOptions(1, 1.1, 2, 2), q},
		// rev = 1 0 2 1 0 2 1 0: the last 5 tokens also end 3 tokens earlier, before a 2 → 1.1^(5−2).
		{"exponent", uniform(8), []int32{0, 1, 2, 0, 1, 2, 0, 1}, dryOptions(1, 1.1, 2, -1), []float64{r3, r3, h3, r3, r3, r3, r3, r3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewFor(tc.opt, vocab)
			if err != nil {
				t.Fatal(err)
			}
			l := logitsOf(tc.probs...)
			s.dry.apply(l, tc.hist)
			if got := probsOf(cands(l...), len(l)); !near(got, tc.want, 1e-5) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
	// "<br>" spans the tokens "<" "br>": it limits the repetition to the 2 tokens after it; the token "<br>"
	// holds it whole and is never penalized.
	hist := []int32{0, 1, 2, 5, 6, 0, 1, 2, 5, 6, 0, 1} // a b c < br> a b c < br> a b
	for _, tc := range []struct {
		breakers []string
		want     float64 // penalty on c
	}{{nil, math.Pow(1.1, 5)}, {[]string{"<br>"}, 1}} {
		s, _ := NewFor(dryOptions(1, 1.1, 2, -1, tc.breakers...), vocab)
		l := make([]float32, len(vocab))
		s.dry.apply(l, hist)
		if math.Abs(float64(-l[2])-tc.want) > 1e-5 {
			t.Errorf("breakers %q: penalty on c %v, want %v", tc.breakers, -l[2], tc.want)
		}
	}
	s, _ := NewFor(dryOptions(1, 1.1, 1, -1, "<br>"), vocab)
	l := make([]float32, len(vocab))
	s.dry.apply(l, []int32{0, 7, 0, 7, 0})
	if l[7] != 0 {
		t.Errorf("the breaker token <br> got a penalty %v", -l[7])
	}
	if got := s.dry.breakers; len(got) != 2 || len(got[7]) != 1 || len(got[7][0]) != 0 || !slices.Equal(got[5][0], []int32{6}) {
		t.Errorf("breakers of <br>: %v", got)
	}
	if _, err := New(dryOptions(1, 1.75, 2, -1, "\n")); err == nil {
		t.Error("DRY with breakers and no vocabulary was accepted")
	}
}

func uniform(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1 / float64(n)
	}
	return out
}

// TestMirostatV2: surprises of .5 .25 .125 .125 are 1, 2, 3, 3 bits; mu = 2 keeps the first two, renormalized.
func TestMirostatV2(t *testing.T) {
	for _, tc := range []struct {
		u      float64
		wantID int32
		wantP  float64
	}{{0.5, 0, 2.0 / 3}, {0.9, 1, 1.0 / 3}} {
		c := cands(logitsOf(0.5, 0.25, 0.125, 0.125)...)
		id, p := MirostatV2(c, 2, tc.u)
		if id != tc.wantID || math.Abs(float64(p)-tc.wantP) > 1e-6 || len(c.Items) != 2 {
			t.Errorf("u %v: token %d p %v (%d kept), want %d p %v", tc.u, id, p, len(c.Items), tc.wantID, tc.wantP)
		}
	}
	c := cands(logitsOf(0.5, 0.25, 0.25)...)
	if id, p := MirostatV2(c, 0.5, 0.99); id != 0 || p != 1 { // nothing under the bound: the top token stays
		t.Errorf("tight bound: token %d p %v", id, p)
	}
}

// TestMirostatV1: on an exact Zipf distribution p ∝ 1/r² the fitted exponent is 2, so ε = 1 and
// k = (2^µ / (1 − 1/N))^(1/2) = √(64 / 0.999) = 8.004 for µ = 6 and N = 1000: 8 tokens stay.
func TestMirostatV1(t *testing.T) {
	p := make([]float64, 1000)
	for i := range p {
		p[i] = 1 / float64((i+1)*(i+1))
	}
	c := cands(logitsOf(p...)...)
	id, prob := MirostatV1(c, 6, len(p), 0)
	if len(c.Items) != 8 || id != 0 {
		t.Fatalf("kept %d tokens, drew %d; want 8 and token 0", len(c.Items), id)
	}
	z := 0.0
	for r := 1; r <= 8; r++ {
		z += 1 / float64(r*r)
	}
	if math.Abs(float64(prob)-1/z) > 1e-6 {
		t.Errorf("p %v, want %v", prob, 1/z)
	}
}

// TestMirostatSampler: the surprise bound starts at 2τ and moves by η·(τ − surprise); at temperature 0 the top
// token is chosen with surprise 0.
func TestMirostatSampler(t *testing.T) {
	for _, v := range []int{1, 2} {
		o := Defaults()
		o.Mirostat, o.MirostatTau, o.MirostatEta, o.Temperature, o.Seed = v, 3, 0.5, 0, 1
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if s.mu != 6 {
			t.Fatalf("µ starts at %v", s.mu)
		}
		if id := s.Sample([]float32{1, 5, 2}, nil); id != 1 {
			t.Errorf("v%d greedy: %d", v, id)
		}
		if s.mu != 7.5 { // 6 − 0.5·(0 − 3)
			t.Errorf("v%d: µ %v after a certain token, want 7.5", v, s.mu)
		}
		o.Temperature = 1
		s, _ = New(o)
		logits := logitsOf(0.5, 0.25, 0.125, 0.125)
		for range 20 {
			s.Sample(logits, nil)
		}
		if s.mu <= 0 || s.mu > 20 {
			t.Errorf("v%d: µ %v after 20 draws", v, s.mu)
		}
	}
}

// TestChainGreedy: at temperature 0 the token is the top one the chain leaves: XTC and typical-p can remove it,
// DRY and the penalties can lower it.
func TestChainGreedy(t *testing.T) {
	logits := logitsOf(0.4, 0.3, 0.2, 0.1)
	o := Defaults()
	o.Temperature, o.Seed = 0, 3
	o.XTCProbability, o.XTCThreshold = 1, 0.15
	s, _ := New(o)
	if id := s.Sample(logits, nil); id != 2 {
		t.Errorf("XTC at temperature 0 chose %d, want 2", id)
	}
	o = Defaults()
	o.Temperature, o.DRYMultiplier, o.DRYSequenceBreakers = 0, 5, nil
	s, _ = New(o)
	if id := s.Sample(logitsOf(0.3, 0.4, 0.2, 0.1), []int32{2, 3, 1, 2, 3}); id != 0 {
		t.Errorf("DRY: chose %d, want 0 (1 extends a repetition of 2 tokens)", id)
	}
}

func TestNewSamplersAllocateNothing(t *testing.T) {
	const n = 32000
	logits := make([]float32, n)
	for i := range logits {
		logits[i] = float32(math.Cos(float64(i) * 0.37))
	}
	vocab := make(letters, n)
	for i := range vocab {
		vocab[i] = strconv.Itoa(i%97) + string(rune('a'+i%26))
	}
	vocab[7] = "\n"
	hist := make([]int32, 300)
	for i := range hist {
		hist[i] = int32(i % 37)
	}
	for _, set := range []func(*Options){
		func(o *Options) { o.DRYMultiplier, o.XTCProbability, o.TopNSigma = 0.8, 0.5, 2 },
		func(o *Options) { o.Mirostat = 1 },
		func(o *Options) { o.Mirostat = 2 },
	} {
		o := Defaults()
		set(&o)
		s, err := NewFor(o, vocab)
		if err != nil {
			t.Fatal(err)
		}
		s.Sample(logits, hist)
		if a := testing.AllocsPerRun(20, func() { s.Sample(logits, hist) }); a != 0 {
			t.Errorf("%+v: %v allocations per call", o, a)
		}
	}
}

func BenchmarkSampleDRYXTC(b *testing.B) {
	const n = 128000
	logits := make([]float32, n)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i) * 0.1))
	}
	hist := make([]int32, 4096)
	for i := range hist {
		hist[i] = int32(i*7919) % n
	}
	o := Defaults()
	o.DRYMultiplier, o.DRYSequenceBreakers, o.XTCProbability, o.TopNSigma = 0.8, nil, 0.5, 1
	s, _ := New(o)
	b.ReportAllocs()
	b.SetBytes(4 * n)
	for b.Loop() {
		s.Sample(logits, hist)
	}
}

// cached is a vocabulary that keeps its breakers, counting the scans.
type cached struct {
	letters
	kept  map[string]*Breakers
	scans int
}

func (c *cached) Breakers(seqs []string) *Breakers {
	key := strings.Join(seqs, "\x00")
	if b, ok := c.kept[key]; ok {
		return b
	}
	c.scans++
	c.kept[key] = FindBreakers(c.letters, seqs)
	return c.kept[key]
}

func TestBreakerCache(t *testing.T) {
	v := &cached{letters: letters{"a", ":", "b"}, kept: map[string]*Breakers{}}
	for range 3 {
		if _, err := NewFor(dryOptions(1, 1.75, 2, -1, ":"), v); err != nil {
			t.Fatal(err)
		}
	}
	if v.scans != 1 {
		t.Errorf("%d scans of the vocabulary for one list of breakers", v.scans)
	}
}
