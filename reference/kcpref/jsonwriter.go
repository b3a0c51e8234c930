package kcpref

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonObject is an object whose keys keep their insertion order, as in
// JavaScript; jsonWrite prints it like JSON.stringify(v, null, 2).
type jsonObject struct{ members []jsonMember }

type jsonMember struct {
	key   string
	value any
}

func (o *jsonObject) put(key string, v any) *jsonObject {
	o.members = append(o.members, jsonMember{key, v})
	return o
}

// putIf adds the member only when ok (the spread-if-defined pattern).
func (o *jsonObject) putIf(ok bool, key string, v any) *jsonObject {
	if ok {
		o.put(key, v)
	}
	return o
}

// jsonWrite writes v as JSON.stringify(v, null, indent) would. Values are
// nil, bool, int, float64 (non-finite as null, -0 as 0), string,
// []string, []any and *jsonObject.
func jsonWrite(b *strings.Builder, v any, indent string, depth int) {
	newline := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(indent, d))
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(formatJSNumber(x))
		}
	case *float64:
		if x == nil {
			b.WriteString("null")
		} else {
			jsonWrite(b, *x, indent, depth)
		}
	case string:
		b.WriteString(jsonString(x))
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		jsonWrite(b, items, indent, depth)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			jsonWrite(b, item, indent, depth+1)
		}
		newline(depth)
		b.WriteByte(']')
	case *jsonObject:
		if len(x.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range x.members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			b.WriteString(jsonString(m.key))
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			jsonWrite(b, m.value, indent, depth+1)
		}
		newline(depth)
		b.WriteByte('}')
	default:
		panic("kcp: jsonWrite: unsupported value type")
	}
}

// jsonString is JSON.stringify for a string: only `"`, `\` and control
// characters are escaped; no HTML escaping, U+2028/2029 kept.
func jsonString(s string) string {
	return string(appendJSONString(make([]byte, 0, len(s)+2), s))
}

// appendJSONString appends jsonString(s); invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if r < 0x20 {
				const hex = "0123456789abcdef"
				b = append(b, `\u00`...)
				b = append(b, hex[r>>4], hex[r&0xf])
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return append(b, '"')
}

// jsonStringArray is JSON.stringify for an array of strings: no spaces.
func jsonStringArray(list []string) string {
	var buf [128]byte
	return string(appendJSONStringArray(buf[:0], list))
}

// appendJSONStringArray appends jsonStringArray(list).
func appendJSONStringArray(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}
