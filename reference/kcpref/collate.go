package kcpref

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

// asciiElements is the element of every ASCII character, as element
// gives it, written out so that it costs nothing at start-up
// (TestASCIIElementsTable checks it against element).
var asciiElements = [128]collationElement{
	{0, 0, 0},       // '\x00'
	{0, 0, 0},       // '\x01'
	{0, 0, 0},       // '\x02'
	{0, 0, 0},       // '\x03'
	{0, 0, 0},       // '\x04'
	{0, 0, 0},       // '\x05'
	{0, 0, 0},       // '\x06'
	{0, 0, 0},       // '\a'
	{0, 0, 0},       // '\b'
	{1000000, 1, 1}, // '\t'
	{1000001, 1, 1}, // '\n'
	{1000002, 1, 1}, // '\v'
	{1000003, 1, 1}, // '\f'
	{1000004, 1, 1}, // '\r'
	{0, 0, 0},       // '\x0e'
	{0, 0, 0},       // '\x0f'
	{0, 0, 0},       // '\x10'
	{0, 0, 0},       // '\x11'
	{0, 0, 0},       // '\x12'
	{0, 0, 0},       // '\x13'
	{0, 0, 0},       // '\x14'
	{0, 0, 0},       // '\x15'
	{0, 0, 0},       // '\x16'
	{0, 0, 0},       // '\x17'
	{0, 0, 0},       // '\x18'
	{0, 0, 0},       // '\x19'
	{0, 0, 0},       // '\x1a'
	{0, 0, 0},       // '\x1b'
	{0, 0, 0},       // '\x1c'
	{0, 0, 0},       // '\x1d'
	{0, 0, 0},       // '\x1e'
	{0, 0, 0},       // '\x1f'
	{1000005, 1, 1}, // ' '
	{2000011, 1, 1}, // '!'
	{2000015, 1, 1}, // '"'
	{2000027, 1, 1}, // '#'
	{4000000, 1, 1}, // '$'
	{2000028, 1, 1}, // '%'
	{2000026, 1, 1}, // '&'
	{2000014, 1, 1}, // '\''
	{2000016, 1, 1}, // '('
	{2000017, 1, 1}, // ')'
	{2000023, 1, 1}, // '*'
	{3000031, 1, 1}, // '+'
	{2000008, 1, 1}, // ','
	{2000007, 1, 1}, // '-'
	{2000013, 1, 1}, // '.'
	{2000024, 1, 1}, // '/'
	{5000000, 1, 1}, // '0'
	{5000010, 1, 1}, // '1'
	{5000020, 1, 1}, // '2'
	{5000030, 1, 1}, // '3'
	{5000040, 1, 1}, // '4'
	{5000050, 1, 1}, // '5'
	{5000060, 1, 1}, // '6'
	{5000070, 1, 1}, // '7'
	{5000080, 1, 1}, // '8'
	{5000090, 1, 1}, // '9'
	{2000010, 1, 1}, // ':'
	{2000009, 1, 1}, // ';'
	{3000032, 1, 1}, // '<'
	{3000033, 1, 1}, // '='
	{3000034, 1, 1}, // '>'
	{2000012, 1, 1}, // '?'
	{2000022, 1, 1}, // '@'
	{6000000, 1, 2}, // 'A'
	{6000004, 1, 2}, // 'B'
	{6000008, 1, 2}, // 'C'
	{6000012, 1, 2}, // 'D'
	{6000016, 1, 2}, // 'E'
	{6000020, 1, 2}, // 'F'
	{6000024, 1, 2}, // 'G'
	{6000028, 1, 2}, // 'H'
	{6000032, 1, 2}, // 'I'
	{6000036, 1, 2}, // 'J'
	{6000040, 1, 2}, // 'K'
	{6000044, 1, 2}, // 'L'
	{6000048, 1, 2}, // 'M'
	{6000052, 1, 2}, // 'N'
	{6000056, 1, 2}, // 'O'
	{6000060, 1, 2}, // 'P'
	{6000064, 1, 2}, // 'Q'
	{6000068, 1, 2}, // 'R'
	{6000072, 1, 2}, // 'S'
	{6000076, 1, 2}, // 'T'
	{6000080, 1, 2}, // 'U'
	{6000084, 1, 2}, // 'V'
	{6000088, 1, 2}, // 'W'
	{6000092, 1, 2}, // 'X'
	{6000096, 1, 2}, // 'Y'
	{6000100, 1, 2}, // 'Z'
	{2000018, 1, 1}, // '['
	{2000025, 1, 1}, // '\\'
	{2000019, 1, 1}, // ']'
	{3000030, 1, 1}, // '^'
	{2000006, 1, 1}, // '_'
	{3000029, 1, 1}, // '`'
	{6000000, 1, 1}, // 'a'
	{6000004, 1, 1}, // 'b'
	{6000008, 1, 1}, // 'c'
	{6000012, 1, 1}, // 'd'
	{6000016, 1, 1}, // 'e'
	{6000020, 1, 1}, // 'f'
	{6000024, 1, 1}, // 'g'
	{6000028, 1, 1}, // 'h'
	{6000032, 1, 1}, // 'i'
	{6000036, 1, 1}, // 'j'
	{6000040, 1, 1}, // 'k'
	{6000044, 1, 1}, // 'l'
	{6000048, 1, 1}, // 'm'
	{6000052, 1, 1}, // 'n'
	{6000056, 1, 1}, // 'o'
	{6000060, 1, 1}, // 'p'
	{6000064, 1, 1}, // 'q'
	{6000068, 1, 1}, // 'r'
	{6000072, 1, 1}, // 's'
	{6000076, 1, 1}, // 't'
	{6000080, 1, 1}, // 'u'
	{6000084, 1, 1}, // 'v'
	{6000088, 1, 1}, // 'w'
	{6000092, 1, 1}, // 'x'
	{6000096, 1, 1}, // 'y'
	{6000100, 1, 1}, // 'z'
	{2000020, 1, 1}, // '{'
	{3000035, 1, 1}, // '|'
	{2000021, 1, 1}, // '}'
	{3000036, 1, 1}, // '~'
	{0, 0, 0},       // '\x7f'
}

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
func latinSpecial(r rune) (string, bool) {
	switch r {
	case 'ø':
		return "o\u0338", true
	case 'Ø':
		return "O\u0338", true
	case 'đ':
		return "d\u0335", true
	case 'Đ':
		return "D\u0335", true
	case 'ð':
		return "d\u0335\u0307", true
	case 'Ð':
		return "D\u0335\u0307", true
	case 'ł':
		return "l\u0337", true
	case 'Ł':
		return "L\u0337", true
	case 'ħ':
		return "h\u0335", true
	case 'Ħ':
		return "H\u0335", true
	}
	return "", false
}

// latinExpansion is the expansion of a Latin letter ICU sorts as two.
func latinExpansion(r rune) (string, bool) {
	switch r {
	case 'ß':
		return "ss", true
	case 'ẞ':
		return "SS", true
	case 'æ':
		return "ae", true
	case 'Æ':
		return "AE", true
	case 'œ':
		return "oe", true
	case 'Œ':
		return "OE", true
	case 'ſ':
		return "s", true
	}
	return "", false
}

// latinAfter places letters that ICU sorts as their own primary right
// after a base letter.
func latinAfter(r rune) (rune, bool) {
	switch r {
	case 'ı':
		return 'i', true
	case 'ŋ', 'Ŋ':
		return 'n', true
	case 'ĸ':
		return 'k', true
	case 'ŧ', 'Ŧ':
		return 't', true
	case 'þ', 'Þ':
		return 'z', true
	}
	return 0, false
}

func collationKey(s string) []collationElement {
	var out []collationElement
	for _, r := range s {
		if exp, ok := latinExpansion(r); ok {
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
		d, ok := latinSpecial(r)
		if !ok {
			d, ok = nfdLatinGreekCyrillic()[r]
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
		rank, ok := markSecondary()[r]
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
	if base, ok := latinAfter(r); ok {
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
