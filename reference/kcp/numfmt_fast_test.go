package kcp

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestFixedFastPathMatchesExact checks the strconv fast path of jsToFixed
// against the exact half-up rounding on random and tie-prone values.
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
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 0.5, 1.5, 2.5, 0.0000005, 0.0000015, 1e20, 123456.0000005} {
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
	re := regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
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
		if got, want := isYAMLFloat(s), re.MatchString(s) && !strings.HasSuffix(s, "_"); got != want {
			t.Fatalf("isYAMLFloat(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range words {
		if got, want := isYAMLFloat(s), re.MatchString(s); got != want {
			t.Fatalf("isYAMLFloat(%q) = %v, want %v", s, got, want)
		}
	}
}
