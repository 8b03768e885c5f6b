package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// release lays out a release folder: a binary, a readme and a nested file, with the given file times.
func release(t *testing.T, mtime time.Time) string {
	dir := filepath.Join(t.TempDir(), "forma-v1-linux-amd64")
	for name, body := range map[string]string{"forma": "\x7fELF binary", "README.md": "# forma\n", "docs/a.md": "a"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mtime, mtime)
	}
	return dir
}

// TestDeterministic archives two copies of a release made at different times, with different file modes: the
// archives are the same bytes, and list sorted entries with the fixed time and modes.
func TestDeterministic(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	for _, ext := range []string{".tar.gz", ".zip"} {
		var outs [][]byte
		for i, mtime := range []time.Time{time.Unix(1e9, 0), time.Now()} {
			out := filepath.Join(t.TempDir(), "a"+ext)
			if err := writeArchive(out, release(t, mtime)); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(out)
			outs = append(outs, b)
			if i == 1 && !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("%s: two archives of the same files differ", ext)
			}
		}
		got := list(t, ext, outs[0])
		want := "forma-v1-linux-amd64/ 755\nforma-v1-linux-amd64/README.md 644\nforma-v1-linux-amd64/docs/a.md 644\n" +
			"forma-v1-linux-amd64/forma 755\n"
		if ext == ".zip" {
			want = strings.TrimPrefix(want, "forma-v1-linux-amd64/ 755\n")
		}
		if got != want {
			t.Errorf("%s lists:\n%s\nwant:\n%s", ext, got, want)
		}
	}
}

// list returns "name mode" lines of an archive, checking each entry's time.
func list(t *testing.T, ext string, b []byte) string {
	want := time.Unix(1700000000, 0).UTC()
	var s strings.Builder
	if ext == ".zip" {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if !f.Modified.Equal(want) {
				t.Errorf("%s: time %v", f.Name, f.Modified)
			}
			s.WriteString(f.Name + " " + strings.TrimPrefix(f.Mode().Perm().String(), "-") + "\n")
		}
		return modeDigits(s.String())
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(want) || h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: time %v, owner %d:%d", h.Name, h.ModTime, h.Uid, h.Gid)
		}
		s.WriteString(h.Name + " " + strings.TrimPrefix(os.FileMode(h.Mode).Perm().String(), "-") + "\n")
	}
	return modeDigits(s.String())
}

// modeDigits turns rwxr-xr-x into 755 in each line.
func modeDigits(s string) string {
	return strings.NewReplacer("rwxr-xr-x", "755", "rw-r--r--", "644").Replace(s)
}

func TestSums(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.zip"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.tar.gz"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if err := writeSums(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	want := "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.tar.gz\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.zip\n"
	if string(got) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, want)
	}
}
