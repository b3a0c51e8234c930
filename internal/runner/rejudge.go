package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
)

// Problem is one way in which a run's verdicts do not follow from its
// evidence: Check names the check (empty for the run as a whole) and Line
// the transcript line that decides it (0 when none does).
type Problem struct {
	Check string
	Line  int
	Msg   string
}

func (p Problem) String() string {
	switch {
	case p.Check == "":
		return p.Msg
	case p.Line > 0:
		return fmt.Sprintf("check %s (transcript line %d): %s", p.Check, p.Line, p.Msg)
	}
	return fmt.Sprintf("check %s: %s", p.Check, p.Msg)
}

// Rejudge checks, offline, that every verdict of a run follows from its
// transcript and this plan's checks: the selection the run records is made
// again, and every check it holds must be in the run; a preset verdict must
// be the one the selection gives; every other check is replayed against the
// exchanges recorded for it (engine.Replay) and must end as recorded; and
// the summary and the rule verdicts are folded again from the tests. The
// run's tests must carry their transcripts (results.LoadTranscript).
func (p *Plan) Rejudge(ctx context.Context, run *results.Run) []Problem {
	var problems []Problem
	bad := func(check string, line int, format string, args ...any) {
		problems = append(problems, Problem{Check: check, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	sel := run.Selection
	selected, _, err := p.Select(run.Profiles, run.Target.Profiles, sel.Tags, sel.Rules, run.Target.Controls)
	if err == nil {
		selected, err = matching(selected, sel.Checks)
	}
	if err == nil && sel.Shard != "" {
		var sh Shard
		if sh, err = ParseShard(sel.Shard); err == nil {
			selected, err = narrow(selected, sh, nil)
		}
	}
	if err != nil {
		bad("", 0, "the run's own selection (/selection, /profiles, /target) selects nothing here: %v", err)
		return problems
	}
	want := map[string]Selected{}
	for _, s := range selected {
		want[s.Check.ID] = s
	}
	seen := map[string]bool{}
	for i := range run.Tests {
		t := &run.Tests[i]
		s, ok := want[t.ID]
		if !ok {
			bad(t.ID, 0, "the run's selection does not hold this check (or this harness has no check of that ID)")
			continue
		}
		seen[t.ID] = true
		if line, msg := rejudgeOne(ctx, s, t, p.Suite.Vocabulary); msg != "" {
			bad(t.ID, line, "%s", msg)
		}
	}
	if sel.Rerun == "" {
		for _, id := range slices.Sorted(maps.Keys(want)) {
			if !seen[id] {
				bad(id, 0, "the run's selection holds this check, but the results do not: a run's evidence is every check it selected")
			}
		}
	}
	folded := *run
	folded.Tests = slices.Clone(run.Tests)
	if err := p.Fold(&folded); err != nil {
		bad("", 0, "fold the rule verdicts again: %v", err)
		return problems
	}
	if a, b := statusCounts(folded.Summary), statusCounts(run.Summary); a != b {
		bad("", 0, "/summary: the tests count %s, results.json says %s", a, b)
	}
	recorded := map[string]results.Rule{}
	for _, r := range run.Rules {
		recorded[r.ID] = r
	}
	for _, r := range folded.Rules {
		got, ok := recorded[r.ID]
		switch {
		case !ok:
			bad("", 0, "/rules: rule %s is in scope but results.json gives it no verdict", r.ID)
		case got.Status != r.Status:
			bad("", 0, "/rules: rule %s is %s in results.json, but its checks fold to %s", r.ID, got.Status, r.Status)
		case !slices.Equal(got.Evidence, r.Evidence):
			bad("", 0, "/rules: rule %s names checks %v, but the checks of it are %v", r.ID, got.Evidence, r.Evidence)
		}
		delete(recorded, r.ID)
	}
	for _, id := range slices.Sorted(maps.Keys(recorded)) {
		bad("", 0, "/rules: results.json gives rule %s a verdict, but it is not in the run's scope", id)
	}
	return problems
}

// rejudgeOne replays one test and compares its status; it returns the
// deciding transcript line and what is wrong, or "" when the test holds.
func rejudgeOne(ctx context.Context, s Selected, t *results.Test, vocab engine.Vocabulary) (int, string) {
	if s.Preset != "" {
		if t.Status != s.Preset || len(t.Transcript) > 0 {
			return 0, fmt.Sprintf("the selection gives it %s without running it (%s), but results.json says %s", s.Preset, s.Reason, t.Status)
		}
		return 0, ""
	}
	line := func(i int) int {
		if t.Lines == nil {
			return 0
		}
		return t.Lines.From + i
	}
	r, err := engine.ReplayRecorded(ctx, s.Check, t.Transcript, vocab)
	var mm *engine.MismatchError
	if errors.As(err, &mm) {
		// A check that broke the harness or ran out of time may stop
		// wherever it was when that happened.
		cutShort := mm.Index == len(t.Transcript)
		if cutShort && (t.Status == engine.HarnessError || t.Status == engine.Timeout) {
			return 0, ""
		}
		return line(min(mm.Index, max(len(t.Transcript)-1, 0))), "the recorded exchanges are not what the check makes: " + mm.Msg
	}
	if err != nil {
		return 0, err.Error()
	}
	v := r.Verdict
	if v.Status == engine.Fail && s.Advisory {
		v.Status = engine.Warn
	}
	decided := line(max(r.Used-1, 0))
	switch {
	case v.Status == t.Status:
	case t.Status == engine.Timeout:
		// The check's time ran out: while a step waited for a state that
		// never came (a failure), or before its verdict, of any status,
		// came; the runner reports either as a timeout.
	default:
		why := ""
		if v.Message != "" {
			why = ": " + v.Message
		}
		return decided, fmt.Sprintf("results.json says %s, but the answers recorded in the transcript give %s%s", t.Status, v.Status, why)
	}
	if r.Used < len(t.Transcript) {
		return line(r.Used), fmt.Sprintf("the check ends at transcript line %d, but %d more exchange(s) are recorded for it", decided, len(t.Transcript)-r.Used)
	}
	if (t.Status == engine.Fail || t.Status == engine.Warn) && !strings.Contains(t.Message, v.Message) {
		return decided, fmt.Sprintf("results.json gives the failure as %q, but the recorded answers fail with %q", t.Message, v.Message)
	}
	return 0, ""
}

func statusCounts(s results.Summary) string {
	return fmt.Sprintf("%d pass, %d fail, %d warn, %d not_applicable, %d untestable, %d timeout, %d harness_error",
		s.Pass, s.Fail, s.Warn, s.NotApplicable, s.Untestable, s.Timeout, s.HarnessError)
}
