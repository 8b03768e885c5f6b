package vulkan

import "testing"

// TestRunAllocs checks that resubmitting recorded commands, the per-token path, allocates nothing.
func TestRunAllocs(t *testing.T) {
	d := openTest(t)
	b := mustBuffer(t, d, "b", 256, DeviceLocal)
	c := mustCommands(t, d, CommandsOptions{Name: "c"})
	record(t, c, func() {
		c.Fill(b, 0, 256, 1)
	})
	allocs := testing.AllocsPerRun(20, func() {
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Commands.Run allocates %v times; resubmitting a recorded graph must not allocate", allocs)
	}
}
