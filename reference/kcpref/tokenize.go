package kcpref

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// stopwords are the 38 words the tokenizer drops, as a set for tests;
// the tokenizer asks isStopword, which needs no start-up work.
var stopwords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "was": true, "were": true, "do": true,
	"does": true, "how": true, "what": true, "why": true, "when": true, "where": true, "which": true,
	"who": true, "to": true, "of": true, "in": true, "on": true, "for": true, "and": true, "or": true,
	"i": true, "we": true, "you": true, "it": true, "this": true, "that": true, "with": true, "my": true,
	"our": true, "can": true, "should": true, "will": true, "be": true, "get": true, "getting": true,
}

// isStopword reports whether w is one of the stopwords.
func isStopword(w string) bool {
	switch w {
	case "the", "a", "an", "is", "are", "was", "were", "do", "does", "how", "what", "why", "when",
		"where", "which", "who", "to", "of", "in", "on", "for", "and", "or", "i", "we", "you", "it",
		"this", "that", "with", "my", "our", "can", "should", "will", "be", "get", "getting":
		return true
	}
	return false
}

// Terms is the planner's tokenizer: JavaScript toLowerCase, split on every
// run of code points that are neither letters (\p{L}) nor numbers (\p{N})
// (so combining marks separate), keep tokens longer than two UTF-16 code
// units that are not stopwords. Duplicates are kept, in order.
func Terms(text string) []string {
	// A kept term has at least 3 bytes and terms are separated, so there
	// are at most (len+1)/4 of them: out never grows.
	lower := jsLower(text)
	return appendTerms(make([]string, 0, (len(lower)+1)/4), lower)
}

// appendTerms appends the terms of lower, a jsLower result, to out.
func appendTerms(out []string, lower string) []string { return appendTermsOver(out, lower, 2) }

// appendTermsOver is appendTerms keeping tokens longer than min UTF-16
// code units (2 in the reference; 1 only for a planted fault).
func appendTermsOver(out []string, lower string, min int) []string {
	if isASCII(lower) {
		return appendASCIITerms(out, lower, min)
	}
	start := -1 // start of the current token, -1 between tokens
	for i, r := range lower {
		switch {
		case isTermRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			out = appendTerm(out, lower[start:i], min)
			start = -1
		}
	}
	if start >= 0 {
		out = appendTerm(out, lower[start:], min)
	}
	return out
}

// appendASCIITerms is appendTermsOver for ASCII text, where a token's
// UTF-16 length is its byte length.
func appendASCIITerms(out []string, lower string, min int) []string {
	start := -1
	for i := 0; i <= len(lower); i++ {
		if i < len(lower) && isTermByte(lower[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if tok := lower[start:i]; len(tok) > min && !isStopword(tok) {
				out = append(out, tok)
			}
			start = -1
		}
	}
	return out
}

func isTermByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isTermRune reports a letter (\p{L}) or number (\p{N}).
func isTermRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// appendTerm keeps tok when it is longer than two UTF-16 code units and
// not a stopword.
func appendTerm(out []string, tok string, min int) []string {
	if utf16Len(tok) > min && !isStopword(tok) {
		out = append(out, tok)
	}
	return out
}

// utf16Len is JavaScript's String.prototype.length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// jsLower is String.prototype.toLowerCase: the Unicode default lower-case
// mapping, including the unconditional İ → i̇ (U+0069 U+0307) and the
// context-sensitive final sigma (Σ → ς at the end of a word).
func jsLower(s string) string {
	switch ascii, upper := asciiCase(s); {
	case ascii && !upper:
		return s
	case ascii:
		return string(appendLowerASCII(make([]byte, 0, len(s)), s)) // A–Z only, as in JavaScript
	}
	return string(appendJSLower(make([]byte, 0, len(s)+len(s)/2), s))
}

// appendJSLower appends jsLower(s) for any s.
func appendJSLower(dst []byte, s string) []byte {
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case r == 'İ':
			dst = append(dst, "i\u0307"...)
		case r == 'Σ' && isFinalSigma(runes, i):
			dst = utf8.AppendRune(dst, 'ς')
		default:
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// isFinalSigma is the Final_Sigma condition of Unicode §3.13: preceded by a
// cased letter (skipping case-ignorables) and not followed by one.
func isFinalSigma(runes []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if isCaseIgnorable(runes[j]) {
			continue
		}
		before = isCased(runes[j])
		break
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(runes); j++ {
		if isCaseIgnorable(runes[j]) {
			continue
		}
		return !isCased(runes[j])
	}
	return true
}

func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// compareUTF16 orders strings by UTF-16 code units, as JavaScript's < and >
// do (this differs from byte order for astral code points versus
// U+E000–U+FFFF).
func compareUTF16(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if ra[i] == rb[i] {
			continue
		}
		ua := utf16.AppendRune(nil, ra[i])
		ub := utf16.AppendRune(nil, rb[i])
		for k := 0; k < len(ua) && k < len(ub); k++ {
			if ua[k] != ub[k] {
				if ua[k] < ub[k] {
					return -1
				}
				return 1
			}
		}
		// Unreachable for distinct runes; keep the comparison total.
		if ra[i] < rb[i] {
			return -1
		}
		return 1
	}
	switch {
	case len(ra) < len(rb):
		return -1
	case len(ra) > len(rb):
		return 1
	}
	return 0
}
