package declaration_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func sources() declaration.Sources {
	s := kungfu.Suite
	return declaration.Sources{FS: sifu.Assets, Catalogue: s.Catalogue, Features: s.Features, Vectors: s.Vectors}
}

func declareRun(t *testing.T, opts ...kungfuref.Option) (string, *results.Run, *runner.Plan) {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New(opts...)
		return k, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "inproc", Harness: results.Harness{Name: "sifu", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := declaration.Declare(dir, plan, sources(), run, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "conformance.json"), run, plan
}

func verify(t *testing.T, path string, plan *runner.Plan, opts declaration.VerifyOptions) []string {
	t.Helper()
	problems, err := declaration.Verify(context.Background(), path, plan, sources(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

// TestDeclarationOfTheReferenceVerifies: the reference earns a complete
// Full-profile statement that verify confirms; one flipped byte in the
// transcript, or an edited claim, makes verify fail.
func TestDeclarationOfTheReferenceVerifies(t *testing.T) {
	path, _, plan := declareRun(t)
	d, err := declaration.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if d.Partial || !slices.Equal(d.Claimed, []string{"memory", "thread", "task", "full"}) {
		t.Fatalf("the reference should claim every profile: claimed %v, unmet %v", d.Claimed, d.Unmet)
	}
	if problems := verify(t, path, plan, declaration.VerifyOptions{}); len(problems) > 0 {
		t.Fatalf("verify: %v", problems)
	}
	transcript := filepath.Join(filepath.Dir(path), "transcript.jsonl")
	raw, _ := os.ReadFile(transcript)
	raw[len(raw)/2] ^= 1
	os.WriteFile(transcript, raw, 0o644)
	if problems := verify(t, path, plan, declaration.VerifyOptions{}); len(problems) == 0 {
		t.Fatal("a flipped transcript byte went unnoticed")
	}
	raw[len(raw)/2] ^= 1
	os.WriteFile(transcript, raw, 0o644)
	edited, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(string(edited[:len(edited)/2])), 0o644)
	if _, err := declaration.Read(path); err == nil {
		t.Fatal("a truncated declaration was accepted")
	}
}

// TestPlantedFaultMakesAPartialStatement: with a fault planted, the
// statement is partial and lists exactly the rules the run found unmet.
func TestPlantedFaultMakesAPartialStatement(t *testing.T) {
	path, run, plan := declareRun(t, kungfuref.WithFaults(kungfuref.FaultExistenceLeak))
	d, err := declaration.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range run.Rules {
		if r.Status == results.RuleFail {
			failed = append(failed, r.ID)
		}
	}
	var unmet []string
	for _, u := range d.Unmet {
		unmet = append(unmet, u.ID)
	}
	slices.Sort(failed)
	slices.Sort(unmet)
	if !d.Partial || len(failed) == 0 || !slices.Equal(unmet, failed) || slices.Contains(d.Claimed, "memory") {
		t.Fatalf("partial=%v claimed=%v unmet=%v failing rules=%v", d.Partial, d.Claimed, unmet, failed)
	}
	if problems := verify(t, path, plan, declaration.VerifyOptions{}); len(problems) > 0 {
		t.Fatalf("a partial statement must verify too: %v", problems)
	}
}

// forger edits a statement's evidence as someone who knows the format
// would, and makes every hash agree again.
type forger struct {
	t    *testing.T
	dir  string
	run  *results.Run
	decl map[string]any
}

func forge(t *testing.T, path string) *forger {
	dir := filepath.Dir(path)
	run, _, err := declaration.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := &forger{t: t, dir: dir, run: run}
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &f.decl); err != nil {
		t.Fatal(err)
	}
	return f
}

// transcript rewrites transcript.jsonl line by line, each line with its
// outcome written whole (an outcome written as a patch of an earlier one is
// rebuilt first, as a forger who knows the format would).
func (f *forger) transcript(edit func(n int, line map[string]any)) {
	outcomes := map[int][]byte{}
	f.rawTranscript(func(n int, m map[string]any) {
		if p, ok := m["outcome_patch"].(map[string]any); ok {
			ops, _ := json.Marshal(p["ops"])
			doc, err := results.ApplyPatch(outcomes[int(p["of"].(float64))], ops)
			if err != nil {
				f.t.Fatalf("line %d: %v", n, err)
			}
			var out any
			json.Unmarshal(doc, &out)
			m["outcome"] = out
			delete(m, "outcome_patch")
		}
		if out, ok := m["outcome"]; ok {
			outcomes[n], _ = json.Marshal(out)
		}
		edit(n, m)
	})
}

// rawTranscript rewrites transcript.jsonl line by line as it is written.
func (f *forger) rawTranscript(edit func(n int, line map[string]any)) {
	p := filepath.Join(f.dir, "transcript.jsonl")
	raw, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for i, l := range lines {
		var m map[string]any
		json.Unmarshal([]byte(l), &m)
		edit(i+1, m)
		b, _ := json.Marshal(m)
		lines[i] = string(b)
	}
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// patchBases are the lines whose outcome a later line is written as a
// patch of.
func (f *forger) patchBases() map[int]bool {
	bases := map[int]bool{}
	f.rawTranscript(func(_ int, m map[string]any) {
		if p, ok := m["outcome_patch"].(map[string]any); ok {
			bases[int(p["of"].(float64))] = true
		}
	})
	return bases
}

// seal recomputes every hash: the transcript's in results.json, and the
// results' and transcript's in conformance.json.
func (f *forger) seal() {
	tr, _ := os.ReadFile(filepath.Join(f.dir, "transcript.jsonl"))
	f.run.Transcript.SHA256 = declaration.Sum(tr)
	var b strings.Builder
	results.WriteJSON(&b, f.run)
	os.WriteFile(filepath.Join(f.dir, "results.json"), []byte(b.String()), 0o644)
	ev := f.decl["evidence"].(map[string]any)
	ev["results"].(map[string]any)["sha256"] = declaration.Sum([]byte(b.String()))
	ev["transcript"].(map[string]any)["sha256"] = f.run.Transcript.SHA256
	raw, _ := json.MarshalIndent(f.decl, "", "  ")
	os.WriteFile(filepath.Join(f.dir, "conformance.json"), append(raw, '\n'), 0o644)
}

// TestVerifyRejudgesTheTranscript: a recorded answer changed so that it no
// longer satisfies its check, with every hash recomputed, fails verify with
// a message naming the check and the transcript line.
func TestVerifyRejudgesTheTranscript(t *testing.T) {
	path, run, plan := declareRun(t)
	// The answer to the first act that succeeded turns into a rejection.
	var victim, current string
	var line int
	f := forge(t, path)
	f.transcript(func(n int, m map[string]any) {
		if test, ok := m["test"].(string); ok {
			current = test // a test's first line names it
		}
		out, _ := m["outcome"].(map[string]any)
		if victim == "" && m["op"] == "act" && out != nil && out["ok"] == true {
			victim, line = current, n
			m["outcome"] = map[string]any{"ok": false, "rejection": map[string]any{"reason": "forbidden", "next_step": "stop"}}
		}
	})
	f.seal()
	problems := verify(t, path, plan, declaration.VerifyOptions{})
	want := "check " + victim + " (transcript line "
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) && strings.Contains(p, "results.json says pass") }) {
		t.Fatalf("a forged answer in %s at line %d verified: %v", victim, line, problems)
	}
	_ = run
}

