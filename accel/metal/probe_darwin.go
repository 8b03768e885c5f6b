//go:build darwin

package metal

import (
	"fmt"

	"github.com/ebitengine/purego/objc"

	"github.com/forma-llm/forma/shaders"
)

// simdProbe is the probe kernel: every thread of one threadgroup of probeThreads writes what the SIMD-group
// functions the shaders use (simd_max, simd_is_first, and simd_sum, which SPIRV-Cross emits for subgroupAdd)
// return to it, with its SIMD group's index and width. supportsFamily is not trusted for this: it
// under-reports in virtual machines.
const simdProbe = `#include <metal_stdlib>
using namespace metal;
kernel void forma_simd_probe(device uint *out [[buffer(0)]],
                             uint lid [[thread_position_in_threadgroup]],
                             uint group [[simdgroup_index_in_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]],
                             uint width [[threads_per_simdgroup]]) {
    float m = simd_max(float(lid));
    uint s = simd_sum(1u);
    bool first = simd_is_first();
    out[lid * 4u + 0u] = as_type<uint>(m);
    out[lid * 4u + 1u] = s;
    out[lid * 4u + 2u] = first ? 1u : 0u;
    out[lid * 4u + 3u] = (group << 16) | (lane << 8) | width;
}
`

// probeSimdgroups runs simdProbe and records in g.inf whether SIMD-group reductions work and the SIMD width.
func (g *mtlGPU) probeSimdgroups() error {
	k := shaders.Kernel{Name: "simd_probe", Entry: "forma_simd_probe", Buffers: []int{0}, PushIndex: -1}
	var spec [numSpec]uint32
	spec[0] = probeThreads
	var pso objc.ID
	err := withPool(func() error {
		lib, err := g.compile(k.Name, simdProbe, nil)
		if err != nil {
			return err
		}
		defer release(lib)
		pso, err = g.newPipeline(lib, k, spec)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: the SIMD-group probe kernel: %v", ErrNoDevice, err)
	}
	p := &mtlPipeline{k: k, pso: pso}
	defer withPool(func() error { release(pso); return nil })
	out, err := g.newBuffer("simd probe", 16*probeThreads)
	if err != nil {
		return err
	}
	defer out.release()
	if err := g.run([]step{{pipe: p, bufs: []bound{{buf: out}}, groups: [3]uint32{1, 1, 1}, wg: probeThreads}}); err != nil {
		return fmt.Errorf("%w: the SIMD-group probe kernel: %v", ErrNoDevice, err)
	}
	width, ok := checkSimdProbe(out.contents())
	g.inf.Simdgroup, g.inf.ThreadsPerSIMD = ok, width
	return nil
}
