package gpulower

import "testing"

func TestPackIntervals(t *testing.T) {
	iv := []*interval{{first: 0, last: 2, size: 100}, {first: 1, last: 1, size: 50}, {first: 3, last: 4, size: 120},
		{first: 2, last: 5, size: 10}, {first: 5, last: 5, size: 40}}
	top := packIntervals(iv, 16)
	for i, a := range iv {
		if a.off%16 != 0 || a.off+a.size > top {
			t.Errorf("interval %d at %d (+%d) outside [0, %d) or unaligned", i, a.off, a.size, top)
		}
		for _, b := range iv[i+1:] {
			live := a.first <= b.last && b.first <= a.last
			if live && a.off < b.off+b.size && b.off < a.off+a.size {
				t.Errorf("intervals %+v and %+v overlap", *a, *b)
			}
		}
	}
	if top > 112+64+128 {
		t.Errorf("total %d: freed space is not reused", top)
	}
}
