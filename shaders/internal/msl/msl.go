// Package msl turns forma's SPIR-V shaders into Metal Shading Language with the pinned upstream SPIRV-Cross, and
// reads what the Metal host needs from the result: each kernel's entry point, the buffer index of every SPIR-V
// binding (SPIRV-Cross numbers buffers in order of first use, and drops bindings a kernel never reads, so the
// indices do not follow the bindings), where the push constants go and how large they are, and which function
// constants the kernel declares. Everything is read from the committed .spv and .metal files, so the table in
// the manifest can be checked on any machine.
package msl

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Kernel is the host's view of one generated MSL kernel.
type Kernel struct {
	Name  string // the shader's name ("add", "matvec_q4_k")
	Entry string // the kernel function ("forma_add")
	// Buffers holds, per SPIR-V binding 0…n-1, the MSL buffer index, or -1 where the kernel does not use the
	// binding (SPIRV-Cross leaves it out of the signature).
	Buffers []int
	// PushIndex is the buffer index of the push constants (set with setBytes), -1 if none. PushExtent is the
	// bytes of push constants the host packs (the SPIR-V block's extent); PushSize is the MSL struct's size,
	// PushExtent rounded up to the struct's alignment, which is what setBytes must provide.
	PushIndex, PushExtent, PushSize int
	Consts                          []Const // function constants, by id
	// WorkgroupMacro: the workgroup size sizes a threadgroup array, so SPIRV-Cross made it the preprocessor
	// macro WorkgroupMacroName (a compile-time constant) instead of function constant 0.
	WorkgroupMacro bool
	Simdgroup      bool // uses SIMD-group functions (simd_max, simd_is_first, …)
}

// Const is a function constant ([[function_constant(ID)]]) of a kernel.
type Const struct {
	ID   int
	Type string // "uint", "int", "bool" or "float"
}

// WorkgroupMacroName is the macro SPIRV-Cross reads specialization constant 0 from when it must be known at
// compile time.
const WorkgroupMacroName = "SPIRV_CROSS_CONSTANT_ID_0"

// EntryPrefix starts every kernel's function name: forma_<shader>.
const EntryPrefix = "forma_"

var (
	kernelRE = regexp.MustCompile(`(?m)^kernel void (\w+)\((.*)\)\s*$`)
	paramRE  = regexp.MustCompile(`^(?:const |volatile )*(?:device|constant) (?:const )?(\w+)& \w+ \[\[buffer\((\d+)\)\]\]$`)
	constRE  = regexp.MustCompile(`(?m)^constant (\w+) \w+ \[\[function_constant\((\d+)\)\]\];$`)
	simdRE   = regexp.MustCompile(`\bsimd_\w+\(|\[\[(?:simdgroup_index_in_threadgroup|simdgroups_per_threadgroup|thread_index_in_simdgroup|threads_per_simdgroup)\]\]`)
)

// Describe reads kernel name's table from its SPIR-V module and the MSL SPIRV-Cross made of it.
func Describe(name string, spv, src []byte) (Kernel, error) {
	mod, err := ReadModule(spv)
	if err != nil {
		return Kernel{}, fmt.Errorf("%s.spv: %w", name, err)
	}
	k := Kernel{Name: name, PushIndex: -1, Buffers: make([]int, len(mod.Buffers))}
	m := kernelRE.FindAllSubmatch(src, -1)
	if len(m) != 1 {
		return Kernel{}, fmt.Errorf("%s.metal: %d kernel functions, want 1", name, len(m))
	}
	k.Entry = string(m[0][1])
	byType := map[string]int{}
	for _, p := range strings.Split(string(m[0][2]), ", ") {
		pm := paramRE.FindStringSubmatch(p)
		if pm == nil {
			if strings.Contains(p, "[[buffer(") {
				return Kernel{}, fmt.Errorf("%s.metal: cannot read buffer parameter %q", name, p)
			}
			continue // a built-in: [[thread_position_in_threadgroup]] and the like
		}
		if _, dup := byType[pm[1]]; dup {
			return Kernel{}, fmt.Errorf("%s.metal: two buffers of type %s", name, pm[1])
		}
		byType[pm[1]], _ = strconv.Atoi(pm[2])
	}
	for i, b := range mod.Buffers {
		idx, ok := byType[b.Type]
		if !ok {
			idx = -1
		}
		delete(byType, b.Type)
		k.Buffers[i] = idx
	}
	if mod.PushName != "" {
		if idx, ok := byType[mod.PushName]; ok {
			k.PushIndex = idx
			delete(byType, mod.PushName)
		}
		k.PushExtent = mod.PushExtent
		k.PushSize = (mod.PushExtent + mod.PushAlign - 1) / mod.PushAlign * mod.PushAlign
	}
	for t := range byType {
		return Kernel{}, fmt.Errorf("%s.metal: buffer of type %s is not a binding of the SPIR-V module", name, t)
	}
	for _, c := range constRE.FindAllSubmatch(src, -1) {
		id, _ := strconv.Atoi(string(c[2]))
		k.Consts = append(k.Consts, Const{ID: id, Type: string(c[1])})
	}
	sort.Slice(k.Consts, func(i, j int) bool { return k.Consts[i].ID < k.Consts[j].ID })
	k.WorkgroupMacro = bytes.Contains(src, []byte("#define "+WorkgroupMacroName+" "))
	k.Simdgroup = simdRE.Match(src)
	return k, nil
}

