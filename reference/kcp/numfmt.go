package kcp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Number formatting as the reference writes numbers into reasons and JSON.

// formatJSNumber is JavaScript's Number.prototype.toString(): the shortest
// round-trip digits, no trailing zeros, "-0" printed as "0", and exponent
// form only at or above 1e21 and below 1e-6.
func formatJSNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		return "0"
	}
	var buf [40]byte
	return string(appendJSNumber(buf[:0], x))
}

// appendJSNumber appends formatJSNumber(x).
func appendJSNumber(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "NaN"...)
	case math.IsInf(x, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(x, -1):
		return append(dst, "-Infinity"...)
	case x == 0:
		return append(dst, '0')
	case x < 0:
		dst = append(dst, '-')
		x = -x
	}
	var buf [32]byte
	digits, n := appendShortestDigits(buf[:0], x)
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
		return dst
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		return append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for range -n {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	e := n - 1
	dst = append(dst, digits[0])
	if k > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if e < 0 {
		dst, e = append(dst, '-'), -e
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(e), 10)
}

// shortestDigits returns the shortest decimal digits d1…dk of positive x and
// the exponent n with x = 0.d1…dk × 10^n.
func shortestDigits(x float64) (string, int) {
	var buf [32]byte
	d, n := appendShortestDigits(buf[:0], x)
	return string(d), n
}

// appendShortestDigits is shortestDigits appending the digits to dst.
func appendShortestDigits(dst []byte, x float64) ([]byte, int) {
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'e', -1, 64) // d.ddddde±XX
	s := dst[start:]
	ePos := 0
	for ePos < len(s) && s[ePos] != 'e' {
		ePos++
	}
	e, neg := 0, false
	for _, c := range s[min(ePos+1, len(s)):] {
		switch {
		case c == '-':
			neg = true
		case '0' <= c && c <= '9':
			e = 10*e + int(c-'0')
		}
	}
	if neg {
		e = -e
	}
	// Drop the point (always at s[1] when present) and the exponent.
	if ePos > 1 && s[1] == '.' {
		copy(s[1:], s[2:ePos])
		ePos--
	}
	return dst[:start+ePos], e + 1
}

// jsToFixed is Number.prototype.toFixed(digits): rounding half up (away
// from zero) on the exact binary value, unlike strconv's half-to-even.
func jsToFixed(x float64, digits int) string {
	var buf [64]byte
	return string(appendToFixed(buf[:0], x, digits))
}

// appendToFixed appends jsToFixed(x, digits).
func appendToFixed(dst []byte, x float64, digits int) []byte {
	if math.IsNaN(x) {
		return append(dst, "NaN"...)
	}
	if math.Abs(x) >= 1e21 || math.IsInf(x, 0) {
		return appendJSNumber(dst, x)
	}
	if x < 0 {
		dst = append(dst, '-')
	}
	x = math.Abs(x)
	if b, ok := appendFixedNoTie(dst, x, digits); ok {
		return b
	}
	return append(dst, fixedHalfUp(x, digits)...)
}

// fixedHalfUp formats x ≥ 0 with digits decimals, rounding the exact
// binary value half up.
func fixedHalfUp(x float64, digits int) string {
	r := new(big.Rat).SetFloat64(x)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor, r ≥ 0
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(n))
	if frac.Cmp(big.NewRat(1, 2)) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	s := n.String()
	if digits == 0 {
		return s
	}
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	return s[:len(s)-digits] + "." + s[len(s)-digits:]
}

// appendFixedNoTie appends x ≥ 0 with digits decimals via strconv, which
// rounds the exact binary value correctly but breaks exact ties to even.
// It reports false (dst unchanged) when x may be an exact tie (its exact
// expansion would then end in 5 at position digits+1, which strconv
// prints exactly), so the caller can round half up the slow way.
func appendFixedNoTie(dst []byte, x float64, digits int) ([]byte, bool) {
	var buf [64]byte
	probe := strconv.AppendFloat(buf[:0], x, 'f', digits+1, 64)
	if probe[len(probe)-1] == '5' {
		return dst, false
	}
	return strconv.AppendFloat(dst, x, 'f', digits, 64), true
}

// money is the reference's Number(n.toFixed(6)).
func money(x float64) float64 {
	var buf [64]byte
	f, err := strconv.ParseFloat(string(appendToFixed(buf[:0], x, 6)), 64)
	if err != nil && !isRangeError(err) {
		return math.NaN()
	}
	return f
}

// round6 is the assess gate's Number(x.toFixed(6)); the same as money.
func round6(x float64) float64 { return money(x) }

// jsRound is Math.round: halves go toward +∞, and a result of zero keeps
// the sign of a negative input (-0).
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	if f == 0 && (x < 0 || math.Signbit(x)) {
		return math.Copysign(0, -1)
	}
	return f
}

// formatTokens is Math.round(n).toLocaleString("en-US"): comma thousands
// separators, "-0" for a negative zero.
func formatTokens(x float64) string {
	var buf [48]byte
	return string(appendTokens(buf[:0], x))
}

// appendTokens appends formatTokens(x).
func appendTokens(dst []byte, x float64) []byte {
	r := jsRound(x)
	switch {
	case math.IsNaN(r):
		return append(dst, "NaN"...)
	case math.IsInf(r, 1):
		return append(dst, "∞"...)
	case math.IsInf(r, -1):
		return append(dst, "-∞"...)
	}
	if math.Signbit(r) {
		dst, r = append(dst, '-'), -r
	}
	var buf [48]byte
	digits := append(buf[:0], '0')
	if r != 0 {
		var n int
		digits, n = appendShortestDigits(buf[:0], r)
		for range max(n-len(digits), 0) {
			digits = append(digits, '0')
		}
	}
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}
