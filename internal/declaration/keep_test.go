package declaration_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/internal/declaration"
)

// TestAStatementKeptWithoutItsTranscript: a whole statement kept without
// its transcript holds conformance.json, conformance.md and results.json
// only, with no line range, duration or transcript digest in them; verify
// checks all the rest and ends with TranscriptNotKeptError (never "holds"),
// naming the command that makes the whole statement; an edited verdict or
// a transcript named after all is still a problem.
func TestAStatementKeptWithoutItsTranscript(t *testing.T) {
	path, _, plan := declareRun(t)
	const remake = "sifu run --suite kungfu --declare DIR"
	kept := filepath.Join(t.TempDir(), "kept")
	d, err := declaration.WithoutTranscript(filepath.Dir(path), kept, plan.Catalogue, remake)
	if err != nil {
		t.Fatal(err)
	}
	if d.Evidence.TranscriptNotKept == nil || d.Evidence.TranscriptNotKept.Remake != remake || d.Evidence.Transcript != (declaration.Digest{}) {
		t.Fatalf("the statement does not say its transcript is not kept: %+v", d.Evidence)
	}
	entries, _ := os.ReadDir(kept)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"conformance.json", "conformance.md", "results.json"}; !slices.Equal(names, want) {
		t.Fatalf("the statement kept without its transcript holds %v, want %v", names, want)
	}
	for name, absent := range map[string][]string{
		"results.json":     {`"transcript"`, `"duration_ms": 1`, `"duration_ms": 2`},
		"conformance.json": {`"transcript_lines"`, `"transcript":`},
		"conformance.md":   {"(lines ", "transcript.jsonl"},
	} {
		raw, _ := os.ReadFile(filepath.Join(kept, name))
		for _, a := range absent {
			if strings.Contains(string(raw), a) {
				t.Errorf("%s still says %s", name, a)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(kept, "conformance.md"))
	if !strings.Contains(string(md), "The transcript is not kept with this statement (`"+remake+"` makes the whole statement)") {
		t.Errorf("conformance.md does not say the transcript is not kept and how to make it:\n%s", md)
	}

	statement := filepath.Join(kept, "conformance.json")
	problems, err := declaration.Verify(context.Background(), statement, plan, sources(), declaration.VerifyOptions{})
	var notKept *declaration.TranscriptNotKeptError
	if len(problems) > 0 || !errors.As(err, &notKept) {
		t.Fatalf("verify of a statement kept without its transcript: problems %v, error %v; want only a TranscriptNotKeptError", problems, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "kept without its transcript") || !strings.Contains(msg, remake) {
		t.Errorf("the error does not say what is missing and how to make it: %s", msg)
	}

	// A verdict edited in results.json: its hash no longer matches, and
	// with the hash recomputed, the rule verdicts and claims no longer do.
	f := forge(t, statement)
	f.run.Tests[0].Status = "fail"
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(f.run); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(kept, "results.json"), []byte(b.String()), 0o644)
	if problems := verify(t, statement, plan, declaration.VerifyOptions{}); !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "/evidence/results") }) {
		t.Errorf("an edited verdict in results.json went unnoticed: %v", problems)
	}
	f.decl["evidence"].(map[string]any)["results"].(map[string]any)["sha256"] = declaration.Sum([]byte(b.String()))
	f.decl["evidence"].(map[string]any)["transcript"] = map[string]any{"path": "transcript.jsonl", "sha256": "0"}
	raw, _ := json.MarshalIndent(f.decl, "", "  ")
	os.WriteFile(statement, raw, 0o644)
	problems = verify(t, statement, plan, declaration.VerifyOptions{})
	for _, want := range []string{"/evidence/transcript: the statement names a transcript", "/rules/"} {
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("no problem says %q: %v", want, problems)
		}
	}
}
