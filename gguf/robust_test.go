package gguf

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// headerEnd returns where f's data section starts: everything before it is header, metadata and tensor infos.
func headerEnd(t *testing.T, buf []byte) int {
	t.Helper()
	h, err := parseHeader(buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	return int(min(h.dataStart, uint64(len(buf))))
}

// Each testdata model truncated at 50 points and with a byte flipped at 200 points of its header region either
// fails to parse or parses into a File that passes the walk. None panics.
func TestCorruptTestdata(t *testing.T) {
	const truncations, flips = 50, 200
	for _, p := range modelPaths(t) {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".gguf"), func(t *testing.T) {
			t.Parallel()
			orig := readFile(t, p)
			hdr := headerEnd(t, orig)
			rng := rand.New(rand.NewPCG(1, uint64(len(orig))))
			var opened, failed int
			try := func(buf []byte, what string) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s: panic: %v", what, r)
					}
				}()
				f, err := parseMem(buf)
				if err != nil {
					failed++
					return
				}
				opened++
				if err := walkOpt(f, false); err != nil {
					t.Errorf("%s: parsed but fails the walk: %v", what, err)
				}
			}
			// Truncations: half inside the header region, half anywhere.
			for i := 0; i < truncations; i++ {
				n := rng.IntN(hdr + 1)
				if i%2 == 1 {
					n = rng.IntN(len(orig))
				}
				try(orig[:n:n], "truncated at "+itoa(n))
			}
			buf := append([]byte(nil), orig...)
			for i := 0; i < flips; i++ {
				at := rng.IntN(hdr)
				old := buf[at]
				buf[at] ^= byte(1 + rng.IntN(255))
				try(buf, "byte "+itoa(at)+" flipped")
				buf[at] = old
			}
			if failed == 0 {
				t.Errorf("no corruption was detected (%d opened)", opened)
			}
		})
	}
}

// Counts in the header are believed only as far as entries are read: a file that claims millions of entries
// makes the reader allocate for the entries it holds, not for the claim.
func TestCountsDoNotPreallocate(t *testing.T) {
	buf := make([]byte, 64<<20)
	copy(buf, "GGUF")
	binary.LittleEndian.PutUint32(buf[4:], 3)
	for _, off := range []int{8, 16} { // tensor count, metadata count
		clear(buf[8:24])
		binary.LittleEndian.PutUint64(buf[off:], uint64(len(buf)/32))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := parseMem(buf)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("count at %d: a file of zeros parsed", off)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("count at %d: %d bytes allocated for a bogus count (%v)", off, n, err)
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func itoa(n int) string { return strconv.Itoa(n) }
