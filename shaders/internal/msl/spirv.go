package msl

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Module is what the Metal side needs to know of a SPIR-V compute module: its storage buffers by binding (with
// the names of their block types, which SPIRV-Cross keeps as the MSL struct names) and its push-constant block.
type Module struct {
	Buffers  []BufferDecl // sorted by binding
	PushName string       // the push-constant block's type name; "" if none
	// PushExtent is the end of the push block's last member (offset + size): the bytes the host packs.
	// PushAlign is the largest member alignment, to which MSL rounds the struct's size.
	PushExtent, PushAlign int
}

// BufferDecl is a storage buffer of descriptor set 0.
type BufferDecl struct {
	Binding int
	Type    string // the block's type name
}

// SPIR-V opcodes, decorations and storage classes used here (SPIR-V specification, section 3).
const (
	opName           = 5
	opTypeBool       = 20
	opTypeInt        = 21
	opTypeFloat      = 22
	opTypeVector     = 23
	opTypeArray      = 28
	opTypeStruct     = 30
	opTypePointer    = 32
	opConstant       = 43
	opVariable       = 59
	opDecorate       = 71
	opMemberDecorate = 72

	decArrayStride   = 6
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35

	scUniform       = 2
	scPushConstant  = 9
	scStorageBuffer = 12
)

// ReadModule reads the buffers and the push-constant block of a SPIR-V module.
func ReadModule(spv []byte) (*Module, error) {
	if len(spv) < 20 || len(spv)%4 != 0 || binary.LittleEndian.Uint32(spv) != 0x07230203 {
		return nil, fmt.Errorf("not a SPIR-V module")
	}
	words := make([]uint32, len(spv)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(spv[4*i:])
	}
	names := map[uint32]string{}
	binding := map[uint32]int{}
	set := map[uint32]int{}
	arrayStride := map[uint32]int{}
	offsets := map[uint32]map[int]int{} // struct → member → offset
	types := map[uint32][]uint32{}      // type id → its instruction
	consts := map[uint32]uint32{}
	type variable struct{ ptr, id, class uint32 }
	var vars []variable
	for i := 5; i < len(words); {
		n := int(words[i] >> 16)
		op := words[i] & 0xffff
		if n == 0 || i+n > len(words) {
			return nil, fmt.Errorf("truncated instruction at word %d", i)
		}
		in := words[i+1 : i+n]
		switch op {
		case opName:
			if len(in) >= 1 {
				names[in[0]] = literal(in[1:])
			}
		case opDecorate:
			if len(in) >= 3 {
				switch in[1] {
				case decBinding:
					binding[in[0]] = int(in[2])
				case decDescriptorSet:
					set[in[0]] = int(in[2])
				case decArrayStride:
					arrayStride[in[0]] = int(in[2])
				}
			}
		case opMemberDecorate:
			if len(in) >= 4 && in[2] == decOffset {
				if offsets[in[0]] == nil {
					offsets[in[0]] = map[int]int{}
				}
				offsets[in[0]][int(in[1])] = int(in[3])
			}
		case opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeArray, opTypeStruct, opTypePointer:
			if len(in) >= 1 {
				types[in[0]] = append([]uint32{op}, in[1:]...)
			}
		case opConstant:
			if len(in) >= 3 {
				consts[in[1]] = in[2]
			}
		case opVariable:
			if len(in) >= 3 {
				vars = append(vars, variable{in[0], in[1], in[2]})
			}
		}
		i += n
	}
	// sizeAlign is the size and alignment of a push-constant member (std430 scalars, vectors and arrays).
	var sizeAlign func(id uint32) (int, int, error)
	sizeAlign = func(id uint32) (int, int, error) {
		t := types[id]
		if len(t) == 0 {
			return 0, 0, fmt.Errorf("type %%%d is not declared", id)
		}
		switch t[0] {
		case opTypeInt, opTypeFloat:
			return int(t[1]) / 8, int(t[1]) / 8, nil
		case opTypeVector:
			s, _, err := sizeAlign(t[1])
			n := int(t[2])
			a := s * n
			if n == 3 {
				a = 4 * s
			}
			return s * n, a, err
		case opTypeArray:
			_, a, err := sizeAlign(t[1])
			return arrayStride[id] * int(consts[t[2]]), a, err
		}
		return 0, 0, fmt.Errorf("type %%%d (op %d) in a push-constant block", id, t[0])
	}
	m := &Module{}
	for _, v := range vars {
		ptr := types[v.ptr]
		if len(ptr) < 3 || ptr[0] != opTypePointer {
			continue
		}
		block := ptr[2]
		switch v.class {
		case scStorageBuffer, scUniform:
			b, ok := binding[v.id]
			if !ok || set[v.id] != 0 {
				return nil, fmt.Errorf("buffer %q is not in descriptor set 0 with a binding", names[block])
			}
			m.Buffers = append(m.Buffers, BufferDecl{Binding: b, Type: names[block]})
		case scPushConstant:
			if m.PushName != "" {
				return nil, fmt.Errorf("two push-constant blocks")
			}
			st := types[block]
			if len(st) == 0 || st[0] != opTypeStruct {
				return nil, fmt.Errorf("push constants are not a struct")
			}
			m.PushName, m.PushAlign = names[block], 1
			for k, mt := range st[1:] {
				size, align, err := sizeAlign(mt)
				if err != nil {
					return nil, fmt.Errorf("push constant %d: %w", k, err)
				}
				off, ok := offsets[block][k]
				if !ok {
					return nil, fmt.Errorf("push constant %d has no offset", k)
				}
				m.PushExtent = max(m.PushExtent, off+size)
				m.PushAlign = max(m.PushAlign, align)
			}
		}
	}
	sort.Slice(m.Buffers, func(i, j int) bool { return m.Buffers[i].Binding < m.Buffers[j].Binding })
	for i, b := range m.Buffers {
		if b.Binding != i {
			return nil, fmt.Errorf("buffer bindings are not 0…%d: binding %d is %q", len(m.Buffers)-1, b.Binding, b.Type)
		}
	}
	return m, nil
}

// literal decodes a SPIR-V literal string (UTF-8, NUL-terminated, packed into words).
func literal(ws []uint32) string {
	var b []byte
	for _, w := range ws {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}
