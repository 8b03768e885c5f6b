package vk

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// cMember returns the C member name of a Go field: the first letter lowered (SType → sType).
func cMember(goField string) string {
	r, n := utf8.DecodeRuneInString(goField)
	return string(unicode.ToLower(r)) + goField[n:]
}

// layoutProgram is a C program printing, for every struct, "name size align member@offset+size …".
func layoutProgram(types []reflect.Type) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include <vulkan/vulkan.h>\nint main(void) {\n")
	for _, t := range types {
		c := "Vk" + t.Name()
		fmt.Fprintf(&b, "\tprintf(\"%s %%zu %%zu\", sizeof(%s), _Alignof(%s));\n", t.Name(), c, c)
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.Name != "_" {
				m := cMember(f.Name)
				fmt.Fprintf(&b, "\tprintf(\" %s@%%zu+%%zu\", offsetof(%s, %s), sizeof(((%s*)0)->%s));\n", m, c, m, c, m)
			}
		}
		b.WriteString("\tprintf(\"\\n\");\n")
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// goLayout is the same line computed by reflection.
func goLayout(t reflect.Type) string {
	s := fmt.Sprintf("%s %d %d", t.Name(), t.Size(), t.Align())
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Name != "_" {
			s += fmt.Sprintf(" %s@%d+%d", cMember(f.Name), f.Offset, f.Type.Size())
		}
	}
	return s
}

// TestStructLayout compiles a C program against the installed Vulkan headers and checks that every bound
// struct has the size, alignment and member offsets of its C counterpart.
func TestStructLayout(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("layouts are checked on 64-bit hosts only (GOARCH=%s)", runtime.GOARCH)
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: cannot check struct layouts against the C headers")
	}
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe.c")
	if err := os.WriteFile(probe, []byte("#include <vulkan/vulkan.h>\nint main(void){return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-fsyntax-only", probe).CombinedOutput(); err != nil {
		t.Skipf("Vulkan C headers not usable (install libvulkan-dev): %s", out)
	}
	var types []reflect.Type
	for _, v := range layoutStructs {
		types = append(types, reflect.TypeOf(v))
	}
	src := filepath.Join(dir, "layout.c")
	if err := os.WriteFile(src, []byte(layoutProgram(types)), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "layout")
	if out, err := exec.Command(cc, "-std=c11", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("compiling the layout program: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		want[name] = sc.Text()
	}
	if len(want) != len(types) {
		t.Fatalf("C program printed %d structs, want %d", len(want), len(types))
	}
	for _, ty := range types {
		if got := goLayout(ty); got != want[ty.Name()] {
			t.Errorf("layout mismatch (name size align offsets…):\n  Go: %s\n   C: %s", got, want[ty.Name()])
		}
	}
}
