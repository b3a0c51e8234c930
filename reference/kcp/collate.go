package kcp

import (
	"slices"
	"strings"
	"unicode"
)

// localeCompare approximates String.prototype.localeCompare in Node's
// default locale (ICU root collation, en-US, sensitivity "variant",
// punctuation not ignorable). It compares three levels in turn:
//
//  1. primary: base characters, ignoring case and accents, in the order
//     whitespace < punctuation < symbols < currency < digits < letters
//     (Latin a–z first, then other scripts roughly in DUCET script order);
//  2. secondary: accents (precomposed letters are decomposed);
//  3. tertiary: lower case before upper case.
//
// It is exact for ASCII and for Latin, Greek and Cyrillic letters with
// common diacritics; elsewhere it falls back to code point order within a
// script. Unlike byte order, "a_b" < "a-b" < "A1" < "a10" < "a9" < "ab" <
// "b" < "B".
func localeCompare(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return compareASCII(a, b)
	}
	return newSortKey(a).compare(newSortKey(b))
}

// compareASCII is localeCompare for two ASCII strings without building
// sort keys: each level compares the weights of the non-ignorable
// characters in order, a proper prefix first.
func compareASCII(a, b string) int {
	for level := range 3 {
		if c := compareASCIILevel(a, b, level); c != 0 {
			return c
		}
	}
	return 0
}

func compareASCIILevel(a, b string, level int) int {
	i, j := 0, 0
	for {
		for i < len(a) && asciiElements[a[i]][0] == 0 {
			i++
		}
		for j < len(b) && asciiElements[b[j]][0] == 0 {
			j++
		}
		switch {
		case i == len(a) && j == len(b):
			return 0
		case i == len(a):
			return -1
		case j == len(b):
			return 1
		}
		if wa, wb := asciiElements[a[i]][level], asciiElements[b[j]][level]; wa != wb {
			if wa < wb {
				return -1
			}
			return 1
		}
		i++
		j++
	}
}

// sortKey holds the weights of a string level by level, so that sorting
// computes them once per string.
type sortKey [3][]int

