package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func noResolve(v any) (any, error) { return v, nil }

func TestJudgeMatchers(t *testing.T) {
	out := Outcome{OK: true, Result: map[string]any{
		"version": 2, "name": "alpha", "tags": []any{"a", "b"},
		"items": []any{map[string]any{"id": "x"}, map[string]any{"id": "y"}},
	}}
	cases := []struct {
		ptr   string
		want  any
		fails bool
	}{
		{"/result/version", 2.0, false},
		{"/result/version", 3.0, true},
		{"/result/missing", map[string]any{"$absent": true}, false},
		{"/result/name", map[string]any{"$absent": true}, true},
		{"/result/name", map[string]any{"$present": true}, false},
		{"/result/tags", map[string]any{"$len": 2.0}, false},
		{"/result/tags", map[string]any{"$contains": "b"}, false},
		{"/result/tags", map[string]any{"$not_contains": "b"}, true},
		{"/result/items/*/id", map[string]any{"$set": []any{"y", "x"}}, false},
		{"/result/items/*/id", map[string]any{"$distinct": true}, false},
		{"/result/version", map[string]any{"$gte": 2.0}, false},
		{"/result/version", map[string]any{"$lt": 2.0}, true},
		{"/result/name", map[string]any{"$one_of": []any{"alpha", "beta"}}, false},
		{"/result/name", map[string]any{"$regex": "^al"}, false},
		{"/result/name", map[string]any{"$type": "number"}, true},
		{"/result/name", map[string]any{"$ne": "alpha"}, true},
		{"/result/nothing", "x", true},
		{"/result/items/*/id", map[string]any{"$each": map[string]any{"$one_of": []any{"x", "y"}}}, false},
		{"/result/items/*/id", map[string]any{"$each": "x"}, true},
		{"/result", map[string]any{"$any_of": []any{map[string]any{"/version": 3.0}, map[string]any{"/version": 2.0, "/name": "alpha"}}}, false},
		{"/result", map[string]any{"$any_of": []any{map[string]any{"/version": 3.0}, map[string]any{"/version": 2.0, "/name": "beta"}}}, true},
		{"/result", map[string]any{"$any_of": []any{map[string]any{"/missing": map[string]any{"$absent": true}, "/tags": map[string]any{"$len": 2.0}}}}, false},
	}
	for _, c := range cases {
		msg := Judge(Expect{Match: []Match{{Pointer: c.ptr, Matcher: c.want}}}, out, nil, nil, noResolve)
		if (msg != "") != c.fails {
			t.Errorf("%s %v: fails=%v, message %q", c.ptr, c.want, msg != "", msg)
		}
	}
}

func TestJudgeOutcomeAndRejection(t *testing.T) {
	rej := Outcome{Rejection: &Rejection{Reason: "not_found", NextStep: "stop", Message: "no memory \"m-1\""}}
	if msg := Judge(Expect{Outcome: "ok"}, rej, nil, nil, noResolve); !strings.Contains(msg, "expected success") {
		t.Errorf("want a success failure, got %q", msg)
	}
	if msg := Judge(Expect{Outcome: "rejected", Reason: "forbidden"}, rej, nil, nil, noResolve); !strings.Contains(msg, "forbidden") {
		t.Errorf("want a reason failure, got %q", msg)
	}
	other := Outcome{Rejection: &Rejection{Reason: "not_found", NextStep: "stop", Message: "no memory \"zz\""}}
	if msg := Judge(Expect{SameAs: "x"}, rej, &other, []string{"m-1", "zz"}, noResolve); msg != "" {
		t.Errorf("masked answers should be indistinguishable: %s", msg)
	}
	if msg := Judge(Expect{SameAs: "x"}, rej, &other, nil, noResolve); msg == "" {
		t.Error("unmasked answers differ and must be told apart")
	}
}

// TestNormalizeKeepsScalarsAsTheRoundTripDoes: the scalars Normalize hands
// back unchanged are exactly what the JSON round trip gives (a string with
// invalid UTF-8 still comes back repaired).
func TestNormalizeKeepsScalarsAsTheRoundTripDoes(t *testing.T) {
	for _, v := range []any{nil, true, false, 0.0, -1.5, 1e21, "", "a line", "ü \u2028 <&>", "bad \xff byte"} {
		raw, _ := json.Marshal(v)
		var want any
		_ = json.Unmarshal(raw, &want)
		if got := Normalize(v); !reflect.DeepEqual(got, want) {
			t.Errorf("Normalize(%#v) = %#v, the round trip gives %#v", v, got, want)
		}
	}
}
