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
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/recordjson"
)

// WriteJSON writes the run as JSON with a line per test and per rule
// (recordjson).
func WriteJSON(w io.Writer, r *Run) error {
	out := *r
	out.Rules = make([]Rule, len(r.Rules))
	for i, rule := range r.Rules {
		rule.Evidence = nil // each test names its rules (RebuildEvidence)
		out.Rules[i] = rule
	}
	raw, err := recordjson.Marshal(&out)
	if err != nil {
		return err
	}
	_, err = w.Write(raw)
	return err
}

// ReadJSON reads a run written by WriteJSON.
func ReadJSON(rd io.Reader) (*Run, error) {
	var r Run
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	r.RebuildEvidence()
	return &r, nil
}

// The JUnit XML written here keeps to the elements and attributes of the
// widely used strict schema (Jenkins' junit-10.xsd, which GitLab, GitHub
// reporters and Azure also read): no attributes outside it, a classname per
// check file, and a timestamp.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
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
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
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
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped carries no type: the schema gives <skipped> a message only.
type junitSkipped struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML, so that a CI reading it goes red
// exactly when sifu exits non-zero: failures are <failure>; timeouts,
// harness errors and untestable checks (which fail the run) are <error>;
// warnings (a SHOULD that did not hold), not_applicable checks and failures
// the expectations file excuses are <skipped> with the reason; a check an
// entry names that ended with another status than it expects fails, saying
// so; every stale expectations entry is a failing case of its own.
func WriteJUnit(w io.Writer, r *Run) error {
	suite := junitSuite{
		Name:      "sifu." + r.Suite,
		Time:      seconds(r.DurationMS),
		Timestamp: junitTimestamp(r.StartedAt),
		Properties: []junitProperty{
			{"spec", r.Spec}, {"target", r.Target.Name}, {"profiles", strings.Join(r.Profiles, ",")},
			{"harness", r.Harness.Name + " " + r.Harness.Version},
		},
	}
	if r.Conditions != nil {
		suite.Properties = append(suite.Properties, junitProperty{"conditions", r.Conditions.String()})
	}
	for _, t := range r.Tests {
		c := junitCase{Name: t.ID, Classname: junitClass(r.Suite, t.Source), Time: seconds(t.DurationMS),
			SystemOut: "source: " + t.Source + "\nrules: " + strings.Join(t.Rules, " ")}
		msg := &junitMessage{Message: string(t.Status) + ": " + firstLine(t.Message), Type: string(t.Status), Text: t.Message}
		if t.Unexpected() {
			msg.Message = string(t.Status) + ": " + t.ExpectedNote() + ": " + firstLine(t.Message)
		}
		switch {
		case t.Status == engine.Pass:
		case t.Excused():
			c.Skipped = &junitSkipped{Message: fmt.Sprintf("expected %s (%s): %s", t.Status, t.Expected.Entry, t.Expected.Reason), Text: t.Message}
			suite.Skipped++
		case t.Status == engine.Fail, t.Status == engine.Warn && t.Unexpected():
			c.Failure = msg
			suite.Failures++
		case t.Status == engine.Timeout, t.Status == engine.HarnessError, t.Status == engine.Untestable:
			c.Error = msg
			suite.Errors++
		case t.Status == engine.Warn:
			c.Skipped = &junitSkipped{Message: "warn (a SHOULD that did not hold): " + firstLine(t.Message), Text: t.Message}
			suite.Skipped++
		default: // not_applicable
			c.Skipped = &junitSkipped{Message: msg.Message, Text: t.Message}
			suite.Skipped++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	if ex := r.Expectations; ex != nil {
		for _, e := range ex.Stale {
			suite.Cases = append(suite.Cases, junitCase{Name: "expectations/" + e.Entry, Classname: "sifu." + r.Suite + ".expectations", Time: seconds(0),
				Failure: &junitMessage{Message: ex.StaleMessage(e), Type: "stale", Text: e.Reason}})
			suite.Tests++
			suite.Failures++
		}
	}
	doc := junitSuites{Name: "sifu", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Time: suite.Time, Suites: []junitSuite{suite}}
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

// junitClass groups checks by the file they come from:
// "features/kungfu/agents.feature:11" is sifu.kungfu.agents.
func junitClass(suite, source string) string {
	file, _, _ := strings.Cut(source, "#")
	file, _ = splitSource(file)
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if stem == "" || stem == "." {
		return "sifu." + suite
	}
	return "sifu." + suite + "." + stem
}

// junitTimestamp is the run's start in the schema's form: no zone (UTC).
func junitTimestamp(startedAt string) string {
	at, err := time.Parse(time.RFC3339, startedAt)
	if err != nil {
		return ""
	}
	return at.UTC().Format("2006-01-02T15:04:05")
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
//
// The transcript holds each exchange as the session recorded it (its
// secrets already redacted, engine.Vocabulary): params or an outcome that
// repeat, or differ little from, those of an earlier line are written as the
// JSON Patch (RFC 6902) that makes them from that line's (transcriptEncoder).
func WriteDir(dir string, r *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	var transcript bytes.Buffer
	var enc transcriptEncoder
	line := 0
	for i := range r.Tests {
		t := &r.Tests[i]
		t.Lines = nil
		if len(t.Transcript) == 0 {
			continue
		}
		t.Lines = &LineRange{From: line + 1}
		lines, err := enc.encode(t.ID, t.Transcript)
		if err != nil {
			return fmt.Errorf("transcript of %s: %w", t.ID, err)
		}
		for _, raw := range lines {
			transcript.Write(raw)
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
