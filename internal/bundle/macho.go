package bundle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Mach-O facts (mach-o/loader.h). Only the 64-bit little-endian form is handled.
const (
	machoHeaderSize = 32
	machoExecute    = 2 // MH_EXECUTE
	cpuAMD64        = 0x01000007
	cpuARM64        = 0x0100000c
	segCmdSize      = 72 // segment_command_64 without sections
	sectSize        = 80 // section_64

	lcSegment64     = 0x19
	lcSymtab        = 0x02
	lcDysymtab      = 0x0b
	lcCodeSignature = 0x1d
	lcDyldInfo      = 0x22
	lcDyldInfoOnly  = 0x80000022
	sgNoReloc       = 0x4 // SG_NORELOC: with a zero VM size, a segment the loader does not map
)

// Load commands whose payload is a linkedit_data_command {cmd, cmdsize, dataoff, datasize}: data in __LINKEDIT.
var linkeditData = map[uint32]string{
	lcCodeSignature: "LC_CODE_SIGNATURE", 0x1e: "LC_SEGMENT_SPLIT_INFO", 0x26: "LC_FUNCTION_STARTS",
	0x29: "LC_DATA_IN_CODE", 0x2b: "LC_DYLIB_CODE_SIGN_DRS", 0x2e: "LC_LINKER_OPTIMIZATION_HINT",
	0x36: "LC_ATOM_INFO", 0x80000033: "LC_DYLD_EXPORTS_TRIE", 0x80000034: "LC_DYLD_CHAINED_FIXUPS",
}

// Load commands that hold no file offsets: moving __LINKEDIT leaves them as they are.
var noFileOffsets = map[uint32]string{
	0x05: "LC_UNIXTHREAD", 0x0c: "LC_LOAD_DYLIB", 0x0e: "LC_LOAD_DYLINKER", 0x1b: "LC_UUID",
	0x24: "LC_VERSION_MIN_MACOSX", 0x27: "LC_DYLD_ENVIRONMENT", 0x2a: "LC_SOURCE_VERSION", 0x32: "LC_BUILD_VERSION",
	0x80000018: "LC_LOAD_WEAK_DYLIB", 0x8000001c: "LC_RPATH", 0x8000001f: "LC_REEXPORT_DYLIB", 0x80000028: "LC_MAIN",
}

// machoHeader is a Mach-O header and its load commands, raw.
type machoHeader struct {
	cpu, filetype uint32
	flags         uint32
	cmds          [][]byte
	sizeofcmds    uint32
	raw           [machoHeaderSize]byte
}

// page returns the executable's page size, to which segments are aligned: 16 KiB on arm64, 4 KiB on amd64.
func (h *machoHeader) page() uint64 {
	if h.cpu == cpuARM64 {
		return 0x4000
	}
	return 0x1000
}

// segment is the part of a segment_command_64 this package reads and writes.
type segment struct {
	name                              string
	vmaddr, vmsize, fileoff, filesize uint64
	nsects                            uint32
}

func readMachOHeader(r io.ReaderAt) (*machoHeader, error) {
	h := &machoHeader{}
	if _, err := r.ReadAt(h.raw[:], 0); err != nil {
		return nil, fmt.Errorf("reading the Mach-O header: %w", err)
	}
	le := binary.LittleEndian
	h.cpu, h.filetype = le.Uint32(h.raw[4:]), le.Uint32(h.raw[12:])
	ncmds := le.Uint32(h.raw[16:])
	h.sizeofcmds, h.flags = le.Uint32(h.raw[20:]), le.Uint32(h.raw[24:])
	if h.sizeofcmds > 1<<24 || ncmds > h.sizeofcmds/8 {
		return nil, fmt.Errorf("Mach-O header: %d load commands in %d bytes", ncmds, h.sizeofcmds)
	}
	buf := make([]byte, h.sizeofcmds)
	if _, err := r.ReadAt(buf, machoHeaderSize); err != nil {
		return nil, fmt.Errorf("reading the Mach-O load commands: %w", err)
	}
	for i := uint32(0); i < ncmds; i++ {
		if len(buf) < 8 {
			return nil, fmt.Errorf("Mach-O load command %d runs past the commands' %d bytes", i, h.sizeofcmds)
		}
		n := le.Uint32(buf[4:])
		if n < 8 || n%8 != 0 || uint64(n) > uint64(len(buf)) {
			return nil, fmt.Errorf("Mach-O load command %d: bad size %d", i, n)
		}
		cmd := buf[:n:n]
		if le.Uint32(cmd) == lcSegment64 && (n < segCmdSize || uint64(n) < segCmdSize+uint64(le.Uint32(cmd[64:]))*sectSize) {
			return nil, fmt.Errorf("Mach-O load command %d: segment command of %d bytes", i, n)
		}
		h.cmds, buf = append(h.cmds, cmd), buf[n:]
	}
	return h, nil
}

