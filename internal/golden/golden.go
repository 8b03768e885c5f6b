// Package golden reads llama.cpp's reference logits (testdata/golden) and compares logits the way the project's
// acceptance criteria state: per row, the same argmax unless the reference's top two are within NearTie, and
// KL(softmax(ref) ‖ softmax(got)) under a bound.
package golden

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// NearTie is the gap between the reference's top two logits under which argmax is not compared and a greedy
// comparison ends.
const NearTie = 1e-3

// Case is one golden case: a model, a prompt and llama.cpp's outputs.
type Case struct {
	Name      string // "<model stem>.<case>"
	Model     string // path of the GGUF
	Meta      map[string]string
	Prompt    []int32
	All       bool // Logits has a row per prompt position (else only the last)
	Seq       bool // the prompt was fed one token per step
	Vocab     int
	Logits    []float32 // [rows][Vocab]
	Gen       []int32
	GenLogits []float32 // [len(Gen)][Vocab]
}

// Cases lists every case in dir/golden, sorted by name.
func Cases(dir string) ([]string, error) {
	metas, err := filepath.Glob(filepath.Join(dir, "golden", "*.meta.txt"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range metas {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".meta.txt"))
	}
	sort.Strings(names)
	return names, nil
}

// ExtraDir is the folder of further golden cases inside a testdata folder (same format, its own models).
const ExtraDir = "extra"

// Ref is a case in a testdata folder.
type Ref struct {
	Dir  string // the testdata folder (holding golden/ and models/)
	Name string // "<model stem>.<case>"
	Set  string // "" for the folder's own cases, ExtraDir for those of its extra folder
}

// Label names the case in test names and reports: Name, after "extra/" for an extra case.
func (r Ref) Label() string {
	if r.Set == "" {
		return r.Name
	}
	return r.Set + "/" + r.Name
}

// Load reads the case.
func (r Ref) Load() (*Case, error) { return Load(r.Dir, r.Name) }

// AllCases lists the cases of dir/golden and, when dir has an extra folder, those of dir/extra/golden.
func AllCases(dir string) ([]Ref, error) {
	var refs []Ref
	for _, set := range []string{"", ExtraDir} {
		d := filepath.Join(dir, set)
		if set != "" {
			if st, err := os.Stat(filepath.Join(d, "golden")); err != nil || !st.IsDir() {
				continue
			}
		}
		names, err := Cases(d)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			refs = append(refs, Ref{Dir: d, Name: n, Set: set})
		}
	}
	return refs, nil
}

// Load reads case name from dir (the testdata folder).
func Load(dir, name string) (*Case, error) {
	base := filepath.Join(dir, "golden", name)
	c := &Case{Name: name, Meta: map[string]string{}}
	meta, err := os.ReadFile(base + ".meta.txt")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(meta), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			c.Meta[k] = v
		}
	}
	c.Model = filepath.Join(dir, c.Meta["model"])
	c.All, c.Seq = c.Meta["all"] == "1", c.Meta["seq"] == "1"
	if c.Vocab, err = strconv.Atoi(c.Meta["n_vocab"]); err != nil {
		return nil, fmt.Errorf("golden %s: n_vocab: %w", name, err)
	}
	if c.Prompt, err = readIDs(base + ".ids.txt"); err != nil {
		return nil, err
	}
	if c.Gen, err = readIDs(base + ".gen.txt"); err != nil {
		return nil, err
	}
	if c.Logits, err = ReadF32(base + ".logits.f32"); err != nil {
		return nil, err
	}
	if c.GenLogits, err = ReadF32(base + ".gen_logits.f32"); err != nil {
		return nil, err
	}
	rows := 1
	if c.All {
		rows = len(c.Prompt)
	}
	if len(c.Logits) != rows*c.Vocab || len(c.GenLogits) != len(c.Gen)*c.Vocab {
		return nil, fmt.Errorf("golden %s: logits files do not match %d rows, %d steps of %d", name, rows, len(c.Gen), c.Vocab)
	}
	return c, nil
}

func readIDs(path string) ([]int32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseIDs(string(b))
}

// ParseIDs parses decimal token ids separated by spaces, commas or newlines.
func ParseIDs(s string) ([]int32, error) {
	var ids []int32
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' || r == '\r' }) {
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad token id %q", f)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

// ReadF32 reads a raw little-endian float32 file.
func ReadF32(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of float32", path, len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// Argmax returns the index of the largest value (the lowest index on ties).
func Argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TopGap returns the difference between the largest and second largest values.
func TopGap(x []float32) float64 {
	a, b := math.Inf(-1), math.Inf(-1)
	for _, v := range x {
		f := float64(v)
		if f > a {
			a, b = f, a
		} else if f > b {
			b = f
		}
	}
	return a - b
}

// KL returns KL(softmax(ref) ‖ softmax(got)).
func KL(ref, got []float32) float64 {
	lr, lg := logSoftmax(ref), logSoftmax(got)
	kl := 0.0
	for i := range lr {
		kl += math.Exp(lr[i]) * (lr[i] - lg[i])
	}
	return kl
}

func logSoftmax(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	ls := m + math.Log(s)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v) - ls
	}
	return out
}

// RowResult is the comparison of one row.
type RowResult struct {
	KL        float64
	RefArgmax int
	GotArgmax int
	NearTie   bool // the reference's top two are within the tie gap (NearTie by default): argmax not compared
	Identical bool // every logit has the reference's bits
}

// OK reports whether the row passes under the KL bound.
func (r RowResult) OK(maxKL float64) bool {
	return r.KL <= maxKL && (r.NearTie || r.RefArgmax == r.GotArgmax)
}

// CompareRow compares one row of logits.
func CompareRow(ref, got []float32) RowResult {
	same := len(ref) == len(got)
	for i := 0; same && i < len(ref); i++ {
		same = math.Float32bits(ref[i]) == math.Float32bits(got[i])
	}
	return RowResult{KL: KL(ref, got), RefArgmax: Argmax(ref), GotArgmax: Argmax(got), NearTie: TopGap(ref) < NearTie,
		Identical: same}
}
