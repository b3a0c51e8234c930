package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

// LoadTranscript reads each test's exchanges back from the transcript file
// beside a results.json, after checking the file against the run's
// /transcript/sha256. A line that is not an exchange is an error naming it;
// params or an outcome written as a patch (transcriptLine) are rebuilt from
// the line it patches.
func LoadTranscript(resultsPath string, run *Run) error {
	if run.Transcript == nil {
		return nil
	}
	path := filepath.Join(filepath.Dir(resultsPath), run.Transcript.File)
	raw, err := inputfile.Read(path)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != run.Transcript.SHA256 {
		return fmt.Errorf("%s does not match /transcript/sha256 of %s", path, resultsPath)
	}
	// The file is bounded (inputfile.Limit), so its lines are too: no
	// line is too long to read.
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(raw) == 0 {
		lines = nil
	}
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	owner := make([]string, len(lines)) // the test each line belongs to, by its range
	owned := make([]bool, len(lines))
	first := make([]bool, len(lines)) // the first line of a range
	for i := range run.Tests {
		t := &run.Tests[i]
		t.Transcript = nil
		if t.Lines == nil {
			continue
		}
		if t.Lines.From < 1 || t.Lines.To > len(lines) || t.Lines.From > t.Lines.To {
			return fmt.Errorf("%s: /tests/%d/transcript lines %d–%d are outside %s", resultsPath, i, t.Lines.From, t.Lines.To, path)
		}
		for n := t.Lines.From - 1; n < t.Lines.To; n++ {
			if owned[n] {
				return fmt.Errorf("%s: /tests/%d/transcript lines %d–%d overlap another test's", resultsPath, i, t.Lines.From, t.Lines.To)
			}
			owner[n], owned[n] = t.ID, true
		}
		first[t.Lines.From-1] = true
	}
	// A line may patch any earlier line, so the file is read whole, in
	// order.
	d := newTranscriptDecoder(path)
	exchanges := make([]engine.Exchange, len(lines))
	for n, l := range lines {
		test := owner[n]
		if !owned[n] {
			var head struct{ Test string }
			_ = json.Unmarshal(l, &head)
			test = head.Test
		}
		ex, err := d.decode(n+1, test, first[n], l)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, resultsPath)
		}
		exchanges[n] = ex
	}
	for i := range run.Tests {
		if t := &run.Tests[i]; t.Lines != nil {
			t.Transcript = slices.Clone(exchanges[t.Lines.From-1 : t.Lines.To])
		}
	}
	return nil
}
