package hub

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/forma-llm/forma/gguf/quant"
)

// DefaultQuant is the quant pulled when a Hub reference names none (as llama.cpp's -hf and Ollama's hf.co/).
const DefaultQuant = "Q4_K_M"

// fileTypes names llama.cpp's general.file_type values (enum llama_ftype) as quant tags are spelled in file
// names, for `forma list` on a file whose name says nothing.
var fileTypes = map[int64]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
	12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
	19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
	26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
	37: "TQ2_0", 38: "MXFP4_MOE",
}

// mixSuffixes are the endings llama.cpp gives its mixes of one block type (Q4_K_M: mostly Q4_K), with how far
// each sits above the plain type in bits per weight, roughly: enough to order them.
var mixSuffixes = []struct {
	suffix string
	extra  float64
}{{"_XXS", -0.2}, {"_XS", -0.1}, {"_S", 0}, {"_M", 0.25}, {"_L", 0.5}, {"_XL", 0.75}, {"_MOE", 0}}

// quantBits estimates a quant tag's bits per weight from the block format it is made of (gguf/quant's table),
// for choosing the nearest quant; a tag of no known type falls back to its first number, as llama.cpp does.
// It returns NaN for a tag with neither.
func quantBits(tag string) float64 {
	tag = strings.ToUpper(tag)
	tag = strings.TrimPrefix(tag, "UD-")
	bits := func(name string) (float64, bool) {
		t, err := quant.ParseType(name)
		if err != nil || t.BlockElems() == 0 {
			return 0, false
		}
		return float64(t.BlockBytes()*8) / float64(t.BlockElems()), true
	}
	if b, ok := bits(tag); ok {
		return b
	}
	for _, m := range mixSuffixes {
		if stem, ok := strings.CutSuffix(tag, m.suffix); ok {
			if b, ok := bits(stem); ok {
				return b + m.extra
			}
		}
	}
	if i := strings.IndexAny(tag, "0123456789"); i >= 0 {
		j := i
		for j < len(tag) && tag[j] >= '0' && tag[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(tag[i:j])
		return float64(n)
	}
	return math.NaN()
}

var (
	splitName = regexp.MustCompile(`(?i)^(.+)-(\d{5})-of-(\d{5})\.gguf$`)
	tagName   = regexp.MustCompile(`(?i)[-.]([a-z0-9_]+)$`)
	quantLike = regexp.MustCompile(`^(I?Q[1-8]|TQ[12]|BF16|F16|F32|MXFP4)`)
)

// sideFile reports GGUF files that are not a model to run: vision projectors, importance matrices, draft heads.
func sideFile(p string) bool {
	b := strings.ToLower(path.Base(p))
	for _, w := range []string{"mmproj", "imatrix", "mtp-", "eagle3-", "dflash-"} {
		if strings.Contains(b, w) {
			return true
		}
	}
	return false
}

// candidate is one model in a repository: a GGUF file, or every part of a split one.
type candidate struct {
	Parts []string // paths in the repository, in order
	Tag   string   // the quant its name ends with, upper case ("" when it names none)
}

// candidates groups a repository's GGUF files into models, sorted by path. Parts of a split model missing from
// the listing make it no candidate (it could not be loaded).
func candidates(paths []string) []candidate {
	type split struct {
		count int
		parts map[int]string
	}
	splits := map[string]*split{}
	var out []candidate
	for _, p := range paths {
		if !strings.EqualFold(path.Ext(p), ".gguf") || sideFile(p) {
			continue
		}
		m := splitName.FindStringSubmatch(p)
		if m == nil {
			out = append(out, candidate{Parts: []string{p}, Tag: quantTag(strings.TrimSuffix(p, path.Ext(p)))})
			continue
		}
		i, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		key := m[1] + "/" + m[3]
		s := splits[key]
		if s == nil {
			s = &split{count: n, parts: map[int]string{}}
			splits[key] = s
		}
		s.parts[i] = p
	}
	for key, s := range splits {
		c := candidate{Tag: quantTag(key[:strings.LastIndexByte(key, '/')])}
		for i := 1; i <= s.count; i++ {
			if s.parts[i] == "" {
				c.Parts = nil
				break
			}
			c.Parts = append(c.Parts, s.parts[i])
		}
		if c.Parts != nil {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Parts[0] < out[j].Parts[0] })
	return out
}

// quantTag returns the quant a file stem ends with ("model-Q4_K_M" → "Q4_K_M"), or "" when the ending is not
// one (a stem that ends in a size such as "7B" names no quant).
func quantTag(stem string) string {
	m := tagName.FindStringSubmatch(path.Base(stem))
	if m == nil {
		return ""
	}
	if t := strings.ToUpper(m[1]); quantLike.MatchString(t) {
		return t
	}
	return ""
}

// matches reports whether c is the quant tag asked for: its own tag, or the tag between separators in its
// path (so "UD-Q4_K_XL" finds "model-UD-Q4_K_XL.gguf" and a folder "Q4_K_M/" finds the parts inside).
func (c candidate) matches(tag string) bool {
	if strings.EqualFold(c.Tag, tag) {
		return true
	}
	p, t := strings.ToUpper(c.Parts[0]), strings.ToUpper(tag)
	for _, pre := range []string{"-", ".", "/", "_"} {
		for _, post := range []string{".", "-", "/"} {
			if strings.Contains(p, pre+t+post) || strings.HasPrefix(p, t+post) {
				return true
			}
		}
	}
	return false
}

// chooseModel picks the model for tag from a repository's file paths: the one whose name carries the tag; with
// no tag, DefaultQuant, else the quant nearest to it in bits per weight (ties to the larger), else the first.
// Several files of one tag go to the shallowest path, then the first in order. No fit is an error that lists
// what the repository has.
func chooseModel(repo string, paths []string, tag string) (candidate, error) {
	cs := candidates(paths)
	if len(cs) == 0 {
		return candidate{}, fmt.Errorf("%s has no GGUF model file", repo)
	}
	want := tag
	if want == "" {
		want = DefaultQuant
	}
	var hits []candidate
	for _, c := range cs {
		if c.matches(want) {
			hits = append(hits, c)
		}
	}
	if len(hits) > 0 {
		sort.SliceStable(hits, func(i, j int) bool {
			return strings.Count(hits[i].Parts[0], "/") < strings.Count(hits[j].Parts[0], "/")
		})
		return hits[0], nil
	}
	if tag != "" {
		return candidate{}, fmt.Errorf("%s has no GGUF file for quant %s; it has: %s", repo, tag, available(cs))
	}
	target, best, bestDist := quantBits(DefaultQuant), cs[0], math.Inf(1)
	for _, c := range cs {
		b := quantBits(c.Tag)
		if c.Tag == "" || math.IsNaN(b) {
			continue
		}
		d := math.Abs(b - target)
		if d < bestDist || d == bestDist && b > quantBits(best.Tag) {
			best, bestDist = c, d
		}
	}
	return best, nil
}

// available lists the quants (or, for files that name none, the file names) of a repository's models.
func available(cs []candidate) string {
	seen := map[string]bool{}
	var names []string
	for _, c := range cs {
		n := c.Tag
		if n == "" {
			n = c.Parts[0]
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// chooseMMProj picks the vision projector for a model: a GGUF named mmproj in the model's folder (or above),
// the deepest such folder first, then the one nearest the model's quant in bits.
func chooseMMProj(paths []string, model candidate) (string, bool) {
	dir := path.Dir(model.Parts[0])
	target := quantBits(model.Tag)
	best, bestDepth, bestDist := "", -1, math.Inf(1)
	for _, p := range paths {
		if !strings.EqualFold(path.Ext(p), ".gguf") || !strings.Contains(strings.ToLower(path.Base(p)), "mmproj") {
			continue
		}
		pd := path.Dir(p)
		if pd != "." && pd != dir && !strings.HasPrefix(dir, pd+"/") {
			continue
		}
		depth := 0
		if pd != "." {
			depth = strings.Count(pd, "/") + 1
		}
		d := math.Abs(quantBits(quantTag(strings.TrimSuffix(p, path.Ext(p)))) - target)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if depth > bestDepth || depth == bestDepth && d < bestDist {
			best, bestDepth, bestDist = p, depth, d
		}
	}
	return best, best != ""
}
