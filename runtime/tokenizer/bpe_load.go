package tokenizer

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/gguf"
)

// resolved is one merge with its texts looked up: left and right tokens, and the token of their concatenation
// (None when it is not a token).
type resolved struct{ l, r, result int32 }

// parallelMin is the list length from which load-time work is spread over the CPUs.
const parallelMin = 1 << 13

func newBPETable(f *gguf.File, t *Tokenizer) (*bpeTable, error) {
	list, err := f.StringArray(KeyMerges)
	if err != nil {
		if gguf.IsNotFound(err) {
			return nil, fmt.Errorf("BPE vocabulary without merges (%s is missing)", KeyMerges)
		}
		return nil, err
	}
	res, err := t.resolveMerges(list)
	if err != nil {
		return nil, err
	}
	b := &bpeTable{n: int32(t.vocab.len()), merges: newMergeTable(len(res))}
	for i, m := range res {
		slot := b.merges.add(m.l, m.r)
		if slot == nil {
			continue // the first rank wins, as with llama.cpp's map emplace
		}
		if m.result == None {
			m.result = b.intern(t.vocab.text(m.l) + t.vocab.text(m.r))
		}
		*slot = merge{rank: int32(i), result: m.result}
	}
	t.bpe = b
	for c := range 256 {
		ch := string(byteToRune[c])
		b.byteLen[c] = int32(len(ch))
		b.bytePiece[c] = t.piece(ch)
	}
	return b, nil
}

// intern returns the piece id of a merge result that is not a token.
func (b *bpeTable) intern(s string) int32 {
	if p, ok := b.extra[s]; ok {
		return p
	}
	if b.extra == nil {
		b.extra = map[string]int32{}
	}
	p := b.n + int32(len(b.extra))
	b.extra[s] = p
	return p
}

// resolveMerges looks up the texts of every merge, in parallel for a long list; the error is that of the first
// bad merge.
func (t *Tokenizer) resolveMerges(list gguf.StringArray) ([]resolved, error) {
	res := make([]resolved, list.Len())
	workers := 1
	if list.Len() >= parallelMin {
		workers = runtime.GOMAXPROCS(0)
	}
	parts := list.Split(workers)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	base := 0
	for k, part := range parts {
		lo := base
		wg.Go(func() { errs[k] = t.resolvePart(part, res[lo:lo+part.Len()], lo) })
		base += part.Len()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// resolvePart resolves the merges of one part into out; base is the index of its first merge in the list.
func (t *Tokenizer) resolvePart(part gguf.StringArray, out []resolved, base int) error {
	b := mergeBatch{t: t, next: None}
	first := 0 // index in out of the batch's first merge
	for j, m := range part.All() {
		// llama.cpp splits at the first space after the first byte
		sp := bytes.IndexByte(m[min(1, len(m)):], ' ')
		if sp < 0 {
			if err := b.resolve(out[first:], base+first); err != nil {
				return err
			}
			return fmt.Errorf("merge %d (%q) is not two tokens separated by a space", base+j, m)
		}
		b.lines[b.n], b.split[b.n] = m, sp+min(1, len(m))
		if b.n++; b.n == len(b.lines) {
			if err := b.resolve(out[first:], base+first); err != nil {
				return err
			}
			first = j + 1
		}
	}
	return b.resolve(out[first:], base+first)
}

// mergeBatch resolves merges a batch at a time, their texts looked up together (texts.ids). Most vocabularies
// list merges in the order of the ids of their results, so the id after the last result is tried first, a
// comparison of texts in order instead of a lookup.
type mergeBatch struct {
	t      *Tokenizer
	lines  [mergeBatchLen][]byte
	split  [mergeBatchLen]int
	result [mergeBatchLen]int32 // the guessed result, or None to look it up
	keys   [3 * mergeBatchLen]string
	ids    [3 * mergeBatchLen]int32
	cat    []byte
	n      int   // merges in the batch
	next   int32 // the guess for the next result
}

const mergeBatchLen = 32

// resolve resolves the batch into out; base is the index of its first merge in the list.
func (b *mergeBatch) resolve(out []resolved, base int) error {
	v := &b.t.vocab
	b.cat = b.cat[:0]
	for k, m := range b.lines[:b.n] {
		left, right := m[:b.split[k]], m[b.split[k]+1:]
		b.result[k] = None
		if g := b.next; g >= 0 && int(g) < v.len() && !v.shadowed[g] && isConcat(v.text(g), left, right) {
			b.result[k], b.next = g, g+1
			continue
		}
		b.cat = append(append(b.cat, left...), right...)
	}
	cat, keys := view(b.cat), b.keys[:0] // b.cat stays put until the next call
	for k, m := range b.lines[:b.n] {
		keys = append(keys, view(m[:b.split[k]]), view(m[b.split[k]+1:]))
		if b.result[k] == None {
			keys = append(keys, cat[:len(m)-1])
			cat = cat[len(m)-1:]
		}
	}
	v.ids(keys, b.ids[:len(keys)])
	i := 0
	for k, m := range b.lines[:b.n] {
		for side := range 2 {
			if b.ids[i+side] == None {
				return fmt.Errorf("merge %d (%q) names %q, which is not a token", base+k, m, keys[i+side])
			}
		}
		r := resolved{l: b.ids[i], r: b.ids[i+1], result: b.result[k]}
		if i += 2; r.result == None {
			r.result = b.ids[i]
			i++
		}
		out[k] = r
	}
	if b.n > 0 && out[b.n-1].result >= 0 {
		b.next = out[b.n-1].result + 1
	}
	b.n = 0
	return nil
}

// view returns the bytes of b as a string without copying them; b must not change while the string is in use.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// isConcat reports whether s is left followed by right.
func isConcat(s string, left, right []byte) bool {
	return len(s) == len(left)+len(right) && s[:len(left)] == string(left) && s[len(left):] == string(right)
}
