package declaration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
)

// WithoutTranscript writes into dir the whole statement in from (a
// directory sifu run --declare wrote) as a statement kept without its
// transcript: results.json without the transcript's digest, its line
// ranges and the durations, and conformance.json and conformance.md that
// bind that results.json and the suite files by hash and say that the
// transcript is not kept and that remake (a command) makes the whole
// statement. Nothing in it changes from run to run but the date and the
// hash of results.json, and a change of one check changes only that
// check's entries (and the suite files' hashes), so it is what a
// repository keeps of a run it can make again. Verify checks all of it it
// can and ends with a TranscriptNotKeptError: without the transcript no
// verdict can be judged again. from and dir may be the same directory; the
// transcript, junit.xml and cucumber.json are not written (nor removed).
func WithoutTranscript(from, dir string, cat *catalogue.Catalogue, remake string) (*Declaration, error) {
	d, err := Read(filepath.Join(from, "conformance.json"))
	if err != nil {
		return nil, err
	}
	if d.Evidence.TranscriptNotKept != nil {
		return nil, fmt.Errorf("%s: the statement is already kept without its transcript", from)
	}
	run, _, err := ReadResults(filepath.Join(from, "results.json"))
	if err != nil {
		return nil, err
	}
	var expectRaw []byte
	if e := d.Evidence.Expectations; e != nil {
		if expectRaw, err = inputfile.Read(filepath.Join(from, filepath.Base(e.Path))); err != nil {
			return nil, fmt.Errorf("/evidence/expectations: %w", err)
		}
	}
	run.Transcript, run.DurationMS = nil, 0
	for i := range run.Tests {
		run.Tests[i].Lines, run.Tests[i].DurationMS = nil, 0
	}
	var js bytes.Buffer
	if err := results.WriteJSON(&js, run); err != nil {
		return nil, err
	}
	d.Evidence.Results = Digest{Path: "results.json", SHA256: Sum(js.Bytes())}
	d.Evidence.Transcript = Digest{}
	d.Evidence.TranscriptNotKept = &NotKept{Remake: remake}
	for i := range d.Rules {
		for j := range d.Rules[i].Evidence {
			d.Rules[i].Evidence[j].Lines = nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), js.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("write results.json: %w", err)
	}
	if expectRaw != nil {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(d.Evidence.Expectations.Path)), expectRaw, 0o644); err != nil {
			return nil, err
		}
	}
	return d, Write(dir, d, cat)
}

// TranscriptNotKeptError is a statement kept without its transcript
// verified: all the rest holds, and its verdicts cannot be judged again.
type TranscriptNotKeptError struct {
	Path   string
	Remake string
}

func (e *TranscriptNotKeptError) Error() string {
	return fmt.Sprintf("%s is kept without its transcript (/evidence/transcript_not_kept), so its verdicts cannot be judged again; its hashes, claims and conformance.md hold. Make the whole statement with `%s` and verify DIR/conformance.json",
		e.Path, e.Remake)
}
