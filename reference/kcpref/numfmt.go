package kcpref

import (
	"math"
	"strconv"
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
	if x < 1<<53 && x == math.Trunc(x) {
		return strconv.AppendUint(dst, uint64(x), 10) // an integer's shortest digits are its digits
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
	return appendFixedHalfUp(dst, math.Abs(x), digits)
}

// appendFixedHalfUp appends x ≥ 0 with digits decimals, rounding the
// exact binary value half up. strconv rounds the exact value correctly
// too and differs only on an exact tie, which it breaks to even. A tie
// needs an expansion that ends at decimal digits+1, and a binary
// fraction that short has a denominator dividing 2^(digits+1): only
// such an x is printed one digit longer, exactly, and rounded up by
// hand when that digit is 5.
func appendFixedHalfUp(dst []byte, x float64, digits int) []byte {
	if t := math.Ldexp(x, digits+1); t != math.Trunc(t) {
		return strconv.AppendFloat(dst, x, 'f', digits, 64) // no tie possible
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', digits+1, 64) // exact
	last := dst[len(dst)-1]
	dst = dst[:len(dst)-1]
	if digits == 0 {
		dst = dst[:len(dst)-1] // the point
	}
	if last < '5' {
		return dst
	}
	// Round up: carry from the last digit, past the point.
	for i := len(dst) - 1; i >= start; i-- {
		switch dst[i] {
		case '.':
			continue
		case '9':
			dst[i] = '0'
			continue
		}
		dst[i]++
		return dst
	}
	dst = append(dst, 0)
	copy(dst[start+1:], dst[start:])
	dst[start] = '1'
	return dst
}

// money is the reference's Number(n.toFixed(6)).
//
// For |x| below 2^53/10^6 it is computed without text: toFixed(6) is k/10^6
// with k the exact x·10^6 rounded half away from zero, and Number of that
// decimal is the correctly rounded quotient k/10^6, which float division
// gives. The product's rounding error is exact by FMA, so k is exact too.
func money(x float64) float64 {
	a := math.Abs(x)
	if a < 1e-290 { // zero, or so small that it rounds to zero
		if x < 0 {
			return math.Copysign(0, -1) // Number("-0.000000")
		}
		return 0
	}
	if a < moneyFastLimit {
		t := a * 1e6
		residual := math.FMA(a, 1e6, -t) // a·10^6 = t + residual exactly
		k := math.Floor(t)
		// t−k is exact and a multiple of t's ulp, which is at least twice
		// |residual|: the residual decides only at t−k = ½, or for an
		// integral t whose product was rounded down by a half (t ≥ 2^52).
		if frac := t - k; frac > 0.5 || frac == 0.5 && residual >= 0 || frac == 0 && residual >= 0.5 {
			k++
		}
		if x < 0 {
			return -k / 1e6 // -0 for a negative x that rounds to zero, as Number("-0.000000")
		}
		return k / 1e6
	}
	return moneyText(x)
}

// moneyFastLimit bounds money's arithmetic path: x·10^6 and its rounding
// stay exact integers below 2^53.
const moneyFastLimit = (1 << 53) / 1e6

// moneyText is money through the decimal text, for any x.
func moneyText(x float64) float64 {
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
	var digits []byte
	if r < 1<<53 {
		digits = strconv.AppendUint(buf[:0], uint64(r), 10) // r is an integer
	} else {
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
