package report_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/report"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func suites(t *testing.T) report.Suites {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	s := kungfu.Suite
	src := declaration.Sources{FS: sifu.Assets, Catalogue: s.Catalogue, Features: s.Features, Vectors: s.Vectors}
	return func(name string) (*runner.Plan, declaration.Sources, error) {
		if name != "kungfu" {
			t.Fatalf("unexpected suite %s", name)
		}
		return plan, src, nil
	}
}

// statement runs the Kungfu memory profile against the reference (with a
// planted fault, when given) and declares it in a new directory; a run
// with a fault is written as results only, since it is not declared.
func statement(t *testing.T, dir string, at time.Time, faults ...kungfuref.Fault) *results.Run {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	target := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		k, err := kungfuinproc.New(kungfuref.WithFaults(faults...))
		return k, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: target, TargetName: "inproc", Profiles: []string{"memory"},
		Harness: results.Harness{Name: "sifu", Version: "test"}, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	s := kungfu.Suite
	src := declaration.Sources{FS: sifu.Assets, Catalogue: s.Catalogue, Features: s.Features, Vectors: s.Vectors}
	if _, err := declaration.Declare(dir, plan, src, run, nil, at); err != nil {
		t.Fatal(err)
	}
	return run
}

// site makes a report of two runs of the reference: one plain, one with a
// planted fault and later, so that the page has failures and a diff.
func site(t *testing.T) (dir string, good, bad *results.Run) {
	t.Helper()
	root := t.TempDir()
	good = statement(t, filepath.Join(root, "good"), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	bad = statement(t, filepath.Join(root, "bad"), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), kungfuref.FaultExistenceLeak)
	dir = filepath.Join(root, "site")
	if _, err := report.Make(context.Background(), dir, []string{filepath.Join(root, "good"), filepath.Join(root, "bad"), filepath.Join(root, "good", "junit.xml")}, suites(t)); err != nil {
		t.Fatal(err)
	}
	return dir, good, bad
}

