package backendtest_test

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
	"github.com/forma-llm/forma/accel/cpu"
)

// TestReporter runs the suite on the CPU backend through the Reporter, as forma selftest does (with the case
// names, hence the data, of accel/vulkan's TestConformance), and checks that every case passed and was recorded,
// cleanups ran (every backend closed), and that failures, Fatal and panics are reported per case.
func TestReporter(t *testing.T) {
	r := backendtest.NewReporter("TestConformance", true)
	opened, closed := 0, 0
	backendtest.Run(r, func(t *backendtest.Reporter) accel.Backend {
		be, err := cpu.New(cpu.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		opened++
		return closeCounter{be, &closed}
	})
	res := r.Results()
	if len(res) < len(accel.Ops()) || r.Failed() {
		t.Fatalf("%d results, failed %v", len(res), r.Failed())
	}
	for _, x := range res {
		if x.Failed {
			t.Errorf("%s failed: %v", x.Name, x.Messages)
		}
	}
	if !strings.HasPrefix(res[0].Name, "ops/") || opened == 0 || closed < opened {
		t.Errorf("first case %q, %d backends opened, %d closed", res[0].Name, opened, closed)
	}

	r = backendtest.NewReporter("", false)
	var order []string
	r.Run("group", func(t *backendtest.Reporter) {
		t.Run("ok", func(t *backendtest.Reporter) { t.Logf("fine") })
		t.Run("fatal", func(t *backendtest.Reporter) {
			t.Cleanup(func() { order = append(order, "first") })
			t.Cleanup(func() { order = append(order, "second") })
			t.Fatalf("stop %d", 1)
			t.Errorf("not reached")
		})
		t.Run("panic", func(t *backendtest.Reporter) { panic("boom") })
	})
	res = r.Results()
	if len(res) != 3 || res[0].Failed || !res[1].Failed || !res[2].Failed || !r.Failed() {
		t.Fatalf("results %+v", res)
	}
	if strings.Join(res[1].Messages, ";") != "stop 1" || !strings.Contains(res[2].Messages[0], "boom") ||
		strings.Join(order, ",") != "second,first" || res[0].Name != "group/ok" {
		t.Errorf("results %+v, cleanups %v", res, order)
	}
}

type closeCounter struct {
	accel.Backend
	n *int
}

func (c closeCounter) Close() error {
	*c.n++
	return c.Backend.Close()
}
