package vulkan

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/forma-llm/forma/shaders"
)

// openTest opens the default device with validation (when the layer is installed) and, at cleanup, closes it
// and fails the test on any message recorded, including those raised while closing. It skips when there is no
// Vulkan.
func openTest(t testing.TB) *Device {
	t.Helper()
	d := openDevice(t, false)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		for _, m := range d.Messages() {
			t.Errorf("Vulkan message: %v", m)
		}
	})
	return d
}

func randFloats(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// newF32 makes a device-local buffer holding v.
func newF32(t testing.TB, d *Device, name string, v []float32) *Buffer {
	t.Helper()
	b := mustBuffer(t, d, name, int64(4*len(v)), DeviceLocal)
	if err := d.Write(b, 0, f32bytes(v)); err != nil {
		t.Fatal(err)
	}
	return b
}

func readF32(t *testing.T, d *Device, b *Buffer) []float32 {
	t.Helper()
	out := make([]byte, b.Size())
	if err := d.Read(b, 0, out); err != nil {
		t.Fatal(err)
	}
	return bytesF32(out)
}

func shader(t testing.TB, name string) []byte {
	t.Helper()
	spv, err := shaders.SPIRV(name)
	if err != nil {
		t.Fatal(err)
	}
	return spv
}

// minMaxWorkgroups is the least maxComputeWorkGroupCount[0] Vulkan allows; the tests split dispatches at it, so
// the 2D path is exercised on every device.
const minMaxWorkgroups = 65535

// groups2D spreads n workgroups over x and y, as shaders/common.glsl expects.
func groups2D(n uint32) [3]uint32 {
	maxX := uint32(minMaxWorkgroups)
	if n <= maxX {
		return [3]uint32{n, 1, 1}
	}
	return [3]uint32{maxX, (n + maxX - 1) / maxX, 1}
}

func TestDevices(t *testing.T) {
	infos, err := Devices()
	if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
		t.Skipf("no Vulkan here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Skip("no Vulkan device")
	}
	for i, info := range infos {
		t.Logf("%d: %s (%v) Vulkan %s, %s, subgroup %d, unified %v, heaps %v, f16 %v int8 %v 16-bit storage %v, usable %v %s",
			info.Index, info.Name, info.Type, info.APIVersion, info.Driver, info.SubgroupSize, info.UnifiedMemory,
			info.Heaps, info.ShaderFloat16, info.ShaderInt8, info.StorageBuffer16Bit, info.Usable, info.Unusable)
		if info.Index != i || info.Name == "" || len(info.Heaps) == 0 || info.MaxStorageBufferRange == 0 {
			t.Errorf("device %d: implausible info %+v", i, info)
		}
		if info.Usable && (info.SubgroupSize == 0 || info.SubgroupSize&(info.SubgroupSize-1) != 0) {
			t.Errorf("%s: subgroup size %d", info.Name, info.SubgroupSize)
		}
	}
}

// addCase is one elementwise-add run: element offsets into a, b and d.
type addCase struct {
	name             string
	n                int
	aOff, bOff, dOff int
	staging          bool // force the staging path for transfers
}

func TestAddF32(t *testing.T) {
	for _, tc := range []addCase{
		{name: "small", n: 1},
		{name: "offsets", n: 1000, aOff: 3, bOff: 17, dOff: 5},
		{name: "staging", n: 3000, aOff: 1, bOff: 2, dOff: 3, staging: true},
	} {
		t.Run(tc.name, func(t *testing.T) { testAdd(t, tc) })
	}
}

func testAdd(t *testing.T, tc addCase) {
	d := openTest(t)
	if tc.staging {
		d.noMap, d.stagingSize = true, 4096 // several chunks per transfer
	}
	r := rand.New(rand.NewPCG(1, uint64(tc.n)))
	a := randFloats(r, tc.aOff+tc.n)
	b := randFloats(r, tc.bOff+tc.n)
	sentinel := randFloats(r, tc.dOff+tc.n+7) // elements outside the range must stay untouched
	ab, bb, db := newF32(t, d, "a", a), newF32(t, d, "b", b), newF32(t, d, "d", sentinel)
	if tc.staging && db.Mapped() != nil {
		t.Fatal("staging test got a mapped buffer")
	}
	const wg = 64
	p, err := d.Pipeline(PipelineDesc{Name: "add_f32", SPIRV: shader(t, "add_f32"), Buffers: 3, PushSize: 16, Spec: []uint32{wg}})
	if err != nil {
		t.Fatal(err)
	}
	c := mustCommands(t, d, CommandsOptions{Name: "add"})
	record(t, c, func() {
		push := PushUint32(uint32(tc.n), uint32(tc.aOff), uint32(tc.bOff), uint32(tc.dOff))
		c.Dispatch(p, groups2D(uint32((tc.n+wg-1)/wg)), push, ab.All(), bb.All(), db.All())
	})
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	got := readF32(t, d, db)
	for i := range got {
		want := sentinel[i]
		if i >= tc.dOff && i < tc.dOff+tc.n {
			k := i - tc.dOff
			want = float32(float64(a[tc.aOff+k]) + float64(b[tc.bOff+k])) // exact: float64 holds the float32 sum
		}
		if got[i] != want {
			t.Fatalf("d[%d] = %v, want %v", i, got[i], want)
		}
	}
}

type matvecCase struct {
	name             string
	rows, cols       int
	wg               uint32
	wOff, xOff, yOff int
}

func TestMatVecF32(t *testing.T) {
	d := openTest(t)
	for _, tc := range []matvecCase{
		{name: "long-rows", rows: 37, cols: 1000, wg: 64},
		{name: "offsets", rows: 301, cols: 777, wg: 128, wOff: 5, xOff: 3, yOff: 2},
		{name: "short-rows", rows: 50, cols: 3, wg: 64},
		{name: "2d-dispatch", rows: 2*minMaxWorkgroups + 100, cols: 4, wg: 128},
	} {
		t.Run(tc.name, func(t *testing.T) { testMatVec(t, d, tc) })
	}
}

func testMatVec(t *testing.T, d *Device, tc matvecCase) {
	r := rand.New(rand.NewPCG(2, uint64(tc.rows*tc.cols)))
	w := randFloats(r, tc.wOff+tc.rows*tc.cols)
	x := randFloats(r, tc.xOff+tc.cols)
	wb, xb := newF32(t, d, "W", w), newF32(t, d, "x", x)
	yb := newF32(t, d, "y", make([]float32, tc.yOff+tc.rows))
	defer func() { wb.Close(); xb.Close(); yb.Close() }()
	p, err := d.Pipeline(PipelineDesc{Name: "matvec_f32", SPIRV: shader(t, "matvec_f32"), Buffers: 3, PushSize: 32,
		Spec: []uint32{tc.wg}})
	if err != nil {
		t.Fatal(err)
	}
	c := mustCommands(t, d, CommandsOptions{Name: "matvec"})
	defer c.Close()
	record(t, c, func() {
		// 64 invocations per weight row (wg/64 rows per workgroup), one activation row (ncols 1).
		push := PushUint32(uint32(tc.rows), uint32(tc.cols), 1, uint32(tc.wOff), uint32(tc.xOff), uint32(tc.yOff), 0, 64)
		per := tc.wg / 64
		c.Dispatch(p, groups2D((uint32(tc.rows)+per-1)/per), push, wb.All(), xb.All(), yb.All())
	})
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	got := readF32(t, d, yb)
	for i := range tc.yOff {
		if got[i] != 0 {
			t.Fatalf("y[%d] = %v before the output range", i, got[i])
		}
	}
	for row := range tc.rows {
		var want, mag float64
		for c := range tc.cols {
			p := float64(w[tc.wOff+row*tc.cols+c]) * float64(x[tc.xOff+c])
			want += p
			mag += math.Abs(p)
		}
		// float32 accumulation in any order stays within a few ulps of the magnitude per term.
		tol := 1e-6*mag*math.Sqrt(float64(tc.cols)) + 1e-7
		if g := float64(got[tc.yOff+row]); math.Abs(g-want) > tol {
			t.Fatalf("y[%d] = %v, want %v (tolerance %g)", row, g, want, tol)
		}
	}
}

func TestTimestamps(t *testing.T) {
	d := openTest(t)
	if d.Info().TimestampPeriod == 0 {
		t.Skip("no timestamps on this device's compute queue")
	}
	buf := mustBuffer(t, d, "fill", 1<<16, DeviceLocal)
	c := mustCommands(t, d, CommandsOptions{Name: "timed", Timestamps: 3})
	for range 2 { // record twice: queries are reset per recording
		record(t, c, func() {
			c.Timestamp()
			c.Fill(buf, 0, buf.Size(), 0x3f800000)
			c.Timestamp()
			c.Barrier(buf)
			c.Fill(buf, 4, 8, 0)
			c.Timestamp()
		})
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		times, err := c.Timings()
		if err != nil {
			t.Fatal(err)
		}
		if len(times) != 3 || times[0] != 0 || times[1] < 0 || times[2] < times[1] {
			t.Fatalf("timings %v", times)
		}
	}
	got := readF32(t, d, buf)
	if got[0] != 1 || got[1] != 0 || got[2] != 0 || got[3] != 1 {
		t.Fatalf("fill gave %v", got[:4])
	}
}

func TestPipelineCache(t *testing.T) {
	d := openTest(t)
	desc := PipelineDesc{Name: "add_f32", SPIRV: shader(t, "add_f32"), Buffers: 3, PushSize: 16, Spec: []uint32{32}}
	p1, err := d.Pipeline(desc)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := d.Pipeline(desc)
	desc.Spec = []uint32{64}
	p3, err := d.Pipeline(desc)
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 || p1 == p3 || p3.WorkgroupSize() != 64 {
		t.Errorf("cache: same desc gave %p and %p, other spec %p (workgroup %d)", p1, p2, p3, p3.WorkgroupSize())
	}
	for _, bad := range []PipelineDesc{
		{Name: "empty", Buffers: 1},
		{Name: "odd-push", SPIRV: desc.SPIRV, Buffers: 3, PushSize: 6},
		{Name: "huge-workgroup", SPIRV: desc.SPIRV, Buffers: 3, PushSize: 16, Spec: []uint32{1 << 30}},
	} {
		if _, err := d.Pipeline(bad); err == nil || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%s: error %v", bad.Name, err)
		}
	}
}

