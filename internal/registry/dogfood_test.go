package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/recordjson"
	"github.com/sifu-dev/sifu/internal/registry"
	"github.com/sifu-dev/sifu/internal/report"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// update rewrites the references' statements under conformance/ from a
// fresh run (TestCommittedDeclarationsAreCurrent).
var update = flag.Bool("update", false, "rewrite each stale conformance/<suite> statement from a fresh run of its bundled reference")

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if fresh.dir != "" {
		os.RemoveAll(fresh.dir)
	}
	os.Exit(code)
}

// fresh is each suite's whole statement, made once per test binary.
var fresh struct {
	once sync.Once
	dir  string
	err  error
}

// freshStatements runs every suite against its bundled reference and
// declares it, as `sifu run --declare DIR` does (dated by
// SOURCE_DATE_EPOCH when it is set): DIR/<suite> holds each whole
// statement, its results, transcript, JUnit and Cucumber files. It is made
// once for the tests that need it.
func freshStatements(t *testing.T) string {
	t.Helper()
	fresh.once.Do(func() {
		at, reproducible, err := results.SourceDateEpoch()
		if err != nil {
			fresh.err = err
			return
		}
		if fresh.dir, fresh.err = os.MkdirTemp("", "sifu-fresh-*"); fresh.err != nil {
			return
		}
		for _, name := range registry.Names() {
			s, err := registry.Lookup(name)
			if err != nil {
				fresh.err = err
				return
			}
			res, err := registry.Run(context.Background(), registry.RunRequest{Suite: s, Declare: filepath.Join(fresh.dir, name),
				Timeout: 30 * time.Second, Repeat: 1, At: at, Reproducible: reproducible})
			if err != nil {
				fresh.err = fmt.Errorf("suite %s: %w", name, err)
				return
			}
			if res.Run.Summary.Failed() {
				fresh.err = fmt.Errorf("suite %s: the bundled reference does not pass its own suite: %s", name, results.SummaryLine(res.Run.Summary))
				return
			}
		}
	})
	if fresh.err != nil {
		t.Fatal(fresh.err)
	}
	return fresh.dir
}

// substance is what a statement kept without its transcript says, without
// what changes from run to run: its date, the harness's commit, and so the
// hash of results.json. Its claims, unmet rules, every rule's verdict and
// the checks behind it with their status, and the suite files' hashes stay.
func substance(d *declaration.Declaration) string {
	c := *d
	c.Date = ""
	c.Harness.Commit = ""
	c.Evidence.Results = declaration.Digest{}
	raw, _ := json.MarshalIndent(c, "", " ")
	return string(raw)
}

// resultsSubstance is what results.json kept without its transcript says,
// without its start and the harness's commit: every check with its status
// and message, the summary and every rule's fold stay.
func resultsSubstance(r *results.Run) string {
	c := *r
	c.StartedAt, c.DurationMS, c.Harness.Commit = "", 0, ""
	raw, _ := json.MarshalIndent(c, "", " ")
	return string(raw)
}

