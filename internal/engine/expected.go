package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// A transcript says a value once. A step whose expectation compares a
// value of its own outcome with a literal (a golden answer's every line)
// and finds it equal leaves the value out of its line: null stands in its
// place and Expected lists the matchers that held, so a replay puts the
// literals back from the check before anything judges or derives. A value
// that did not equal its literal is written as it came.

// elidable is a literal matcher whose value a replay can put back as it
// is: a number, a boolean or a string without a variable.
func elidable(m Match) bool {
	switch v := m.Matcher.(type) {
	case float64, bool:
		return true
	case string:
		return !strings.Contains(v, "${")
	}
	return false
}

// unexpect leaves out of the exchange the values of its outcome's result
// that the step's literal matchers found equal (see above).
func unexpect(ex Exchange, step Step) Exchange {
	if step.Expect == nil || ex.Outcome == nil || ex.Error != "" || len(step.Expect.Match) == 0 {
		return ex
	}
	doc := outcomeDoc(*ex.Outcome)
	var held []int
	for i, m := range step.Expect.Match {
		if !elidable(m) || !strings.HasPrefix(m.Pointer, "/result/") {
			continue
		}
		if got, ok := getAt(doc, m.Pointer); ok && reflect.DeepEqual(got, Normalize(m.Matcher)) && setAt(doc, m.Pointer, nil) {
			held = append(held, i)
		}
	}
	if len(held) == 0 {
		return ex
	}
	out := ex
	o := *ex.Outcome
	o.Result = doc["result"]
	out.Outcome = &o
	out.Expected = ranges(held)
	// What is left out must come back exactly.
	if back, err := reexpect(out, step); err != nil || !reflect.DeepEqual(outcomeDoc(*back.Outcome), outcomeDoc(*ex.Outcome)) {
		return ex
	}
	return out
}

// reexpect puts back the values an exchange left out because its step's
// literal matchers held (Expected).
func reexpect(ex Exchange, step Step) (Exchange, error) {
	if ex.Expected == "" {
		return ex, nil
	}
	idx, err := parseRanges(ex.Expected)
	if err != nil || ex.Outcome == nil || step.Expect == nil {
		return ex, fmt.Errorf("expected %q: the step has no such matchers (%v)", ex.Expected, err)
	}
	doc := outcomeDoc(*ex.Outcome)
	for _, i := range idx {
		if i >= len(step.Expect.Match) || !elidable(step.Expect.Match[i]) {
			return ex, fmt.Errorf("expected %q: the step has no literal matcher %d", ex.Expected, i)
		}
		m := step.Expect.Match[i]
		if got, ok := getAt(doc, m.Pointer); !ok || got != nil || !setAt(doc, m.Pointer, Normalize(m.Matcher)) {
			return ex, fmt.Errorf("expected %q: nothing left out at %s", ex.Expected, m.Pointer)
		}
	}
	out := ex
	o := *ex.Outcome
	o.Result = doc["result"]
	out.Outcome = &o
	out.Expected = ""
	return out, nil
}

// ranges writes sorted indices as "0-41,43".
func ranges(idx []int) string {
	var b strings.Builder
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// parseRanges reads what ranges writes.
func parseRanges(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		from, to, span := strings.Cut(part, "-")
		a, err := strconv.Atoi(from)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not an index", part)
		}
		b := a
		if span {
			if b, err = strconv.Atoi(to); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range", part)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}
