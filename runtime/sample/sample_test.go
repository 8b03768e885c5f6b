package sample

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

func ids(c *Candidates) []int32 {
	var out []int32
	for _, it := range c.Items {
		out = append(out, it.ID)
	}
	return out
}

func cands(logits ...float32) *Candidates {
	c := &Candidates{}
	c.Reset(logits)
	return c
}

// logitsOf returns logits whose softmax is exactly probs.
func logitsOf(probs ...float64) []float32 {
	out := make([]float32, len(probs))
	for i, p := range probs {
		out[i] = float32(math.Log(p))
	}
	return out
}

func TestStages(t *testing.T) {
	probs := logitsOf(0.1, 0.4, 0.05, 0.3, 0.15) // ids by probability: 1 (.4), 3 (.3), 4 (.15), 0 (.1), 2 (.05)
	tests := []struct {
		name  string
		stage func(*Candidates)
		want  []int32
	}{
		{"top-k 2", func(c *Candidates) { TopK(c, 2) }, []int32{1, 3}},
		{"top-k 0 keeps all", func(c *Candidates) { TopK(c, 0) }, []int32{0, 1, 2, 3, 4}},
		// cumulative .4, .7, .85 ≥ .8 → three tokens
		{"top-p 0.8", func(c *Candidates) { TopP(c, 0.8, 1) }, []int32{1, 3, 4}},
		{"top-p 0.4 exact", func(c *Candidates) { TopP(c, 0.4, 1) }, []int32{1}},
		{"top-p min keep 2", func(c *Candidates) { TopP(c, 0.1, 2) }, []int32{1, 3}},
		// min-p 0.3: keep p ≥ 0.12 → .4, .3, .15
		{"min-p 0.3", func(c *Candidates) { MinP(c, 0.3, 1) }, []int32{1, 3, 4}},
		{"min-p 0.8", func(c *Candidates) { MinP(c, 0.8, 1) }, []int32{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cands(probs...)
			tt.stage(c)
			got := ids(c)
			if !c.Sorted {
				slices.Sort(got)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("kept %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTypical(t *testing.T) {
	// p = (.5, .25, .125, .125): H = 1.2130 nats; |−ln p − H| = .52, .17, .87, .87
	// → order 1, 0, 2, 3; cumulative .25, .75 > 0.5 → keep ids 1 and 0.
	c := cands(logitsOf(0.5, 0.25, 0.125, 0.125)...)
	Typical(c, 0.5, 1)
	if got := ids(c); !slices.Equal(got, []int32{1, 0}) {
		t.Errorf("typical kept %v, want [1 0]", got)
	}
}

func TestSoftmaxAndTemperature(t *testing.T) {
	c := cands(logitsOf(0.2, 0.3, 0.5)...)
	Temperature(c, 0.5) // p_i ∝ p_i² → .04, .09, .25 over .38
	c.Softmax()
	want := []float64{0.04 / 0.38, 0.09 / 0.38, 0.25 / 0.38}
	for i, it := range c.Items {
		if math.Abs(float64(it.P)-want[i]) > 1e-6 {
			t.Errorf("p[%d] = %v, want %v", i, it.P, want[i])
		}
	}
}

func TestDraw(t *testing.T) {
	c := cands(logitsOf(0.2, 0.3, 0.5)...)
	for _, tc := range []struct {
		u    float64
		want int32
	}{{0, 0}, {0.19, 0}, {0.21, 1}, {0.49, 1}, {0.51, 2}, {0.999, 2}} {
		if got := Draw(c, tc.u); got != tc.want {
			t.Errorf("Draw(u=%v) = %d, want %d", tc.u, got, tc.want)
		}
	}
}

func TestPenalties(t *testing.T) {
	logits := []float32{2, -2, 1, 0.5}
	counts := make([]int32, 4)
	Penalties(logits, []int32{0, 1, 0, 3}, 2, 0.1, 0.5, counts)
	// id 0 twice: 2/2 - 0.2 - 0.5 = 0.3; id 1 once: -2*2 - 0.1 - 0.5 = -4.6; id 2 untouched; id 3: .25-.6 = -.35
	want := []float32{0.3, -4.6, 1, -0.35}
	for i := range want {
		if math.Abs(float64(logits[i]-want[i])) > 1e-6 {
			t.Errorf("logit %d = %v, want %v", i, logits[i], want[i])
		}
	}
	if !slices.Equal(counts, make([]int32, 4)) {
		t.Errorf("counts not cleared: %v", counts)
	}
}

func TestGreedyTies(t *testing.T) {
	if got := Greedy(cands(1, 3, 3, 2)); got != 1 {
		t.Errorf("greedy = %d, want the lowest id of the tie, 1", got)
	}
}

func TestSeededRepeats(t *testing.T) {
	logits := make([]float32, 1000)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i)))
	}
	run := func(seed uint64) []int32 {
		opt := Defaults()
		opt.Seed, opt.TopK = seed, 0
		s, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []int32
		for i := 0; i < 50; i++ {
			out = append(out, s.Sample(logits, out))
		}
		return out
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave different tokens")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same 50 tokens")
	}
}

