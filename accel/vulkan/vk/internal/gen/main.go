// Command gen writes forma's Vulkan bindings (package vk) from the Khronos registry vk.xml.
//
// It binds the commands listed in subset.go, every type they reach, and the extra pNext structs listed there.
// Run it through `go generate ./accel/vulkan/vk`; the output is committed.
package main

import (
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

func main() {
	regPath := flag.String("registry", "/usr/share/vulkan/registry/vk.xml", "path to vk.xml")
	outDir := flag.String("out", ".", "directory of package vk")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("vk/gen: ")
	reg, err := readRegistry(*regPath)
	if err != nil {
		log.Fatal(err)
	}
	files, err := generate(reg)
	if err != nil {
		log.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(*outDir, name), src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// enumDef is one enum or bitmask type with its values in registry order.
type enumDef struct {
	name    string
	bitmask bool
	bits64  bool
	values  []enumVal
	seen    map[string]bool
}

type enumVal struct {
	name  string
	value int64
}

type model struct {
	tags      map[string]bool
	types     map[string]xType
	enums     map[string]*enumDef
	commands  map[string]xCommand
	constants []xEnum
	header    string

	need     map[string]bool // type names reached
	sTypes   map[string]bool // VK_STRUCTURE_TYPE_* values used by bound structs
	arrayLen map[string]bool // API constants used as array lengths
}

var reHeader = regexp.MustCompile(`VK_HEADER_VERSION</name>\s*(\d+)`)

func newModel(r *xRegistry) (*model, error) {
	m := &model{
		tags: map[string]bool{}, types: map[string]xType{}, enums: map[string]*enumDef{},
		commands: map[string]xCommand{}, need: map[string]bool{}, sTypes: map[string]bool{}, arrayLen: map[string]bool{},
	}
	for _, t := range r.Tags {
		m.tags[t.Name] = true
	}
	for _, t := range r.Types {
		if !forVulkan(t.API) {
			continue
		}
		if n := innerName(t); n != "" {
			m.types[n] = t
		}
		if s := reHeader.FindStringSubmatch(t.Inner); s != nil {
			m.header = s[1]
		}
	}
	for _, es := range r.Enums {
		if es.Name == "API Constants" {
			m.constants = es.Enums
			continue
		}
		d := &enumDef{name: es.Name, bitmask: es.Type == "bitmask", bits64: es.BitWidth == "64", seen: map[string]bool{}}
		m.enums[es.Name] = d
		for _, e := range es.Enums {
			if err := m.addEnum(d, e, ""); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range r.Features {
		if !forVulkan(f.API) {
			continue
		}
		if err := m.addRequires(f.Requires, ""); err != nil {
			return nil, err
		}
	}
	for _, x := range r.Extensions {
		if !forVulkan(x.Supported) {
			continue
		}
		if err := m.addRequires(x.Requires, x.Number); err != nil {
			return nil, err
		}
	}
	for _, c := range r.Commands {
		if !forVulkan(c.API) {
			continue
		}
		name := c.Name
		if name == "" {
			name = reName.FindStringSubmatch(c.Proto.Inner)[1]
		}
		m.commands[name] = c
	}
	if m.header == "" {
		return nil, fmt.Errorf("no VK_HEADER_VERSION in registry")
	}
	return m, nil
}

func (m *model) addRequires(reqs []xRequire, extNumber string) error {
	for _, rq := range reqs {
		if !forVulkan(rq.API) {
			continue
		}
		for _, e := range rq.Enums {
			if e.Extends == "" || !forVulkan(e.API) {
				continue
			}
			d := m.enums[e.Extends]
			if d == nil {
				return fmt.Errorf("%s extends unknown enum %s", e.Name, e.Extends)
			}
			if err := m.addEnum(d, e, extNumber); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *model) addEnum(d *enumDef, e xEnum, extNumber string) error {
	if e.Alias != "" || d.seen[e.Name] || !forVulkan(e.API) {
		return nil
	}
	v, err := enumValue(e, extNumber)
	if err != nil {
		return err
	}
	d.seen[e.Name] = true
	d.values = append(d.values, enumVal{e.Name, v})
	return nil
}

// cTypes maps C scalar types to Go.
var cTypes = map[string]string{
	"char": "byte", "uint8_t": "uint8", "int8_t": "int8", "uint16_t": "uint16", "int16_t": "int16",
	"uint32_t": "uint32", "int32_t": "int32", "uint64_t": "uint64", "int64_t": "int64", "int": "int32",
	"float": "float32", "double": "float64", "size_t": "uintptr", "void": "",
}

// reach adds a type and everything it refers to.
func (m *model) reach(name string) error {
	if _, ok := cTypes[name]; ok || m.need[name] {
		return nil
	}
	t, ok := m.types[name]
	if !ok {
		return fmt.Errorf("unknown type %s", name)
	}
	m.need[name] = true
	if t.Alias != "" {
		return m.reach(t.Alias)
	}
	switch t.Category {
	case "struct":
		for _, mem := range t.Members {
			if !forVulkan(mem.API) {
				continue
			}
			d, err := parseDecl(mem)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, a := range d.Arrays {
				m.arrayLen[a] = true
			}
			if d.Values != "" {
				m.sTypes[d.Values] = true
			}
			if err := m.reach(d.Type); err != nil {
				return err
			}
		}
	case "union":
		return fmt.Errorf("%s: unions are not supported", name)
	case "bitmask":
		for _, req := range []string{t.Requires, t.BitVals} {
			if req != "" {
				if err := m.reach(req); err != nil {
					return err
				}
			}
		}
	case "basetype":
		if m := reType.FindStringSubmatch(t.Inner); m == nil {
			return fmt.Errorf("%s: opaque base types are not supported", name)
		}
	case "handle", "enum", "funcpointer":
	default:
		return fmt.Errorf("%s: category %q is not supported", name, t.Category)
	}
	return nil
}

func generate(r *xRegistry) (map[string][]byte, error) {
	m, err := newModel(r)
	if err != nil {
		return nil, err
	}
	for _, name := range append([]string{"VkResult", "VkStructureType"}, append(extraTypes, stringers...)...) {
		if err := m.reach(name); err != nil {
			return nil, err
		}
	}
	for _, name := range commands {
		c, ok := m.commands[name]
		if !ok || c.Alias != "" {
			return nil, fmt.Errorf("command %s: not found (or an alias)", name)
		}
		for _, p := range append([]xMember{c.Proto}, c.Params...) {
			d, err := parseDecl(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if err := m.reach(d.Type); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	files := map[string][]byte{}
	for name, emit := range map[string]func() (string, error){
		"ztypes.go": m.emitTypes, "zcommands.go": m.emitCommands, "zlayout_test.go": m.emitLayoutList,
	} {
		src, err := emit()
		if err != nil {
			return nil, err
		}
		out, err := format.Source([]byte(src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", name, err, src)
		}
		files[name] = out
	}
	return files, nil
}

// sortedNeed returns the reached types of one category, sorted by name.
func (m *model) sortedNeed(category string) []string {
	var out []string
	for n := range m.need {
		if m.types[n].Category == category {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// goName turns a Vulkan type or command name into its Go name: VkBufferCreateInfo → BufferCreateInfo.
func goName(c string) string {
	c = strings.TrimPrefix(c, "Vk")
	return strings.TrimPrefix(c, "vk")
}

// constName turns VK_BUFFER_USAGE_STORAGE_BUFFER_BIT into BufferUsageStorageBufferBit, keeping vendor tags.
func (m *model) constName(c string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.TrimPrefix(c, "VK_"), "_") {
		if w == "" {
			continue
		}
		if m.tags[w] {
			b.WriteString(w)
			continue
		}
		i := 0
		for i < len(w) && w[i] >= '0' && w[i] <= '9' {
			i++
		}
		b.WriteString(w[:i])
		if i < len(w) {
			b.WriteString(w[i : i+1])
			b.WriteString(strings.ToLower(w[i+1:]))
		}
	}
	return b.String()
}

// goType is the Go spelling of a declaration's type (without arrays).
func (m *model) goType(d decl) (string, error) {
	base, scalar := cTypes[d.Type]
	if !scalar {
		t := m.types[d.Type]
		switch t.Category {
		case "funcpointer":
			base = "uintptr"
		default:
			base = goName(d.Type)
		}
	}
	if d.Ptr == 0 {
		if base == "" {
			return "", fmt.Errorf("%s: void value", d.Name)
		}
		return base, nil
	}
	if base == "" {
		base = "unsafe.Pointer"
		return strings.Repeat("*", d.Ptr-1) + base, nil
	}
	return strings.Repeat("*", d.Ptr) + base, nil
}

var goKeywords = map[string]bool{"type": true, "func": true, "range": true, "map": true, "chan": true, "go": true,
	"select": true, "default": true, "var": true, "const": true, "package": true, "import": true, "return": true,
	"interface": true, "struct": true, "switch": true, "case": true, "for": true, "if": true, "else": true,
	"break": true, "continue": true, "defer": true, "goto": true, "fallthrough": true}

func paramName(n string) string {
	if goKeywords[n] {
		return n + "_"
	}
	return n
}

func exported(n string) string { return strings.ToUpper(n[:1]) + n[1:] }

// typeOfEnum returns the Go underlying type of an enum or bitmask enum.
func (m *model) typeOfEnum(name string) string {
	d := m.enums[name]
	switch {
	case d == nil && strings.Contains(name, "FlagBits"):
		return "uint32"
	case d == nil || !d.bitmask:
		return "int32"
	case d.bits64:
		return "uint64"
	}
	return "uint32"
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
