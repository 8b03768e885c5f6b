package tokenizer

import (
	"hash/maphash"
	"math/bits"
)

// texts holds the token texts flat (one string and offsets) with an open-addressing index from text to id:
// pointer-free arrays the garbage collector never walks, built in one pass, with no string per token. A slot
// holds a text's first 8 bytes, so most lookups (tokens are short) touch one cache line.
type texts struct {
	all   string   // every text, concatenated
	off   []uint32 // text i is all[off[i]:off[i+1]]
	slots []slot   // linear probing
	mask  uint64
	seed  maphash.Seed

	shadowed map[int32]bool // ids whose text a later id repeats (the index maps the text to that one)
}

// slot is one entry of the index: meta is hash tag (16 bits) << 48 | min(len, 0xFFFF) << 32 | id+1, 0 when the
// slot is empty; head is the text's first 8 bytes, little-endian, zero-padded.
type slot struct{ meta, head uint64 }

// len is the number of texts.
func (x *texts) len() int { return max(len(x.off)-1, 0) }

// text returns text id (a substring of all: no allocation).
func (x *texts) text(id int32) string { return x.all[x.off[id]:x.off[id+1]] }

// tableSize is the power-of-two slot count of an index of n entries: at most two thirds full.
func tableSize(n int) int { return 1 << bits.Len(uint(max(n+n/2, 4)-1)) }

// head8 returns the first 8 bytes of s, little-endian, zero-padded.
func head8(s string) uint64 {
	if len(s) >= 8 {
		_ = s[7]
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	}
	var h uint64
	for i := len(s) - 1; i >= 0; i-- {
		h = h<<8 | uint64(s[i])
	}
	return h
}

// probe returns the slot of s, whose hash is h: the one holding it, else the empty slot where it would go.
func (x *texts) probe(s string, h uint64) *slot {
	key := h>>48<<48 | uint64(min(len(s), 0xFFFF))<<32
	head := head8(s)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		e := &x.slots[i]
		if e.meta == 0 {
			return e
		}
		if e.meta&^0xFFFFFFFF == key && e.head == head && (len(s) <= 8 || x.text(int32(uint32(e.meta)-1)) == s) {
			return e
		}
	}
}

// index builds the text → id index; a text that occurs twice maps to its last id, as in llama.cpp.
func (x *texts) index() {
	x.seed, x.shadowed = maphash.MakeSeed(), nil
	x.slots = make([]slot, tableSize(x.len()))
	x.mask = uint64(len(x.slots) - 1)
	var hs [lookupBatch]uint64
	for lo := 0; lo < x.len(); lo += lookupBatch {
		n := min(lookupBatch, x.len()-lo)
		for i := range n {
			hs[i] = maphash.String(x.seed, x.text(int32(lo+i)))
		}
		for i, h := range hs[:n] {
			id := int32(lo + i)
			s := x.text(id)
			e := x.probe(s, h)
			if e.meta != 0 {
				if x.shadowed == nil {
					x.shadowed = map[int32]bool{}
				}
				x.shadowed[int32(uint32(e.meta)-1)] = true
			}
			*e = slot{meta: h>>48<<48 | uint64(min(len(s), 0xFFFF))<<32 | uint64(id+1), head: head8(s)}
		}
	}
}

// lookupBatch is how many texts index and ids hash before probing. Probing is bound by memory latency; with the
// hashing done first, the probes of a batch run in a tight loop and the processor fetches their slots together
// instead of waiting for each in turn.
const lookupBatch = 64

// ids sets out[i] to the id of keys[i], None when it is no token.
func (x *texts) ids(keys []string, out []int32) {
	var hs [lookupBatch]uint64
	for lo := 0; lo < len(keys); lo += lookupBatch {
		batch := keys[lo:min(lo+lookupBatch, len(keys))]
		for i, s := range batch {
			hs[i] = maphash.String(x.seed, s)
		}
		for i, s := range batch {
			e := x.probe(s, hs[i])
			out[lo+i] = int32(uint32(e.meta) - 1)
		}
	}
}

// id returns the id whose text is s.
func (x *texts) id(s string) (int32, bool) {
	if len(x.slots) == 0 {
		return None, false
	}
	e := x.probe(s, maphash.String(x.seed, s))
	return int32(uint32(e.meta) - 1), e.meta != 0
}

// idBytes is id for a text in a byte slice.
func (x *texts) idBytes(b []byte) (int32, bool) {
	return x.id(view(b)) // the string does not outlive the call
}

// mergeTable maps a pair of piece ids to their merge: open addressing on the pair, linear probing.
type mergeTable struct {
	slots []mergeSlot
	shift uint8 // 64 - log2(len(slots))
}

type mergeSlot struct {
	key uint64 // (left+1) << 32 | (right+1); 0 when empty
	merge
}

func newMergeTable(n int) mergeTable {
	size := tableSize(n)
	return mergeTable{slots: make([]mergeSlot, size), shift: uint8(64 - bits.TrailingZeros(uint(size)))}
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l)+1)<<32 | uint64(uint32(r)+1) }

// home is the first slot of key: Fibonacci hashing, the top bits of the product.
func (m *mergeTable) home(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> m.shift }

// add inserts the pair l, r and returns its merge to fill in, or nil when the pair is there already.
func (m *mergeTable) add(l, r int32) *merge {
	key, mask := pairKey(l, r), uint64(len(m.slots)-1)
	for i := m.home(key); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.key == key {
			return nil
		}
		if s.key == 0 {
			s.key = key
			return &s.merge
		}
	}
}

// get returns the merge of pieces l and r.
func (m *mergeTable) get(l, r int32) (merge, bool) {
	key, mask := pairKey(l, r), uint64(len(m.slots)-1)
	for i := m.home(key); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.key == key {
			return s.merge, true
		}
		if s.key == 0 {
			return merge{}, false
		}
	}
}
