package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sifu-dev/sifu/engine"
)

// WriteJSON writes the run as indented JSON.
func WriteJSON(w io.Writer, r *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadJSON reads a run written by WriteJSON.
func ReadJSON(rd io.Reader) (*Run, error) {
	var r Run
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML. Failures and warnings are
// <failure>; timeouts and harness errors are <error>; not_applicable and
// untestable are <skipped> with their status named, never errors.
func WriteJUnit(w io.Writer, r *Run) error {
	suite := junitSuite{
		Name: "sifu." + r.Suite,
		Time: seconds(r.DurationMS),
		Properties: []junitProperty{
			{"spec", r.Spec}, {"target", r.Target.Name}, {"profiles", strings.Join(r.Profiles, ",")},
			{"harness", r.Harness.Name + " " + r.Harness.Version},
		},
	}
	for _, t := range r.Tests {
		c := junitCase{Name: t.ID, Classname: "sifu." + r.Suite + "." + t.Kind, File: t.Source, Time: seconds(t.DurationMS),
			SystemOut: "rules: " + strings.Join(t.Rules, " ")}
		msg := &junitMessage{Message: string(t.Status) + ": " + firstLine(t.Message), Type: string(t.Status), Text: t.Message}
		switch t.Status {
		case engine.Fail, engine.Warn:
			c.Failure = msg
			suite.Failures++
		case engine.Timeout, engine.HarnessError:
			c.Error = msg
			suite.Errors++
		case engine.NotApplicable, engine.Untestable:
			c.Skipped = msg
			suite.Skipped++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: "sifu", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// WriteDir writes transcript.jsonl, results.json (which records the
// transcript's SHA-256 and each test's line range in it) and junit.xml into
// dir, creating it. Files are written to a temporary name first so an
// interrupted run never leaves a truncated report.
func WriteDir(dir string, r *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var transcript bytes.Buffer
	line := 0
	for i := range r.Tests {
		t := &r.Tests[i]
		t.Lines = nil
		if len(t.Transcript) == 0 {
			continue
		}
		t.Lines = &LineRange{From: line + 1}
		for _, ex := range t.Transcript {
			raw, err := json.Marshal(transcriptLine{Test: t.ID, Exchange: ex})
			if err != nil {
				return fmt.Errorf("transcript of %s: %w", t.ID, err)
			}
			transcript.Write(Redact(raw))
			transcript.WriteByte('\n')
			line++
		}
		t.Lines.To = line
	}
	sum := sha256.Sum256(transcript.Bytes())
	r.Transcript = &TranscriptFile{File: "transcript.jsonl", SHA256: hex.EncodeToString(sum[:]), Lines: line}
	if err := writeFile(filepath.Join(dir, "transcript.jsonl"), func(w io.Writer) error {
		_, err := w.Write(transcript.Bytes())
		return err
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "results.json"), func(w io.Writer) error { return WriteJSON(w, r) }); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "junit.xml"), func(w io.Writer) error { return WriteJUnit(w, r) })
}

// transcriptLine is one exchange of one test in transcript.jsonl.
type transcriptLine struct {
	Test string `json:"test"`
	engine.Exchange
}

// secretKeys are JSON keys whose string values never reach a report.
var secretKeys = regexp.MustCompile(`"(secret|credential|token|password|api_key)":"[^"]*"`)

// Redact blanks the values of secret-bearing keys in a JSON document.
func Redact(raw []byte) []byte {
	return secretKeys.ReplaceAll(raw, []byte(`"$1":"[redacted]"`))
}

func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sifu-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
