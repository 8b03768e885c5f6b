package msl

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
)

// module assembles a SPIR-V module from instructions (opcode, operands).
func module(insts ...[]uint32) []byte {
	words := []uint32{0x07230203, 0x00010500, 0, 100, 0}
	for _, in := range insts {
		words = append(words, uint32(len(in))<<16|in[0])
		words = append(words, in[1:]...)
	}
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func name(id uint32, s string) []uint32 {
	in := []uint32{opName, id}
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	for i := 0; i < len(b); i += 4 {
		in = append(in, binary.LittleEndian.Uint32(b[i:]))
	}
	return in
}

// testModule has buffers A (binding 1) and B (binding 0) and a push block {uvec4 s; uint n;} at offsets 0, 16.
func testModule() []byte {
	return module(
		name(10, "A"), name(11, "B"), name(12, "Push"),
		[]uint32{opDecorate, 20, decBinding, 1}, []uint32{opDecorate, 20, decDescriptorSet, 0},
		[]uint32{opDecorate, 21, decBinding, 0}, []uint32{opDecorate, 21, decDescriptorSet, 0},
		[]uint32{opMemberDecorate, 12, 0, decOffset, 0}, []uint32{opMemberDecorate, 12, 1, decOffset, 16},
		[]uint32{opTypeInt, 1, 32, 0}, []uint32{opTypeVector, 2, 1, 4},
		[]uint32{opTypeStruct, 10, 1}, []uint32{opTypeStruct, 11, 1}, []uint32{opTypeStruct, 12, 2, 1},
		[]uint32{opTypePointer, 30, scStorageBuffer, 10}, []uint32{opTypePointer, 31, scStorageBuffer, 11},
		[]uint32{opTypePointer, 32, scPushConstant, 12},
		[]uint32{opVariable, 30, 20, scStorageBuffer}, []uint32{opVariable, 31, 21, scStorageBuffer},
		[]uint32{opVariable, 32, 22, scPushConstant},
	)
}

func TestReadModule(t *testing.T) {
	m, err := ReadModule(testModule())
	if err != nil {
		t.Fatal(err)
	}
	want := &Module{Buffers: []BufferDecl{{0, "B"}, {1, "A"}}, PushName: "Push", PushExtent: 20, PushAlign: 16}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if _, err := ReadModule([]byte("not spir-v at all....")); err == nil {
		t.Error("want an error for bytes that are not SPIR-V")
	}
}

const testMSL = `#include <metal_stdlib>
using namespace metal;
constant uint _30_tmp [[function_constant(0)]];
constant bool NATIVE_FMA_tmp [[function_constant(7)]];
kernel void forma_t(device A& _5 [[buffer(2)]], constant Push& pc [[buffer(0)]], uint3 gl_LocalInvocationID [[thread_position_in_threadgroup]])
{
}
`

// TestDescribe checks the join of SPIR-V bindings with the MSL signature: binding 0 (B) is not in the
// signature (unused), binding 1 (A) is buffer 2, the push block is buffer 0 and its MSL size is rounded to 32.
func TestDescribe(t *testing.T) {
	k, err := Describe("t", testModule(), []byte(testMSL))
	if err != nil {
		t.Fatal(err)
	}
	want := Kernel{Name: "t", Entry: "forma_t", Buffers: []int{-1, 2}, PushIndex: 0, PushExtent: 20, PushSize: 32,
		Consts: []Const{{0, "uint"}, {7, "bool"}}}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("got %+v\nwant %+v", k, want)
	}
	bad := strings.Replace(testMSL, "device A&", "device Z&", 1)
	if _, err := Describe("t", testModule(), []byte(bad)); err == nil {
		t.Error("want an error for a buffer the module does not declare")
	}
}

func TestManifestRoundTrip(t *testing.T) {
	ks := []Kernel{
		{Name: "a", Entry: "forma_a", Buffers: []int{-1, 2, 0}, PushIndex: 1, PushExtent: 44, PushSize: 48,
			Consts: []Const{{0, "uint"}, {7, "bool"}}, WorkgroupMacro: true, Simdgroup: true},
		{Name: "b", Entry: "forma_b", PushIndex: -1},
	}
	var lines []string
	for _, k := range ks {
		lines = append(lines, k.Name+" h1 h2 "+k.String())
	}
	m, err := ParseManifest([]byte("tool x y\n" + strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if m.Tool != "x y" || len(m.Entries) != 2 {
		t.Fatalf("got %+v", m)
	}
	for i, e := range m.Entries {
		if !reflect.DeepEqual(e.Kernel, ks[i]) || e.SPIRVHash != "h1" || e.MSLHash != "h2" {
			t.Errorf("entry %d: got %+v, want %+v", i, e.Kernel, ks[i])
		}
	}
	if _, err := ParseManifest([]byte("a h1 h2 entry=forma_a buffers=x push=- consts=- wgmacro=0 simd=0")); err == nil {
		t.Error("want an error for a bad buffer index")
	}
}
