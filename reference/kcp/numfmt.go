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
	case x < 0:
		return "-" + formatJSNumber(-x)
	}
	digits, n := shortestDigits(x)
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	e := n - 1
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	mant := digits[:1]
	if k > 1 {
		mant += "." + digits[1:]
	}
	return mant + "e" + sign + strconv.Itoa(e)
}

// shortestDigits returns the shortest decimal digits d1…dk of positive x and
// the exponent n with x = 0.d1…dk × 10^n.
func shortestDigits(x float64) (string, int) {
	s := strconv.FormatFloat(x, 'e', -1, 64) // d.ddddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

// jsToFixed is Number.prototype.toFixed(digits): rounding half up (away
// from zero) on the exact binary value, unlike strconv's half-to-even.
func jsToFixed(x float64, digits int) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	if math.Abs(x) >= 1e21 || math.IsInf(x, 0) {
		return formatJSNumber(x)
	}
	sign := ""
	if x < 0 {
		sign = "-"
	}
	x = math.Abs(x)
	if s, ok := fixedNoTie(x, digits); ok {
		return sign + s
	}
	return sign + fixedHalfUp(x, digits)
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

// fixedNoTie formats x ≥ 0 with digits decimals via strconv, which rounds
// the exact binary value correctly but breaks exact ties to even. It
// reports false when x may be an exact tie (its exact expansion would
// then end in 5 at position digits+1, which strconv prints exactly), so
// the caller can round half up the slow way.
func fixedNoTie(x float64, digits int) (string, bool) {
	var buf [64]byte
	probe := strconv.AppendFloat(buf[:0], x, 'f', digits+1, 64)
	if probe[len(probe)-1] == '5' {
		return "", false
	}
	return strconv.FormatFloat(x, 'f', digits, 64), true
}

// money is the reference's Number(n.toFixed(6)).
func money(x float64) float64 {
	f, err := strconv.ParseFloat(jsToFixed(x, 6), 64)
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
	r := jsRound(x)
	switch {
	case math.IsNaN(r):
		return "NaN"
	case math.IsInf(r, 1):
		return "∞"
	case math.IsInf(r, -1):
		return "-∞"
	}
	sign := ""
	if math.Signbit(r) {
		sign, r = "-", -r
	}
	var digits string
	if r == 0 {
		digits = "0"
	} else {
		d, n := shortestDigits(r)
		digits = d + strings.Repeat("0", max(n-len(d), 0))
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}
