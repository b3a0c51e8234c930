package declaration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// Read decodes a declaration strictly: unknown fields, a truncated file or
// another format are errors that name the problem.
func Read(path string) (*Declaration, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	var d Declaration
	if err := strictDecode(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Format != Format {
		return nil, fmt.Errorf("%s: /format is %s; this harness reads %q", path, clip(d.Format), Format)
	}
	if d.Suite == "" {
		return nil, fmt.Errorf("%s: /suite is missing", path)
	}
	return &d, nil
}

// ReadResults decodes results.json strictly.
func ReadResults(path string) (*results.Run, []byte, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, nil, err
	}
	var r results.Run
	if err := strictDecode(raw, &r); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.Harness.Name != "sifu" {
		return nil, nil, fmt.Errorf("%s: /harness/name is %s; only sifu results can be read", path, clip(r.Harness.Name))
	}
	if r.Suite == "" {
		return nil, nil, fmt.Errorf("%s: /suite is missing", path)
	}
	r.RebuildEvidence()
	return &r, raw, nil
}

func strictDecode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(inputfile.Text(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid document (truncated or edited?): %w", err)
	}
	if dec.More() {
		return fmt.Errorf("extra data after the document")
	}
	return nil
}

// VerifyOptions are the optional parts of a verification.
type VerifyOptions struct {
	// PublicKey, when set, is a PEM public key: the statement must carry an
	// attestation (conformance.intoto.json) signed with its private key.
	// Without it, a statement that carries an attestation is checked but
	// for the signature, and Verify ends with a KeyNeededError when the
	// rest holds: a signature no key checked is not reported as holding.
	PublicKey []byte
}

