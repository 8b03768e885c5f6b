//go:build darwin

package metal

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
	"golang.org/x/sys/unix"

	"github.com/forma-llm/forma/shaders"
)

// Metal constants (Metal headers).
const (
	resourceStorageModeShared = 0       // MTLResourceStorageModeShared, default CPU cache and hazard tracking
	languageVersion3_0        = 3 << 16 // MTLLanguageVersion3_0: the MSL the kernels were translated to
	mathModeSafe              = 0       // MTLMathModeSafe
	mathFunctionsPrecise      = 1       // MTLMathFloatingPointFunctionsPrecise
	dataTypeUInt              = 33      // MTLDataTypeUInt
	dataTypeBool              = 53      // MTLDataTypeBool
	commandBufferCompleted    = 4       // MTLCommandBufferStatusCompleted
)

// gpuFamilies are the families forma info lists (MTLGPUFamily values).
var gpuFamilies = []struct {
	name string
	v    uintptr
}{
	{"Apple7", 1007}, {"Apple8", 1008}, {"Apple9", 1009}, {"Apple10", 1010},
	{"Mac2", 2002}, {"Metal3", 5001}, {"Metal4", 5002},
}

// mtlGPU is a Metal device and its command queue (both owned), with the libraries and pipelines it compiled.
type mtlGPU struct {
	dev, queue objc.ID
	inf        Info

	mu     sync.Mutex
	libs   map[libKey]objc.ID // owned
	pipes  map[pipeKey]*mtlPipeline
	states []*encodeState // argument arrays of runs, reused
}

type libKey struct {
	name string
	wg   uint32 // the workgroup macro's value, 0 when the kernel has none
}

type pipeKey struct {
	name string
	spec [numSpec]uint32
}

type mtlPipeline struct {
	k   shaders.Kernel
	pso objc.ID // owned
}

func (p *mtlPipeline) kernel() *shaders.Kernel { return &p.k }

// mtlBuffer is an owned MTLBuffer and the host's view of it.
type mtlBuffer struct {
	obj objc.ID
	mem []byte
}

func (b *mtlBuffer) contents() []byte { return b.mem }

func (b *mtlBuffer) release() {
	if b.obj != 0 {
		withPool(func() error { release(b.obj); return nil })
		b.obj, b.mem = 0, nil
	}
}

