package accel

import "errors"

// TensorDesc describes a weight or a buffer.
type TensorDesc struct {
	Name  string
	Type  DType
	Shape []int // outermost first: weights are [out, in]
}

// Weight is a tensor uploaded to a backend. Backends return their own implementations; a Weight is only valid
// with the backend that made it, until that backend is closed.
type Weight interface {
	Desc() TensorDesc
}

// Buffer is persistent backend memory a graph reads and writes across runs (a KV cache). Close frees it.
type Buffer interface {
	Desc() TensorDesc
	Close() error
}

// WeightData is a weight as stored in a model file.
type WeightData struct {
	Name  string
	Type  DType
	Shape []int // [rows, cols] for matrices, [n] for vectors
	// Data holds the elements encoded in Type (GGUF block layout). It may be a slice of a read-only file
	// mapping: backends never write it, and a backend that keeps referring to it (the CPU backend reads
	// weights in place) requires it to stay valid until the backend is closed.
	Data []byte
	// Mapping, when set, is the whole read-only file mapping Data is a slice of (page-aligned, as mmap returns
	// it), valid as long as Data is. A backend that can wrap host memory without copying (Metal on unified
	// memory) maps it once, in views, and uses weights in place.
	Mapping []byte
}

// Caps describes what a backend can do.
type Caps struct {
	Name          string // "cpu", "vulkan", …
	Device        string // human-readable device name
	UnifiedMemory bool   // weights and buffers live in memory the host can read
	// WeightTypes lists the weight types the backend can Upload (natively or by converting them).
	WeightTypes []DType
	// FlashAttention reports whether the backend runs AttentionParams.Flash, and with it the quantized KV cache
	// types (Q8_0, Q4_0) in buffers, KVStore and Attention. A backend without it refuses them with an error.
	FlashAttention bool
}

// SupportsWeight reports whether t is in c.WeightTypes.
func (c Caps) SupportsWeight(t DType) bool {
	for _, w := range c.WeightTypes {
		if w == t {
			return true
		}
	}
	return false
}

// Backend runs graphs on one device. Weights are uploaded once and shared read-only by every program; each
// program owns its scratch memory (unless compiled with a shared Scratch), so programs on one backend can run
// concurrently (one goroutine per program).
type Backend interface {
	Caps() Caps
	// Upload converts a weight to the backend's layout in its own memory (or, on the CPU, refers to it in place).
	// An unsupported type or a size that does not match the shape is an error naming the tensor.
	Upload(w WeightData) (Weight, error)
	// NewBuffer allocates a zeroed persistent buffer of type F16 or F32.
	NewBuffer(d TensorDesc) (Buffer, error)
	// Compile prepares g to run repeatedly. The program keeps references to g's weights and buffers.
	Compile(g *Graph, opt CompileOptions) (Program, error)
	// Close frees every weight, buffer and program the backend still holds. It is safe to call twice.
	Close() error
}

// CompileOptions tune compilation.
type CompileOptions struct {
	// Debug, when set, is called after every named node is computed, with its values as float32 (quantized
	// or F16 results converted). It slows the run down and is meant for comparing against other engines.
	Debug func(n *Node, values []float32)
	// Scratch, when set, lets the programs compiled with it share one region for their intermediates, the
	// size of the largest, instead of one each: for a caller that runs one pass at a time over many shapes
	// (the runtime's engine, whose batch sizes vary from pass to pass). Such programs must not run, or be
	// compiled, at the same time as one another, and the inputs set on one are lost when another runs: set
	// every input before each Run. Backends that do not share ignore it.
	Scratch *Scratch
}

// Scratch groups programs that share their memory for intermediates (CompileOptions.Scratch). The zero value
// is ready to use; the first backend that compiles with it keeps its record there, and another backend
// refuses it. It is freed with the last of its programs.
type Scratch struct {
	state any
}

// State returns the record a backend keeps in s (nil before the first Compile with it).
func (s *Scratch) State() any { return s.state }

// SetState stores a backend's record in s.
func (s *Scratch) SetState(v any) { s.state = v }

// Program is a compiled graph. Set every input, Run, then Read the outputs; repeat. A program is used by one
// goroutine at a time.
type Program interface {
	SetInt32(input Tensor, data []int32) error
	SetFloat32(input Tensor, data []float32) error
	Run() error
	// Read copies an output's values into dst (len(dst) = its element count).
	Read(output Tensor, dst []float32) error
	// ScratchBytes is the memory the program holds for intermediates.
	ScratchBytes() int64
	Close() error
}

// ErrClosed is returned by operations on a closed backend, buffer or program.
var ErrClosed = errors.New("accel: closed")