// Verify re-checks a declaration at path against its evidence files (beside
// it) and against this harness's suite files and checks. Beyond the hashes,
// it judges every check again from the recorded transcript (see
// runner.Plan.Rejudge), applies the expectations file again, recomputes the
// claims and conformance.md, and checks the signed attestation, if there
// is one (with a public key, its signature too; see VerifyOptions). It
// returns every problem found; none means the statement holds. A statement
// kept without its transcript (WithoutTranscript) is checked but for its
// verdicts, and Verify ends with a TranscriptNotKeptError when the rest
// holds: a verdict not judged again is not reported as holding.
func Verify(ctx context.Context, path string, plan *runner.Plan, src Sources, opts VerifyOptions) ([]string, error) {
	cat := plan.Catalogue
	d, err := Read(path)
	if err != nil {
		return nil, err
	}
	if d.Suite != cat.Suite {
		return nil, fmt.Errorf("%s: /suite is %s, but the catalogue given is for %q", path, clip(d.Suite), cat.Suite)
	}
	dir := filepath.Dir(path)
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	catD, featD, vecD, err := src.Digests()
	if err != nil {
		return nil, err
	}
	sameSuite := true
	for _, c := range []struct {
		field     string
		have, got Digest
	}{{"/evidence/catalogue", d.Evidence.Catalogue, catD}, {"/evidence/features", d.Evidence.Features, featD}, {"/evidence/vectors", d.Evidence.Vectors, vecD}} {
		if c.have.SHA256 != c.got.SHA256 {
			sameSuite = false
			bad("%s: the declaration was made with other suite files (sha256 %s) than this harness carries (%s); verify it with harness %s %s",
				c.field, short(c.have.SHA256), short(c.got.SHA256), clip(d.Harness.Name), clip(d.Harness.Version))
		}
	}
	resultsPath := filepath.Join(dir, d.Evidence.Results.Path)
	run, raw, err := ReadResults(resultsPath)
	if inputfile.Refused(err) {
		return nil, fmt.Errorf("/evidence/results: %w", err)
	}
	if err != nil {
		bad("/evidence/results: %v", err)
		return problems, nil
	}
	if got := Sum(raw); got != d.Evidence.Results.SHA256 {
		bad("/evidence/results: %s has sha256 %s, the declaration says %s", resultsPath, short(got), short(d.Evidence.Results.SHA256))
	}
	notKept := d.Evidence.TranscriptNotKept
	transcriptPath := filepath.Join(dir, d.Evidence.Transcript.Path)
	transcriptOK := false
	if notKept != nil {
		// A statement kept without its transcript names none, and its
		// results name none either: no verdict can be judged again.
		if d.Evidence.Transcript != (Digest{}) {
			bad("/evidence/transcript: the statement names a transcript (%s) and says it is not kept", clip(d.Evidence.Transcript.Path))
		}
		if run.Transcript != nil {
			bad("/transcript of results.json names a transcript (%s), and the statement says it is not kept", clip(run.Transcript.File))
		}
		if notKept.Remake == "" {
			bad("/evidence/transcript_not_kept/remake is empty: it names the command that makes the whole statement")
		}
	} else if tr, err := inputfile.Read(transcriptPath); inputfile.Refused(err) {
		return nil, fmt.Errorf("/evidence/transcript: %w", err)
	} else if err != nil {
		bad("/evidence/transcript: %v", err)
	} else {
		got := Sum(tr)
		if got != d.Evidence.Transcript.SHA256 {
			bad("/evidence/transcript: %s has sha256 %s, the declaration says %s", transcriptPath, short(got), short(d.Evidence.Transcript.SHA256))
		}
		if run.Transcript == nil || run.Transcript.SHA256 != got {
			bad("/transcript/sha256 of results.json does not match %s", transcriptPath)
		} else {
			transcriptOK = true
		}
	}
	var expectFile *knownfail.File
	var expectRaw []byte
	if d.Evidence.Expectations != nil {
		p := filepath.Join(dir, filepath.Base(d.Evidence.Expectations.Path))
		if raw, err := inputfile.Read(p); inputfile.Refused(err) {
			return nil, fmt.Errorf("/evidence/expectations: %w", err)
		} else if err != nil {
			bad("/evidence/expectations: %v (keep a copy of the expectations file beside the declaration)", err)
		} else if got := Sum(raw); got != d.Evidence.Expectations.SHA256 {
			bad("/evidence/expectations: %s has sha256 %s, the declaration says %s", p, short(got), short(d.Evidence.Expectations.SHA256))
		} else if expectFile, expectRaw, err = knownfail.Load(p); err != nil {
			bad("/evidence/expectations: %v", err)
		}
	}
	if run.Suite != d.Suite {
		bad("/suite: the results are for %s, the declaration for %q", clip(run.Suite), d.Suite)
	}
	if run.Conditions != nil {
		bad("/conditions: the results were made with %s, and a statement needs a plain run", clip(run.Conditions.String()))
	}
	if !slices.Equal(run.Profiles, d.Checked) {
		bad("/profiles_checked: %v, but the results checked %v", clipAll(d.Checked), clipAll(run.Profiles))
	}
	// The verdicts must follow from the transcript, which needs the very
	// checks the run made: the suite files must be the same.
	// (A statement kept without its transcript has nothing to judge them
	// again from; its expectations still apply to its verdicts.)
	if sameSuite && (transcriptOK || notKept != nil) {
		if transcriptOK {
			if err := results.LoadTranscript(resultsPath, run); err != nil {
				bad("/evidence/transcript: %v", err)
			} else {
				for _, p := range plan.Rejudge(ctx, run) {
					bad("%s", p)
				}
			}
		}
		if expectFile != nil {
			problems = append(problems, reapply(expectFile, expectRaw, run, plan)...)
		} else if run.Expectations != nil || run.Summary.ExpectedFail > 0 || run.Summary.Stale > 0 {
			bad("/expectations: results.json applies an expectations file, but the declaration holds none")
		}
	}
	claimed, unmet, err := Claims(cat, run)
	if err != nil {
		bad("claims: %v", err)
		return problems, nil
	}
	if !slices.Equal(claimed, d.Claimed) {
		bad("/profiles_claimed: the declaration claims %v, the results support %v", clipAll(d.Claimed), claimed)
	}
	if got, want := unmetIDs(d.Unmet), unmetIDs(unmet); !slices.Equal(got, want) {
		bad("/unmet_rules: the declaration lists %v, the results leave unmet %v", clipAll(got), want)
	}
	ruleStatus := map[string]results.Rule{}
	for _, r := range run.Rules {
		ruleStatus[r.ID] = r
	}
	tests := map[string]results.Test{}
	for _, t := range run.Tests {
		tests[t.ID] = t
	}
	for i, r := range d.Rules {
		got, ok := ruleStatus[r.ID]
		if !ok || got.Status != r.Status {
			bad("/rules/%d (%s): status %s, the results say %q", i, clip(r.ID), clip(r.Status), got.Status)
			continue
		}
		for j, e := range r.Evidence {
			t, ok := tests[e.Check]
			if !ok || string(t.Status) != e.Status || !sameLines(t.Lines, e.Lines) {
				bad("/rules/%d/evidence/%d (%s): check %s %s does not match the results", i, j, r.ID, clip(e.Check), clip(e.Status))
			}
		}
	}
	if got, want := deviationsJSON(d.Deviations), deviationsJSON(Deviations(run)); got != want {
		bad("/known_deviations: the declaration lists %s, the expectations results.json applied give %s", clip(got), clip(want))
	}
	if md, err := inputfile.Read(filepath.Join(dir, "conformance.md")); inputfile.Refused(err) {
		return nil, fmt.Errorf("conformance.md: %w", err)
	} else if err != nil {
		bad("conformance.md: %v (it is written beside conformance.json)", err)
	} else if line := firstDifference(string(md), Markdown(d, cat)); line > 0 {
		bad("conformance.md does not say what conformance.json says (first difference at line %d); write it again from conformance.json", line)
	}
	att, err := checkAttestation(ctx, dir, opts.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AttestationFile, err)
	}
	problems = append(problems, att.Problems...)
	if notKept != nil && len(problems) == 0 {
		return nil, &TranscriptNotKeptError{Path: path, Remake: notKept.Remake}
	}
	if att.Signed && opts.PublicKey == nil && len(problems) == 0 {
		return nil, &KeyNeededError{Path: path, KeyIDs: att.KeyIDs}
	}
	return problems, nil
}

