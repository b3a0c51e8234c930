package acpref

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The upstream tools are Python scripts; what they accept and print follows
// Python's value semantics for decoded JSON. These helpers reproduce the few
// that matter: which values are ints (booleans are), how numbers compare
// (1.0 == 1 == true), how values print with str() and repr(), which
// characters are whitespace and where splitlines() breaks a text.

// pyInt reports whether v is a Python int after json.loads, and its value:
// a JSON integer literal, or a boolean (bool is an int in Python).
func pyInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		if !intLiteral(string(n)) {
			return 0, false
		}
		i, err := strconv.Atoi(string(n))
		if err != nil {
			return math.MaxInt, true // beyond int: still an int, equal to no seq
		}
		return i, true
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// intLiteral: Python's json makes a number an int when it has no fraction
// and no exponent.
func intLiteral(s string) bool { return !strings.ContainsAny(s, ".eE") }

// pyNumber returns a numeric JSON value as an exact rational: ints, floats
// and booleans all compare by value in Python.
func pyNumber(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		if intLiteral(string(n)) {
			r, ok := new(big.Rat).SetString(string(n))
			return r, ok
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(f), true
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(n), true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case bool:
		if n {
			return big.NewRat(1, 1), true
		}
		return new(big.Rat), true
	}
	return nil, false
}

// pyEq is Python's == on decoded JSON values.
func pyEq(a, b any) bool {
	if ra, ok := pyNumber(a); ok {
		rb, ok := pyNumber(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEq(x[i], y[i]) {
				return false
			}
		}
		return true
	case []string:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEq(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !pyEq(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// pyIn is Python's `v in list`.
func pyIn(v any, list []any) bool {
	for _, x := range list {
		if pyEq(v, x) {
			return true
		}
	}
	return false
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(x any) bool {
	switch y := x.(type) {
	case nil:
		return false
	case bool:
		return y
	case string:
		return y != ""
	case []any:
		return len(y) > 0
	case map[string]any:
		return len(y) > 0
	}
	if r, ok := pyNumber(x); ok {
		return r.Sign() != 0
	}
	return true
}

// PyStr renders a decoded JSON value the way Python's str() prints it.
func PyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		if intLiteral(string(x)) {
			if i, ok := new(big.Int).SetString(string(x), 10); ok {
				return i.String()
			}
			return string(x)
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return pyFloat(math.Inf(1))
		}
		return pyFloat(f)
	case float64:
		return pyFloat(x)
	case int:
		return strconv.Itoa(x)
	}
	return PyRepr(v)
}

// pyFloat is Python's repr of a float: the shortest round-trip digits,
// always with a point or an exponent.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	exp := 0
	if f != 0 {
		exp = int(math.Floor(math.Log10(math.Abs(f))))
	}
	if exp < -4 || exp >= 16 {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+16, 1.5e-05
		mant, e, _ := strings.Cut(s, "e")
		sign, digits := e[:1], strings.TrimLeft(e[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + sign + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// PyRepr renders a value the way Python's repr() prints it.
func PyRepr(v any) string {
	switch x := v.(type) {
	case string:
		return pyQuote(x)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = pyQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = PyRepr(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, pyQuote(k)+": "+PyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return PyStr(v)
}

func pyQuote(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == q:
			b.WriteString(`\` + q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0, r == 0xad:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}

// pySpace reports whether Python's str.isspace() holds for r.
func pySpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// pyBlank is Python's `not line.strip()`.
func pyBlank(s string) bool {
	for _, r := range s {
		if !pySpace(r) {
			return false
		}
	}
	return true
}

// ws is Python's \s in a str pattern, for translated regular expressions.
const ws = `[\t\n\v\f\r \x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// universalNewlines is what Python's text mode reading does to a file:
// "\r\n" and a lone "\r" become "\n".
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// splitLineBreak reports whether str.splitlines() breaks at r ("\r\n" is
// one break).
func splitLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pySplitlines is Python's str.splitlines().
func pySplitlines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !splitLineBreak(r) {
			i += size
			continue
		}
		out = append(out, s[start:i])
		i += size
		if r == '\r' && i < len(s) && s[i] == '\n' {
			i++
		}
		start = i
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// rawSeparators are the characters JSON allows raw inside a line that
// splitlines() still breaks at: a reader splitting lines that way sees a
// torn event. Tools write them escaped.
var rawSeparators = map[rune]string{'\r': "CARRIAGE RETURN", 0x85: "NEXT LINE", 0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR"}

// escapeSeparators writes U+0085, U+2028 and U+2029 as JSON escapes in an
// encoded JSON text (they can only occur inside strings there).
func escapeSeparators(b []byte) []byte {
	s := string(b)
	if !strings.ContainsAny(s, "\u0085\u2028\u2029") {
		return b
	}
	s = strings.NewReplacer("\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`).Replace(s)
	return []byte(s)
}
