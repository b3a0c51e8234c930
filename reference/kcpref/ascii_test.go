package kcpref

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWordAtATimeASCIIMatchesBytewise checks asciiCase and
// appendLowerASCII against byte-by-byte forms on random text around
// the letters' edges ('@' 'A' 'Z' '[' '`' 'a' 'z' '{'), with and without
// bytes above 0x7f, at every length up to three words.
func TestWordAtATimeASCIIMatchesBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const alphabet = "@AZ[`az{ 09\x00\x7f\x80\xc3\xa9\xff"
	for range 300000 {
		b := make([]byte, r.IntN(3*wordBytes+2))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(0x80)) // any ASCII byte
			}
		}
		s := string(b)
		wantASCII, wantUpper := true, false
		for _, c := range b {
			wantASCII = wantASCII && c < 0x80
			wantUpper = wantUpper || 'A' <= c && c <= 'Z'
		}
		ascii, upper := asciiCase(s)
		if ascii != wantASCII || (ascii && upper != wantUpper) {
			t.Fatalf("asciiCase(%q) = %v, %v, want %v, %v", s, ascii, upper, wantASCII, wantUpper)
		}
		if ascii {
			if got, want := string(appendLowerASCII([]byte("x"), s)), "x"+strings.ToLower(s); got != want {
				t.Fatalf("appendLowerASCII(%q) = %q, want %q", s, got, want)
			}
			if got := jsLower(s); got != strings.ToLower(s) {
				t.Fatalf("jsLower(%q) = %q", s, got)
			}
		} else if utf8.ValidString(s) && isLowerASCII(s) {
			t.Fatalf("isLowerASCII(%q) for non-ASCII text", s)
		}
	}
}
