package selftest

import (
	"strings"
	"testing"
)

// TestASurvivorThatBrokeTheHarnessSaysSo: a mutant that survived because
// its checks ended in harness errors is reported with them, so a broken
// harness does not read as a weak suite.
func TestASurvivorThatBrokeTheHarnessSaysSo(t *testing.T) {
	var b strings.Builder
	Report{Suite: "s", Outcomes: []Outcome{{Mutant: "m", Rules: []string{"R-1"}, Broken: []string{"s/a", "s/b"}}}}.WriteText(&b)
	if !strings.Contains(b.String(), "SURVIVED m: no check of R-1 caught it; 2 check(s) ended in timeout or harness_error, judging nothing (first s/a)") {
		t.Errorf("the report does not name the broken checks:\n%s", b.String())
	}
}
