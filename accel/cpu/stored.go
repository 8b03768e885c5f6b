package cpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/osmem"
)

// A weight whose batched kernel has a stored layout (quant.Gemm.Pack: Q4_0 in the repacked order, Q8_0,
// Q5_K, Q6_K and MXFP4, on CPUs with AVX-512 VNNI; Q4_K in the repacked order where they also have VBMI; Q4_0
// and Q4_K in the repacked order, Q8_0, Q6_K and MXFP4, on CPUs with AVX2 but no VNNI) is multiplied from a copy
// in that layout, made once, the first time a program multiplies by the weight, in native memory freed by
// Close. The copy saves every pass the rearranging of the rows that the kernels on the original layout do
// (gathers, or packing into scratch); the original stays for every other use (GetRows of an embedding, views).
// The layout never leaves the backend.
//
// Once the copy is made, the original's pages (of a file mapping) are released from the resident set
// (osmem.Release): they are read from the file again only if something else reads them.
//
// The copy is anonymous memory that stays resident, where the mapping's pages can be dropped and read again
// (and a mixture of experts' unchosen experts are never read at all): a weight whose copy would take more
// than half of the memory the system has available (memAvailable) is multiplied in place instead, so that a
// model that fits in memory only through its mapping still runs.
type storedCopy struct {
	once sync.Once
	gemm *quant.Gemm // the kernel the copy is laid out for
	mem  []byte
	err  error
}

// storedWeight returns the stored copy for gm of weight node id (a matrix, or a stack of matrices, of
// rows of in elements), or nil when the node is not a whole uploaded weight or gm has no stored layout.
func storedWeight(g *accel.Graph, id int, gm *quant.Gemm) ([]byte, error) {
	nd := &g.Nodes[id]
	if nd.Op != accel.OpWeight || len(nd.Shape) < 2 || gm.PackedBytes(nd.Shape[len(nd.Shape)-1], 1) == 0 {
		return nil, nil
	}
	w, ok := nd.Weight.(*weight)
	if !ok {
		return nil, nil
	}
	c := &w.stored
	c.once.Do(func() {
		c.gemm = gm
		c.err = w.b.storeWeight(w, gm)
	})
	if c.gemm != gm {
		return nil, nil
	}
	if c.err != nil {
		return nil, c.err
	}
	// Read the copy under the lock that Close takes before it frees the weights.
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	if w.b.closed {
		return nil, accel.ErrClosed
	}
	return c.mem, nil
}

// storeWeight makes w's copy in gm's stored layout, each matrix PackedBytes(in, rows) bytes, its groups of
// rows packed by the backend's threads, and sets w.stored.mem under the backend's lock (which Close takes
// before it frees the weights).
func (b *Backend) storeWeight(w *weight, gm *quant.Gemm) error {
	shape := w.desc.Shape
	in, rows := shape[len(shape)-1], shape[len(shape)-2]
	mats := 1
	for _, d := range shape[:len(shape)-2] {
		mats *= d
	}
	wRow := storageBytes(w.desc.Type, in)
	mBytes := gm.PackedBytes(in, rows)
	if avail, ok := memAvailable(); ok && int64(mats)*int64(mBytes) > avail/2 {
		return nil // no copy: the kernels on the original layout
	}
	mem, err := allocNative(mats * mBytes)
	if err != nil {
		return fmt.Errorf("cpu: weight %q: stored copy: %w", w.desc.Name, err)
	}
	groups := (rows + quant.GemmRows - 1) / quant.GemmRows
	gBytes := gm.PackedBytes(in, quant.GemmRows)
	var wg sync.WaitGroup
	for t := 0; t < b.threads; t++ {
		lo, hi := split(mats*groups, t, b.threads)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := lo; u < hi; u++ {
				m, r0 := u/groups, u%groups*quant.GemmRows
				src := w.data[(m*rows+r0)*wRow:]
				dst := mem[m*mBytes+r0/quant.GemmRows*gBytes:]
				gm.Pack(in, src, wRow, min(quant.GemmRows, rows-r0), dst[:gBytes])
			}
		}()
	}
	wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed { // Close has freed (or is freeing) the weights without this copy
		_ = freeNative(mem)
		return accel.ErrClosed
	}
	w.stored.mem = mem
	if w.mapped && w.owned == nil {
		// The kernels read the copy from now on: the original's pages leave the resident set (other uses,
		// such as GetRows of a tied embedding, read them from the file again), so that the model is not
		// resident twice.
		_ = osmem.Release(w.data)
	}
	return nil
}

// memAvailable returns the memory the system can give without swapping (Linux's MemAvailable), or false
// where it is not known. A variable for tests.
var memAvailable = func() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
