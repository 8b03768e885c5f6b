package vulkan

import (
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// openValidated opens a device with validation, skipping when Vulkan or the layer is missing. The caller closes it.
func openValidated(t *testing.T) *Device {
	t.Helper()
	return openDevice(t, true)
}

func hasMessage(msgs []Message, id string) bool {
	return slices.ContainsFunc(msgs, func(m Message) bool { return strings.Contains(m.ID, id) })
}

// TestValidationReportsMisuse proves the messenger works, so the zero-message checks of the other tests mean
// something: an invalid create info must be reported.
func TestValidationReportsMisuse(t *testing.T) {
	d := openValidated(t)
	defer d.Close()
	info := &vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: 0, Usage: bufferUsage}
	var b vk.Buffer
	r := d.cmds.CreateBuffer(d.handle, info, nil, &b) // size 0 is invalid
	if r == vk.Success && b != 0 {
		d.cmds.DestroyBuffer(d.handle, b, nil)
	}
	if msgs := d.Messages(); !hasMessage(msgs, "VUID-VkBufferCreateInfo-size-00912") {
		t.Fatalf("no validation error for a zero-sized buffer; got %v", msgs)
	}
}

// TestValidationReportsLeaks proves that objects left undestroyed are reported when the device closes, which
// is what makes Close's clean shutdown checkable.
func TestValidationReportsLeaks(t *testing.T) {
	d := openValidated(t)
	info := &vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: 64, Usage: bufferUsage}
	var leaked vk.Buffer
	if r := d.cmds.CreateBuffer(d.handle, info, nil, &leaked); r != vk.Success {
		t.Fatal(r)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	msgs := d.Messages()
	if !slices.ContainsFunc(msgs, func(m Message) bool { return strings.Contains(m.Text, "VkBuffer") }) {
		t.Fatalf("a leaked VkBuffer was not reported at close; got %v", msgs)
	}
}

// TestNoMessagesOnCleanShutdown exercises every kind of object and checks that closing reports nothing.
func TestNoMessagesOnCleanShutdown(t *testing.T) {
	d := openValidated(t)
	d.noMap, d.stagingSize = true, 1024 // create the staging machinery too
	b := mustBuffer(t, d, "b", 4096, DeviceLocal)
	if err := d.Write(b, 0, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Pipeline(PipelineDesc{Name: "add_f32", SPIRV: shader(t, "add_f32"), Buffers: 3, PushSize: 16, Spec: []uint32{64}}); err != nil {
		t.Fatal(err)
	}
	c, err := d.NewCommands(CommandsOptions{Name: "c", Timestamps: 2})
	if err != nil && d.Info().TimestampPeriod != 0 {
		t.Fatal(err)
	}
	if c != nil {
		record(t, c, func() {
			c.Fill(b, 0, 4096, 7)
		})
		if err := c.Submit(); err != nil { // left running: Close must wait for it
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if msgs := d.Messages(); len(msgs) > 0 {
		t.Fatalf("messages at shutdown: %v", msgs)
	}
}

// TestSyncValidationNeedsBarrier proves synchronization validation is on: reading what a fill wrote without a
// barrier is a hazard, and Barrier removes it.
func TestSyncValidationNeedsBarrier(t *testing.T) {
	for _, barrier := range []bool{false, true} {
		d := openValidated(t)
		src := mustBuffer(t, d, "src", 256, DeviceLocal)
		dst := mustBuffer(t, d, "dst", 256, DeviceLocal)
		c := mustCommands(t, d, CommandsOptions{Name: "hazard"})
		record(t, c, func() {
			c.Fill(src, 0, 256, 1)
			if barrier {
				c.Barrier(src)
			}
			c.Copy(dst, 0, src, 0, 256)
		})
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		hazard := hasMessage(d.Messages(), "SYNC-HAZARD-READ")
		if hazard == barrier {
			t.Errorf("barrier %v: hazard reported %v; messages %v", barrier, hazard, d.Messages())
		}
	}
}