// TestVerifyRefusesAForgedSent: a line that says it leaves out a param
// its step does not send, with every hash recomputed, fails verify naming
// the check and the line; so does a line that writes the params its sent
// says are left out.
func TestVerifyRefusesAForgedSent(t *testing.T) {
	path, _, plan := declareRun(t)
	// The first line that leaves out every param, and its params whole.
	run, _, err := declaration.ReadResults(filepath.Join(filepath.Dir(path), "results.json"))
	if err == nil {
		err = results.LoadTranscript(filepath.Join(filepath.Dir(path), "results.json"), run)
	}
	if err != nil {
		t.Fatal(err)
	}
	var victim string
	var line int
	var params map[string]any
	for _, test := range run.Tests {
		for i, ex := range test.Transcript {
			if victim == "" && slices.Equal(ex.Sent, []string{engine.SentAll}) && ex.Params == nil {
				c := plan.Checks[slices.IndexFunc(plan.Checks, func(c engine.Check) bool { return c.ID == test.ID })]
				whole, err := engine.Rebuild(context.Background(), c, test.Transcript, plan.Suite.Vocabulary)
				if err != nil {
					t.Fatal(err)
				}
				victim, line, params = test.ID, test.Lines.From+i, whole[i].Params
			}
		}
	}
	if victim == "" || len(params) == 0 {
		t.Fatal("no line leaves out every param its step sends")
	}
	for _, forgery := range []func(m map[string]any){
		func(m map[string]any) { m["sent"] = []any{"no-such-param"} },
		func(m map[string]any) { m["params"] = params },
	} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(filepath.Dir(path))); err != nil {
			t.Fatal(err)
		}
		f := forge(t, filepath.Join(dir, "conformance.json"))
		f.rawTranscript(func(n int, m map[string]any) {
			if n == line {
				forgery(m)
			}
		})
		f.seal()
		problems := verify(t, filepath.Join(dir, "conformance.json"), plan, declaration.VerifyOptions{})
		want := fmt.Sprintf("check %s (transcript line %d)", victim, line)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) && strings.Contains(p, "sent [") }) {
			t.Errorf("a forged sent in %s at line %d: %v", victim, line, problems)
		}
	}
}