// staleness names what a fresh run says otherwise than the committed one:
// each check added, removed or with another status, each rule with another
// verdict, the claims; or else the first line where their substance
// differs.
func staleness(old, now *results.Run, oldD, nowD *declaration.Declaration) []string {
	var out []string
	checks := map[string]results.Test{}
	for _, c := range old.Tests {
		checks[c.ID] = c
	}
	for _, c := range now.Tests {
		was, ok := checks[c.ID]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("check %s is new (%s)", c.ID, c.Status))
		case was.Status != c.Status:
			out = append(out, fmt.Sprintf("check %s: committed %s, now %s", c.ID, was.Status, c.Status))
		case !slices.Equal(was.Rules, c.Rules):
			out = append(out, fmt.Sprintf("check %s: evidences rules %v, committed %v", c.ID, c.Rules, was.Rules))
		}
		delete(checks, c.ID)
	}
	for _, id := range slices.Sorted(maps.Keys(checks)) {
		out = append(out, fmt.Sprintf("check %s is gone", id))
	}
	rules := map[string]results.Rule{}
	for _, r := range old.Rules {
		rules[r.ID] = r
	}
	for _, r := range now.Rules {
		switch was, ok := rules[r.ID]; {
		case !ok || was.Status != r.Status:
			out = append(out, fmt.Sprintf("rule %s: committed %q, now %s", r.ID, was.Status, r.Status))
		case !slices.Equal(was.Evidence, r.Evidence):
			out = append(out, fmt.Sprintf("rule %s: folded from checks %v, committed %v", r.ID, r.Evidence, was.Evidence))
		}
	}
	if !slices.Equal(oldD.Claimed, nowD.Claimed) {
		out = append(out, fmt.Sprintf("profiles claimed: committed %v, now %v", oldD.Claimed, nowD.Claimed))
	}
	if len(out) == 0 {
		for _, pair := range [][2]string{{substance(oldD), substance(nowD)}, {resultsSubstance(old), resultsSubstance(now)}} {
			a, b := strings.Split(pair[0], "\n"), strings.Split(pair[1], "\n")
			for i := range max(len(a), len(b)) {
				if i >= len(a) || i >= len(b) || a[i] != b[i] {
					out = append(out, fmt.Sprintf("first difference: committed %q, now %q", at(a, i), at(b, i)))
					break
				}
			}
		}
	}
	return out
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return strings.TrimSpace(lines[i])
	}
	return "(end)"
}

