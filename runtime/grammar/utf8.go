package grammar

import "unicode/utf8"

// byteRange is an inclusive range of byte values.
type byteRange struct{ lo, hi byte }

// utf8Seqs turns code point ranges into sequences of byte ranges that match exactly their UTF-8 encodings
// (each sequence is one encoded length, and every byte but one position spans whole continuation ranges).
func utf8Seqs(ranges []RuneRange) [][]byteRange {
	var out [][]byteRange
	for _, r := range ranges {
		out = splitUTF8(out, r.Lo, r.Hi)
	}
	return out
}

func splitUTF8(out [][]byteRange, lo, hi rune) [][]byteRange {
	if lo > hi {
		return out
	}
	// Split at the encoded-length boundaries.
	for _, m := range [...]rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= m && hi > m {
			out = splitUTF8(out, lo, m)
			return splitUTF8(out, m+1, hi)
		}
	}
	if hi < 0x80 {
		return append(out, []byteRange{{byte(lo), byte(hi)}})
	}
	// Split until all but the leading differing byte cover whole continuation ranges.
	for i := 1; i < utf8.UTFMax; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m != hi&^m {
			if lo&m != 0 {
				out = splitUTF8(out, lo, lo|m)
				return splitUTF8(out, (lo|m)+1, hi)
			}
			if hi&m != m {
				out = splitUTF8(out, lo, (hi&^m)-1)
				return splitUTF8(out, hi&^m, hi)
			}
		}
	}
	var a, b [utf8.UTFMax]byte
	n := utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], hi)
	seq := make([]byteRange, n)
	for i := range n {
		seq[i] = byteRange{a[i], b[i]}
	}
	return append(out, seq)
}
