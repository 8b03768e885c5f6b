package bundle

import (
	"bytes"
	"crypto/sha256"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// codeDirectory is a parsed ad-hoc signature: the fields a verifier reads and the page hashes.
type codeDirectory struct {
	version, flags, nSpecial, codeLimit uint32
	hashSize, hashType, pageShift       uint8
	id                                  string
	execBase, execLimit, execFlags      uint64
	hashes                              [][]byte
}

// parseSignature reads an embedded signature as a verifier would, checking every length and offset.
func parseSignature(b []byte) (*codeDirectory, error) {
	be := binary.BigEndian
	if len(b) < superBlobHeader+blobIndexSize || be.Uint32(b) != csMagicEmbedded {
		return nil, fmt.Errorf("not an embedded signature")
	}
	if n := be.Uint32(b[4:]); int(n) != len(b) {
		return nil, fmt.Errorf("SuperBlob length %d, data %d bytes", n, len(b))
	}
	if be.Uint32(b[8:]) != 1 || be.Uint32(b[12:]) != csSlotCodeDirectory {
		return nil, fmt.Errorf("want one CodeDirectory blob, got %d blobs, first of type %d", be.Uint32(b[8:]), be.Uint32(b[12:]))
	}
	cd := b[be.Uint32(b[16:]):]
	if len(cd) < codeDirHeaderSize || be.Uint32(cd) != csMagicCodeDirectory || int(be.Uint32(cd[4:])) != len(cd) {
		return nil, fmt.Errorf("bad CodeDirectory header")
	}
	c := &codeDirectory{version: be.Uint32(cd[8:]), flags: be.Uint32(cd[12:]), nSpecial: be.Uint32(cd[24:]),
		codeLimit: be.Uint32(cd[32:]), hashSize: cd[36], hashType: cd[37], pageShift: cd[39],
		execBase: be.Uint64(cd[64:]), execLimit: be.Uint64(cd[72:]), execFlags: be.Uint64(cd[80:])}
	hashOff, identOff, nslots := be.Uint32(cd[16:]), be.Uint32(cd[20:]), be.Uint32(cd[28:])
	if end := bytes.IndexByte(cd[identOff:], 0); end < 0 {
		return nil, fmt.Errorf("identifier not terminated")
	} else {
		c.id = string(cd[identOff : identOff+uint32(end)])
	}
	if int(hashOff)+int(nslots)*int(c.hashSize) != len(cd) {
		return nil, fmt.Errorf("%d hashes of %d bytes at %d do not fill the %d-byte CodeDirectory", nslots, c.hashSize, hashOff, len(cd))
	}
	for i := range nslots {
		o := hashOff + i*uint32(c.hashSize)
		c.hashes = append(c.hashes, cd[o:o+uint32(c.hashSize)])
	}
	return c, nil
}

// signatureOf returns a Mach-O file's signature bytes and their offset.
func signatureOf(t *testing.T, file []byte) ([]byte, int64) {
	t.Helper()
	h, err := readMachOHeader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	off, n, ok := h.codeSignature()
	if !ok {
		t.Fatal("no LC_CODE_SIGNATURE")
	}
	if int(off)+int(n) != len(file) {
		t.Errorf("the signature (%d bytes at %d) does not end the %d-byte file", n, off, len(file))
	}
	return file[off : off+n], int64(off)
}

// checkSignature verifies a Mach-O file's ad-hoc signature as codesign --verify does for its structure: every
// page before the signature hashes to its slot, and the executable segment is __TEXT.
func checkSignature(t *testing.T, file []byte) *codeDirectory {
	t.Helper()
	sig, off := signatureOf(t, file)
	cd, err := parseSignature(sig)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := macho.NewFile(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	text := mf.Segment("__TEXT")
	switch {
	case cd.version != csVersion || cd.flags != csFlagsAdhoc|csFlagsLinkerSigned || cd.nSpecial != 0:
		t.Errorf("version %#x flags %#x special slots %d", cd.version, cd.flags, cd.nSpecial)
	case int64(cd.codeLimit) != off || cd.pageShift != csPageShift || cd.hashType != csHashSHA256 || cd.hashSize != 32:
		t.Errorf("code limit %d (signature at %d), page shift %d, hash type %d size %d", cd.codeLimit, off,
			cd.pageShift, cd.hashType, cd.hashSize)
	case cd.execBase != text.Offset || cd.execLimit != text.Filesz || cd.execFlags != csExecSegMain:
		t.Errorf("executable segment %d+%d flags %d, __TEXT is %d+%d", cd.execBase, cd.execLimit, cd.execFlags,
			text.Offset, text.Filesz)
	}
	if want := (off + csPage - 1) / csPage; int64(len(cd.hashes)) != want {
		t.Fatalf("%d page hashes, want %d", len(cd.hashes), want)
	}
	for i, h := range cd.hashes {
		page := file[int64(i)*csPage : min(int64(i+1)*csPage, off)]
		if sum := sha256.Sum256(page); !bytes.Equal(h, sum[:]) {
			t.Fatalf("page %d: hash does not match its bytes", i)
		}
	}
	return cd
}

// TestSignatureMatchesGoLinker signs a Go-built darwin/arm64 executable again and gets the Go linker's own
// signature, byte for byte: an independent writer of the same format agrees.
func TestSignatureMatchesGoLinker(t *testing.T) {
	file, err := os.ReadFile(hello(t, "darwin/arm64"))
	if err != nil {
		t.Fatal(err)
	}
	cd := checkSignature(t, file)
	sig, off := signatureOf(t, file)
	mf, _ := macho.NewFile(bytes.NewReader(file))
	text := mf.Segment("__TEXT")
	var b bytes.Buffer
	if err := writeSignature(&b, bytes.NewReader(file), off, cd.id, int64(text.Offset), int64(text.Filesz), true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), sig) {
		t.Fatalf("signature of %d bytes differs from the Go linker's %d", b.Len(), len(sig))
	}
	if int64(len(sig)) != signatureSize(off, cd.id) {
		t.Errorf("signatureSize %d, the Go linker's is %d", signatureSize(off, cd.id), len(sig))
	}
}

// TestMachOBundle checks the structure of darwin bundles: the __FORMA segment sits before __LINKEDIT and holds the
// model, every load command still points at the same bytes, and (arm64) the new signature covers it all.
func TestMachOBundle(t *testing.T) {
	model := testModel(t, 200_000)
	for _, c := range []struct{ target, ldflags string }{
		{"darwin/arm64", ""}, {"darwin/arm64", "-s -w"}, {"darwin/amd64", ""},
	} {
		t.Run(strings.ReplaceAll(c.target+c.ldflags, "/", "-"), func(t *testing.T) {
			exe := hello(t, c.target, strings.Fields(c.ldflags)...)
			out := filepath.Join(t.TempDir(), "chat")
			p, _, err := Write(Options{Exe: exe, Model: model, Out: out})
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(exe)
			file, _ := os.ReadFile(out)
			mo, err := macho.NewFile(bytes.NewReader(orig))
			if err != nil {
				t.Fatal(err)
			}
			mb, err := macho.NewFile(bytes.NewReader(file)) // reads the symbol tables at their moved offsets
			if err != nil {
				t.Fatal(err)
			}
			checkSegments(t, mo, mb, p, int64(len(file)))
			if !reflect.DeepEqual(mo.Symtab.Syms, mb.Symtab.Syms) || !reflect.DeepEqual(mo.Dysymtab.IndirectSyms, mb.Dysymtab.IndirectSyms) {
				t.Errorf("symbol tables differ after the move")
			}
			checkMovedData(t, orig, file, mo, mb)
			hdrEnd := machoHeaderSize + int(mb.Cmdsz)
			lo := mo.Segment("__LINKEDIT").Offset
			if !bytes.Equal(orig[hdrEnd:lo], file[hdrEnd:lo]) {
				t.Errorf("bytes between the load commands and __LINKEDIT changed")
			}
			if _, _, signed := mustHeader(t, orig).codeSignature(); signed {
				cd := checkSignature(t, file)
				if cd.id != "chat" {
					t.Errorf("identifier %q, want the bundle's name", cd.id)
				}
			} else if _, _, ok := mustHeader(t, file).codeSignature(); ok {
				t.Errorf("an unsigned executable's bundle got a signature")
			}
		})
	}
}

func mustHeader(t *testing.T, file []byte) *machoHeader {
	t.Helper()
	h, err := readMachOHeader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkSegments checks the bundle's segments: the original ones, then __FORMA, then __LINKEDIT to the file's end,
// in file order without overlap.
func checkSegments(t *testing.T, mo, mb *macho.File, p *Payload, size int64) {
	t.Helper()
	var names []string
	var prevEnd uint64
	for _, l := range mb.Loads {
		s, ok := l.(*macho.Segment)
		if !ok {
			continue
		}
		names = append(names, s.Name)
		if s.Filesz > 0 {
			if s.Offset < prevEnd {
				t.Errorf("segment %s at %d overlaps the one before (ending at %d)", s.Name, s.Offset, prevEnd)
			}
			prevEnd = s.Offset + s.Filesz
		}
	}
	var want []string
	for _, l := range mo.Loads {
		if s, ok := l.(*macho.Segment); ok {
			if s.Name == "__LINKEDIT" {
				want = append(want, payloadSegment)
			}
			want = append(want, s.Name)
		}
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("segments %v, want %v", names, want)
	}
	f, le := mb.Segment(payloadSegment), mb.Segment("__LINKEDIT")
	page := (&machoHeader{cpu: uint32(mb.Cpu)}).page()
	switch {
	case f.Memsz != 0 || f.Prot != 0 || f.Maxprot != 0 || f.Flag != sgNoReloc:
		t.Errorf("__FORMA: vmsize %d prot %d/%d flags %#x; want an unmapped segment", f.Memsz, f.Maxprot, f.Prot, f.Flag)
	case f.Offset != mo.Segment("__LINKEDIT").Offset || int64(f.Offset+f.Filesz) != p.Offset+p.Size+TrailerSize:
		t.Errorf("__FORMA spans %d+%d; the model is %d+%d", f.Offset, f.Filesz, p.Offset, p.Size)
	case le.Offset%page != 0 || le.Offset < f.Offset+f.Filesz || int64(le.Offset+le.Filesz) != size:
		t.Errorf("__LINKEDIT %d+%d in a file of %d", le.Offset, le.Filesz, size)
	case le.Addr != mo.Segment("__LINKEDIT").Addr:
		t.Errorf("__LINKEDIT moved in memory")
	}
}

// checkMovedData checks that each load command's data in __LINKEDIT (dyld info, function starts, ...) holds
// the same bytes at its new offset.
func checkMovedData(t *testing.T, orig, file []byte, mo, mb *macho.File) {
	t.Helper()
	le := binary.LittleEndian
	ranges := func(f *macho.File) map[uint32][][2]uint32 {
		m := map[uint32][][2]uint32{}
		for _, l := range f.Loads {
			raw := l.Raw()
			switch cmd := le.Uint32(raw); {
			case cmd == lcDyldInfo || cmd == lcDyldInfoOnly:
				for a := 8; a < 48; a += 8 {
					m[cmd] = append(m[cmd], [2]uint32{le.Uint32(raw[a:]), le.Uint32(raw[a+4:])})
				}
			case linkeditData[cmd] != "" && cmd != lcCodeSignature:
				m[cmd] = append(m[cmd], [2]uint32{le.Uint32(raw[8:]), le.Uint32(raw[12:])})
			}
		}
		return m
	}
	ro, rb := ranges(mo), ranges(mb)
	if len(ro) == 0 || len(ro) != len(rb) {
		t.Fatalf("linkedit data commands: %v before, %v after", ro, rb)
	}
	for cmd, rs := range ro {
		for i, r := range rs {
			n := rb[cmd][i]
			if r[1] != n[1] || !bytes.Equal(orig[r[0]:r[0]+r[1]], file[n[0]:n[0]+n[1]]) {
				t.Errorf("command %#x range %d: %d bytes at %d became %d at %d, or their bytes differ", cmd, i, r[1], r[0], n[1], n[0])
			}
		}
	}
}