// TestVerifyRefusesAnEditedPatchBase: an answer that a later line is
// written as a patch of, edited with every hash recomputed, fails verify
// naming the line whose patch no longer applies or the check whose verdict
// no longer follows.
func TestVerifyRefusesAnEditedPatchBase(t *testing.T) {
	path, _, plan := declareRun(t)
	f := forge(t, path)
	bases := f.patchBases()
	if len(bases) == 0 {
		t.Fatal("the transcript writes no outcome as a patch")
	}
	edited := 0
	f.rawTranscript(func(n int, m map[string]any) {
		if bases[n] && edited == 0 {
			edited = n
			m["outcome"] = map[string]any{"ok": false, "rejection": map[string]any{"reason": "forbidden"}}
		}
	})
	f.seal()
	problems := verify(t, path, plan, declaration.VerifyOptions{})
	if len(problems) == 0 {
		t.Fatalf("an edited answer at line %d, which a later line patches, verified", edited)
	}
}

// TestVerifyRefusesAFlippedVerdict: in a partial statement, a failing check
// flipped to pass (with the rule verdicts, summary and claims made to agree
// and every hash recomputed) fails verify: the recorded answers still fail.
func TestVerifyRefusesAFlippedVerdict(t *testing.T) {
	path, _, plan := declareRun(t, kungfuref.WithFaults(kungfuref.FaultExistenceLeak))
	f := forge(t, path)
	var flipped string
	for i := range f.run.Tests {
		if f.run.Tests[i].Status == engine.Fail && flipped == "" {
			flipped = f.run.Tests[i].ID
			f.run.Tests[i].Status, f.run.Tests[i].Message, f.run.Tests[i].Step = engine.Pass, "", ""
			f.run.Summary.Fail--
			f.run.Summary.Pass++
		}
	}
	if flipped == "" {
		t.Fatal("the planted fault failed no check")
	}
	f.seal()
	problems := verify(t, path, plan, declaration.VerifyOptions{})
	if !slices.ContainsFunc(problems, func(p string) bool {
		return strings.Contains(p, "check "+flipped) && strings.Contains(p, "results.json says pass, but the answers recorded in the transcript give fail")
	}) {
		t.Fatalf("a verdict flipped from fail to pass verified: %v", problems)
	}
}

