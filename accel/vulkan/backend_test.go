package vulkan

import (
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
)

// sharedDevice opens one validated device for a test and its subtests (pipelines are compiled once per
// device, which matters on lavapipe) and fails the test on any validation message, including the reports of
// undestroyed objects made when the device closes.
func sharedDevice(t *testing.T) *Device {
	t.Helper()
	d := openDevice(t, false)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("closing the device: %v", err)
		}
		for _, m := range d.Messages() {
			t.Errorf("validation: %v", m)
		}
	})
	return d
}

// newTestBackend returns a backend on d for t; messages recorded while t runs fail t.
func newTestBackend(t *testing.T, d *Device) *Backend {
	t.Helper()
	before := len(d.Messages())
	b, err := NewBackendOn(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if msgs := d.Messages(); len(msgs) > before {
			for _, m := range msgs[before:] {
				t.Errorf("validation: %v", m)
			}
		}
	})
	return b
}

func TestConformance(t *testing.T) {
	d := sharedDevice(t)
	backendtest.Run(t, func(t *testing.T) accel.Backend { return newTestBackend(t, d) })
}

// TestBatchInvariance: every op gives a row the same bits alone and in batches of any size and composition
// (mat-vec and tiled products, backendtest.Invariance).
func TestBatchInvariance(t *testing.T) {
	d := sharedDevice(t)
	backendtest.Invariance(t, newTestBackend(t, d))
}
