package metal

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// Backend is the Metal accel.Backend. Weights that need no conversion are mapped in place from the model file
// on unified memory; the others, KV caches and each program's intermediates live in shared Metal buffers. Each
// Run encodes the program's recorded dispatches into one command buffer. It is safe for concurrent use;
// programs of one backend may run concurrently, one goroutine per program.
type Backend struct {
	g      gpu
	ownGPU bool
	info   Info
	// partBytes is the largest buffer a copied weight part may take (maxBufferLength, or less in tests).
	partBytes int64
	noCopy    bool // map verbatim weights of file mappings in place
	nativeFMA bool // the device's fma() is fused (probeFMA)
	page      int64

	mu       sync.Mutex
	closed   bool
	weights  map[*weight]struct{}
	buffers  map[*kvBuffer]struct{}
	programs map[*program]struct{}
	mappings map[uintptr]*mapping // by the mapping's base address
}

// mapping is a model file's read-only mapping and the no-copy views made of it so far.
type mapping struct {
	mem   []byte
	plan  *viewPlan
	views []buffer
}

// newBackendOn makes a backend on an open device; env is FORMA_METAL_NOCOPY's value.
func newBackendOn(g gpu, opt Options, env string) (*Backend, error) {
	info := g.info()
	b := &Backend{g: g, info: info, partBytes: info.MaxBuffer &^ 3, noCopy: noCopy(opt.Weights, info, env),
		page: int64(os.Getpagesize()), weights: map[*weight]struct{}{}, buffers: map[*kvBuffer]struct{}{},
		programs: map[*program]struct{}{}, mappings: map[uintptr]*mapping{}}
	if !info.Simdgroup {
		return nil, fmt.Errorf("%w: SIMD-group reductions do not work on %s (the probe kernel's results are wrong)", ErrNoDevice, info.Name)
	}
	if b.partBytes <= 0 {
		return nil, fmt.Errorf("%w: %s reports a largest buffer of %d bytes", ErrNoDevice, info.Name, info.MaxBuffer)
	}
	fused, err := probeFMA(g)
	if err != nil {
		return nil, err
	}
	b.nativeFMA = fused
	return b, nil
}

// Info describes the backend's device.
func (b *Backend) Info() Info { return b.info }

// Caps describes the backend.
func (b *Backend) Caps() accel.Caps {
	return accel.Caps{Name: "metal", Device: b.info.Name, UnifiedMemory: b.info.UnifiedMemory, WeightTypes: layout.Types()}
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

// Close frees every program, buffer, weight and view the backend still holds, then the device if the backend
// owns it. It is safe to call twice, but not while a program of the backend is running.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	progs, bufs, ws, maps := b.programs, b.buffers, b.weights, b.mappings
	b.programs, b.buffers, b.weights, b.mappings = nil, nil, nil, nil
	b.mu.Unlock()
	var errs []error
	for p := range progs {
		p.free()
	}
	for bf := range bufs {
		bf.free()
	}
	for w := range ws {
		w.free()
	}
	for _, m := range maps {
		for _, v := range m.views {
			v.release()
		}
	}
	if b.ownGPU {
		errs = append(errs, b.g.close())
	}
	return errors.Join(errs...)
}

// checkShape validates a tensor shape of up to four positive dimensions and returns its element count.
func checkShape(shape []int) (int64, error) {
	if len(shape) == 0 || len(shape) > 4 {
		return 0, fmt.Errorf("shape %v: want 1 to 4 dimensions", shape)
	}
	n := int64(1)
	for _, d := range shape {
		if d <= 0 || n > math.MaxInt64/int64(d) {
			return 0, fmt.Errorf("bad shape %v", shape)
		}
		n *= int64(d)
	}
	return n, nil
}

// weight is an uploaded weight: whole rows in one or more parts.
type weight struct {
	b *Backend
	gpulower.Weight[buffer]
	cols   int64 // elements per row (the last dimension)
	copied bool  // the parts are the weight's own buffers (copies); else one no-copy view of the file, the backend's
}

