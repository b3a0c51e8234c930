package selftest

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report for people: each mutant killed (by what)
// or survived, and the mutation score.
func (r Report) WriteText(out io.Writer) {
	fmt.Fprintf(out, "selftest %s: %d checks against %d mutants\n", r.Suite, r.Checks, len(r.Outcomes))
	for _, o := range r.Outcomes {
		if !o.Killed {
			fmt.Fprintf(out, "  SURVIVED %s: no check of %s caught it", o.Mutant, strings.Join(o.Rules, ", "))
			if len(o.Failed) > 0 {
				fmt.Fprintf(out, " (checks of other rules failed: %s)", strings.Join(o.Failed, ", "))
			}
			if o.Probe != "" {
				fmt.Fprintf(out, "; %s", o.Probe)
			}
			if n := len(o.Broken); n > 0 {
				// A survivor whose checks could not judge it is a harness
				// problem before it is a weak suite: say so.
				fmt.Fprintf(out, "; %d check(s) ended in timeout or harness_error, judging nothing (first %s)", n, o.Broken[0])
			}
			fmt.Fprintln(out)
			continue
		}
		var by []string
		if n := len(o.KilledBy); n > 0 {
			first := o.KilledBy[0]
			if n > 1 {
				first += fmt.Sprintf(" (+%d more)", n-1)
			}
			by = append(by, first)
		}
		if o.Probe != "" {
			by = append(by, o.Probe)
		}
		if len(o.Broken) > 0 {
			by = append(by, fmt.Sprintf("%d check(s) broke the harness", len(o.Broken)))
		}
		fmt.Fprintf(out, "  killed   %-32s by %s\n", o.Mutant, strings.Join(by, "; "))
	}
	fmt.Fprintf(out, "mutation score %s: %d/%d killed (%.0f%%)\n", r.Suite, r.Killed, len(r.Outcomes), 100*r.Score())
}