// openGPU opens the system's default Metal device and probes it.
func openGPU() (gpu, error) {
	if err := loadRuntime(); err != nil {
		return nil, err
	}
	g := &mtlGPU{libs: map[libKey]objc.ID{}, pipes: map[pipeKey]*mtlPipeline{}}
	err := withPool(func() error {
		dev, _, _ := purego.SyscallN(rt.createSystemDefaultDevice) // owned (Create rule)
		if dev == 0 {
			return fmt.Errorf("%w: MTLCreateSystemDefaultDevice returned no device", ErrNoDevice)
		}
		g.dev = objc.ID(dev)
		g.queue = g.dev.Send(selNewCommandQueue)
		if g.queue == 0 {
			return fmt.Errorf("%w: newCommandQueue failed", ErrNoDevice)
		}
		g.inf = deviceInfo(g.dev)
		return nil
	})
	if err == nil {
		err = g.probeSimdgroups()
	}
	if err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

// listDevices describes every Metal device (without the probe's results).
func listDevices() ([]Info, error) {
	if err := loadRuntime(); err != nil {
		return nil, err
	}
	var out []Info
	err := withPool(func() error {
		arr, _, _ := purego.SyscallN(rt.copyAllDevices) // owned (Copy rule)
		if arr == 0 {
			return nil
		}
		defer release(objc.ID(arr))
		n := uintptr(objc.ID(arr).Send(selCount))
		for i := uintptr(0); i < n; i++ {
			out = append(out, deviceInfo(objc.ID(arr).Send(selObjectAtIndex, i)))
		}
		return nil
	})
	return out, err
}

func deviceInfo(dev objc.ID) Info {
	inf := Info{
		Name:          goString(dev.Send(selName)),
		UnifiedMemory: isTrue(dev.Send(selHasUnifiedMemory)),
		MaxBuffer:     int64(dev.Send(selMaxBufferLength)),
		WorkingSet:    int64(dev.Send(selRecommendedMaxWorkingSetSize)),
		Registry:      uint64(dev.Send(selRegistryID)),
	}
	inf.OS, _ = unix.Sysctl("kern.osproductversion")
	if responds(dev, selSupportsFamily) {
		for _, f := range gpuFamilies {
			if isTrue(dev.Send(selSupportsFamily, f.v)) {
				inf.Families = append(inf.Families, f.name)
			}
		}
	}
	return inf
}

func (g *mtlGPU) info() Info { return g.inf }

func (g *mtlGPU) newBuffer(name string, size int64) (buffer, error) {
	var b *mtlBuffer
	err := withPool(func() error {
		obj := g.dev.Send(selNewBufferWithLength, uintptr(size), uintptr(resourceStorageModeShared))
		if obj == 0 {
			return fmt.Errorf("metal: buffer %q of %d bytes could not be allocated", name, size)
		}
		b = &mtlBuffer{obj: obj, mem: unsafe.Slice((*byte)(objc.Send[unsafe.Pointer](obj, selContents)), size)}
		label(obj, name)
		return nil
	})
	return b, err
}

// wrap makes a no-copy buffer of mem (page-aligned, whole pages, outside the Go heap, outliving the buffer).
func (g *mtlGPU) wrap(name string, mem []byte) (buffer, error) {
	var b *mtlBuffer
	err := withPool(func() error {
		obj := g.dev.Send(selNewBufferWithBytesNoCopy, unsafe.Pointer(unsafe.SliceData(mem)), uintptr(len(mem)),
			uintptr(resourceStorageModeShared), uintptr(0))
		if obj == 0 {
			return fmt.Errorf("metal: newBufferWithBytesNoCopy of %d bytes failed", len(mem))
		}
		b = &mtlBuffer{obj: obj, mem: mem}
		label(obj, name)
		return nil
	})
	return b, err
}

func label(obj objc.ID, name string) {
	ns := newString(name)
	obj.Send(selSetLabel, ns)
	release(ns)
}

// pipeline compiles kernel k's MSL (once per workgroup-size macro) and makes its pipeline with the function
// constants it declares set from spec.
func (g *mtlGPU) pipeline(k shaders.Kernel, spec [numSpec]uint32) (pipeline, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := pipeKey{k.Name, spec}
	if p := g.pipes[key]; p != nil {
		return p, nil
	}
	lk := libKey{name: k.Name}
	if k.WorkgroupMacro {
		lk.wg = spec[0]
	}
	var p *mtlPipeline
	err := withPool(func() error {
		lib := g.libs[lk]
		if lib == 0 {
			src, _, err := shaders.MSL(k.Name)
			if err != nil {
				return err
			}
			var macros map[string]string
			if k.WorkgroupMacro {
				macros = map[string]string{shaders.WorkgroupMacro: fmt.Sprintf("%du", spec[0])}
			}
			if lib, err = g.compile(k.Name, string(src), macros); err != nil {
				return err
			}
			g.libs[lk] = lib
		}
		pso, err := g.newPipeline(lib, k, spec)
		if err != nil {
			return err
		}
		p = &mtlPipeline{k: k, pso: pso}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.pipes[key] = p
	return p, nil
}

// compile compiles MSL source with safe math (no reassociation, no fast approximations: the shaders' numerics
// are exact by construction) into an owned library. Call inside withPool.
func (g *mtlGPU) compile(name, src string, macros map[string]string) (objc.ID, error) {
	opts := objc.ID(classMTLCompileOptions).Send(selAlloc).Send(selInit)
	defer release(opts)
	opts.Send(selSetFastMathEnabled, false)
	if responds(opts, selSetMathMode) { // macOS 15
		opts.Send(selSetMathMode, uintptr(mathModeSafe))
	}
	if responds(opts, selSetMathFloatingPointFunctions) {
		opts.Send(selSetMathFloatingPointFunctions, uintptr(mathFunctionsPrecise))
	}
	opts.Send(selSetLanguageVersion, uintptr(languageVersion3_0))
	for k, v := range macros { // at most one: the workgroup size
		kn, vn := newString(k), newString(v)
		dict := objc.ID(classNSDictionary).Send(selDictionaryWithObjectForKey, vn, kn)
		opts.Send(selSetPreprocessorMacros, dict)
		release(kn)
		release(vn)
	}
	ns := newString(src)
	defer release(ns)
	var errObj objc.ID
	lib := g.dev.Send(selNewLibraryWithSource, ns, opts, unsafe.Pointer(&errObj))
	if lib == 0 {
		return 0, nsError("compiling kernel "+name, errObj)
	}
	return lib, nil
}

// newPipeline makes the compute pipeline of kernel k in lib. Call inside withPool.
func (g *mtlGPU) newPipeline(lib objc.ID, k shaders.Kernel, spec [numSpec]uint32) (objc.ID, error) {
	cv := objc.ID(classMTLFunctionConstantValues).Send(selAlloc).Send(selInit)
	defer release(cv)
	vals := make([]uint32, len(k.Consts))
	for i, c := range k.Consts {
		if c.ID >= numSpec {
			return 0, fmt.Errorf("metal: kernel %s: function constant %d", k.Name, c.ID)
		}
		typ := uintptr(dataTypeUInt)
		vals[i] = spec[c.ID]
		switch c.Type {
		case "bool":
			typ = dataTypeBool
			if vals[i] != 0 {
				vals[i] = 1 // a one-byte bool, 1 in the low byte (little-endian)
			}
		case "uint":
		default:
			return 0, fmt.Errorf("metal: kernel %s: function constant %d of type %s", k.Name, c.ID, c.Type)
		}
		cv.Send(selSetConstantValue, unsafe.Pointer(&vals[i]), typ, uintptr(c.ID))
	}
	name := newString(k.Entry)
	defer release(name)
	var errObj objc.ID
	fn := lib.Send(selNewFunctionWithNameConstantValues, name, cv, unsafe.Pointer(&errObj))
	runtime.KeepAlive(vals)
	if fn == 0 {
		return 0, nsError("specializing kernel "+k.Name, errObj)
	}
	defer release(fn)
	errObj = 0
	pso := g.dev.Send(selNewComputePipelineState, fn, unsafe.Pointer(&errObj))
	if pso == 0 {
		return 0, nsError("making the pipeline of kernel "+k.Name, errObj)
	}
	if most := uint32(pso.Send(selMaxTotalThreadsPerThreadgroup)); most < spec[0] {
		release(pso)
		return 0, fmt.Errorf("metal: kernel %s runs at most %d threads per threadgroup on %s; it needs %d", k.Name, most, g.inf.Name, spec[0])
	}
	return pso, nil
}

// encodeState holds the argument arrays of one run's objc_msgSend calls, so encoding allocates nothing.
type encodeState struct {
	args  [12]uintptr
	sizes [2]mtlSize
}

func (g *mtlGPU) getState() *encodeState {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := len(g.states); n > 0 {
		s := g.states[n-1]
		g.states = g.states[:n-1]
		return s
	}
	return &encodeState{}
}

func (g *mtlGPU) putState(s *encodeState) {
	g.mu.Lock()
	g.states = append(g.states, s)
	g.mu.Unlock()
}

// msg sends sel to obj with up to three word arguments through the kept array.
func (s *encodeState) msg(obj objc.ID, sel objc.SEL, n int, a, b, c uintptr) uintptr {
	s.args[0], s.args[1], s.args[2], s.args[3], s.args[4] = uintptr(obj), uintptr(sel), a, b, c
	r, _, _ := purego.SyscallN(rt.msgSend, s.args[:2+n]...)
	return r
}

// run encodes the steps into one command buffer (unretained references: the backend holds every buffer and
// pipeline) with one serial compute encoder, commits it and waits for it.
func (g *mtlGPU) run(steps []step) error {
	s := g.getState()
	defer g.putState(s)
	runtime.LockOSThread()
	pool, _, _ := purego.SyscallN(rt.poolPush)
	cb := objc.ID(s.msg(g.queue, selCommandBufferWithUnretainedReferences, 0, 0, 0, 0))
	var err error
	if cb == 0 {
		err = fmt.Errorf("metal: the command queue gave no command buffer")
	} else {
		enc := objc.ID(s.msg(cb, selComputeCommandEncoder, 0, 0, 0, 0))
		var cur *mtlPipeline
		for i := range steps {
			st := &steps[i]
			p := st.pipe.(*mtlPipeline)
			if p != cur {
				s.msg(enc, selSetComputePipelineState, 1, uintptr(p.pso), 0, 0)
				cur = p
			}
			for j, b := range st.bufs {
				if idx := p.k.Buffers[j]; idx >= 0 {
					s.msg(enc, selSetBufferOffsetAtIndex, 3, uintptr(b.buf.(*mtlBuffer).obj), uintptr(b.off), uintptr(idx))
				}
			}
			if p.k.PushIndex >= 0 && len(st.push) > 0 {
				s.msg(enc, selSetBytesLengthAtIndex, 3, uintptr(unsafe.Pointer(&st.push[0])), uintptr(len(st.push)), uintptr(p.k.PushIndex))
			}
			s.sizes[0] = mtlSize{width: uint64(st.groups[0]), height: uint64(st.groups[1]), depth: uint64(st.groups[2])}
			s.sizes[1] = mtlSize{width: uint64(st.wg), height: 1, depth: 1}
			s.args[0], s.args[1] = uintptr(enc), uintptr(selDispatchThreadgroups)
			n := dispatchArgs(runtime.GOARCH, &s.args, &s.sizes)
			purego.SyscallN(rt.msgSend, s.args[:n]...)
		}
		s.msg(enc, selEndEncoding, 0, 0, 0, 0)
		s.msg(cb, selCommit, 0, 0, 0, 0)
		s.msg(cb, selWaitUntilCompleted, 0, 0, 0, 0)
		if status := s.msg(cb, selStatus, 0, 0, 0, 0); status != commandBufferCompleted {
			err = nsError(fmt.Sprintf("command buffer (status %d)", status), objc.ID(s.msg(cb, selError, 0, 0, 0, 0)))
		}
	}
	purego.SyscallN(rt.poolPop, pool)
	runtime.UnlockOSThread()
	return err
}

func (g *mtlGPU) close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	withPool(func() error {
		for _, p := range g.pipes {
			release(p.pso)
		}
		for _, l := range g.libs {
			release(l)
		}
		release(g.queue)
		release(g.dev)
		return nil
	})
	g.pipes, g.libs, g.queue, g.dev = nil, nil, 0, 0
	return nil
}