func (w *weight) Desc() accel.TensorDesc { return w.Tensor }

// Upload makes a weight usable by programs. A weight whose type the shaders read as GGUF stores it, given as
// a slice of a file mapping (WeightData.Mapping), is mapped in place when the backend maps weights (no copy);
// every other weight is converted to its device layout straight into shared Metal buffers, split by rows into
// buffers the device allows.
func (b *Backend) Upload(w accel.WeightData) (accel.Weight, error) {
	lay, err := layout.Of(w.Name, w.Type)
	if err != nil {
		return nil, fmt.Errorf("metal: %w", err)
	}
	n, err := checkShape(w.Shape)
	if err != nil {
		return nil, fmt.Errorf("metal: weight %q: %w", w.Name, err)
	}
	cols := int64(w.Shape[len(w.Shape)-1])
	rowBytes, err := w.Type.RowBytes(int(cols))
	if err != nil {
		return nil, fmt.Errorf("metal: weight %q: %w", w.Name, err)
	}
	if want := n / cols * int64(rowBytes); int64(len(w.Data)) != want {
		return nil, fmt.Errorf("metal: weight %q: %d bytes of data, want %d for %s %v", w.Name, len(w.Data), want, w.Type, w.Shape)
	}
	wt := &weight{b: b, cols: cols}
	wt.Tensor, wt.Lay = accel.TensorDesc{Name: w.Name, Type: w.Type, Shape: append([]int(nil), w.Shape...)}, lay
	placed := false
	if b.noCopy && lay.Verbatim() {
		if placed, err = wt.mapInPlace(w, n); err != nil {
			return nil, err
		}
	}
	if !placed {
		if err := wt.copyParts(w, n/cols, int64(rowBytes)); err != nil {
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

// mapInPlace places the weight in a no-copy view of its file mapping. It reports false when it cannot (no
// mapping, a mapping that is not page-aligned, a tensor larger than a view), and the weight is copied instead.
func (w *weight) mapInPlace(src accel.WeightData, n int64) (bool, error) {
	m := src.Mapping
	if len(m) == 0 || len(src.Data) == 0 {
		return false, nil
	}
	base, data := uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(unsafe.Pointer(unsafe.SliceData(src.Data)))
	lo := int64(data - base)
	if data < base || lo+int64(len(src.Data)) > int64(len(m)) || int64(base)%w.b.page != 0 {
		return false, nil
	}
	b := w.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false, accel.ErrClosed
	}
	mp := b.mappings[base]
	if mp == nil || len(mp.mem) != len(m) {
		mp = &mapping{mem: m, plan: newViewPlan(int64(len(m)), b.page, b.info.MaxBuffer)}
		b.mappings[base] = mp
	}
	idx, added, ok := mp.plan.place(lo, lo+int64(len(src.Data)))
	if !ok {
		return false, nil
	}
	if added {
		r := mp.plan.views[idx]
		// The last page may extend past the slice: the mapping holds it (mmap maps whole pages).
		mem := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(m)), r.lo)), r.hi-r.lo)
		v, err := b.g.wrap(fmt.Sprintf("file view %d", idx), mem)
		if err != nil {
			mp.plan.views = mp.plan.views[:idx]
			return false, fmt.Errorf("metal: weight %q: %w", w.Tensor.Name, err)
		}
		mp.views = append(mp.views, v)
	}
	w.Parts = []gpulower.Part[buffer]{{Buf: mp.views[idx], Off: lo - mp.plan.views[idx].lo, First: 0, N: n}}
	return true, nil
}

