package fuzz

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/sifu-dev/sifu/internal/engine"
)

// Diff describes the first difference between the oracle's answer o and
// the target's t (decoded JSON values), at a JSON pointer below ptr, or
// returns "" when they are equal. Both fuzzers report divergences with it.
func Diff(o, t any, ptr string) string {
	switch ox := o.(type) {
	case map[string]any:
		tx, ok := t.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %s the oracle has an object, the target %s", ptr, show(t))
		}
		keys := slices.Sorted(maps.Keys(ox))
		for _, k := range keys {
			tv, ok := tx[k]
			if !ok {
				return fmt.Sprintf("at %s/%s the target has nothing; the oracle has %s", ptr, k, show(ox[k]))
			}
			if d := Diff(ox[k], tv, ptr+"/"+k); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(tx)) {
			if _, ok := ox[k]; !ok {
				return fmt.Sprintf("at %s/%s the target has %s; the oracle has nothing", ptr, k, show(tx[k]))
			}
		}
		return ""
	case []any:
		tx, ok := t.([]any)
		if !ok || len(tx) != len(ox) {
			return fmt.Sprintf("at %s the oracle has %s, the target %s", ptr, show(o), show(t))
		}
		for i := range ox {
			if d := Diff(ox[i], tx[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(engine.Normalize(o), engine.Normalize(t)) {
			return fmt.Sprintf("at %s the oracle has %s, the target %s", ptr, show(o), show(t))
		}
		return ""
	}
}

func show(v any) string {
	s := fmt.Sprintf("%v", v)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
