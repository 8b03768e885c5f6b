package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLookupScan: drafter.lookup's one scan finds what trying each n-gram size from Lookup down to 1 finds (the
// tokens after the latest earlier occurrence of the longest final n-gram that has one), on random histories
// of few distinct tokens (many matches, of every length, overlapping the end) and on one token repeated.
func TestLookupScan(t *testing.T) {
	byNgram := func(hist []int32, lookup, n int) []int32 {
		for k := min(lookup, len(hist)-1); k >= 1; k-- {
			for at := len(hist) - k - 1; at >= 0; at-- {
				if slices.Equal(hist[at:at+k], hist[len(hist)-k:]) {
					return hist[at+k : min(len(hist), at+k+n)]
				}
			}
		}
		return nil
	}
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 3000 {
		hist := make([]int32, 1+r.IntN(60))
		vocab := int32(1 + r.IntN(6))
		for i := range hist {
			hist[i] = r.Int32N(vocab)
		}
		lookup, n := 1+r.IntN(12), 1+r.IntN(8)
		d := drafter{sp: &Speculation{Lookup: lookup}}
		got, want := d.lookup(hist, n), byNgram(hist, lookup, n)
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("trial %d: lookup %d of %v: %v, by n-grams %v", trial, lookup, hist, got, want)
		}
	}
	same := slices.Repeat([]int32{5}, 100)
	d := drafter{sp: &Speculation{Lookup: 64}}
	if got := d.lookup(same, 4); !slices.Equal(got, []int32{5}) {
		t.Errorf("one token repeated: %v, want the last one", got)
	}
}