// copyParts converts rows into shared buffers of at most partBytes each.
func (w *weight) copyParts(src accel.WeightData, rows, rowBytes int64) error {
	devRow := w.Lay.DeviceBytes(src.Type, w.cols)
	rowsPer := w.b.partBytes / devRow
	if rowsPer == 0 {
		return fmt.Errorf("metal: weight %q: a row of %d bytes exceeds the device's largest buffer of %d", w.Tensor.Name, devRow, w.b.partBytes)
	}
	if len(w.Tensor.Shape) == 3 { // a matrix per expert: parts hold whole matrices (mat_mul_id binds a part's experts)
		per := int64(w.Tensor.Shape[1])
		if rowsPer = rowsPer / per * per; rowsPer == 0 {
			return fmt.Errorf("metal: weight %q: one matrix of %d rows exceeds the device's largest buffer of %d bytes",
				w.Tensor.Name, per, w.b.partBytes)
		}
	}
	for r0 := int64(0); r0 < rows; r0 += rowsPer {
		r1 := min(rows, r0+rowsPer)
		name := w.Tensor.Name
		if r0 > 0 || r1 < rows {
			name = fmt.Sprintf("%s[%d:%d]", name, r0, r1)
		}
		size := ((r1-r0)*devRow + 3) &^ 3
		buf, err := w.b.g.newBuffer(name, size)
		if err != nil {
			return fmt.Errorf("metal: weight %q: %w", w.Tensor.Name, err)
		}
		w.Parts = append(w.Parts, gpulower.Part[buffer]{Buf: buf, First: r0 * w.cols, N: (r1 - r0) * w.cols})
		w.copied = true
		w.Lay.Fill(src.Type, src.Data[r0*rowBytes:r1*rowBytes], buf.contents()[:size], 0)
	}
	return nil
}

func (w *weight) free() {
	for _, p := range w.Parts {
		if w.copied {
			p.Buf.release()
		}
	}
	w.Parts = nil
}

// kvBuffer is a persistent F16 or F32 buffer (a KV cache) in shared memory, F16 packed two to a word.
type kvBuffer struct {
	b      *Backend
	desc   accel.TensorDesc
	buf    buffer
	mu     sync.Mutex
	closed bool
}

func (k *kvBuffer) Desc() accel.TensorDesc { return k.desc }

// NewBuffer allocates a zeroed F16 or F32 buffer.
func (b *Backend) NewBuffer(d accel.TensorDesc) (accel.Buffer, error) {
	if d.Type != quant.F16 && d.Type != quant.F32 {
		return nil, fmt.Errorf("metal: buffer %q: type %s, want F16 or F32", d.Name, d.Type)
	}
	n, err := checkShape(d.Shape)
	if err != nil {
		return nil, fmt.Errorf("metal: buffer %q: %w", d.Name, err)
	}
	size := (n*int64(gpulower.ElemSize(d.Type)) + 3) &^ 3
	if size > b.info.MaxBuffer {
		return nil, fmt.Errorf("metal: buffer %q: %d bytes exceed the device's largest buffer of %d", d.Name, size, b.info.MaxBuffer)
	}
	buf, err := b.g.newBuffer(d.Name, size)
	if err != nil {
		return nil, fmt.Errorf("metal: buffer %q: %w", d.Name, err)
	}
	clear(buf.contents())
	kb := &kvBuffer{b: b, desc: accel.TensorDesc{Name: d.Name, Type: d.Type, Shape: append([]int(nil), d.Shape...)}, buf: buf}
	if err := b.register(func() { b.buffers[kb] = struct{}{} }); err != nil {
		buf.release()
		return nil, err
	}
	return kb, nil
}

// Close frees the buffer. Programs that use it fail with accel.ErrClosed afterwards.
func (k *kvBuffer) Close() error {
	k.b.mu.Lock()
	delete(k.b.buffers, k)
	k.b.mu.Unlock()
	k.free()
	return nil
}

func (k *kvBuffer) free() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		k.closed = true
		k.buf.release()
	}
}

func (k *kvBuffer) isClosed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.closed
}
