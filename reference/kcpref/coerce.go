package kcpref

import "math"

// The reference client's field helpers, applied to the js-yaml value model.

// field is o[key] (nil when absent or o is nil).
func field(o *jsObject, key string) any {
	v, _ := o.get(key)
	return v
}

// strDefault is String(o[key] ?? def).
func strDefault(o *jsObject, key, def string) string {
	v, ok := o.get(key)
	if !ok || v == nil {
		return def
	}
	return jsString(v)
}

// asStr is the reference's asStr: undefined and null are absent (""),
// anything else goes through String().
func asStr(o *jsObject, key string) string {
	if p := asStrPtr(o, key); p != nil {
		return *p
	}
	return ""
}

func asStrPtr(o *jsObject, key string) *string {
	v, ok := o.get(key)
	if !ok || v == nil {
		return nil
	}
	s := jsString(v)
	return &s
}

// asStrArr is the reference's asStrArr: an array is mapped through String()
// (null becomes "null"); any non-array gives an empty list.
func asStrArr(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		return []string{}
	}
	return mapString(arr)
}

func mapString(arr []any) []string {
	out := make([]string, len(arr))
	for i, e := range arr {
		out[i] = jsString(e)
	}
	return out
}

// asBool keeps an absent key absent; anything else is Boolean(v), so the
// string "false" is true and null is false.
func asBool(o *jsObject, key string) *bool {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	b := jsBoolean(v)
	return &b
}

// asNum is Number(v) with NaN (and an absent or null value) as absent.
func asNum(o *jsObject, key string) *float64 {
	v, ok := o.get(key)
	if !ok || v == nil {
		return nil
	}
	n := jsToNumber(v)
	if math.IsNaN(n) {
		return nil
	}
	return &n
}

// mappings keeps the mapping entries of an array; anything else is empty.
func mappings(v any) []*jsObject {
	arr, _ := v.([]any)
	var out []*jsObject
	for _, e := range arr {
		if o, ok := e.(*jsObject); ok {
			out = append(out, o)
		}
	}
	return out
}
