package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Operators are the matcher operators a Match may use, besides a literal.
var Operators = []string{"$absent", "$present", "$ne", "$len", "$contains", "$not_contains",
	"$distinct", "$set", "$gte", "$lte", "$gt", "$lt", "$one_of", "$type", "$regex", "$each", "$any_of"}

// Judge compares an outcome with an expectation and returns "" when it holds,
// or a message saying what was expected and what came back. sameAs is the
// outcome named by exp.SameAs (nil when unused); mask lists resolved strings
// blanked before that comparison; resolve expands variables in matcher values.
func Judge(exp Expect, out Outcome, sameAs *Outcome, mask []string, resolve func(any) (any, error)) string {
	return judger{}.judge(exp, out, sameAs, mask, resolve)
}

// judger compares. A replay's judger is wild: wild is the string the
// replay put where the transcript redacted a secret (an exchange's
// Redacted pointers), and it matches any value, since what it stood for is
// not in the transcript. Nothing else is a wildcard.
type judger struct{ wild string }

func (j judger) judge(exp Expect, out Outcome, sameAs *Outcome, mask []string, resolve func(any) (any, error)) string {
	switch exp.Outcome {
	case "ok":
		if !out.OK {
			return fmt.Sprintf("expected success, got rejection %s", describeRejection(out.Rejection))
		}
	case "rejected":
		if out.OK {
			return fmt.Sprintf("expected a rejection, but the action succeeded with %s", brief(outcomeDoc(out)["result"]))
		}
		if exp.Reason != "" && (out.Rejection == nil || out.Rejection.Reason != exp.Reason) {
			return fmt.Sprintf("expected rejection reason %q, got %s", exp.Reason, describeRejection(out.Rejection))
		}
		if exp.NextStep != "" && (out.Rejection == nil || out.Rejection.NextStep != exp.NextStep) {
			return fmt.Sprintf("expected next step %q, got %s", exp.NextStep, describeRejection(out.Rejection))
		}
	case "":
	default:
		return fmt.Sprintf("unknown expected outcome %q", exp.Outcome)
	}
	doc := outcomeDoc(out)
	for _, m := range exp.Match {
		want, err := resolve(m.Matcher)
		if err != nil {
			return err.Error()
		}
		if msg := j.matchAt(doc, m.Pointer, want); msg != "" {
			return msg
		}
	}
	if sameAs != nil {
		a := maskValue(outcomeDoc(out), mask)
		b := maskValue(outcomeDoc(*sameAs), mask)
		if !reflect.DeepEqual(a, b) {
			return fmt.Sprintf("expected an answer indistinguishable from %s, got %s", brief(b), brief(a))
		}
	}
	return ""
}

func describeRejection(r *Rejection) string {
	if r == nil {
		return "a rejection with no reason"
	}
	return fmt.Sprintf("reason=%q next_step=%q message=%q", r.Reason, r.NextStep, r.Message)
}

// outcomeDoc renders an outcome as plain JSON data (maps, slices, float64).
func outcomeDoc(out Outcome) map[string]any {
	raw, err := json.Marshal(out)
	if err != nil {
		return map[string]any{"ok": out.OK, "unencodable": err.Error()}
	}
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc)
	return doc
}