// TestCommittedDeclarationsAreCurrent: each bundled reference's statement
// in conformance/<suite> is kept without its transcript (conformance.json,
// conformance.md, results.json) and says what a fresh run says. The fresh
// run's whole statement, transcript included, verifies — every verdict
// judged again from its transcript; the committed one holds as far as a
// statement without its transcript can (hashes, claims, conformance.md)
// and has the same substance as the fresh one kept so: every check and its
// status, every rule's fold and its checks, the claims, the suite files'
// hashes. Rewrite the stale ones with:
//
//	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go test ./internal/registry -run TestCommittedDeclarationsAreCurrent -update
func TestCommittedDeclarationsAreCurrent(t *testing.T) {
	freshDir := freshStatements(t)
	for _, name := range registry.Names() {
		t.Run(name, func(t *testing.T) {
			regenerate := "rewrite it with: SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go test ./internal/registry -run TestCommittedDeclarationsAreCurrent -update"
			s, err := registry.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan()
			if err != nil {
				t.Fatal(err)
			}
			whole := filepath.Join(freshDir, name)
			if problems, err := declaration.Verify(context.Background(), filepath.Join(whole, "conformance.json"), plan, s.Sources(), declaration.VerifyOptions{}); err != nil || len(problems) > 0 {
				t.Fatalf("the fresh statement of the bundled reference does not verify: %v %v", err, problems)
			}
			kept := filepath.Join(t.TempDir(), name)
			nowD, err := declaration.WithoutTranscript(whole, kept, plan.Catalogue, "sifu run --suite "+name+" --declare DIR")
			if err != nil {
				t.Fatal(err)
			}
			now, _, err := declaration.ReadResults(filepath.Join(kept, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			committedDir := filepath.Join("..", "..", "conformance", name)
			stale := func() []string {
				committed := filepath.Join(committedDir, "conformance.json")
				oldD, err := declaration.Read(committed)
				if err != nil {
					return []string{err.Error()}
				}
				old, _, err := declaration.ReadResults(filepath.Join(committedDir, "results.json"))
				if err != nil {
					return []string{err.Error()}
				}
				// It holds, but for its verdicts, which a statement without its
				// transcript cannot have judged again, and says what the
				// fresh one says.
				problems, err := declaration.Verify(context.Background(), committed, plan, s.Sources(), declaration.VerifyOptions{})
				var notKept *declaration.TranscriptNotKeptError
				switch {
				case errors.As(err, &notKept):
				case err == nil && len(problems) == 0:
					problems = []string{"it is a whole statement, with its transcript; a reference's is kept without it"}
				case err != nil:
					problems = append(problems, err.Error())
				}
				if substance(oldD) != substance(nowD) || resultsSubstance(old) != resultsSubstance(now) {
					problems = append(problems, staleness(old, now, oldD, nowD)...)
				}
				return append(problems, layoutProblems(committedDir, oldD, old)...)
			}()
			for _, f := range []string{"transcript.jsonl", "junit.xml", "cucumber.json"} {
				if _, err := os.Stat(filepath.Join(committedDir, f)); err == nil {
					if *update {
						os.Remove(filepath.Join(committedDir, f))
						continue
					}
					stale = append(stale, fmt.Sprintf("conformance/%s/%s is there: the references' evidence is built (.ci/run), not kept", name, f))
				}
			}
			if len(stale) == 0 {
				return
			}
			if *update {
				if _, err := declaration.WithoutTranscript(whole, committedDir, plan.Catalogue, "sifu run --suite "+name+" --declare DIR"); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote conformance/%s: %s", name, strings.Join(stale, "; "))
				return
			}
			t.Errorf("conformance/%s is stale: a fresh run declares something else; %s", name, regenerate)
			for _, p := range stale {
				t.Errorf("conformance/%s: %s", name, p)
			}
		})
	}
}

// layoutProblems says which of a committed statement's files are not laid
// out as sifu writes them now (recordjson): a line per test and per rule.
func layoutProblems(dir string, d *declaration.Declaration, run *results.Run) []string {
	var problems []string
	var rs bytes.Buffer
	if err := results.WriteJSON(&rs, run); err != nil {
		return []string{err.Error()}
	}
	ds, err := recordjson.Marshal(d)
	if err != nil {
		return []string{err.Error()}
	}
	for f, want := range map[string][]byte{"results.json": rs.Bytes(), "conformance.json": ds} {
		if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || !bytes.Equal(got, want) {
			problems = append(problems, f+" is not laid out as sifu writes it now")
		}
	}
	slices.Sort(problems)
	return problems
}

// TestCommittedPeerStatementsVerify: every real peer's directory under
// conformance/peers holds a statement with its transcript, and it
// verifies: hashes, every verdict judged again from the transcript,
// expectations applied again, claims — against this harness's suite files.
// A change of a suite's checks makes a peer's statement stale: the failure
// then names, peer by peer, every check whose verdict the change would
// alter (judged again from the peer's transcript with the checks as they
// are now), so a reviewer sees what a change does to the real peers before
// their verdicts are taken again (each peer's README says how).
func TestCommittedPeerStatementsVerify(t *testing.T) {
	root := filepath.Join("..", "..", "conformance", "peers")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var peers []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		// A peer may hold one statement per way it was reached (kcp-agent:
		// its runner, and its command line under cli/).
		err := filepath.WalkDir(filepath.Join(root, e.Name()), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "results.json" {
				peers = append(peers, filepath.Dir(path))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(peers) == 0 {
		t.Fatal("no peer verdict found under conformance/peers")
	}
	for _, dir := range peers {
		name, _ := filepath.Rel(root, dir)
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			for _, f := range []string{"conformance.json", "conformance.md", "transcript.jsonl"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Fatalf("peer %s has no %s: a peer's verdict is kept with its statement and transcript, so that it can be judged again", name, f)
				}
			}
			for _, f := range []string{"junit.xml", "cucumber.json"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("peer %s holds %s: it says what results.json says, so it is not kept (conformance/peers/README.md); delete it", name, f)
				}
			}
			statement := filepath.Join(dir, "conformance.json")
			d, problems, err := registry.Verify(context.Background(), statement, declaration.VerifyOptions{})
			if err != nil {
				t.Fatalf("peer %s: %v", name, err)
			}
			if run, _, err := declaration.ReadResults(filepath.Join(dir, "results.json")); err != nil {
				problems = append(problems, err.Error())
			} else {
				problems = append(problems, layoutProblems(dir, d, run)...)
			}
			if len(problems) == 0 {
				return
			}
			t.Errorf("peer %s: its statement does not verify: %v", name, problems)
			for _, p := range changedVerdicts(t, d.Suite, filepath.Join(dir, "results.json")) {
				t.Errorf("peer %s: with the checks as they are now, %s", name, p)
			}
			t.Logf("take peer %s's verdict again (its README says how)", name)
		})
	}
}