func TestSampleAllocatesNothing(t *testing.T) {
	logits := make([]float32, 32000)
	for i := range logits {
		logits[i] = float32(math.Cos(float64(i) * 0.37))
	}
	opt := Defaults()
	opt.TypicalP, opt.RepeatPenalty = 0.9, 1.1
	s, _ := New(opt)
	hist := []int32{1, 2, 3}
	s.Sample(logits, hist)
	if n := testing.AllocsPerRun(20, func() { s.Sample(logits, hist) }); n != 0 {
		t.Errorf("Sample allocates %v times per call", n)
	}
}

func BenchmarkSample(b *testing.B) {
	for _, n := range []int{32000, 128000} {
		logits := make([]float32, n)
		for i := range logits {
			logits[i] = float32(math.Sin(float64(i) * 0.1))
		}
		s, _ := New(Defaults())
		b.Run("defaults/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Sample(logits, nil)
			}
		})
	}
}

func TestRandomSeed(t *testing.T) {
	a, _ := New(Defaults())
	b, _ := New(Defaults())
	if a.Options().Seed == RandomSeed || a.Options().Seed == b.Options().Seed {
		t.Errorf("random seeds %d and %d", a.Options().Seed, b.Options().Seed)
	}
	o := Defaults()
	o.Seed = a.Options().Seed
	c, _ := New(o)
	logits := []float32{1, 1, 1, 1, 1, 1, 1, 1}
	for i := 0; i < 20; i++ {
		if x, y := a.Sample(logits, nil), c.Sample(logits, nil); x != y {
			t.Fatalf("draw %d: %d with the drawn seed, %d with it given again", i, x, y)
		}
	}
}

// TestVerifyFollowsTheDistribution: the tokens Verify gives — the draft, or a token drawn without it — follow
// the chain's distribution, whatever the draft (likely, unlikely, or cut by top-k): a chi-square test over many
// draws, with the expected probabilities computed here from the logits (top-k 5, temperature 0.7).
func TestVerifyFollowsTheDistribution(t *testing.T) {
	logits := []float32{2.0, 1.5, 1.4, 0.3, -0.2, -1.0, 0.9, 0.0}
	o := Defaults()
	o.TopK, o.TopP, o.MinP, o.Temperature, o.RepeatPenalty, o.Seed = 5, 1, 0, 0.7, 1, 11
	// the expected distribution: the five largest logits, softmax at temperature 0.7
	want := make([]float64, len(logits))
	sum := 0.0
	for _, id := range []int{0, 1, 2, 6, 3} {
		want[id] = math.Exp(float64(logits[id]) / 0.7)
		sum += want[id]
	}
	for i := range want {
		want[i] /= sum
	}
	const n = 40000
	for _, draft := range []int32{0, 2, 3, 5} {
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(logits))
		stood := 0
		for range n {
			id, ok := s.Verify(logits, nil, draft)
			if ok != (id == draft) {
				t.Fatalf("draft %d: Verify gave %d, stood=%v", draft, id, ok)
			}
			if ok {
				stood++
			}
			got[id]++
		}
		chi2, dof := 0.0, -1
		for i, p := range want {
			if p == 0 {
				if got[i] != 0 {
					t.Errorf("draft %d: token %d, cut by top-k, came out %v times", draft, i, got[i])
				}
				continue
			}
			e := p * n
			chi2 += (got[i] - e) * (got[i] - e) / e
			dof++
		}
		// 4 degrees of freedom: P(χ² > 18.47) = 0.001
		if chi2 > 18.47 {
			t.Errorf("draft %d: χ² = %.1f over %d degrees of freedom: counts %v, want %v·%d", draft, chi2, dof, got, want, n)
		}
		if rate := float64(stood) / n; math.Abs(rate-want[draft]) > 0.02 {
			t.Errorf("draft %d stood %.3f of the time, want its probability %.3f", draft, rate, want[draft])
		}
	}
}