// Normalize renders any Go value as plain JSON data.
func Normalize(v any) any {
	switch t := v.(type) {
	case nil, bool, float64:
		return v // already JSON data; the round trip gives it back as it is
	case string:
		if utf8.ValidString(t) {
			return v // (invalid UTF-8 comes back with U+FFFD in its place)
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// lookup resolves a JSON pointer; "*" segments fan out over arrays (or object
// values, in key order) and the fanned-out values are returned as one list.
func lookup(doc any, ptr string) ([]any, bool) {
	if ptr == "" {
		return []any{doc}, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	segs := strings.Split(ptr[1:], "/")
	cur := []any{doc}
	fanned := false
	for _, raw := range segs {
		seg := unescapeSeg(raw)
		var next []any
		for _, v := range cur {
			switch t := v.(type) {
			case map[string]any:
				if seg == "*" {
					for _, k := range slices.Sorted(maps.Keys(t)) {
						next = append(next, t[k])
					}
					continue
				}
				if e, ok := t[seg]; ok {
					next = append(next, e)
				}
			case []any:
				if seg == "*" {
					next = append(next, t...)
					continue
				}
				i, err := strconv.Atoi(seg)
				if err == nil && i >= 0 && i < len(t) {
					next = append(next, t[i])
				}
			}
		}
		if seg == "*" {
			fanned = true
		}
		cur = next
	}
	if fanned {
		if cur == nil {
			cur = []any{}
		}
		return []any{cur}, true
	}
	return cur, len(cur) == 1
}

func (j judger) matchAt(doc any, ptr string, want any) string {
	vals, found := lookup(doc, ptr)
	var got any
	if found {
		got = vals[0]
	}
	op, arg, isOp := operator(want)
	if isOp {
		switch op {
		case "$absent":
			if found == truthy(arg) {
				if found {
					return fmt.Sprintf("expected nothing at %s, found %s", ptr, brief(got))
				}
				return fmt.Sprintf("expected a value at %s, found nothing in %s", ptr, brief(doc))
			}
			return ""
		case "$present":
			if found != truthy(arg) {
				if found {
					return fmt.Sprintf("expected nothing at %s, found %s", ptr, brief(got))
				}
				return fmt.Sprintf("expected a value at %s, found nothing in %s", ptr, brief(doc))
			}
			return ""
		}
	}
	if !found {
		return fmt.Sprintf("expected %s at %s, found nothing in %s", brief(want), ptr, brief(doc))
	}
	if !isOp {
		if !j.equal(got, want) {
			return fmt.Sprintf("at %s: expected %s, got %s", ptr, brief(want), brief(got))
		}
		return ""
	}
	if msg := j.applyOperator(op, arg, got); msg != "" {
		return fmt.Sprintf("at %s: %s", ptr, msg)
	}
	return ""
}

// operator recognises a one-key object whose key is a known operator.
func operator(want any) (string, any, bool) {
	m, ok := want.(map[string]any)
	if !ok || len(m) != 1 {
		return "", nil, false
	}
	for k, v := range m {
		for _, op := range Operators {
			if k == op {
				return k, v, true
			}
		}
	}
	return "", nil, false
}

func (j judger) applyOperator(op string, arg, got any) string {
	if j.wild != "" && got == j.wild {
		return "" // what the redacted value was is not known: it may have held
	}
	switch op {
	case "$each":
		list, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("expected a list, got %s", brief(got))
		}
		for i, e := range list {
			if op2, arg2, isOp := operator(arg); isOp {
				if msg := j.applyOperator(op2, arg2, e); msg != "" {
					return fmt.Sprintf("element %d: %s", i, msg)
				}
			} else if !j.equal(e, arg) {
				return fmt.Sprintf("element %d: expected %s, got %s", i, brief(arg), brief(e))
			}
		}
	case "$ne":
		if j.equal(got, arg) {
			return fmt.Sprintf("expected anything but %s", brief(arg))
		}
	case "$len":
		n, ok := length(got)
		if !ok {
			return fmt.Sprintf("expected something with a length, got %s", brief(got))
		}
		if !j.equal(float64(n), arg) {
			return fmt.Sprintf("expected length %s, got %d (%s)", brief(arg), n, brief(got))
		}
	case "$contains", "$not_contains":
		has := j.contains(got, arg)
		if has != (op == "$contains") {
			if has {
				return fmt.Sprintf("expected %s not to contain %s", brief(got), brief(arg))
			}
			return fmt.Sprintf("expected %s to contain %s", brief(got), brief(arg))
		}
	case "$distinct":
		list, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("expected a list, got %s", brief(got))
		}
		seen := map[string]bool{}
		for _, e := range list {
			k := brief(e)
			if seen[k] && truthy(arg) {
				return fmt.Sprintf("expected distinct values, %s appears twice in %s", k, brief(got))
			}
			seen[k] = true
		}
	case "$set":
		a, ok1 := got.([]any)
		b, ok2 := arg.([]any)
		if !ok1 || !ok2 || !sameSet(a, b) {
			return fmt.Sprintf("expected the set %s, got %s", brief(arg), brief(got))
		}
	case "$gte", "$lte", "$gt", "$lt":
		g, ok1 := got.(float64)
		w, ok2 := arg.(float64)
		if !ok1 || !ok2 {
			return fmt.Sprintf("expected numbers to compare, got %s %s %s", brief(got), op, brief(arg))
		}
		holds := map[string]bool{"$gte": g >= w, "$lte": g <= w, "$gt": g > w, "$lt": g < w}[op]
		if !holds {
			return fmt.Sprintf("expected a value %s %s, got %s", op[1:], brief(arg), brief(got))
		}
	case "$any_of":
		// Alternatives, each a table of pointers (relative to the value)
		// and matchers: the value passes when every entry of one holds.
		alts, _ := arg.([]any)
		var why []string
		for i, a := range alts {
			table, ok := a.(map[string]any)
			if !ok {
				return fmt.Sprintf("$any_of takes a list of {pointer: matcher} tables; item %d is %s", i, brief(a))
			}
			msg := ""
			for _, ptr := range slices.Sorted(maps.Keys(table)) {
				if msg = j.matchAt(got, ptr, table[ptr]); msg != "" {
					break
				}
			}
			if msg == "" {
				return ""
			}
			why = append(why, fmt.Sprintf("(%d) %s", i+1, msg))
		}
		return fmt.Sprintf("expected one of %d alternatives to hold, none did: %s", len(alts), strings.Join(why, "; "))
	case "$one_of":
		opts, _ := arg.([]any)
		for _, o := range opts {
			if j.equal(got, o) {
				return ""
			}
		}
		return fmt.Sprintf("expected one of %s, got %s", brief(arg), brief(got))
	case "$type":
		if jsonType(got) != arg {
			return fmt.Sprintf("expected a %v, got %s (%s)", arg, jsonType(got), brief(got))
		}
	case "$regex":
		s, ok := got.(string)
		pat, _ := arg.(string)
		re, err := regexp.Compile(pat)
		if err != nil {
			return fmt.Sprintf("bad pattern %q: %v", pat, err)
		}
		if !ok || !re.MatchString(s) {
			return fmt.Sprintf("expected a string matching %q, got %s", pat, brief(got))
		}
	}
	return ""
}

func truthy(v any) bool { b, ok := v.(bool); return !ok || b }

func length(v any) (int, bool) {
	switch t := v.(type) {
	case []any:
		return len(t), true
	case string:
		return len([]rune(t)), true
	case map[string]any:
		return len(t), true
	}
	return 0, false
}

func (j judger) contains(got, want any) bool {
	switch t := got.(type) {
	case []any:
		for _, e := range t {
			if j.equal(e, want) {
				return true
			}
		}
	case string:
		s, ok := want.(string)
		return ok && strings.Contains(t, s)
	case map[string]any:
		s, ok := want.(string)
		_, has := t[s]
		return ok && has
	}
	return false
}

func sameSet(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = brief(a[i]), brief(b[i])
	}
	sort.Strings(ka)
	sort.Strings(kb)
	return reflect.DeepEqual(ka, kb)
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func equalJSON(a, b any) bool { return reflect.DeepEqual(Normalize(a), Normalize(b)) }

// equal is JSON equality, where a wild judger lets its wildcard in got
// stand for any value in want.
func (j judger) equal(got, want any) bool {
	if j.wild == "" {
		return equalJSON(got, want)
	}
	return matchRedacted(Normalize(got), Normalize(want), j.wild)
}

func maskValue(v any, mask []string) any {
	switch t := v.(type) {
	case string:
		for _, m := range mask {
			if m != "" {
				t = strings.ReplaceAll(t, m, "<masked>")
			}
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = maskValue(e, mask)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = maskValue(e, mask)
		}
		return out
	}
	return v
}

// brief renders a value as compact JSON, cut to a readable length.
func brief(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(raw)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