// changedVerdicts judges a run again from its transcript with the suite's
// checks as they are now, whatever suite files the run was made with: the
// checks whose verdict a change of the suite would alter, and the checks
// the run lacks.
func changedVerdicts(t *testing.T, suite, resultsPath string) []runner.Problem {
	t.Helper()
	plan, _, err := registry.Suites(suite)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := declaration.ReadResults(resultsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.LoadTranscript(resultsPath, run); err != nil {
		t.Fatal(err)
	}
	return plan.Rejudge(context.Background(), run)
}

// TestTheReportShowsEveryVerdict: the report .ci/run publishes — of the
// references' fresh statements and the real peers' committed verdicts,
// every run directory under conformance/peers — shows every run, every
// statement as one that holds, every check of every run with its status
// (with its transcript a click away when it has one), and every rule's
// verdict in its cell of the matrix; every link and script the page names
// resolves within the site, and every transcript file is one a check names.
// (TestReportInABrowser, in internal/report, uses such a page in Chromium.)
func TestTheReportShowsEveryVerdict(t *testing.T) {
	freshDir := freshStatements(t)
	peers := filepath.Join("..", "..", "conformance", "peers")
	var inputs []string
	for _, name := range registry.Names() {
		inputs = append(inputs, filepath.Join(freshDir, name))
	}
	want := map[string]*results.Run{} // each run by its directory
	for _, root := range append(slices.Clone(inputs), peers) {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "results.json" {
				run, _, err := declaration.ReadResults(p)
				if err != nil {
					t.Fatal(err)
				}
				want[filepath.ToSlash(filepath.Dir(p))] = run
			}
			return err
		})
	}
	site := t.TempDir()
	sum, err := report.Make(context.Background(), site, append(inputs, peers), registry.Suites)
	if err != nil {
		t.Fatalf("sifu report: %v", err)
	}
	if sum.Runs != len(want) || len(sum.Skipped) > 0 {
		t.Fatalf("the report holds %d run(s) and skipped %v; there are %d runs: %v", sum.Runs, sum.Skipped, len(want), slices.Sorted(maps.Keys(want)))
	}
	raw, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var (
		ids   = map[string]bool{}
		links []string
		all   func(*html.Node, func(*html.Node))
	)
	all = func(n *html.Node, f func(*html.Node)) {
		f(n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			all(c, f)
		}
	}
	all(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if id := attr(n, "id"); id != "" {
			ids[id] = true
		}
		for _, k := range []string{"href", "src"} {
			if v := attr(n, k); v != "" {
				links = append(links, v)
			}
		}
	})

	// Every link and script: an anchor of the page, a file of the site, or
	// a page elsewhere (a spec's section).
	for _, l := range links {
		switch u, err := url.Parse(l); {
		case err != nil:
			t.Errorf("link %q: %v", l, err)
		case u.Scheme == "https" || u.Scheme == "http":
		case u.Scheme != "":
			t.Errorf("link %q: a scheme the page has no use for", l)
		case u.Path == "" && u.Fragment != "":
			if !ids[u.Fragment] {
				t.Errorf("link %q: the page has no element with id %q", l, u.Fragment)
			}
		default:
			if _, err := os.Stat(filepath.Join(site, filepath.FromSlash(u.Path))); err != nil {
				t.Errorf("link %q: %v", l, err)
			}
		}
	}

	seen := map[string]bool{}
	files := map[string]bool{}
	for _, section := range find(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "data-suite") != "" }) {
		suite := attr(section, "data-suite")
		// The implementations, by index: each run's directory and verdict.
		dirs := map[string]string{}
		for _, row := range find(section, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-impl") != "" }) {
			code := find(row, func(n *html.Node) bool { return n.Data == "code" })
			if len(code) == 0 {
				t.Fatalf("suite %s: implementation %s names no directory", suite, attr(row, "data-impl"))
			}
			dir := text(code[0])
			dirs[attr(row, "data-impl")] = dir
			if !strings.Contains(text(row), "verify holds") {
				t.Errorf("suite %s: the statement in %s is not shown as one that holds: %s", suite, dir, strings.Join(strings.Fields(text(row)), " "))
			}
		}
		// What the page's script shows of each check.
		var data struct {
			Impls []struct {
				Checks []struct {
					ID, Status, Lines, File string
				}
				Rules map[string][]int
			}
		}
		prefix := "sifuData[\"" + suite + "\"] = "
		for _, s := range find(section, func(n *html.Node) bool { return n.Data == "script" }) {
			if js := text(s); strings.HasPrefix(js, prefix) {
				if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(js, prefix), ";")), &data); err != nil {
					t.Fatalf("suite %s: the page's data: %v", suite, err)
				}
			}
		}
		if len(data.Impls) != len(dirs) {
			t.Fatalf("suite %s: the page's data holds %d implementation(s), its table %d", suite, len(data.Impls), len(dirs))
		}
		// The matrix: each rule's cell per implementation.
		cells := map[string]string{} // "rule impl" → status
		for _, row := range find(section, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-rule") != "" }) {
			for _, b := range find(row, func(n *html.Node) bool { return n.Data == "button" && attr(n, "data-impl") != "" }) {
				cells[attr(row, "data-rule")+" "+attr(b, "data-impl")] = strings.TrimPrefix(strings.Fields(attr(b.Parent, "class"))[1], "st-")
			}
		}
		for i, impl := range data.Impls {
			dir := dirs[strconv.Itoa(i)]
			run := want[dir]
			if run == nil || run.Suite != suite {
				t.Errorf("suite %s: implementation %d is %s, which is no run of the suite", suite, i, dir)
				continue
			}
			seen[dir] = true
			if len(impl.Checks) != len(run.Tests) {
				t.Errorf("%s: the page shows %d check(s), the run has %d", dir, len(impl.Checks), len(run.Tests))
				continue
			}
			for k, c := range run.Tests {
				got := impl.Checks[k]
				if got.ID != c.ID || got.Status != string(c.Status) {
					t.Errorf("%s: check %d is shown as %s %s, the run has %s %s", dir, k, got.ID, got.Status, c.ID, c.Status)
				}
				if c.Lines != nil && got.File == "" {
					t.Errorf("%s: check %s has a transcript and the page none", dir, c.ID)
				}
				if got.File != "" {
					files[got.File] = true
					js, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(got.File)))
					key, _ := json.Marshal(got.File)
					if err != nil || !bytes.HasPrefix(js, []byte("sifuTranscript("+string(key)+", ")) {
						t.Errorf("%s: the transcript of check %s, %s, is not there to load: %v", dir, c.ID, got.File, err)
					}
				}
			}
			for _, r := range run.Rules {
				if got := cells[r.ID+" "+strconv.Itoa(i)]; got != r.Status {
					t.Errorf("%s: rule %s is shown %q, the run folds %s", dir, r.ID, got, r.Status)
				}
				var shown []string
				for _, k := range impl.Rules[r.ID] {
					shown = append(shown, impl.Checks[k].ID)
				}
				if !slices.Equal(shown, r.Evidence) && (len(shown) > 0 || len(r.Evidence) > 0) {
					t.Errorf("%s: rule %s opens checks %v, the run's evidence is %v", dir, r.ID, shown, r.Evidence)
				}
			}
		}
	}
	for dir := range want {
		if !seen[dir] {
			t.Errorf("the run in %s is not on the page", dir)
		}
	}
	filepath.WalkDir(filepath.Join(site, "data"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(site, p)
			if !files[filepath.ToSlash(rel)] {
				t.Errorf("%s is a transcript no check on the page names", rel)
			}
		}
		return err
	})
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// find is every element under n that match accepts.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
		out = append(out, find(c, match)...)
	}
	return out
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