func newSortKey(s string) sortKey {
	if isASCII(s) {
		// Fast path: every ASCII character is one element (or ignorable);
		// the three levels share one backing array.
		n := len(s)
		all := make([]int, 3*n)
		k := sortKey{all[0:0:n], all[n : n : 2*n], all[2*n : 2*n : 3*n]}
		for i := 0; i < len(s); i++ {
			if ce := asciiElements[s[i]]; ce[0] != 0 {
				k[0], k[1], k[2] = append(k[0], ce[0]), append(k[1], ce[1]), append(k[2], ce[2])
			}
		}
		return k
	}
	ces := collationKey(s)
	return sortKey{levelWeights(ces, 0), levelWeights(ces, 1), levelWeights(ces, 2)}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// asciiElements caches the element of every ASCII character.
var asciiElements = func() (t [128]collationElement) {
	for r := range rune(128) {
		if ce, ok := element(r); ok {
			t[r] = ce
		}
	}
	return t
}()

func (k sortKey) compare(o sortKey) int {
	for level := range k {
		if c := slices.Compare(k[level], o[level]); c != 0 {
			return c
		}
	}
	return 0
}

// collationElement is one weight triple; a zero weight is ignorable at
// that level.
type collationElement [3]int

func levelWeights(ces []collationElement, level int) []int {
	out := make([]int, 0, len(ces))
	for _, ce := range ces {
		if ce[level] != 0 {
			out = append(out, ce[level])
		}
	}
	return out
}

// asciiCollationOrder is the ICU root order of the printable ASCII
// characters other than letters and digits (whitespace first).
const asciiCollationOrder = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// Primary weight bases of the groups.
const (
	groupSpace    = 1_000_000
	groupPunct    = 2_000_000
	groupSymbol   = 3_000_000
	groupCurrency = 4_000_000
	groupDigit    = 5_000_000
	groupLatin    = 6_000_000
	groupScript   = 8_000_000
)

// Secondary and tertiary weights of a base character.
const (
	secondaryCommon = 1
	tertiaryLower   = 1
	tertiaryUpper   = 2
	tertiaryVariant = 3 // ß for ss, æ for ae, ſ for s
)

// latinSpecial covers Latin letters without a canonical decomposition that
// ICU nevertheless sorts as a variant of a base letter, as an expansion, or
// right after one.
var latinSpecial = map[rune]string{
	'ø': "o\u0338", 'Ø': "O\u0338", 'đ': "d\u0335", 'Đ': "D\u0335", 'ð': "d\u0335\u0307", 'Ð': "D\u0335\u0307",
	'ł': "l\u0337", 'Ł': "L\u0337", 'ħ': "h\u0335", 'Ħ': "H\u0335",
}

var latinExpansion = map[rune]string{'ß': "ss", 'ẞ': "SS", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE", 'ſ': "s"}

// latinAfter places letters that ICU sorts as their own primary right
// after a base letter.
var latinAfter = map[rune]rune{'ı': 'i', 'ŋ': 'n', 'Ŋ': 'n', 'ĸ': 'k', 'ŧ': 't', 'Ŧ': 't', 'þ': 'z', 'Þ': 'z'}

func collationKey(s string) []collationElement {
	var out []collationElement
	for _, r := range s {
		if exp, ok := latinExpansion[r]; ok {
			for _, e := range exp {
				ce := baseElement(e)
				ce[2] = tertiaryVariant
				if unicode.IsUpper(r) {
					ce[2]++
				}
				out = append(out, ce)
			}
			continue
		}
		d, ok := latinSpecial[r]
		if !ok {
			d, ok = nfdLatinGreekCyrillic[r]
		}
		if !ok {
			d = string(r)
		}
		for _, c := range d {
			if ce, ok := element(c); ok {
				out = append(out, ce)
			}
		}
	}
	return out
}

// element weighs one code point; false when it is completely ignorable.
func element(r rune) (collationElement, bool) {
	switch {
	case unicode.Is(unicode.M, r):
		rank, ok := markSecondary[r]
		if !ok {
			rank = 1000 + int(r)
		} else if rank == 0 {
			return collationElement{}, false
		}
		return collationElement{0, secondaryCommon + 1 + rank, tertiaryLower}, true
	case strings.ContainsRune("\t\n\v\f\r", r):
	case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r):
		return collationElement{}, false
	}
	return baseElement(r), true
}

func baseElement(r rune) collationElement {
	tertiary := tertiaryLower
	if unicode.IsUpper(r) || unicode.IsTitle(r) {
		tertiary = tertiaryUpper
	}
	return collationElement{primary(r), secondaryCommon, tertiary}
}

func primary(r rune) int {
	if i := strings.IndexRune(asciiCollationOrder, r); i >= 0 {
		switch {
		case i <= strings.IndexByte(asciiCollationOrder, ' '):
			return groupSpace + i
		case i <= strings.IndexByte(asciiCollationOrder, '%'):
			return groupPunct + i
		case r == '$':
			return groupCurrency
		}
		return groupSymbol + i
	}
	lower := unicode.ToLower(r)
	switch {
	case lower >= 'a' && lower <= 'z':
		return groupLatin + int(lower-'a')*4
	case lower >= '0' && lower <= '9':
		return groupDigit + int(lower-'0')*10
	}
	if base, ok := latinAfter[r]; ok {
		return groupLatin + int(base-'a')*4 + 2
	}
	switch {
	case unicode.IsSpace(r) || unicode.Is(unicode.Z, r):
		return groupSpace + 100 + int(r)
	case unicode.Is(unicode.P, r):
		return groupPunct + 100 + int(r)
	case unicode.Is(unicode.Sc, r):
		return groupCurrency + 100 + int(r)
	case unicode.Is(unicode.S, r):
		return groupSymbol + 100 + int(r)
	case unicode.Is(unicode.Nd, r):
		return groupDigit + digitValue(r)*10 + 1
	case unicode.Is(unicode.N, r):
		return groupDigit + 100 + int(r)
	case unicode.Is(unicode.Latin, r):
		return groupLatin + 200 + int(lower)
	}
	return groupScript + scriptRank(r)*0x200000 + int(kanaFold(lower))
}

// digitValue is the numeric value of a decimal digit: its offset in the
// contiguous run of ten digits it belongs to.
func digitValue(r rune) int {
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10
}

// collationScripts lists scripts in the DUCET order of their letters.
var collationScripts = []*unicode.RangeTable{
	unicode.Greek, unicode.Coptic, unicode.Cyrillic, unicode.Glagolitic, unicode.Georgian,
	unicode.Armenian, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana,
	unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati, unicode.Oriya,
	unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala,
	unicode.Thai, unicode.Lao, unicode.Tibetan, unicode.Myanmar, unicode.Georgian,
	unicode.Ethiopic, unicode.Cherokee, unicode.Khmer, unicode.Mongolian, unicode.Hangul,
	unicode.Hiragana, unicode.Katakana, unicode.Bopomofo, unicode.Han,
}

func scriptRank(r rune) int {
	for i, t := range collationScripts {
		if unicode.Is(t, r) {
			if t == unicode.Katakana {
				return i - 1 // kana share their primaries
			}
			return i
		}
	}
	return len(collationScripts) - 1 // unknown scripts sort with Han, by code point
}

// kanaFold maps the main Katakana block onto Hiragana.
func kanaFold(r rune) rune {
	if r >= 0x30a1 && r <= 0x30f6 {
		return r - 0x60
	}
	return r
}
