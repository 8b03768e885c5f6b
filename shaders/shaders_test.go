package shaders

import (
	"bytes"
	"encoding/binary"
	"os/exec"
	"slices"
	"testing"

	"github.com/forma-llm/forma/shaders/internal/spvc"
)

const spirvMagic = 0x07230203

func readManifest(t *testing.T) spvc.Manifest {
	t.Helper()
	m, err := spvc.ReadManifest("spv/" + spvc.ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifestCurrent needs no tools: every source has a committed module compiled from exactly these sources,
// and every committed module is the one the manifest recorded.
func TestManifestCurrent(t *testing.T) {
	m := readManifest(t)
	names, err := spvc.Sources(".")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range m.Entries {
		listed = append(listed, e.Name)
	}
	if !slices.Equal(names, listed) || !slices.Equal(names, Names()) {
		t.Fatalf("sources %v, manifest %v, embedded %v differ: run go generate ./shaders/...", names, listed, Names())
	}
	for _, e := range m.Entries {
		in, err := spvc.InputHash(".", e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if in != e.InputHash {
			t.Errorf("%s: sources changed since the SPIR-V was compiled: run go generate ./shaders/...", e.Name)
		}
		spv, err := SPIRV(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if spvc.Hash(spv) != e.SPIRVHash {
			t.Errorf("%s.spv is not the module the manifest records", e.Name)
		}
		if len(spv) < 20 || len(spv)%4 != 0 || binary.LittleEndian.Uint32(spv) != spirvMagic {
			t.Errorf("%s.spv is not a SPIR-V module", e.Name)
		}
	}
}

// TestRecompile recompiles every shader with the installed glslangValidator and compares the bytes, when it is
// the compiler the manifest records (other versions emit different, equally valid, code).
func TestRecompile(t *testing.T) {
	glslang, err := exec.LookPath("glslangValidator")
	if err != nil {
		t.Skip("glslangValidator not found (install glslang-tools)")
	}
	m := readManifest(t)
	v, err := spvc.GlslangVersion(glslang)
	if err != nil {
		t.Fatal(err)
	}
	if v != m.Glslang {
		t.Skipf("installed %q differs from %q that compiled the committed SPIR-V", v, m.Glslang)
	}
	for _, e := range m.Entries {
		got, err := spvc.Compile(glslang, ".", e.Name)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := SPIRV(e.Name)
		if !bytes.Equal(got, want) {
			t.Errorf("%s.spv is stale: run go generate ./shaders/...", e.Name)
		}
	}
}

// TestValidate runs spirv-val on every committed module.
func TestValidate(t *testing.T) {
	spirvVal, err := exec.LookPath("spirv-val")
	if err != nil {
		t.Skip("spirv-val not found (install spirv-tools)")
	}
	for _, name := range Names() {
		spv, _ := SPIRV(name)
		if err := spvc.Validate(spirvVal, spv); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSPIRVUnknown(t *testing.T) {
	if _, err := SPIRV("no_such_shader"); err == nil {
		t.Error("want an error for an unknown shader")
	}
}
