package osmem

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestRelease releases parts of a file mapping (whole pages, part of a page, nothing) and reads the same bytes
// afterwards.
func TestRelease(t *testing.T) {
	page := os.Getpagesize()
	data := make([]byte, 4*page+123)
	for i := range data {
		data[i] = byte(i*7 + i/page)
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := MapFile(f, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m)
	for _, r := range [][2]int{{0, len(m)}, {5, 3*page + 7}, {page + 1, page + 100}, {7, 7}} {
		if !bytes.Equal(m, data) {
			t.Fatal("the mapping differs from the file before Release")
		}
		if err := Release(m[r[0]:r[1]]); err != nil {
			t.Fatalf("Release(m[%d:%d]): %v", r[0], r[1], err)
		}
		if !bytes.Equal(m, data) {
			t.Fatalf("after Release(m[%d:%d]) the mapping differs from the file", r[0], r[1])
		}
	}
}
