package tokenizer

import (
	"sync"
	"unicode"
)

// Code point classes as llama.cpp's unicode tables define them (src/unicode-data.cpp, Unicode 15.1): every code
// point has exactly one general-category class; unassigned code points are classUndefined. The whitespace set is
// separate (White_Space: \t..\r, space, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000).
type cpClass uint8

const (
	classUndefined cpClass = iota // Cn, and anything past U+10FFFF
	classNumber                   // \p{N}
	classLetter                   // \p{L}
	classSeparator                // \p{Z}
	classMark                     // \p{M}
	classPunct                    // \p{P}
	classSymbol                   // \p{S}
	classControl                  // \p{C} less Cn: Cc, Cf, Co, Cs
)

// cpInfo packs a class (low 3 bits) and the whitespace flag.
type cpInfo uint8

const cpWhitespace cpInfo = 8

func (c cpInfo) class() cpClass { return cpClass(c & 7) }
func (c cpInfo) isSpace() bool  { return c&cpWhitespace != 0 }
func (c cpInfo) isLetter() bool { return c.class() == classLetter }
func (c cpInfo) isNumber() bool { return c.class() == classNumber }
func (c cpInfo) isMark() bool   { return c.class() == classMark }

const maxCodepoint = 0x110000

// cpTable is a two-stage lookup: blocks[index[cp>>8]][cp&0xff]. It is built once, on first use, from Go's unicode
// tables (Unicode 15.0) patched to llama.cpp's 15.1.
type cpTable struct {
	index  [maxCodepoint >> 8]uint16
	blocks [][256]cpInfo
	ascii  [128]cpInfo
}

var (
	cpTableOnce sync.Once
	cpTab       *cpTable
)

func classes() *cpTable {
	cpTableOnce.Do(func() { cpTab = buildCPTable() })
	return cpTab
}

// info returns the class and whitespace flag of a code point.
func (t *cpTable) info(r rune) cpInfo {
	if uint32(r) < 128 {
		return t.ascii[r]
	}
	if uint32(r) >= maxCodepoint {
		return cpInfo(classUndefined)
	}
	return t.blocks[t.index[r>>8]][r&0xff]
}

// whitespaceSet is llama.cpp's unicode_set_whitespace.
var whitespaceSet = []rune{0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000}

func buildCPTable() *cpTable {
	flat := make([]cpInfo, maxCodepoint)
	set := func(rt *unicode.RangeTable, c cpClass) {
		for _, r := range rt.R16 {
			for x := uint32(r.Lo); x <= uint32(r.Hi); x += uint32(r.Stride) {
				flat[x] = cpInfo(c)
			}
		}
		for _, r := range rt.R32 {
			for x := r.Lo; x <= r.Hi; x += r.Stride {
				flat[x] = cpInfo(c)
			}
		}
	}
	for _, rt := range []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs} {
		set(rt, classControl) // Go's unicode.C also spans unassigned code points; llama.cpp's does not
	}
	set(unicode.N, classNumber)
	set(unicode.L, classLetter)
	set(unicode.Z, classSeparator)
	set(unicode.M, classMark)
	set(unicode.P, classPunct)
	set(unicode.S, classSymbol)
	// Unicode 15.1 additions over Go's 15.0 tables.
	for x := 0x2FFC; x <= 0x2FFF; x++ {
		flat[x] = cpInfo(classSymbol) // ideographic description characters
	}
	flat[0x31EF] = cpInfo(classSymbol) // CJK stroke HXG
	for x := 0x2EBF0; x <= 0x2EE5D; x++ {
		flat[x] = cpInfo(classLetter) // CJK unified ideographs extension I
	}
	for _, r := range whitespaceSet {
		flat[r] |= cpWhitespace
	}

	t := &cpTable{}
	copy(t.ascii[:], flat[:128])
	seen := map[[256]cpInfo]uint16{}
	for b := 0; b < maxCodepoint>>8; b++ {
		var blk [256]cpInfo
		copy(blk[:], flat[b<<8:(b+1)<<8])
		id, ok := seen[blk]
		if !ok {
			id = uint16(len(t.blocks))
			t.blocks = append(t.blocks, blk)
			seen[blk] = id
		}
		t.index[b] = id
	}
	return t
}

// decodeUTF8 appends the code points of s to dst the way llama.cpp's unicode_cpts_from_utf8 does: a lead byte
// fixes the length, continuation bytes must be 10xxxxxx and present, and anything else yields U+FFFD for that one
// byte. Overlong forms and surrogates decode as their values (llama.cpp does not reject them); a value past
// U+10FFFF, which llama.cpp cannot encode back, is replaced by U+FFFD.
func decodeUTF8(dst []rune, s string) []rune {
	for i := 0; i < len(s); {
		r, n := decodeOne(s, i)
		dst = append(dst, r)
		i += n
	}
	return dst
}

func decodeOne(s string, i int) (rune, int) {
	c := s[i]
	switch {
	case c < 0x80:
		return rune(c), 1
	case c&0x40 == 0:
		return 0xFFFD, 1
	case c&0x20 == 0:
		if i+1 >= len(s) || s[i+1]&0xC0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(c&0x1F)<<6 | rune(s[i+1]&0x3F), 2
	case c&0x10 == 0:
		if i+2 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	case c&0x08 == 0:
		if i+3 >= len(s) || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
			return 0xFFFD, 1
		}
		r := rune(c&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
		if r >= maxCodepoint {
			r = 0xFFFD
		}
		return r, 4
	}
	return 0xFFFD, 1
}

// appendUTF8 encodes r without validation (surrogates are written as three bytes, as llama.cpp does).
func appendUTF8(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, 0xC0|byte(r>>6), 0x80|byte(r)&0x3F)
	case r < 0x10000:
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	return append(dst, 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}

// utf8Len is llama.cpp's unicode_len_utf8: the sequence length announced by a lead byte (1 for continuation bytes).
func utf8Len(c byte) int {
	return [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}[c>>4]
}

// GPT-2's byte-level alphabet: every byte maps to a printable code point. Bytes that are printable Latin-1
// (! .. ~, ¡ .. ¬, ® .. ÿ) map to themselves; the other 68 map to U+0100.. in byte order.
var (
	byteToRune [256]rune
	runeToByte [0x144]int16 // -1 where the rune is not in the alphabet
)

func init() {
	for i := range runeToByte {
		runeToByte[i] = -1
	}
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = 256 + n
			n++
		}
		runeToByte[byteToRune[b]] = int16(b)
	}
}
