package vulkan

import (
	"errors"
	"testing"
)

// openDevice opens the default device with validation and skips when there is no Vulkan. Without the validation
// layer it skips when requireValidation is set, else it opens the device unvalidated and says so.
func openDevice(t testing.TB, requireValidation bool) *Device {
	t.Helper()
	d, err := Open(Options{Validation: true})
	if errors.Is(err, ErrNoValidationLayer) {
		if requireValidation {
			t.Skipf("needs the validation layer: %v", err)
		}
		t.Logf("running without validation: %v", err)
		d, err = Open(Options{})
	}
	if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
		t.Skipf("no Vulkan here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustBuffer(t testing.TB, d *Device, name string, size int64, kind MemoryKind) *Buffer {
	t.Helper()
	b, err := d.NewBuffer(name, size, kind)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCommands(t testing.TB, d *Device, opt CommandsOptions) *Commands {
	t.Helper()
	c, err := d.NewCommands(opt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// record records c anew with what f adds.
func record(t testing.TB, c *Commands, f func()) {
	t.Helper()
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	f()
	if err := c.End(); err != nil {
		t.Fatal(err)
	}
}
