package cpu

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/osmem"
)

// Options configure a Backend.
type Options struct {
	// Threads is the number of threads each program computes with; 0 means the physical cores (see
	// DefaultThreads).
	Threads int
}

// Backend is the CPU backend. It is safe for concurrent use: weights and buffers are shared read-only by every
// program, each program has its own scratch memory, and one pool of worker threads runs every program, one
// program at a time (programs run from several goroutines take turns rather than oversubscribe the cores).
type Backend struct {
	threads int
	gelu    *[1 << 16]uint16
	eager   bool // split every step over all threads, however small (tests of the splitting)

	run  sync.Mutex // held by the program using the pool
	pool *pool      // started by the first run

	mu       sync.Mutex
	closed   bool
	weights  map[*weight]struct{}
	buffers  map[*buffer]struct{}
	programs map[*program]struct{}
}

// weightTypes are the weight types the CPU backend computes with: those gguf/quant dequantizes and has a dot
// product for.
var weightTypes = quant.WeightTypes()

// New returns a CPU backend.
func New(opt Options) (*Backend, error) {
	if opt.Threads < 0 {
		return nil, fmt.Errorf("cpu: %d threads", opt.Threads)
	}
	if err := quant.CheckCPU(); err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	if opt.Threads == 0 {
		opt.Threads = DefaultThreads()
	}
	for _, t := range weightTypes {
		if !matKernels[t].ok() {
			return nil, fmt.Errorf("cpu: no kernel for weight type %s", t)
		}
	}
	return &Backend{
		threads:  opt.Threads,
		gelu:     geluTable(),
		weights:  map[*weight]struct{}{},
		buffers:  map[*buffer]struct{}{},
		programs: map[*program]struct{}{},
	}, nil
}

// Threads returns the number of threads each program uses.
func (b *Backend) Threads() int { return b.threads }

// Caps describes the backend.
func (b *Backend) Caps() accel.Caps {
	return accel.Caps{
		Name:           "cpu",
		Device:         fmt.Sprintf("CPU, %d threads, %s kernels", b.threads, quant.CPUPath()),
		UnifiedMemory:  true,
		WeightTypes:    append([]accel.DType(nil), weightTypes...),
		FlashAttention: true,
	}
}

// weight is an uploaded weight: a reference to the caller's data (or, rarely, an aligned native copy), and
// the copy its matrix kernel reads, where it has one (stored.go).
type weight struct {
	b      *Backend
	desc   accel.TensorDesc
	data   []byte
	owned  []byte // native copy to free, when the data had to be realigned
	mapped bool   // data is a part of a read-only file mapping (WeightData.Mapping)
	stored storedCopy
}

func (w *weight) Desc() accel.TensorDesc { return w.desc }

// Upload refers to w.Data in place (it must stay valid and unchanged until the backend is closed).
func (b *Backend) Upload(w accel.WeightData) (accel.Weight, error) {
	if _, _, err := accel.CheckWeight(w, accel.Caps{Name: "cpu", WeightTypes: weightTypes}); err != nil {
		return nil, err
	}
	var err error
	wt := &weight{b: b, desc: accel.TensorDesc{Name: w.Name, Type: w.Type, Shape: append([]int(nil), w.Shape...)}, data: w.Data,
		mapped: w.Mapping != nil}
	if w.Type == quant.F32 && uintptr(unsafe.Pointer(unsafe.SliceData(w.Data)))%4 != 0 {
		// Kernels view F32 weights as []float32; realign the (rare) unaligned ones outside the Go heap. (Weights
		// are only read, so the race detector has nothing to watch here.)
		if wt.owned, err = osmem.Alloc(len(w.Data)); err != nil {
			return nil, fmt.Errorf("cpu: weight %q: %w", w.Name, err)
		}
		copy(wt.owned, w.Data)
		wt.data = wt.owned
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		wt.free()
		return nil, accel.ErrClosed
	}
	b.weights[wt] = struct{}{}
	return wt, nil
}

func (w *weight) free() {
	if w.owned != nil {
		osmem.Free(w.owned)
		w.owned = nil
	}
	if w.stored.mem != nil {
		_ = freeNative(w.stored.mem)
		w.stored.mem = nil
	}
	w.data = nil
}

// buffer is persistent native memory.
type buffer struct {
	b    *Backend
	desc accel.TensorDesc
	mem  []byte
	life accel.Lifetime
}

func (bf *buffer) Desc() accel.TensorDesc { return bf.desc }

// Close frees the buffer. Programs that use it fail with accel.ErrClosed afterwards.
func (bf *buffer) Close() error {
	bf.b.mu.Lock()
	delete(bf.b.buffers, bf)
	bf.b.mu.Unlock()
	return bf.free()
}

func (bf *buffer) free() error {
	if !bf.life.End() {
		return nil
	}
	err := freeNative(bf.mem)
	bf.mem = nil
	return err
}

func (bf *buffer) isClosed() bool { return bf.life.Closed() }

// NewBuffer allocates a zeroed F16, F32, Q8_0 or Q4_0 buffer outside the Go heap.
func (b *Backend) NewBuffer(d accel.TensorDesc) (accel.Buffer, error) {
	n, err := accel.CheckCacheBuffer(d, "cpu")
	if err != nil {
		return nil, err
	}
	mem, err := allocNative(int(n))
	if err != nil {
		return nil, fmt.Errorf("cpu: buffer %q: %w", d.Name, err)
	}
	bf := &buffer{b: b, desc: accel.TensorDesc{Name: d.Name, Type: d.Type, Shape: append([]int(nil), d.Shape...)}, mem: mem}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		bf.free()
		return nil, accel.ErrClosed
	}
	b.buffers[bf] = struct{}{}
	return bf, nil
}

// Compile prepares g to run. The program refers to g's weights and buffers, which must stay open.
func (b *Backend) Compile(g *accel.Graph, opt accel.CompileOptions) (accel.Program, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, accel.ErrClosed
	}
	p, err := compile(b, g, opt)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		p.free()
		return nil, accel.ErrClosed
	}
	b.programs[p] = struct{}{}
	return p, nil
}

// Close frees every program, buffer and weight copy the backend still holds. It is safe to call twice, but
// not while a program of the backend is running.
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
	b.run.Lock()
	if b.pool != nil {
		b.pool.close()
		b.pool = nil
	}
	b.run.Unlock()
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
	return errors.Join(errs...)
}

// storageBytes is the size in bytes of n elements of type t (n a whole number of blocks).
func storageBytes(t accel.DType, n int) int {
	switch t {
	case quant.F32, quant.I32:
		return 4 * n
	case quant.F16, quant.BF16:
		return 2 * n
	}
	rb, err := t.RowBytes(n)
	if err != nil {
		return 0
	}
	return rb
}

// acquirePool takes the backend's workers for one run (starting them the first time); releasePool gives them
// back.
func (b *Backend) acquirePool() *pool {
	b.run.Lock()
	if b.pool == nil {
		b.pool = newPool(b.threads, b.eager)
	}
	return b.pool
}

func (b *Backend) releasePool() { b.run.Unlock() }