func cmdType(c []byte) uint32 { return binary.LittleEndian.Uint32(c) }

func parseSegment(c []byte) segment {
	le := binary.LittleEndian
	return segment{name: string(bytes.TrimRight(c[8:24], "\x00")), vmaddr: le.Uint64(c[24:]), vmsize: le.Uint64(c[32:]),
		fileoff: le.Uint64(c[40:]), filesize: le.Uint64(c[48:]), nsects: le.Uint32(c[64:])}
}

// segments returns the segments in command order, with their command's index.
func (h *machoHeader) segments() (segs []segment, idx []int) {
	for i, c := range h.cmds {
		if cmdType(c) == lcSegment64 {
			segs, idx = append(segs, parseSegment(c)), append(idx, i)
		}
	}
	return segs, idx
}

// codeSignature returns the LC_CODE_SIGNATURE data's offset and size (ok false when unsigned).
func (h *machoHeader) codeSignature() (off, size uint32, ok bool) {
	for _, c := range h.cmds {
		if cmdType(c) == lcCodeSignature && len(c) >= 16 {
			return binary.LittleEndian.Uint32(c[8:]), binary.LittleEndian.Uint32(c[12:]), true
		}
	}
	return 0, 0, false
}

// machoRegion returns the __FORMA segment of a Mach-O file, or no region when it has none; a segment or the
// signature running past the end of the file means the file was cut short.
func machoRegion(f *os.File, size int64) (region, error) {
	h, err := readMachOHeader(f)
	if err != nil {
		return region{}, err
	}
	segs, _ := h.segments()
	r := region{}
	for _, s := range segs {
		if s.fileoff+s.filesize > uint64(size) {
			return region{truncated: fmt.Sprintf("segment %s needs bytes up to %d, the file has %d", s.name,
				s.fileoff+s.filesize, size)}, nil
		}
		if s.name == payloadSegment {
			r = region{start: int64(s.fileoff), end: int64(s.fileoff + s.filesize), present: true}
		}
	}
	if off, n, ok := h.codeSignature(); ok && int64(off)+int64(n) > size {
		return region{truncated: fmt.Sprintf("the code signature needs bytes up to %d, the file has %d",
			int64(off)+int64(n), size)}, nil
	}
	return r, nil
}

// payloadSegment names the segment that carries the model in a Mach-O bundle.
const payloadSegment = "__FORMA"

// machoPlan is how a Mach-O executable becomes a bundle.
type machoPlan struct {
	h                *machoHeader
	linkedit         segment
	linkIdx          int   // the __LINKEDIT command
	modelOff         int64 // the GGUF, aligned to Align
	segEnd           int64 // end of the __FORMA segment (its trailer's end)
	newLinkOff       int64
	sigOff, sigSize  int64 // old signature (0, 0 if unsigned)
	newSigSize       int64
	textOff, textLen int64
	id               string
}