// TestVerifyComparesConformanceMD: an edited "Profiles claimed" line in
// conformance.md fails verify.
func TestVerifyComparesConformanceMD(t *testing.T) {
	path, _, plan := declareRun(t)
	md := filepath.Join(filepath.Dir(path), "conformance.md")
	raw, _ := os.ReadFile(md)
	edited := strings.Replace(string(raw), "| Profiles claimed | memory, thread, task, full |", "| Profiles claimed | memory, thread, task, full, premium |", 1)
	if edited == string(raw) {
		t.Fatal("the claims line was not found in conformance.md")
	}
	os.WriteFile(md, []byte(edited), 0o644)
	problems := verify(t, path, plan, declaration.VerifyOptions{})
	if !slices.ContainsFunc(problems, func(p string) bool {
		return strings.Contains(p, "conformance.md does not say what conformance.json says")
	}) {
		t.Fatalf("an edited conformance.md verified: %v", problems)
	}
}

// TestSignedStatementVerifiesOnlyWithItsKey: a statement signed with one
// key verifies with its public key and fails with another one, and a
// signed file changed afterwards fails it.
func TestSignedStatementVerifiesOnlyWithItsKey(t *testing.T) {
	path, _, plan := declareRun(t)
	dir := filepath.Dir(path)
	priv, pub, err := declaration.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := declaration.GenerateKey()
	if _, err := declaration.Sign(context.Background(), dir, priv); err != nil {
		t.Fatal(err)
	}
	if problems := verify(t, path, plan, declaration.VerifyOptions{PublicKey: pub}); len(problems) > 0 {
		t.Fatalf("a signed statement does not verify with its key: %v", problems)
	}
	problems := verify(t, path, plan, declaration.VerifyOptions{PublicKey: other})
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "the signature does not verify") }) {
		t.Fatalf("another key verified the signature: %v", problems)
	}
	junit := filepath.Join(dir, "junit.xml")
	raw, _ := os.ReadFile(junit)
	os.WriteFile(junit, append(raw, ' '), 0o644)
	problems = verify(t, path, plan, declaration.VerifyOptions{PublicKey: pub})
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "junit.xml has sha256") }) {
		t.Fatalf("a signed file changed after signing verified: %v", problems)
	}
	if _, err := declaration.Sign(context.Background(), dir, pub); err == nil {
		t.Fatal("a public key signed a statement")
	}
}

// TestASignedStatementIsNotOKWithoutItsKey: verify without a key checks a
// signed statement's attestation but for the signature, and does not say
// it holds: the untouched statement asks for the key (KeyNeededError), a
// byte changed in the signature asks for it too (nothing without the key
// can tell), and a byte changed in a signed file is a problem.
func TestASignedStatementIsNotOKWithoutItsKey(t *testing.T) {
	path, _, plan := declareRun(t)
	dir := filepath.Dir(path)
	priv, pub, err := declaration.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := declaration.Sign(context.Background(), dir, priv); err != nil {
		t.Fatal(err)
	}
	unkeyed := func() ([]string, error) {
		return declaration.Verify(context.Background(), path, plan, sources(), declaration.VerifyOptions{})
	}
	var need *declaration.KeyNeededError
	if problems, err := unkeyed(); !errors.As(err, &need) || len(problems) > 0 {
		t.Fatalf("a signed statement without its key: %v, %v; want a KeyNeededError", problems, err)
	}
	if !strings.Contains(need.Error(), "--key") {
		t.Errorf("%q does not say to pass --key", need)
	}
	envPath := filepath.Join(dir, declaration.AttestationFile)
	signed, err := os.ReadFile(envPath)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(signed, &env); err != nil {
		t.Fatal(err)
	}
	sig := env["signatures"].([]any)[0].(map[string]any)
	b := []byte(sig["sig"].(string))
	b[3] ^= 1 // still base64
	sig["sig"] = string(b)
	forged, _ := json.Marshal(env)
	os.WriteFile(envPath, forged, 0o644)
	if problems, err := unkeyed(); !errors.As(err, &need) || len(problems) > 0 {
		t.Errorf("a changed signature without the key: %v, %v; want a KeyNeededError", problems, err)
	}
	if problems := verify(t, path, plan, declaration.VerifyOptions{PublicKey: pub}); !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "the signature does not verify") }) {
		t.Errorf("a changed signature with the key: %v", problems)
	}
	os.WriteFile(envPath, signed, 0o644)
	md := filepath.Join(dir, "junit.xml")
	raw, _ := os.ReadFile(md)
	os.WriteFile(md, append(raw, ' '), 0o644)
	problems, err := unkeyed()
	if err != nil || !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "junit.xml has sha256") }) {
		t.Errorf("a signed file changed, without the key: %v, %v; want the change as a problem", problems, err)
	}
}

