package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/sifu-dev/sifu/internal/inputfile"
)

// LoadTranscript reads each test's exchanges back from the transcript file
// beside a results.json, after checking the file against the run's
// /transcript/sha256. A line that is not an exchange is an error naming it;
// an outcome written as a patch (transcriptLine) is rebuilt from the line it
// patches.
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
	for i := range run.Tests {
		t := &run.Tests[i]
		t.Transcript = nil
		if t.Lines == nil {
			continue
		}
		if t.Lines.From < 1 || t.Lines.To > len(lines) || t.Lines.From > t.Lines.To {
			return fmt.Errorf("%s: /tests/%d/transcript lines %d–%d are outside %s", resultsPath, i, t.Lines.From, t.Lines.To, path)
		}
		tr, err := decodeTranscript(path, t.ID, lines[t.Lines.From-1:t.Lines.To], t.Lines.From)
		if err != nil {
			return fmt.Errorf("%w (/tests/%d of %s)", err, i, resultsPath)
		}
		t.Transcript = tr
	}
	return nil
}
