package vulkan

import "testing"

// TestRunAllocs checks that resubmitting recorded commands, the per-token path, allocates nothing.
func TestRunAllocs(t *testing.T) {
	d := openTest(t)
	b, err := d.NewBuffer("b", 256, DeviceLocal)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewCommands(CommandsOptions{Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	c.Fill(b, 0, 256, 1)
	if err := c.End(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Commands.Run allocates %v times; resubmitting a recorded graph must not allocate", allocs)
	}
}
