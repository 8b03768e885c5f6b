package gguf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/osmem"
)

// TestOpenSection reads a GGUF carried at an aligned offset inside a larger file, as a bundle carries one, and
// checks that a section which is misaligned or runs past the file is refused with an error naming it.
func TestOpenSection(t *testing.T) {
	spec := sampleSpec(t)
	var model bytes.Buffer
	if _, err := Write(&model, spec); err != nil {
		t.Fatal(err)
	}
	off := int64(osmem.MapAlign)
	file := append(bytes.Repeat([]byte{0xcc}, int(off)), model.Bytes()...)
	file = append(file, "trailing bytes"...)
	path := filepath.Join(t.TempDir(), "carrier")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenSection(path, off, int64(model.Len()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size != int64(model.Len()) || len(f.Tensors) != len(spec.Tensors) {
		t.Fatalf("section: %d bytes, %d tensors; want %d, %d", f.Size, len(f.Tensors), model.Len(), len(spec.Tensors))
	}
	for i, ti := range f.Tensors {
		tn, err := f.Tensor(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		spec.Tensors[i].Data(&b)
		if !bytes.Equal(tn.Data, b.Bytes()) {
			t.Errorf("tensor %s differs", ti.Name)
		}
	}
	for _, c := range []struct {
		off, size int64
		want      string
	}{
		{off + 32, 100, "not a multiple"},
		{off, int64(len(file)), "not inside the file"},
		{0, int64(model.Len()), "magic"},
	} {
		f, err := OpenSection(path, c.off, c.size)
		if err == nil {
			f.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OpenSection(%d, %d): %v, want an error containing %q", c.off, c.size, err, c.want)
		}
	}
}