// TestPageIsWellFormedAndAccessible parses the page as a browser does and
// checks its structure: one h1 and headings that do not skip a level;
// every table with a caption and header cells with a scope; every select
// inside a label; every button with a name; unique ids.
func TestPageIsWellFormedAndAccessible(t *testing.T) {
	dir, _, _ := site(t)
	raw, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	ids, h1, level := map[string]bool{}, 0, 0
	var walk func(n *html.Node, inLabel bool)
	walk = func(n *html.Node, inLabel bool) {
		if n.Type == html.ElementNode {
			attr := map[string]string{}
			for _, a := range n.Attr {
				attr[a.Key] = a.Val
			}
			if id, ok := attr["id"]; ok {
				if ids[id] {
					t.Errorf("id %q is used twice", id)
				}
				ids[id] = true
			}
			switch n.Data {
			case "h1", "h2", "h3", "h4", "h5", "h6":
				l := int(n.Data[1] - '0')
				if l == 1 {
					h1++
				}
				if l > level+1 {
					t.Errorf("<%s> %q follows <h%d>: a heading level is skipped", n.Data, text(n), level)
				}
				level = l
			case "table":
				if first := firstElement(n); first == nil || first.Data != "caption" {
					t.Errorf("a table has no caption")
				}
			case "th":
				if attr["scope"] != "col" && attr["scope"] != "row" {
					t.Errorf("<th> %q has no scope", text(n))
				}
			case "select":
				if !inLabel {
					t.Errorf("a select is not inside a label")
				}
			case "button":
				if strings.TrimSpace(text(n)) == "" && attr["aria-label"] == "" {
					t.Errorf("a button has no name")
				}
			case "label":
				inLabel = true
			case "script", "link", "img", "iframe":
				for _, k := range []string{"src", "href"} {
					if v := attr[k]; strings.Contains(v, "//") {
						t.Errorf("<%s %s=%q>: the page must load nothing from the network", n.Data, k, v)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inLabel)
		}
	}
	walk(doc, false)
	if h1 != 1 {
		t.Errorf("%d h1 headings, want one", h1)
	}
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestReportSkipsWhatIsNotARun: a file that is neither results.json nor
// conformance.json, and a directory without runs, are skipped with the
// reason; nothing to report at all is an error.
func TestReportSkipsWhatIsNotARun(t *testing.T) {
	empty := t.TempDir()
	_, err := report.Make(context.Background(), filepath.Join(t.TempDir(), "site"), []string{empty}, suites(t))
	if err == nil || !strings.Contains(err.Error(), "no run to report") {
		t.Fatalf("got %v", err)
	}
}

// TestStatementWithoutItsTranscript: a statement published as conformance.md
// and results.json only (a peer's, whose transcript holds its own words)
// is shown with the claims its results support, and as not verifiable.
func TestStatementWithoutItsTranscript(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "peer")
	statement(t, dir, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	os.Remove(filepath.Join(dir, "conformance.json"))
	os.Remove(filepath.Join(dir, "transcript.jsonl"))
	site := filepath.Join(root, "site")
	if _, err := report.Make(context.Background(), site, []string{dir}, suites(t)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(site, "index.html"))
	for _, want := range []string{"claims memory", "verify cannot run"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestStatementKeptWithoutItsTranscript: a statement kept without its
// transcript (the references' under conformance/) is shown with its claims
// and as one whose verdicts verify cannot judge again, not as holding.
func TestStatementKeptWithoutItsTranscript(t *testing.T) {
	root := t.TempDir()
	whole, kept := filepath.Join(root, "whole"), filepath.Join(root, "kept")
	statement(t, whole, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	plan, _, _ := suites(t)("kungfu")
	if _, err := declaration.WithoutTranscript(whole, kept, plan.Catalogue, "sifu run --suite kungfu --declare DIR"); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(root, "site")
	if _, err := report.Make(context.Background(), site, []string{kept}, suites(t)); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(site, "index.html"))
	for _, want := range []string{"claims memory", "verify cannot judge its verdicts again: the transcript is not kept"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(string(raw), "verify holds") {
		t.Error("the page says verify holds for a statement whose verdicts it cannot judge again")
	}
}

// TestADirectoryIsReadWithEveryRunUnderIt: a directory of runs is read
// with every run directory under it, a run inside a run's directory too
// (a peer reached two ways: conformance/peers/kcp-agent-0.27.0/cli); only
// the outer one was read.
func TestADirectoryIsReadWithEveryRunUnderIt(t *testing.T) {
	root := t.TempDir()
	peers := filepath.Join(root, "peers")
	statement(t, filepath.Join(peers, "peer"), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	statement(t, filepath.Join(peers, "peer", "cli"), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	site := filepath.Join(root, "site")
	sum, err := report.Make(context.Background(), site, []string{peers}, suites(t))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 2 {
		t.Errorf("the report read %d run(s) under %s, want 2 (peer and peer/cli)", sum.Runs, peers)
	}
}

// TestTranscriptsShowEachExchangeWhole: a transcript leaves out what the
// check says (a step's source and params, the values as expected); the
// page puts them back, so every exchange it shows names its step, and the
// steps that send params show them.
func TestTranscriptsShowEachExchangeWhole(t *testing.T) {
	dir, _, _ := site(t)
	var lines, withParams int
	err := filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, body, ok := strings.Cut(strings.TrimSuffix(string(raw), ");\n"), ", ")
		var shown []map[string]any
		if !ok || json.Unmarshal([]byte(body), &shown) != nil {
			t.Fatalf("%s is not a transcript data file", p)
		}
		for _, l := range shown {
			lines++
			if s, _ := l["source"].(string); s == "" {
				t.Errorf("%s: line %v names no step", p, l["line"])
			}
			if _, ok := l["params"]; ok {
				withParams++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines == 0 || withParams == 0 {
		t.Fatalf("%d line(s) shown, %d with params", lines, withParams)
	}
	raw, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "good", "transcript.jsonl"))
	if strings.Contains(string(raw), `"source"`) || !strings.Contains(string(raw), `"sent":["*"]`) {
		t.Errorf("the transcript repeats the check's sources, or leaves out no params")
	}
}