// planMachO checks that the executable can take a __FORMA segment before __LINKEDIT and lays it out.
func planMachO(exe *os.File, exeSize, modelSize int64, id string) (*machoPlan, error) {
	h, err := readMachOHeader(exe)
	if err != nil {
		return nil, err
	}
	p := &machoPlan{h: h, id: id}
	segs, idx := h.segments()
	if len(segs) == 0 || segs[len(segs)-1].name != "__LINKEDIT" {
		return nil, fmt.Errorf("Mach-O: __LINKEDIT is not the last segment")
	}
	p.linkedit, p.linkIdx = segs[len(segs)-1], idx[len(idx)-1]
	le, page := p.linkedit, h.page()
	if int64(le.fileoff+le.filesize) != exeSize || le.fileoff%page != 0 || le.vmaddr%page != 0 {
		return nil, fmt.Errorf("Mach-O: __LINKEDIT (%d bytes at %d) is not page-aligned at the end of the file's %d bytes",
			le.filesize, le.fileoff, exeSize)
	}
	firstSect := uint64(le.fileoff)
	for i, s := range segs[:len(segs)-1] {
		if s.name == payloadSegment {
			return nil, fmt.Errorf("Mach-O: the executable already has a %s segment", payloadSegment)
		}
		if s.fileoff+s.filesize > le.fileoff {
			return nil, fmt.Errorf("Mach-O: segment %s overlaps __LINKEDIT", s.name)
		}
		if s.name == "__TEXT" {
			p.textOff, p.textLen = int64(s.fileoff), int64(s.filesize)
		}
		c := h.cmds[idx[i]]
		for k := uint32(0); k < s.nsects; k++ {
			if off := binary.LittleEndian.Uint32(c[segCmdSize+k*sectSize+48:]); off != 0 {
				firstSect = min(firstSect, uint64(off))
			}
		}
	}
	if end := uint64(machoHeaderSize) + uint64(h.sizeofcmds) + segCmdSize; end > firstSect {
		return nil, fmt.Errorf("Mach-O: no room for one more load command (%d bytes of commands, first section at %d)",
			h.sizeofcmds, firstSect)
	}
	for _, c := range h.cmds {
		if t := cmdType(c); t != lcSegment64 && t != lcSymtab && t != lcDysymtab && t != lcDyldInfo &&
			t != lcDyldInfoOnly && linkeditData[t] == "" && noFileOffsets[t] == "" {
			return nil, fmt.Errorf("Mach-O: load command %#x is not one this package knows how to move", t)
		}
	}
	p.modelOff = alignUp(int64(le.fileoff), Align)
	p.segEnd = p.modelOff + modelSize + TrailerSize
	p.newLinkOff = alignUp(p.segEnd, int64(page))
	if off, n, ok := h.codeSignature(); ok {
		p.sigOff, p.sigSize = int64(off), int64(n)
		if p.sigOff < int64(le.fileoff) || p.sigOff+p.sigSize != exeSize {
			return nil, fmt.Errorf("Mach-O: the code signature (%d bytes at %d) does not end __LINKEDIT", n, off)
		}
		p.newSigSize = signatureSize(p.sigOff+p.shift(), id)
	}
	if end := p.newLinkOff + int64(le.filesize) - p.sigSize + p.newSigSize; end >= 1<<32 {
		return nil, fmt.Errorf("a macOS bundle must stay under 4 GiB (Mach-O's signature offsets are 32-bit); "+
			"this one would be %.1f GiB", float64(end)/(1<<30))
	}
	return p, nil
}

// shift is how far __LINKEDIT moves.
func (p *machoPlan) shift() int64 { return p.newLinkOff - int64(p.linkedit.fileoff) }

// commands returns the new load commands: __FORMA before __LINKEDIT, and every offset into __LINKEDIT moved.
func (p *machoPlan) commands() []byte {
	le := binary.LittleEndian
	d := uint32(p.shift())
	move := func(c []byte, at ...int) {
		for _, a := range at {
			if v := le.Uint32(c[a:]); v != 0 {
				le.PutUint32(c[a:], v+d)
			}
		}
	}
	var out []byte
	for i, c0 := range p.h.cmds {
		c := append([]byte(nil), c0...)
		switch t := cmdType(c); {
		case i == p.linkIdx:
			out = append(out, p.payloadCommand()...)
			size := uint64(int64(p.linkedit.filesize) - p.sigSize + p.newSigSize)
			le.PutUint64(c[32:], alignUp64(size, p.h.page()))
			le.PutUint64(c[40:], uint64(p.newLinkOff))
			le.PutUint64(c[48:], size)
		case t == lcSymtab:
			move(c, 8, 16)
		case t == lcDysymtab:
			move(c, 32, 40, 48, 56, 64, 72)
		case t == lcDyldInfo, t == lcDyldInfoOnly:
			move(c, 8, 16, 24, 32, 40)
		case t == lcCodeSignature:
			move(c, 8)
			le.PutUint32(c[12:], uint32(p.newSigSize))
		case linkeditData[t] != "":
			move(c, 8)
		}
		out = append(out, c...)
	}
	return out
}

