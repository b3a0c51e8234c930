package kcpref

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The manifest is first decoded into the value model js-yaml produces, so
// that the coercions below can follow JavaScript exactly:
//
//	null            -> nil
//	boolean         -> bool
//	number          -> float64
//	string          -> string
//	Date            -> jsDate
//	Uint8Array      -> jsBytes (!!binary)
//	Array           -> []any
//	plain object    -> *jsObject
//
// An absent key is simply missing from its jsObject (JS undefined).

// jsObject is a JS plain object: string keys in insertion order. Small
// objects (the common case) are searched linearly; index maps keys to
// positions once an object grows past smallObject keys.
type jsObject struct {
	entries []jsEntry
	index   map[string]int
}

// jsEntry is one property of a jsObject.
type jsEntry struct {
	key string
	val any
}

// smallObject is the size up to which a linear key search beats a map.
const smallObject = 16

// newJSObjectSize preallocates room for n keys.
func newJSObjectSize(n int) *jsObject {
	return &jsObject{entries: make([]jsEntry, 0, n)}
}

// find returns the position of key, or -1.
func (o *jsObject) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.entries {
		if o.entries[i].key == key {
			return i
		}
	}
	return -1
}

// get returns the value under key and whether the key is present.
func (o *jsObject) get(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	if i := o.find(key); i >= 0 {
		return o.entries[i].val, true
	}
	return nil, false
}

func (o *jsObject) set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.entries[i].val = v
		return
	}
	o.entries = append(o.entries, jsEntry{key, v})
	switch {
	case o.index != nil:
		o.index[key] = len(o.entries) - 1
	case len(o.entries) > smallObject:
		o.index = make(map[string]int, len(o.entries))
		for i, e := range o.entries {
			o.index[e.key] = i
		}
	}
}

// jsDate is a JS Date: milliseconds since the epoch, UTC.
type jsDate struct{ t time.Time }

// jsBytes is the Uint8Array js-yaml builds for !!binary.
type jsBytes []byte

// jsString is JavaScript's String(v).
func jsString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return formatJSNumber(x)
	case string:
		return x
	case jsDate:
		return formatJSDate(x.t)
	case jsBytes:
		parts := make([]string, len(x))
		for i, b := range x {
			parts[i] = strconv.Itoa(int(b))
		}
		return strings.Join(parts, ",")
	case []any:
		// Array.prototype.join: null and undefined become empty strings.
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case *jsObject:
		return "[object Object]"
	}
	return ""
}

// formatJSDate is Date.prototype.toString with TZ=UTC, the time zone the
// reference is run in ("Wed Jul 01 2026 00:00:00 GMT+0000 (Coordinated
// Universal Time)").
func formatJSDate(t time.Time) string {
	const maxMillis = 8.64e15
	if ms := float64(t.UnixMilli()); ms > maxMillis || ms < -maxMillis {
		return "Invalid Date"
	}
	return t.UTC().Format("Mon Jan 02 2006 15:04:05") + " GMT+0000 (Coordinated Universal Time)"
}

// jsBoolean is JavaScript's Boolean(v).
func jsBoolean(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// jsToNumber is JavaScript's Number(v).
func jsToNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		return jsNumberFromString(x)
	case jsDate:
		return float64(x.t.UnixMilli())
	case jsBytes, []any:
		return jsNumberFromString(jsString(x))
	}
	return math.NaN()
}

// isJSWhitespace reports the code points String.prototype.trim and Number()
// strip: WhiteSpace and LineTerminator of ECMA-262.
func isJSWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSWhitespace) }

// isJSDecimalLiteral matches ^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$:
// an optional sign, digits with an optional fraction (or a fraction
// alone), then an optional exponent.
func isJSDecimalLiteral(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := countDigits(s[i:])
	i += intDigits
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = countDigits(s[i:])
		i += fracDigits
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := countDigits(s[i:])
		if expDigits == 0 {
			return false
		}
		i += expDigits
	}
	return i == len(s)
}

// countDigits is the length of the run of ASCII digits s starts with.
func countDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// jsNumberFromString is Number(string): trimmed, "" is 0, 0x/0o/0b
// prefixes (unsigned only), Infinity, decimal literals; anything else NaN.
func jsNumberFromString(s string) float64 {
	if x, ok := shortDecimal(s); ok {
		return x
	}
	s = jsTrim(s)
	if s == "" {
		return 0
	}
	switch s {
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			return parseRadixInteger(s[2:], base)
		}
	}
	if !isJSDecimalLiteral(s) {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return math.NaN()
	}
	return f
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseRadixInteger parses digits in base, correctly rounded to float64; NaN
// when a digit is invalid or there is none.
func parseRadixInteger(digits string, base int) float64 {
	if digits == "" {
		return math.NaN()
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok || strings.ContainsAny(digits, "_+-") {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// pow10s are the powers of ten that float64 holds exactly, up to 10^15.
var pow10s = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// shortDecimal reads digits with an optional fraction ("12", "0.10") of
// at most 15 digits in all, the common price: both the digits as an
// integer and the power of ten are exact in float64, so their quotient is
// the correctly rounded value, as parsing gives.
func shortDecimal(s string) (float64, bool) {
	var m uint64
	digits, frac, point := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			m = 10*m + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point && i > 0 && i < len(s)-1:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	return float64(m) / pow10s[frac], true
}
