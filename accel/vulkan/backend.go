package vulkan

import (
	"errors"
	"fmt"
	"sync"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/shaders/layout"
)

// Backend is the Vulkan accel.Backend: weights, KV caches and each program's intermediates live in device
// memory, and each compiled program is one command buffer recorded once and submitted per Run. It is safe for
// concurrent use; programs of one backend may run concurrently, one goroutine per program.
type Backend struct {
	dev    *Device
	ownDev bool
	// maxBind is the largest range one shader binding may cover (maxStorageBufferRange, also bounded by the
	// largest allocation); weights larger than it are split by rows into several buffers.
	maxBind int64
	// partBytes is the largest weight part: maxBind, or less in tests of the splitting.
	partBytes int64
	align     int64 // minStorageBufferOffsetAlignment
	// nativeFMA: the device's fma() is fused (probeFMA), so shaders use it rather than an exact emulation.
	nativeFMA bool

	mu       sync.Mutex
	closed   bool
	weights  map[*weight]struct{}
	buffers  map[*kvBuffer]struct{}
	programs map[*program]struct{}
}

// NewBackend opens a device as Open does and returns a backend that owns it: closing the backend closes the
// device. Errors wrap ErrNoLoader or ErrNoDevice when Vulkan cannot be used, so callers can fall back.
func NewBackend(opt Options) (*Backend, error) {
	d, err := Open(opt)
	if err != nil {
		return nil, err
	}
	b, err := NewBackendOn(d)
	if err != nil {
		d.Close()
		return nil, err
	}
	b.ownDev = true
	return b, nil
}

// NewBackendOn returns a backend on an open device, which it shares: closing the backend frees what the
// backend made but leaves the device (and its pipeline cache) open. Several backends may share a device.
func NewBackendOn(d *Device) (*Backend, error) {
	info := d.Info()
	if !info.SubgroupArithmetic {
		return nil, fmt.Errorf("%w: %s lacks subgroup arithmetic in compute shaders", ErrNoDevice, info.Name)
	}
	limits := d.phys.props.Limits
	maxBind := int64(limits.MaxStorageBufferRange)
	if m := info.MaxMemoryAllocationSize; m > 0 && int64(m) < maxBind {
		maxBind = int64(m)
	}
	maxBind &^= 3
	fused, err := probeFMA(d)
	if err != nil {
		return nil, err
	}
	return &Backend{dev: d, maxBind: maxBind, partBytes: maxBind, align: max(4, int64(limits.MinStorageBufferOffsetAlignment)),
		nativeFMA: fused, weights: map[*weight]struct{}{}, buffers: map[*kvBuffer]struct{}{}, programs: map[*program]struct{}{}}, nil
}

// Device returns the backend's device.
func (b *Backend) Device() *Device { return b.dev }

// Caps describes the backend.
func (b *Backend) Caps() accel.Caps {
	info := b.dev.Info()
	return accel.Caps{
		Name:          "vulkan",
		Device:        fmt.Sprintf("%s (%s)", info.Name, info.Type),
		UnifiedMemory: info.UnifiedMemory,
		WeightTypes:   append([]accel.DType(nil), weightTypes...),
	}
}

// register adds an object to the backend's sets unless the backend is closed.
func (b *Backend) register(add func()) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return accel.ErrClosed
	}
	add()
	return nil
}

// Close frees every program, buffer and weight the backend still holds, then the device if the backend owns
// it. It is safe to call twice, but not while a program of the backend is running.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	progs, bufs, ws := b.programs, b.buffers, b.weights
	b.programs, b.buffers, b.weights = nil, nil, nil
	b.mu.Unlock()
	var errs []error
	for p := range progs {
		errs = append(errs, p.free())
	}
	for bf := range bufs {
		errs = append(errs, bf.free())
	}
	for w := range ws {
		w.free()
	}
	if b.ownDev {
		errs = append(errs, b.dev.Close())
	}
	return errors.Join(errs...)
}

// weight is an uploaded weight: its rows split into parts of at most maxBind bytes, one buffer each (from
// offset 0).
type weight struct {
	b *Backend
	gpulower.Weight[*Buffer]
	cols int64 // elements per row (the last dimension)
}

func (w *weight) Desc() accel.TensorDesc { return w.Tensor }

// weightTypes lists the supported types in GGUF order.
var weightTypes = layout.Types()