// TestRecordingErrors checks that misuse is reported by End, and that nothing reaches the driver.
func TestRecordingErrors(t *testing.T) {
	d := openTest(t)
	p, err := d.Pipeline(PipelineDesc{Name: "add_f32", SPIRV: shader(t, "add_f32"), Buffers: 3, PushSize: 16, Spec: []uint32{64}})
	if err != nil {
		t.Fatal(err)
	}
	buf := mustBuffer(t, d, "small", 64, DeviceLocal)
	c := mustCommands(t, d, CommandsOptions{Name: "bad"})
	cases := []struct {
		name   string
		record func()
		want   string
	}{
		{"buffer-count", func() { c.Dispatch(p, [3]uint32{1, 1, 1}, make([]byte, 16), buf.All()) }, "1 buffers"},
		{"push-size", func() { c.Dispatch(p, [3]uint32{1, 1, 1}, nil, buf.All(), buf.All(), buf.All()) }, "0 push bytes"},
		{"range", func() { c.Dispatch(p, [3]uint32{1, 1, 1}, make([]byte, 16), buf.All(), buf.All(), buf.Range(32, 64)) }, "out of bounds"},
		{"groups", func() { c.Dispatch(p, [3]uint32{0, 1, 1}, make([]byte, 16), buf.All(), buf.All(), buf.All()) }, "workgroup count"},
		{"copy", func() { c.Copy(buf, 60, buf, 0, 8) }, "out of bounds"},
		{"fill", func() { c.Fill(buf, 2, 8, 0) }, "multiples of 4"},
		{"timestamp", func() { c.Timestamp() }, "timestamps"},
	}
	for _, tc := range cases {
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		tc.record()
		if err := c.End(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: End gave %v, want an error containing %q", tc.name, err, tc.want)
		}
		if err := c.Submit(); err == nil {
			t.Errorf("%s: Submit after a failed recording succeeded", tc.name)
		}
	}
	if err := d.Write(buf, 60, make([]byte, 8)); err == nil {
		t.Error("Write past the end succeeded")
	}
	if _, err := d.NewBuffer("zero", 0, DeviceLocal); err == nil {
		t.Error("NewBuffer of 0 bytes succeeded")
	}
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	d := openTest(t)
	buf := mustBuffer(t, d, "b", 16, DeviceLocal)
	c := mustCommands(t, d, CommandsOptions{Name: "c"})
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := buf.Close(); err != nil {
		t.Errorf("Buffer.Close after Device.Close: %v", err)
	}
	if err := c.Begin(); !errors.Is(err, ErrClosedDevice) {
		t.Errorf("Begin after Close: %v", err)
	}
	if _, err := d.NewBuffer("late", 16, DeviceLocal); !errors.Is(err, ErrClosedDevice) {
		t.Errorf("NewBuffer after Close: %v", err)
	}
	if err := d.Write(buf, 0, make([]byte, 4)); err == nil {
		t.Error("Write to a closed buffer succeeded")
	}
}
