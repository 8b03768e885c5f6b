package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/osmem"
)

// Magic begins the trailer.
const Magic = "forma bundle v1\n"

// TrailerSize is the trailer's length in bytes.
const TrailerSize = 64

// Align is the alignment of the model's offset in a bundle.
const Align = osmem.MapAlign

// ErrDamaged is wrapped by every error about a file that carries a model badly (truncated, bad trailer, wrong
// checksum).
var ErrDamaged = errors.New("damaged bundle")

// Payload is the model a bundle carries.
type Payload struct {
	Path   string // the bundle
	Offset int64  // of the GGUF in the file, a multiple of Align
	Size   int64  // of the GGUF
	Sum    [sha256.Size]byte
}

// trailer is the encoded form of p.
func (p *Payload) trailer() []byte {
	b := make([]byte, 0, TrailerSize)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Offset))
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Size))
	return append(b, p.Sum[:]...)
}

// parseTrailer decodes a trailer; ok is false when b does not begin with Magic.
func parseTrailer(path string, b []byte) (p *Payload, ok bool) {
	if len(b) != TrailerSize || !bytes.HasPrefix(b, []byte(Magic)) {
		return nil, false
	}
	p = &Payload{Path: path}
	p.Offset = int64(binary.LittleEndian.Uint64(b[16:]))
	p.Size = int64(binary.LittleEndian.Uint64(b[24:]))
	copy(p.Sum[:], b[32:])
	return p, true
}

// damaged returns an error about path that wraps ErrDamaged.
func damaged(path, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", path, ErrDamaged, fmt.Sprintf(format, args...))
}

// checkRegion checks a trailer read at trailerAt against the region it must describe: the model lies at an
// aligned offset at or after start and ends where the trailer begins.
func (p *Payload) checkRegion(start, trailerAt int64) error {
	end := p.Offset + p.Size
	switch {
	case p.Offset < start || p.Offset%Align != 0 || p.Size <= 0 || end < p.Offset:
		return damaged(p.Path, "the trailer says the model is %d bytes at offset %d, not inside the bundle's region "+
			"(from %d, aligned to %d)", p.Size, p.Offset, start, Align)
	case end == trailerAt:
		return nil
	case end > trailerAt:
		return damaged(p.Path, "the model should be %d bytes at offset %d but only %d are there: the file is truncated",
			p.Size, p.Offset, max(trailerAt-p.Offset, 0))
	default:
		return damaged(p.Path, "%d unexplained bytes lie between the model's end (%d) and the trailer (%d)",
			trailerAt-end, end, trailerAt)
	}
}

// Find returns the model the file at path carries, nil when it carries none (a plain executable, a GGUF, any
// other file), or an error wrapping ErrDamaged when it carries one badly. It reads only headers and the
// trailer; Payload.Verify checks the model's bytes.
func Find(path string) (*Payload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil
	}
	var magic [4]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil {
		return nil, nil // shorter than any executable
	}
	var r region
	switch formatOf(magic[:]) {
	case formatELF:
		r, err = elfRegion(f, st.Size())
	case formatPE:
		r, err = peRegion(f, st.Size())
	case formatMachO:
		r, err = machoRegion(f, st.Size())
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r.find(f, path)
}

// region is where an executable's trailer may be: the file's bytes past the executable image, or a Mach-O
// segment.
type region struct {
	start, end int64  // [start, end) holds the model and ends with its trailer
	present    bool   // the executable format says a region is there (a Mach-O __FORMA segment)
	truncated  string // when the format shows the file to be cut short: what is missing
}

// find reads and checks the trailer at the end of r.
func (r region) find(f *os.File, path string) (*Payload, error) {
	if r.truncated != "" {
		return nil, damaged(path, "%s: the file is truncated", r.truncated)
	}
	if !r.present && r.end == r.start {
		return nil, nil
	}
	if r.end-r.start < TrailerSize {
		return nil, damaged(path, "%d bytes follow the executable: too few for a model and its trailer, the file "+
			"is truncated", r.end-r.start)
	}
	b := make([]byte, TrailerSize)
	if _, err := f.ReadAt(b, r.end-TrailerSize); err != nil {
		return nil, fmt.Errorf("%s: reading the bundle trailer: %w", path, err)
	}
	p, ok := parseTrailer(path, b)
	if !ok {
		return nil, damaged(path, "%d bytes follow the executable but do not end with a forma bundle trailer: "+
			"the file is truncated or damaged", r.end-r.start)
	}
	if err := p.checkRegion(r.start, r.end-TrailerSize); err != nil {
		return nil, err
	}
	return p, nil
}

// Verify hashes the model's bytes and compares them with the trailer's SHA-256.
func (p *Payload) Verify() error {
	f, err := os.Open(p.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, io.NewSectionReader(f, p.Offset, p.Size), make([]byte, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: reading the model: %w", p.Path, err)
	}
	if n != p.Size {
		return damaged(p.Path, "the model should be %d bytes but %d could be read: the file is truncated", p.Size, n)
	}
	if !bytes.Equal(h.Sum(nil), p.Sum[:]) {
		return damaged(p.Path, "the model's SHA-256 does not match the trailer's: its bytes are corrupted")
	}
	return nil
}

// Open verifies the model and maps it from the bundle (gguf.OpenSection): the weights are the file's own pages.
func (p *Payload) Open() (*gguf.File, error) {
	if err := p.Verify(); err != nil {
		return nil, err
	}
	return gguf.OpenSection(p.Path, p.Offset, p.Size)
}

// OpenModel opens a model file: the model a bundle carries, or else a GGUF file (gguf.Open).
func OpenModel(path string) (*gguf.File, error) {
	p, err := Find(path)
	switch {
	case err != nil:
		return nil, err
	case p != nil:
		return p.Open()
	}
	return gguf.Open(path)
}

// Open opens the model of the bundle at path; a file that carries none is an error.
func Open(path string) (*gguf.File, error) {
	p, err := Find(path)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%s: not a forma bundle (no model inside)", path)
	}
	return p.Open()
}
