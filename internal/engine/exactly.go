package engine

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Exactly is the expectation that an outcome be want and nothing else: the
// same success or refusal (its reason and next step; the free message
// aside) and, for a success, the same value at every leaf of the result,
// each matched at its own pointer so that a difference is reported where
// it is, then the whole result, which catches anything want lacks.
func Exactly(want Outcome) Expect {
	if !want.OK {
		exp := Expect{Outcome: "rejected"}
		if r := want.Rejection; r != nil {
			exp.Reason, exp.NextStep = r.Reason, r.NextStep
		}
		return exp
	}
	result := Normalize(want.Result)
	var m []Match
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			m = append(m, Match{Pointer: ptr, Matcher: map[string]any{"$len": float64(len(x))}})
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		default:
			m = append(m, Match{Pointer: ptr, Matcher: x})
		}
	}
	walk(result, "/result")
	return Expect{Outcome: "ok", Match: append(m, Match{Pointer: "/result", Matcher: result})}
}

// Agree judges got against Exactly(want), taking every value as written
// (no variable is expanded): two implementations' answers to the same
// step, each already projected to what the suite compares. It returns ""
// when they agree, or where and how got differs.
func Agree(want, got Outcome) string {
	return Judge(Exactly(want), got, nil, nil, func(v any) (any, error) { return v, nil })
}
