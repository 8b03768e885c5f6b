package runtime

import (
	"testing"
	"time"
)

// TestPoll: poll takes a signal that is there or comes within its time, gives up after it, does not poll at
// all for 0, and the engine polls only after passes under maxPoll.
func TestPoll(t *testing.T) {
	ch := make(chan struct{}, 1)
	ch <- struct{}{}
	if !poll(ch, time.Millisecond) {
		t.Error("a waiting signal was not taken")
	}
	go func() {
		time.Sleep(time.Millisecond)
		ch <- struct{}{}
	}()
	if !poll(ch, time.Second) {
		t.Error("a signal sent within the time was not taken")
	}
	start := time.Now()
	if poll(ch, 2*time.Millisecond) {
		t.Error("poll reported a signal that was never sent")
	}
	if d := time.Since(start); d < 2*time.Millisecond || d > time.Second {
		t.Errorf("poll gave up after %v, asked for 2ms", d)
	}
	ch <- struct{}{}
	if poll(ch, 0) {
		t.Error("poll(0) looked at the channel")
	}
	var e engine
	for _, c := range []struct{ last, want time.Duration }{
		{0, 0}, {150 * time.Microsecond, 300 * time.Microsecond}, {maxPoll, 0}, {20 * time.Millisecond, 0},
	} {
		e.lastPass.Store(int64(c.last))
		if got := e.pollFor(); got != c.want {
			t.Errorf("after a pass of %v: polls for %v, want %v", c.last, got, c.want)
		}
	}
}