// payloadCommand is the __FORMA segment: file bytes the loader does not map (VM size 0, no access, SG_NORELOC),
// which the code signature covers like any other.
func (p *machoPlan) payloadCommand() []byte {
	le := binary.LittleEndian
	c := make([]byte, segCmdSize)
	le.PutUint32(c, lcSegment64)
	le.PutUint32(c[4:], segCmdSize)
	copy(c[8:24], payloadSegment)
	le.PutUint64(c[24:], p.linkedit.vmaddr)
	le.PutUint64(c[40:], p.linkedit.fileoff)
	le.PutUint64(c[48:], uint64(p.segEnd)-p.linkedit.fileoff)
	le.PutUint32(c[68:], sgNoReloc)
	return c
}

// write writes the bundle: the executable with its new header, the __FORMA segment (the model and the
// trailer, from writeModel), __LINKEDIT moved after it, and a new ad-hoc signature when the executable had one.
func (p *machoPlan) write(out *os.File, exe *os.File, writeModel func(io.Writer) error) error {
	cmds := p.commands()
	hdr := p.h.raw
	binary.LittleEndian.PutUint32(hdr[16:], uint32(len(p.h.cmds)+1))
	binary.LittleEndian.PutUint32(hdr[20:], uint32(len(cmds)))
	headEnd := int64(machoHeaderSize + len(cmds))
	// The new command takes bytes that were padding before the first section; they must have been zeros.
	pad := make([]byte, segCmdSize)
	if _, err := exe.ReadAt(pad, headEnd-segCmdSize); err != nil {
		return err
	}
	if !bytes.Equal(pad, make([]byte, segCmdSize)) {
		return fmt.Errorf("Mach-O: the bytes after the load commands are not free padding")
	}
	w := &offsetWriter{w: out}
	w.Write(hdr[:])
	w.Write(cmds)
	w.copyFrom(exe, headEnd, int64(p.linkedit.fileoff)-headEnd)
	w.zeros(p.modelOff - w.n)
	if w.err == nil {
		w.err = writeModel(w)
	}
	w.zeros(p.newLinkOff - w.n)
	linkEnd := int64(p.linkedit.fileoff + p.linkedit.filesize)
	if p.sigSize > 0 {
		linkEnd = p.sigOff
	}
	w.copyFrom(exe, int64(p.linkedit.fileoff), linkEnd-int64(p.linkedit.fileoff))
	if w.err != nil || p.sigSize == 0 {
		return w.err
	}
	return writeSignature(w, io.NewSectionReader(out, 0, w.n), w.n, p.id, p.textOff, p.textLen, true)
}

// offsetWriter counts what it writes and keeps the first error.
type offsetWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (o *offsetWriter) Write(b []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(b)
	o.n += int64(n)
	o.err = err
	return n, err
}

func (o *offsetWriter) zeros(n int64) {
	if n > 0 {
		_, err := io.CopyN(o, zeroReader{}, n)
		if o.err == nil {
			o.err = err
		}
	}
}

func (o *offsetWriter) copyFrom(r io.ReaderAt, off, n int64) {
	if o.err == nil {
		_, err := io.Copy(o, io.NewSectionReader(r, off, n))
		if o.err == nil {
			o.err = err
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func alignUp(n, a int64) int64     { return (n + a - 1) / a * a }
func alignUp64(n, a uint64) uint64 { return (n + a - 1) / a * a }
