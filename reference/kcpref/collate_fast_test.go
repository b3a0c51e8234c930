package kcpref

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestCompareASCIIMatchesSortKeys checks the allocation-free ASCII
// comparison against the sort-key comparison it replaces.
func TestCompareASCIIMatchesSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aAbBzZ019_- .-/\\\t\x00\x01\x7f:;'\"$#%~"
	word := func() string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 200000 {
		a, b := word(), word()
		want := newSortKey(a).compare(newSortKey(b))
		if got := compareASCII(a, b); got != want {
			t.Fatalf("compareASCII(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// TestLowerIntoMatchesJSLower checks the scratch-buffer lower-casing of
// countHits against jsLower, with room in the buffer and without.
func TestLowerIntoMatchesJSLower(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "aAbBcC zZ-1ÄäΣσİ"
	runes := []rune(alphabet)
	word := func(n int) string {
		b := make([]rune, r.IntN(n))
		for i := range b {
			b[i] = runes[r.IntN(len(runes))]
		}
		return string(b)
	}
	for range 100000 {
		s, term := word(10), jsLower(word(3))
		var scratch [16]byte
		buf := append(scratch[:0], "prefix"...)
		got, buf := lowerInto(buf, s)
		if want := jsLower(s); got != want || strings.Contains(got, term) != strings.Contains(want, term) {
			t.Fatalf("lowerInto(%q) = %q, want %q", s, got, want)
		}
		if string(buf[:6]) != "prefix" {
			t.Fatalf("lowerInto(%q) overwrote the buffer's earlier bytes: %q", s, buf)
		}
	}
}

// TestTermsMatchesFieldsFunc checks the single-pass tokenizer against the
// strings.FieldsFunc formulation it replaces.
func TestTermsMatchesFieldsFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	runes := []rune("abcXYZ019 -_.,é\u0301ΣσİⅫ٣\u3000the\xff")
	for range 50000 {
		b := make([]rune, r.IntN(24))
		for i := range b {
			b[i] = runes[r.IntN(len(runes))]
		}
		text := string(b)
		if r.IntN(10) == 0 {
			text += "\xff\xfe" // invalid UTF-8
		}
		want := []string{}
		for _, tok := range strings.FieldsFunc(jsLower(text), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r)
		}) {
			if utf16Len(tok) > 2 && !stopwords[tok] {
				want = append(want, tok)
			}
		}
		if got := Terms(text); !slices.Equal(got, want) {
			t.Fatalf("Terms(%q) = %q, want %q", text, got, want)
		}
	}
}