// TestVerifyAppliesTheExpectationsAgain: a statement of a failing run whose
// failures an expectations file excuses verifies; results.json edited to
// excuse a failure the file does not list fails verify.
func TestVerifyAppliesTheExpectationsAgain(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New(kungfuref.WithFaults(kungfuref.FaultExistenceLeak))
		return k, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "inproc", Harness: results.Harness{Name: "sifu", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, tc := range run.Tests {
		if tc.Status == engine.Fail {
			failing = append(failing, tc.ID)
		}
	}
	if len(failing) < 2 {
		t.Fatalf("want two failing checks, got %v", failing)
	}
	// The file excuses all but the last failure.
	file := &knownfail.File{Suite: "kungfu"}
	for _, id := range failing[:len(failing)-1] {
		file.ExpectedFailures = append(file.ExpectedFailures, knownfail.Entry{ID: id, Reason: "a known leak"})
	}
	raw, _ := knownfail.Marshal(file)
	if err := knownfail.Apply(file, raw, "sifu.expect.yaml", run, plan.Catalogue, plan.Checks); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := declaration.Declare(dir, plan, sources(), run, raw, time.Now()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "conformance.json")
	if problems := verify(t, path, plan, declaration.VerifyOptions{}); len(problems) > 0 {
		t.Fatalf("a statement with expectations does not verify: %v", problems)
	}
	f := forge(t, path)
	last := failing[len(failing)-1]
	for i := range f.run.Tests {
		if f.run.Tests[i].ID == last {
			f.run.Tests[i].Expected = &results.Expected{Entry: last, Status: engine.Fail, Reason: "a known leak"}
			f.run.Summary.ExpectedFail++
		}
	}
	f.seal()
	problems := verify(t, path, plan, declaration.VerifyOptions{})
	if !slices.ContainsFunc(problems, func(p string) bool {
		return strings.Contains(p, "check "+last+": the expectations file marks it not expected")
	}) {
		t.Fatalf("a failure excused in results.json alone verified: %v", problems)
	}

	// The statement's known deviations widened to the rule, its
	// conformance.md written to match: verify compares them with the
	// expectations results.json applied.
	if _, err := declaration.Declare(dir, plan, sources(), run, raw, time.Now()); err != nil {
		t.Fatal(err)
	}
	f = forge(t, path)
	devs := f.decl["known_deviations"].([]any)
	devs[0].(map[string]any)["checks"] = append(devs[0].(map[string]any)["checks"].([]any), last)
	f.seal()
	d, err := declaration.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "conformance.md"), []byte(declaration.Markdown(d, plan.Catalogue)), 0o644)
	problems = verify(t, path, plan, declaration.VerifyOptions{})
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "/known_deviations") }) {
		t.Fatalf("a statement whose known deviations excuse more than its expectations file verified: %v", problems)
	}
}
