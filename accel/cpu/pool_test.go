package cpu

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countTask records which shares ran.
type countTask struct {
	ran [8]atomic.Int32
	nw  atomic.Int32
}

func (c *countTask) run(w, nw int) {
	c.ran[w].Add(1)
	c.nw.Store(int32(nw))
}

// TestPool dispatches tasks of every width, with pauses long enough for the workers (and the dispatcher) to
// park, and checks that every share runs exactly once per dispatch.
func TestPool(t *testing.T) {
	p := newPool(5, false)
	defer p.close()
	for i := 0; i < 300; i++ {
		nw := 1 + i%7 // 6 and 7 are clamped to the pool's 5
		var c countTask
		p.run(&c, nw)
		want := min(nw, 5)
		for w := range c.ran {
			if got, exp := c.ran[w].Load(), int32(0); w < want {
				if got != 1 {
					t.Fatalf("dispatch %d (%d shares): share %d ran %d times", i, want, w, got)
				}
			} else if got != exp {
				t.Fatalf("dispatch %d (%d shares): share %d ran", i, want, w)
			}
		}
		if i%50 == 0 {
			time.Sleep(2 * time.Millisecond) // long enough to park
		}
	}
}

// slowTask makes share 0 slow, so the dispatcher parks while waiting.
type slowTask struct{ done atomic.Int32 }

func (s *slowTask) run(w, nw int) {
	if w == 0 {
		time.Sleep(3 * time.Millisecond)
	}
	s.done.Add(1)
}

func TestPoolDispatcherParks(t *testing.T) {
	p := newPool(3, false)
	defer p.close()
	for i := 0; i < 5; i++ {
		var s slowTask
		p.run(&s, 3)
		if s.done.Load() != 3 {
			t.Fatalf("run returned with %d of 3 shares done", s.done.Load())
		}
	}
}

// TestPoolsConcurrent runs several pools at once, as programs of different sessions do.
func TestPoolsConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newPool(3, false)
			defer p.close()
			for i := 0; i < 200; i++ {
				var c countTask
				p.run(&c, 3)
				if c.ran[0].Load()+c.ran[1].Load()+c.ran[2].Load() != 3 {
					t.Error("a share did not run")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestCountCores(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"processor\t: 0\nphysical id\t: 0\ncore id\t\t: 0\n\nprocessor\t: 1\nphysical id\t: 0\ncore id\t\t: 0\n\n" +
			"processor\t: 2\nphysical id\t: 0\ncore id\t\t: 1\n\nprocessor\t: 3\nphysical id\t: 0\ncore id\t\t: 1\n", 2},
		{"processor : 0\nphysical id : 0\ncore id : 0\nprocessor : 1\nphysical id : 1\ncore id : 0\n", 2},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nprocessor\t: 1\nBogoMIPS\t: 50.00\n", 0}, // arm64: no core ids
	}
	for i, c := range cases {
		if got := countCores([]byte(c.text)); got != c.want {
			t.Errorf("case %d: %d cores, want %d", i, got, c.want)
		}
	}
	if n := DefaultThreads(); n < 1 {
		t.Errorf("DefaultThreads() = %d", n)
	}
}

// chunkTask takes units through chunks and counts how often each was taken.
type chunkTask struct {
	c            chunks
	total, least int
	taken        []atomic.Int32
	pieces       atomic.Int32
}

func (c *chunkTask) run(w, nw int) {
	for {
		lo, hi := c.c.take(c.total, nw, c.least)
		if lo == hi {
			return
		}
		if hi-lo < min(c.least, c.total-lo) {
			panic("chunk smaller than least before the end")
		}
		c.pieces.Add(1)
		for u := lo; u < hi; u++ {
			c.taken[u].Add(1)
		}
	}
}

// TestChunks checks that the shares of a dispatch take every unit exactly once, in pieces that shrink towards
// the end (more than one per share for large totals, never below least but at the end).
func TestChunks(t *testing.T) {
	p := newPool(3, false)
	defer p.close()
	for _, tc := range []struct{ total, least, nw int }{{1, 1, 3}, {7, 4, 2}, {100, 1, 3}, {1000, 8, 3}, {5, 64, 2}} {
		for rep := 0; rep < 20; rep++ {
			c := &chunkTask{total: tc.total, least: tc.least, taken: make([]atomic.Int32, tc.total)}
			p.run(c, tc.nw)
			for u := range c.taken {
				if n := c.taken[u].Load(); n != 1 {
					t.Fatalf("%+v: unit %d taken %d times", tc, u, n)
				}
			}
			if tc.total >= 100 && int(c.pieces.Load()) <= tc.nw {
				t.Fatalf("%+v: %d pieces, not guided", tc, c.pieces.Load())
			}
		}
	}
}