// reapply applies the expectations file to the re-judged run again and
// compares what it marks with what results.json records.
func reapply(f *knownfail.File, raw []byte, run *results.Run, plan *runner.Plan) []string {
	var problems []string
	again := *run
	again.Tests = slices.Clone(run.Tests)
	for i := range again.Tests {
		again.Tests[i].Expected = nil
	}
	path := "sifu.expect.yaml"
	if run.Expectations != nil {
		path = run.Expectations.File
	}
	if err := knownfail.Apply(f, raw, path, &again, plan.Catalogue, plan.Checks); err != nil {
		return []string{"/evidence/expectations: " + err.Error()}
	}
	for i, t := range again.Tests {
		was := run.Tests[i].Expected
		if (t.Expected == nil) != (was == nil) || (was != nil && *was != *t.Expected) {
			problems = append(problems, fmt.Sprintf("check %s: the expectations file marks it %s, results.json %s", t.ID, expectedLabel(t.Expected), expectedLabel(was)))
		}
	}
	if s, r := again.Summary, run.Summary; s.ExpectedFail != r.ExpectedFail || s.Stale != r.Stale || s.Unexpected != r.Unexpected {
		problems = append(problems, fmt.Sprintf("/summary: the expectations file gives %d expected failure(s), %d stale entr(ies) and %d check(s) not as expected, results.json %d, %d and %d",
			s.ExpectedFail, s.Stale, s.Unexpected, r.ExpectedFail, r.Stale, r.Unexpected))
	}
	if run.Expectations == nil {
		problems = append(problems, "/expectations: the declaration holds an expectations file, but results.json applies none")
	} else {
		a, _ := json.Marshal([]any{again.Expectations.Entries, again.Expectations.Stale})
		b, _ := json.Marshal([]any{run.Expectations.Entries, run.Expectations.Stale})
		if !bytes.Equal(a, b) {
			problems = append(problems, fmt.Sprintf("/expectations: the entries and stale entries results.json records (%s) are not what the expectations file gives (%s)", clip(string(b)), clip(string(a))))
		}
	}
	return problems
}

// deviationsJSON is a list of deviations in one comparable form.
func deviationsJSON(d []Deviation) string {
	raw, _ := json.Marshal(nonNil(d))
	return string(raw)
}

func expectedLabel(e *results.Expected) string {
	if e == nil {
		return "not expected"
	}
	return "expected " + string(e.Status) + " by " + e.Entry
}

// firstDifference is the first line (1-based) where a and b differ, or 0.
func firstDifference(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		if i >= len(al) || i >= len(bl) || al[i] != bl[i] {
			return i + 1
		}
	}
	return 0
}

// clip keeps a value from a file short enough for a message: a forged
// statement can hold a field of any size.
func clip(s string) string {
	const limit = 80
	if len(s) > limit {
		return fmt.Sprintf("%q… (%d bytes)", s[:limit], len(s))
	}
	return fmt.Sprintf("%q", s)
}

func clipAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip(s)
	}
	return out
}

func sameLines(a, b *results.LineRange) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func unmetIDs(u []Unmet) []string {
	ids := make([]string, len(u))
	for i, x := range u {
		ids[i] = x.ID
	}
	slices.Sort(ids)
	return ids
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return strings.TrimSpace(h)
}
