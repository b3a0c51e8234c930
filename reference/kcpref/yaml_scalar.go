package kcpref

import (
	"encoding/base64"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// resolvePlain is js-yaml's implicit resolution of a plain scalar, tried in
// its order: null, bool, int, float, timestamp; else a string.
func resolvePlain(s string) any {
	if !mayBeNonString(s) {
		return s
	}
	if isYAMLNull(s) {
		return nil
	}
	if b, ok := yamlBool(s); ok {
		return b
	}
	if isYAMLInt(s) {
		return yamlInt(s)
	}
	if isYAMLFloat(s) {
		return yamlFloat(s)
	}
	if t, ok := yamlTimestamp(s); ok {
		return jsDate{t}
	}
	return s
}

// mayBeNonString is a cheap pre-check for resolvePlain: every null, bool,
// int, float and timestamp form is empty or starts with one of ~ n N t T f
// F + - . or a digit, so any other scalar is a string.
func mayBeNonString(s string) bool {
	if s == "" {
		return true
	}
	switch c := s[0]; c {
	case '~', 'n', 'N', 't', 'T', 'f', 'F', '+', '-', '.':
		return true
	default:
		return c >= '0' && c <= '9'
	}
}

func isYAMLNull(s string) bool {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

func yamlBool(s string) (bool, bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

func isDigitIn(ch byte, base int) bool {
	switch base {
	case 2:
		return ch == '0' || ch == '1'
	case 8:
		return ch >= '0' && ch <= '7'
	case 16:
		return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
	}
	return ch >= '0' && ch <= '9'
}

// The integer and float rules below are js-yaml 4.3.0's, the version
// kcp-agent 0.27.0's lock file pins: unlike 4.1, no underscore is allowed
// anywhere in a number (1_000 stays the string "1_000"), and a number that
// does not fit a double (1e999, a 400-digit integer) is not a number at all
// but a string. Only .inf and .nan spell the special values.

// isYAMLInt is js-yaml 4.3's integer resolver: an optional sign, then 0,
// or 0b/0x/0o followed by at least one digit of that base, or decimal
// digits (a leading 0 does not mean octal); the value must be finite.
func isYAMLInt(s string) bool {
	return matchesYAMLInt(s) && !math.IsInf(yamlInt(s), 0)
}

func matchesYAMLInt(s string) bool {
	i := 0
	if s != "" && (s[0] == '-' || s[0] == '+') {
		i++
	}
	if i < len(s) && s[i] == '0' {
		if i+1 == len(s) {
			return true
		}
		if base := radixPrefixBase(s[i+1]); base != 0 {
			digits := s[i+2:]
			for j := 0; j < len(digits); j++ {
				if !isDigitIn(digits[j], base) {
					return false
				}
			}
			return digits != ""
		}
	}
	rest := s[i:]
	return rest != "" && countDigits(rest) == len(rest)
}

// radixPrefixBase is the base a 0b, 0x or 0o prefix selects; 0 otherwise.
func radixPrefixBase(ch byte) int {
	switch ch {
	case 'b':
		return 2
	case 'x':
		return 16
	case 'o':
		return 8
	}
	return 0
}

// yamlInt constructs a resolved integer as a JS number (sign times
// parseInt of the digits in their base; -0 is 0).
func yamlInt(s string) float64 {
	v := s
	sign := 1.0
	if v[0] == '-' || v[0] == '+' {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	if v == "0" {
		return 0
	}
	if len(v) > 1 && v[0] == '0' {
		switch v[1] {
		case 'b':
			return sign * parseRadixInteger(v[2:], 2)
		case 'x':
			return sign * parseRadixInteger(v[2:], 16)
		case 'o':
			return sign * parseRadixInteger(v[2:], 8)
		}
	}
	f, _ := strconv.ParseFloat(v, 64) // ±Inf when out of range, like parseInt
	return sign * f
}

// isYAMLFloat is js-yaml 4.3's float resolver: the pattern
//
//	^(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?
//	 |\.[0-9]+(?:[eE][-+]?[0-9]+)?
//	 |[-+]?\.(?:inf|Inf|INF)
//	 |\.(?:nan|NaN|NAN))$
//
// whose value is finite, or one of the .inf and .nan spellings.
func isYAMLFloat(s string) bool {
	if isYAMLFloatSpecial(s) {
		return true
	}
	return matchesYAMLFloat(s) && !math.IsInf(yamlFloat(s), 0)
}

func isYAMLFloatSpecial(s string) bool {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
		".nan", ".NaN", ".NAN":
		return true
	}
	return false
}

// matchesYAMLFloat is the numeric part of the pattern (no special value).
func matchesYAMLFloat(s string) bool {
	rest := s
	if rest != "" && rest[0] == '.' {
		// \.[0-9]+ then an optional exponent.
		n := countDigits(rest[1:])
		return n > 0 && isOptionalExponent(rest[1+n:])
	}
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		rest = rest[1:]
	}
	if rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	rest = rest[1+countDigits(rest[1:]):]
	if rest != "" && rest[0] == '.' {
		rest = rest[1+countDigits(rest[1:]):]
	}
	return isOptionalExponent(rest)
}

// isOptionalExponent matches ^(?:[eE][-+]?[0-9]+)?$.
func isOptionalExponent(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != 'e' && s[0] != 'E' {
		return false
	}
	s = s[1:]
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return s != "" && countDigits(s) == len(s)
}

func yamlFloat(s string) float64 {
	v := strings.ToLower(s)
	sign := 1.0
	if v[0] == '-' || v[0] == '+' {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch v {
	case ".inf":
		return sign * math.Inf(1)
	case ".nan":
		return math.NaN()
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !isRangeError(err) {
		return math.NaN()
	}
	return sign * f
}

var (
	yamlTimestampPattern = lazyRegexp(`^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?$`)
)

// yamlTimestamp constructs a js-yaml Date. Like Date.UTC, a year 0–99
// means 1900–1999 and out-of-range fields roll over (2026-02-30 is 2 March).
func yamlTimestamp(s string) (time.Time, bool) {
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	utc := func(y, mo, d, h, mi, sec, ms int) time.Time {
		if y >= 0 && y <= 99 {
			y += 1900
		}
		return time.Date(y, time.Month(mo+1), d, h, mi, sec, ms*int(time.Millisecond), time.UTC)
	}
	if !hasYearPrefix(s) {
		return time.Time{}, false // both patterns start with YYYY-
	}
	if isYAMLDate(s) { // YYYY-MM-DD
		return utc(atoi(s[:4]), atoi(s[5:7])-1, atoi(s[8:]), 0, 0, 0, 0), true
	}
	m := yamlTimestampPattern().FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	ms := 0
	if m[7] != "" {
		frac := m[7]
		if len(frac) > 3 {
			frac = frac[:3]
		}
		ms = atoi(frac + strings.Repeat("0", 3-len(frac)))
	}
	t := utc(atoi(m[1]), atoi(m[2])-1, atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), ms)
	if m[9] != "" {
		delta := time.Duration(atoi(m[10])*60+atoi(m[11])) * time.Minute
		if m[9] == "-" {
			delta = -delta
		}
		t = t.Add(-delta)
	}
	return t, true
}

// isYAMLDate reports the YAML date form YYYY-MM-DD (ASCII digits).
func isYAMLDate(s string) bool {
	return len(s) == 10 && hasYearPrefix(s) && countDigits(s[5:7]) == 2 && s[7] == '-' && countDigits(s[8:]) == 2
}

// hasYearPrefix reports four ASCII digits and a '-'.
func hasYearPrefix(s string) bool {
	return len(s) > 4 && countDigits(s[:4]) == 4 && s[4] == '-'
}

// yamlBinary decodes !!binary: base64 with whitespace and line breaks
// ignored.
func yamlBinary(s string) (jsBytes, bool) {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	b, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return nil, false
	}
	return jsBytes(b), true
}

// lazyRegexp compiles expr on first use, so start-up does not pay for it.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
