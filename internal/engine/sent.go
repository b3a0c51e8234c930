package engine

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// A transcript does not repeat the check either. What a step sends follows
// from the check and the answers before it (a replay requires the recorded
// request to be the one the step makes), so a line leaves out its source
// and the members of its params that equal the resolved step's, listing
// them in Sent; a member that differs, as a redacted secret does, is
// written as it went. A replay puts them back from the step before it
// compares the request.

// SentAll, as an exchange's whole Sent list, says it left out every member
// of the step's params: the common case, written short.
const SentAll = "*"

// unsend leaves out of the exchange its step's source and the params that
// are the step's (see above), when they come back exactly.
func unsend(ex Exchange, step Step) Exchange {
	out := ex
	if out.Source == step.Source {
		out.Source = ""
	}
	if len(ex.Params) > 0 && len(step.Params) > 0 {
		kept := map[string]any{}
		var left []string
		for k, v := range ex.Params {
			if sv, ok := step.Params[k]; ok && reflect.DeepEqual(Normalize(v), Normalize(sv)) {
				left = append(left, k)
			} else {
				kept[k] = v
			}
		}
		if len(left) > 0 {
			slices.Sort(left)
			if len(left) == len(step.Params) {
				left = []string{SentAll}
			}
			out.Sent = left
			out.Params = kept
			if len(kept) == 0 {
				out.Params = nil
			}
		}
	}
	// What is left out must come back exactly.
	back, err := resend(out, step)
	if err != nil || back.Source != ex.Source || !reflect.DeepEqual(Normalize(back.Params), Normalize(ex.Params)) {
		return ex
	}
	return out
}

// resend puts back what an exchange left out because its step sends it:
// the source, when the exchange has none, and the params Sent names. A
// Sent that names a member the step does not send, or one the exchange
// writes too, is not the step's.
func resend(ex Exchange, step Step) (Exchange, error) {
	if ex.Source == "" {
		ex.Source = step.Source
	}
	if len(ex.Sent) == 0 {
		return ex, nil
	}
	names := ex.Sent
	if slices.Contains(names, SentAll) {
		if len(names) > 1 || len(step.Params) == 0 {
			return ex, fmt.Errorf("sent %q: the step sends no such params", names)
		}
		names = slices.Sorted(maps.Keys(step.Params))
	}
	params := maps.Clone(ex.Params)
	if params == nil {
		params = map[string]any{}
	}
	for _, k := range names {
		v, ok := step.Params[k]
		if !ok {
			return ex, fmt.Errorf("sent %q: the step sends no param %q", ex.Sent, k)
		}
		if _, dup := params[k]; dup {
			return ex, fmt.Errorf("sent %q: the exchange writes param %q too", ex.Sent, k)
		}
		params[k] = Normalize(v)
	}
	ex.Params, ex.Sent = params, nil
	return ex, nil
}
