// Command archive writes release archives whose bytes depend only on the files' contents and names: entries sorted
// by name, one fixed time ($SOURCE_DATE_EPOCH, else 2000-01-01), fixed owners, and modes 0755 for executables
// (forma, *.exe) and 0644 for the rest. .ci/release uses it, so that two builds of a release give the same bytes.
//
//	go run ./internal/cmd/archive -o OUT.tar.gz|OUT.zip DIR   archive DIR's files under DIR's name
//	go run ./internal/cmd/archive -sums DIR                   write DIR/SHA256SUMS for the archives in DIR
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "the archive to write: .tar.gz or .zip")
	sums := flag.Bool("sums", false, "write SHA256SUMS for the archives in DIR")
	flag.Parse()
	if flag.NArg() != 1 || (*out == "") == !*sums {
		fmt.Fprintln(os.Stderr, "usage: archive -o OUT.tar.gz|OUT.zip DIR | archive -sums DIR")
		os.Exit(2)
	}
	var err error
	if *sums {
		err = writeSums(flag.Arg(0))
	} else {
		err = writeArchive(*out, flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "archive:", err)
		os.Exit(1)
	}
}

// entry is one file of an archive.
type entry struct {
	name string // slash-separated, under the archive's top folder
	path string
	mode fs.FileMode
}

// modTime is the time every entry carries.
func modTime() (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), nil
}

// files lists dir's regular files, sorted by name, under dir's base name.
func files(dir string) ([]entry, error) {
	top := filepath.Base(filepath.Clean(dir))
	var es []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(top, filepath.ToSlash(rel))
		mode := fs.FileMode(0o644)
		if base := path.Base(name); base == "forma" || strings.HasSuffix(base, ".exe") {
			mode = 0o755
		}
		es = append(es, entry{name: name, path: p, mode: mode})
		return nil
	})
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	if err == nil && len(es) == 0 {
		err = fmt.Errorf("%s: no files", dir)
	}
	return es, err
}

func writeArchive(out, dir string) (err error) {
	es, err := files(dir)
	if err != nil {
		return err
	}
	t, err := modTime()
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if e := f.Close(); err == nil {
			err = e
		}
		if err != nil {
			os.Remove(out)
		}
	}()
	switch {
	case strings.HasSuffix(out, ".tar.gz"):
		return writeTarGz(f, es, t)
	case strings.HasSuffix(out, ".zip"):
		return writeZip(f, es, t)
	}
	return fmt.Errorf("%s: want .tar.gz or .zip", out)
}

func writeTarGz(w io.Writer, es []entry, t time.Time) error {
	gz, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // no name, zero time in the gzip header
	tw := tar.NewWriter(gz)
	top := strings.SplitN(es[0].name, "/", 2)[0]
	err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755, ModTime: t, Format: tar.FormatUSTAR})
	for _, e := range es {
		if err != nil {
			break
		}
		err = addFile(e, func(size int64) (io.Writer, error) {
			h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: int64(e.mode), Size: size, ModTime: t,
				Format: tar.FormatUSTAR}
			return tw, tw.WriteHeader(h)
		})
	}
	return errors.Join(err, tw.Close(), gz.Close())
}

func writeZip(w io.Writer, es []entry, t time.Time) error {
	zw := zip.NewWriter(w)
	var err error
	for _, e := range es {
		if err != nil {
			break
		}
		err = addFile(e, func(int64) (io.Writer, error) {
			h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: t}
			h.SetMode(e.mode)
			return zw.CreateHeader(h)
		})
	}
	return errors.Join(err, zw.Close())
}

// addFile copies e's bytes to the writer open returns for its size.
func addFile(e entry, open func(size int64) (io.Writer, error)) error {
	f, err := os.Open(e.path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	w, err := open(st.Size())
	if err != nil {
		return err
	}
	_, err = io.Copy(w, f)
	return err
}

// writeSums writes dir/SHA256SUMS in sha256sum's format for the .tar.gz and .zip files in dir, sorted by name.
func writeSums(dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if !strings.HasSuffix(n, ".tar.gz") && !strings.HasSuffix(n, ".zip") {
			continue
		}
		data, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), filepath.Base(n))
	}
	if b.Len() == 0 {
		return fmt.Errorf("%s: no archives", dir)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