// Upload converts w to its device layout and writes it straight into device memory (mapped when the device
// shares memory with the host, else through staging), split by rows when it exceeds one binding's range.
func (b *Backend) Upload(w accel.WeightData) (accel.Weight, error) {
	lay, err := layout.Of(w.Name, w.Type)
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	n, rowBytes, err := accel.CheckWeight(w, accel.Caps{Name: "vulkan", WeightTypes: []accel.DType{w.Type}})
	if err != nil {
		return nil, err
	}
	cols := int64(w.Shape[len(w.Shape)-1])
	devRow := lay.DeviceBytes(w.Type, cols)
	rowsPer := b.partBytes / devRow
	if rowsPer == 0 {
		return nil, fmt.Errorf("vulkan: weight %q: a row of %d bytes exceeds the device's binding range of %d", w.Name, devRow, b.partBytes)
	}
	if len(w.Shape) == 3 { // a matrix per expert: parts hold whole matrices (mat_mul_id binds a part's experts)
		per := int64(w.Shape[1])
		if rowsPer = rowsPer / per * per; rowsPer == 0 {
			return nil, fmt.Errorf("vulkan: weight %q: one matrix of %d rows exceeds the device's binding range of %d bytes",
				w.Name, per, b.partBytes)
		}
	}
	wt := &weight{b: b, cols: cols}
	wt.Tensor, wt.Lay = accel.TensorDesc{Name: w.Name, Type: w.Type, Shape: append([]int(nil), w.Shape...)}, lay
	rows := n / cols
	for r0 := int64(0); r0 < rows; r0 += rowsPer {
		r1 := min(rows, r0+rowsPer)
		if err := wt.addPart(w, r0, r1, int64(rowBytes), devRow); err != nil {
			wt.free()
			return nil, err
		}
	}
	if err := b.register(func() { b.weights[wt] = struct{}{} }); err != nil {
		wt.free()
		return nil, err
	}
	return wt, nil
}

// addPart uploads rows [r0, r1) into a buffer of their own.
func (w *weight) addPart(src accel.WeightData, r0, r1, rowBytes, devRow int64) error {
	name := w.Tensor.Name
	if len(w.Parts) > 0 || r1*rowBytes < int64(len(src.Data)) {
		name = fmt.Sprintf("%s[%d:%d]", name, r0, r1)
	}
	size := ((r1-r0)*devRow + 3) &^ 3
	buf, err := w.b.dev.NewBuffer(name, size, DeviceLocal)
	if err != nil {
		return fmt.Errorf("vulkan: weight %q: %w", w.Tensor.Name, err)
	}
	w.Parts = append(w.Parts, gpulower.Part[*Buffer]{Buf: buf, First: r0 * w.cols, N: (r1 - r0) * w.cols})
	data := src.Data[r0*rowBytes : r1*rowBytes]
	err = w.b.dev.WriteFunc(buf, 0, size, func(chunk []byte, pos int64) error {
		w.Lay.Fill(src.Type, data, chunk, pos)
		return nil
	})
	if err != nil {
		return fmt.Errorf("vulkan: weight %q: %w", w.Tensor.Name, err)
	}
	return nil
}

func (w *weight) free() {
	for _, p := range w.Parts {
		p.Buf.Close()
	}
	w.Parts = nil
}

// kvBuffer is a persistent F16 or F32 buffer (a KV cache) in device memory, F16 packed two to a word.
type kvBuffer struct {
	b    *Backend
	desc accel.TensorDesc
	buf  *Buffer
	life accel.Lifetime
}

func (k *kvBuffer) Desc() accel.TensorDesc { return k.desc }

// NewBuffer allocates a zeroed F16 or F32 buffer in device memory.
func (b *Backend) NewBuffer(d accel.TensorDesc) (accel.Buffer, error) {
	n, err := accel.CheckBuffer(d, "vulkan")
	if err != nil {
		return nil, err
	}
	size := (n*int64(gpulower.ElemSize(d.Type)) + 3) &^ 3
	if size > b.maxBind {
		return nil, fmt.Errorf("vulkan: buffer %q: %d bytes exceed the device's binding range of %d", d.Name, size, b.maxBind)
	}
	buf, err := b.dev.NewBuffer(d.Name, size, DeviceLocal)
	if err != nil {
		return nil, fmt.Errorf("vulkan: buffer %q: %w", d.Name, err)
	}
	err = b.dev.WriteFunc(buf, 0, size, func(chunk []byte, _ int64) error {
		clear(chunk)
		return nil
	})
	if err != nil {
		buf.Close()
		return nil, fmt.Errorf("vulkan: buffer %q: %w", d.Name, err)
	}
	kb := &kvBuffer{b: b, desc: accel.TensorDesc{Name: d.Name, Type: d.Type, Shape: append([]int(nil), d.Shape...)}, buf: buf}
	if err := b.register(func() { b.buffers[kb] = struct{}{} }); err != nil {
		buf.Close()
		return nil, err
	}
	return kb, nil
}

// Close frees the buffer. Programs that use it fail with accel.ErrClosed afterwards.
func (k *kvBuffer) Close() error {
	k.b.mu.Lock()
	delete(k.b.buffers, k)
	k.b.mu.Unlock()
	return k.free()
}

func (k *kvBuffer) free() error {
	if !k.life.End() {
		return nil
	}
	return k.buf.Close()
}

func (k *kvBuffer) isClosed() bool { return k.life.Closed() }