// Entry is one manifest line: a kernel, the SPIR-V it was made from and the MSL made.
type Entry struct {
	Kernel
	SPIRVHash, MSLHash string
}

// Manifest records the SPIRV-Cross build and options, and every kernel's table.
type Manifest struct {
	Tool    string // "spirv-cross <commit> <options>"
	Entries []Entry
}

// ManifestName is the manifest's file name in the MSL folder.
const ManifestName = "manifest.txt"

// String formats a kernel's table as the manifest stores it.
func (k Kernel) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "entry=%s buffers=", k.Entry)
	for i, x := range k.Buffers {
		if i > 0 {
			b.WriteByte(',')
		}
		if x < 0 {
			b.WriteByte('-')
		} else {
			b.WriteString(strconv.Itoa(x))
		}
	}
	if len(k.Buffers) == 0 {
		b.WriteString("none")
	}
	if k.PushIndex >= 0 {
		fmt.Fprintf(&b, " push=%d:%d:%d", k.PushIndex, k.PushExtent, k.PushSize)
	} else {
		b.WriteString(" push=-")
	}
	b.WriteString(" consts=")
	for i, c := range k.Consts {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d:%s", c.ID, c.Type)
	}
	if len(k.Consts) == 0 {
		b.WriteByte('-')
	}
	fmt.Fprintf(&b, " wgmacro=%d simd=%d", b2i(k.WorkgroupMacro), b2i(k.Simdgroup))
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write stores the manifest.
func (m Manifest) Write(path string) error {
	var b strings.Builder
	b.WriteString("# Generated by `go generate ./shaders/...` from spv/*.spv; do not edit.\n")
	b.WriteString("# name spirv-sha256 metal-sha256 entry buffers(index per binding, - unused) push=index:extent:size consts wgmacro simd\n")
	fmt.Fprintf(&b, "tool %s\n", m.Tool)
	for _, e := range m.Entries {
		fmt.Fprintf(&b, "%s %s %s %s\n", e.Name, e.SPIRVHash, e.MSLHash, e.Kernel)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ParseManifest parses a manifest.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(line, "tool "); ok {
			m.Tool = v
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			return Manifest{}, fmt.Errorf("msl manifest: %q: %w", line, err)
		}
		m.Entries = append(m.Entries, e)
	}
	return m, sc.Err()
}

func parseEntry(line string) (Entry, error) {
	f := strings.Fields(line)
	if len(f) != 9 {
		return Entry{}, fmt.Errorf("%d fields, want 9", len(f))
	}
	e := Entry{Kernel: Kernel{Name: f[0], PushIndex: -1}, SPIRVHash: f[1], MSLHash: f[2]}
	field := func(s, key string) (string, error) {
		v, ok := strings.CutPrefix(s, key+"=")
		if !ok {
			return "", fmt.Errorf("want %s=…, got %q", key, s)
		}
		return v, nil
	}
	var err error
	if e.Entry, err = field(f[3], "entry"); err != nil {
		return Entry{}, err
	}
	v, err := field(f[4], "buffers")
	if err != nil {
		return Entry{}, err
	}
	if v != "none" {
		for _, s := range strings.Split(v, ",") {
			x := -1
			if s != "-" {
				if x, err = strconv.Atoi(s); err != nil || x < 0 {
					return Entry{}, fmt.Errorf("bad buffer index %q", s)
				}
			}
			e.Buffers = append(e.Buffers, x)
		}
	}
	if v, err = field(f[5], "push"); err != nil {
		return Entry{}, err
	}
	if v != "-" {
		p := strings.Split(v, ":")
		if len(p) != 3 {
			return Entry{}, fmt.Errorf("bad push %q", v)
		}
		var nums [3]int
		for i, s := range p {
			if nums[i], err = strconv.Atoi(s); err != nil || nums[i] < 0 {
				return Entry{}, fmt.Errorf("bad push %q", v)
			}
		}
		e.PushIndex, e.PushExtent, e.PushSize = nums[0], nums[1], nums[2]
	}
	if v, err = field(f[6], "consts"); err != nil {
		return Entry{}, err
	}
	if v != "-" {
		for _, s := range strings.Split(v, ",") {
			id, typ, ok := strings.Cut(s, ":")
			n, err := strconv.Atoi(id)
			if !ok || err != nil {
				return Entry{}, fmt.Errorf("bad constant %q", s)
			}
			e.Consts = append(e.Consts, Const{ID: n, Type: typ})
		}
	}
	for i, key := range []string{"wgmacro", "simd"} {
		v, err := field(f[7+i], key)
		if err != nil || (v != "0" && v != "1") {
			return Entry{}, fmt.Errorf("bad %s %q", key, f[7+i])
		}
		if key == "wgmacro" {
			e.WorkgroupMacro = v == "1"
		} else {
			e.Simdgroup = v == "1"
		}
	}
	return e, nil
}
