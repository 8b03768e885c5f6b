package grammar

import (
	"bytes"
	"slices"
	"sync"

	"github.com/forma-llm/forma/runtime/tokenizer"
)

// Vocab is the token side of a constraint: the bytes each token writes, arranged in a trie, which tokens are
// text (the others, control tokens above all, match only where a grammar names them), and which end
// generation. It is built once per vocabulary, is read-only, and is safe for concurrent use.
type Vocab struct {
	n      int
	pieces [][]byte // the bytes of each text token; nil for tokens that are not text
	eog    []int32  // sorted
	lookup func(string) (int32, bool)
	avail  [256]bool // bytes that some token writes on its own
	maxLen int

	nodes  []trieNode // the trie of text tokens, in preorder
	sorted []int32    // text token ids in byte order
	lcp    []uint16   // lcp[k]: length of the common prefix of sorted[k-1] and sorted[k]

	mu    sync.Mutex
	cache []cached // compiled grammars, most recent last
}

// trieNode is one byte of the token trie. Its subtree ends before node end, and the tokens under it are
// sorted[pos:] up to the pos of node end; the first toks of them end here.
type trieNode struct {
	b     byte
	depth uint16 // 1 for a token's first byte
	toks  uint16
	pos   int32
	end   int32
}

type cached struct {
	key string
	c   *Compiled
}

// maxTokenBytes bounds the length of a text token (longer ones are left out of the trie).
const maxTokenBytes = 1024

// NewVocab builds a vocabulary of n tokens: pieces[id] are the bytes token id writes as text, or nil for a
// token that is not text; eog are the end-of-generation ids; lookup finds a token by its exact text (for
// <text> in GBNF; nil to refuse such references).
func NewVocab(pieces [][]byte, eog []int32, lookup func(string) (int32, bool)) *Vocab {
	v := &Vocab{n: len(pieces), pieces: make([][]byte, len(pieces)), lookup: lookup}
	if v.lookup == nil {
		v.lookup = func(string) (int32, bool) { return 0, false }
	}
	v.eog = slices.Clone(eog)
	slices.Sort(v.eog)
	for id, p := range pieces {
		if len(p) == 0 || len(p) > maxTokenBytes || v.isEOG(int32(id)) {
			continue
		}
		v.pieces[id] = p
		v.sorted = append(v.sorted, int32(id))
		if len(p) == 1 {
			v.avail[p[0]] = true
		}
		v.maxLen = max(v.maxLen, len(p))
	}
	slices.SortStableFunc(v.sorted, func(a, b int32) int { return bytes.Compare(v.pieces[a], v.pieces[b]) })
	v.buildTrie()
	return v
}

// FromTokenizer builds the vocabulary of a tokenizer: normal, byte and user-defined tokens are text (their
// pieces as the generation loop decodes them); control, unknown and unused tokens are not.
func FromTokenizer(tk *tokenizer.Tokenizer) *Vocab {
	pieces := make([][]byte, tk.Len())
	var buf []byte
	for id := range pieces {
		if tk.Attr(int32(id))&(tokenizer.AttrControl|tokenizer.AttrUnknown|tokenizer.AttrUnused) != 0 {
			continue
		}
		start := len(buf)
		buf = tk.AppendPiece(buf, int32(id), tokenizer.PieceOptions{})
		pieces[id] = buf[start:len(buf):len(buf)]
	}
	return NewVocab(pieces, tk.EOG(), tk.ID)
}

func (v *Vocab) buildTrie() {
	var path []int32 // node index at each depth-1
	closeTo := func(d int) {
		for len(path) > d {
			v.nodes[path[len(path)-1]].end = int32(len(v.nodes))
			path = path[:len(path)-1]
		}
	}
	v.lcp = make([]uint16, len(v.sorted))
	var prev []byte
	for k, id := range v.sorted {
		p := v.pieces[id]
		l := 0
		for l < len(p) && l < len(prev) && p[l] == prev[l] {
			l++
		}
		v.lcp[k] = uint16(l)
		prev = p
		if l == len(p) { // the same bytes as the previous token
			v.nodes[path[len(path)-1]].toks++
			continue
		}
		closeTo(l)
		for d := l; d < len(p); d++ {
			path = append(path, int32(len(v.nodes)))
			v.nodes = append(v.nodes, trieNode{b: p[d], depth: uint16(d + 1), pos: int32(k)})
		}
		v.nodes[len(v.nodes)-1].toks = 1
	}
	closeTo(0)
}

// Len returns the number of token ids.
func (v *Vocab) Len() int { return v.n }

func (v *Vocab) isText(id int32) bool { return id >= 0 && int(id) < v.n && v.pieces[id] != nil }

func (v *Vocab) isEOG(id int32) bool {
	_, ok := slices.BinarySearch(v.eog, id)
	return ok
}

// subtreeEnd returns the sorted position after the tokens under node i.
func (v *Vocab) subtreeEnd(i int32) int32 {
	if e := v.nodes[i].end; int(e) < len(v.nodes) {
		return v.nodes[e].pos
	}
	return int32(len(v.sorted))
}

// Compile compiles g for this vocabulary, reusing a recent compilation of the same grammar (with its caches
// of masks) when there is one.
func (v *Vocab) Compile(g *Grammar) (*Compiled, error) {
	key := g.String()
	v.mu.Lock()
	for i, c := range v.cache {
		if c.key == key {
			v.cache = append(append(v.cache[:i:i], v.cache[i+1:]...), c)
			v.mu.Unlock()
			return c.c, nil
		}
	}
	v.mu.Unlock()
	c, err := Compile(g, v)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, x := range v.cache {
		if x.key == key {
			return x.c, nil // compiled meanwhile by another generation: share its caches
		}
	}
	if len(v.cache) == cacheSize {
		v.cache = append(v.cache[:0], v.cache[1:]...)
	}
	v.cache = append(v.cache, cached{key, c})
	return c, nil
}

// cacheSize is how many compiled grammars a Vocab keeps.
const cacheSize = 16

// ByteVocab returns a vocabulary of 256 tokens, token i being the byte i, and no end-of-generation token: a
// Matcher over it recognizes byte strings (see Match).
func ByteVocab() *Vocab {
	pieces := make([][]byte, 256)
	for i := range pieces {
		pieces[i] = []byte{byte(i)}
	}
	return NewVocab(pieces, nil, nil)
}

// Match reports whether s is a whole sentence of g.
func Match(g *Grammar, s string) (bool, error) {
	c, err := Compile(g, byteVocab)
	if err != nil {
		return false, err
	}
	m := c.NewMatcher()
	return m.AcceptBytes([]byte(s)) && m.Complete(), nil
}

var byteVocab = ByteVocab()
