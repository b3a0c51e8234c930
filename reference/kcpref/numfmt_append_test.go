package kcpref

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAppendFormattersMatchStringForms checks the allocation-free number
// formatters against the straightforward string-building forms they
// replaced (kept below as oracles) on random and edge values.
func TestAppendFormattersMatchStringForms(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(x float64) {
		t.Helper()
		if got, want := formatJSNumber(x), oldFormatJSNumber(x); got != want {
			t.Fatalf("formatJSNumber(%v) = %q, want %q", x, got, want)
		}
		if got, want := formatTokens(x), oldFormatTokens(x); got != want {
			t.Fatalf("formatTokens(%v) = %q, want %q", x, got, want)
		}
		if x > 0 {
			gd, gn := shortestDigits(x)
			wd, wn := oldShortestDigits(x)
			if gd != wd || gn != wn {
				t.Fatalf("shortestDigits(%v) = %q %d, want %q %d", x, gd, gn, wd, wn)
			}
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, 1e21, 1e-7, 1e-6, 123e-9,
		999999.5, 1e300, -1e300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		check(x)
	}
	for range 30000 {
		check(r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30)))
		check(float64(r.IntN(1e9)) / 100)
		check(math.Float64frombits(r.Uint64()))
		check(float64(r.Int64N(1 << 55))) // integers on both sides of 2^53
		check(float64(r.Int64N(1<<53)) + 0.5)
	}
}

func oldFormatJSNumber(x float64) string {
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
		return "-" + oldFormatJSNumber(-x)
	}
	digits, n := oldShortestDigits(x)
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
func oldShortestDigits(x float64) (string, int) {
	s := strconv.FormatFloat(x, 'e', -1, 64) // d.ddddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}
func oldFormatTokens(x float64) string {
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
		d, n := oldShortestDigits(r)
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
