package kcpref

import (
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixedHalfUp is the oracle for jsToFixed: x ≥ 0 with digits decimals,
// the exact binary value rounded half up in rational arithmetic.
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

// TestFixedFastPathMatchesExact checks jsToFixed against exact half-up
// rounding on random and tie-prone values.
func TestFixedFastPathMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(x float64, digits int) {
		t.Helper()
		want := fixedHalfUp(math.Abs(x), digits)
		if x < 0 {
			want = "-" + want
		}
		if got := jsToFixed(x, digits); got != want {
			t.Fatalf("jsToFixed(%v, %d) = %q, want %q", x, digits, got, want)
		}
	}
	for range 200000 {
		digits := r.IntN(8)
		check(r.Float64()*math.Pow(10, float64(r.IntN(12)-6)), digits)
		check(-r.Float64(), digits)
		check(float64(r.IntN(1<<20))/float64(int(1)<<r.IntN(24)), digits) // dyadic: exact ties
		check(float64(r.IntN(100000))/1000, digits)
		if x := math.Float64frombits(r.Uint64() &^ (1 << 63)); x < 1e21 {
			check(x, r.IntN(21)) // any magnitude, up to 20 decimals
		}
		check(float64(r.Int64N(1<<53))/float64(int64(1)<<r.IntN(60)), r.IntN(21))
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 0.5, 1.5, 2.5, 9.5, 99.5, 0.95, 0.995, 999.9995, 0.0000005, 0.0000015, 1e20, 123456.0000005, 4503599627370495.5, 1 << 53, 0.125, 0.375, 0.9375, 1e-7, 5e-324} {
		for d := range 8 {
			check(x, d)
		}
	}
}

// TestDecimalLiteralMatchesRegexp checks the hand-written matcher against
// the regular expression it replaces.
func TestDecimalLiteralMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)
	r := rand.New(rand.NewPCG(9, 10))
	const alphabet = "0123456789+-.eE x"
	for range 300000 {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := isJSDecimalLiteral(s), re.MatchString(s); got != want {
			t.Fatalf("isJSDecimalLiteral(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestYAMLFloatMatchesRegexp checks the hand-written float resolver
// against the regular expression it replaces.
func TestYAMLFloatMatchesRegexp(t *testing.T) {
	// js-yaml 4.3.0's pattern (no underscores); a match must also be finite
	// or a special value.
	re := regexp.MustCompile(`^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	r := rand.New(rand.NewPCG(11, 12))
	const alphabet = "0123456789+-._eE"
	words := []string{".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", "inf", "nan", ".iNf", "1", "_"}
	for range 300000 {
		var s string
		if r.IntN(8) == 0 {
			s = string("+-."[r.IntN(3)]) + words[r.IntN(len(words))]
		} else {
			b := make([]byte, r.IntN(8))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			s = string(b)
		}
		finite := !math.IsInf(jsNumberFromString(strings.ToLower(s)), 0) || strings.Contains(strings.ToLower(s), "inf")
		if got, want := isYAMLFloat(s), re.MatchString(s) && finite; got != want {
			t.Fatalf("isYAMLFloat(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range words {
		if got, want := isYAMLFloat(s), re.MatchString(s); got != want {
			t.Fatalf("isYAMLFloat(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestMoneyArithmeticMatchesText checks money's arithmetic path against
// Number(x.toFixed(6)) through the text, on random, tie-prone and
// boundary values of both signs.
func TestMoneyArithmeticMatchesText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(x float64) {
		t.Helper()
		for _, v := range []float64{x, -x} {
			got, want := money(v), moneyText(v)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("money(%v) = %v, want %v (through the text)", v, got, want)
			}
		}
	}
	for range 300000 {
		check(r.Float64() * math.Pow(10, float64(r.IntN(16)-8)))
		check(float64(r.IntN(1<<30)) / float64(int(1)<<r.IntN(30)))    // dyadic: exact ties at the 7th decimal
		check(float64(r.Int64N(1e12))/1e7 + float64(r.IntN(3)-1)*5e-7) // near a half at the 7th decimal
		check(float64(r.Int64N(1e9)) / 1e6)
		check(math.Float64frombits(r.Uint64() &^ (1 << 63)))
		check(moneyFastLimit * (1 - r.Float64()*1e-9))
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 5e-7, 4.9999999999999996e-7, 1.5e-6, 0.1 + 0.2, 0.3 - 0.1, 1e-290, 1e-300, 5e-324,
		moneyFastLimit, math.Nextafter(moneyFastLimit, 0), 1e21, math.Inf(1), math.NaN(), 0.0000005, 0.0000015, 0.0000025, 1.0000005, 123456.0000005} {
		check(x)
	}
}

// TestMoneyNearTheLimit checks money where x·10^6 is an integer whose
// product was rounded by half a unit, the case an integral t hides.
func TestMoneyNearTheLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		x := math.Nextafter(float64(r.Int64N(1<<52)+1<<52)/1e6, math.Inf(int(r.IntN(2)*2-1)))
		if got, want := money(x), moneyText(x); got != want {
			t.Fatalf("money(%v) = %v, want %v (through the text)", x, got, want)
		}
	}
}

// TestShortDecimalMatchesParseFloat checks the price fast path against
// strconv on random digit strings with and without a fraction, up to and
// past its 15 digits.
func TestShortDecimalMatchesParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300000 {
		b := make([]byte, 1+r.IntN(18))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if p := r.IntN(len(b) + 1); p > 0 && p < len(b) && r.IntN(4) > 0 {
			b = append(b[:p], append([]byte{'.'}, b[p:]...)...)
		}
		s := string(b)
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsNumberFromString(s); got != want {
			t.Fatalf("jsNumberFromString(%q) = %v, want %v", s, got, want)
		}
		if x, ok := shortDecimal(s); ok && x != want {
			t.Fatalf("shortDecimal(%q) = %v, want %v", s, x, want)
		}
	}
}
