package shaders

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/forma-llm/forma/shaders/internal/msl"
)

func readMSLManifest(t *testing.T) msl.Manifest {
	t.Helper()
	data, err := mslFS.ReadFile("msl/" + msl.ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	m, err := msl.ParseManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMSLCurrent needs no tools: there is an MSL kernel for every SPIR-V module, made from exactly that module
// with the pinned SPIRV-Cross and options, and every kernel's table in the manifest is the one its committed
// .metal signature and .spv module give (buffer index per binding, push constants, function constants).
func TestMSLCurrent(t *testing.T) {
	m := readMSLManifest(t)
	if m.Tool != msl.ToolLine() {
		t.Errorf("manifest made with %q, want %q: run go generate ./shaders/...", m.Tool, msl.ToolLine())
	}
	var names []string
	for _, e := range m.Entries {
		names = append(names, e.Name)
	}
	if !slices.Equal(names, Names()) {
		t.Fatalf("MSL kernels %v differ from SPIR-V modules %v: run go generate ./shaders/...", names, Names())
	}
	for _, e := range m.Entries {
		spv, _ := SPIRV(e.Name)
		src, k, err := MSL(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		if msl.Hash(spv) != e.SPIRVHash {
			t.Errorf("%s.metal was made from another %s.spv: run go generate ./shaders/...", e.Name, e.Name)
		}
		if msl.Hash(src) != e.MSLHash {
			t.Errorf("%s.metal is not the file the manifest records", e.Name)
		}
		got, err := msl.Describe(e.Name, spv, src)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if !reflect.DeepEqual(got, e.Kernel) || !reflect.DeepEqual(k, e.Kernel) {
			t.Errorf("%s: table from the signature %v, manifest %v", e.Name, got, e.Kernel)
		}
		if !bytes.Contains(src, []byte("#pragma clang fp contract(off)\n")) {
			t.Errorf("%s.metal lacks the fp contract pragma", e.Name)
		}
	}
}

// TestMSLRegenerate translates every module again with the pinned SPIRV-Cross, when it is installed, and
// compares the bytes with the committed files.
func TestMSLRegenerate(t *testing.T) {
	tool, why := msl.FindTool("..")
	if tool == "" {
		t.Skip(why)
	}
	srcs, m, err := msl.Generate(tool, "spv")
	if err != nil {
		t.Fatal(err)
	}
	want := readMSLManifest(t)
	if !reflect.DeepEqual(m, want) {
		t.Errorf("regenerated manifest differs: run go generate ./shaders/...")
	}
	for name, src := range srcs {
		if old, _, _ := MSL(name); !bytes.Equal(old, src) {
			t.Errorf("%s.metal is stale: run go generate ./shaders/...", name)
		}
	}
}

func TestMSLUnknown(t *testing.T) {
	if _, _, err := MSL("no_such_kernel"); err == nil {
		t.Error("want an error for an unknown kernel")
	}
}
