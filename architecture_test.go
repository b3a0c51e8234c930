package sifu_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The import rules of docs/architecture.md, checked on `go list`.

const module = "github.com/sifu-dev/sifu"

type pkg struct {
	ImportPath  string
	Name        string
	Dir         string
	GoFiles     []string
	Imports     []string
	Deps        []string
	TestImports []string
}

// rel is a package's path inside the module ("." for the root).
func (p pkg) rel() string {
	if p.ImportPath == module {
		return "."
	}
	return strings.TrimPrefix(p.ImportPath, module+"/")
}

var (
	listOnce sync.Once
	listed   []byte
	listErr  error
)

func packages(t *testing.T) []pkg {
	t.Helper()
	listOnce.Do(func() { listed, listErr = exec.Command("go", "list", "-json", "./...").Output() })
	out, err := listed, listErr
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var all []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	if len(all) < 30 {
		t.Fatalf("go list found only %d packages", len(all))
	}
	return all
}

// ours keeps the module's own packages of a list, by their path inside it.
func ours(imports []string) []string {
	var out []string
	for _, i := range imports {
		switch {
		case i == module:
			out = append(out, ".")
		case strings.HasPrefix(i, module+"/"):
			out = append(out, strings.TrimPrefix(i, module+"/"))
		}
	}
	return out
}

func under(path string, dirs ...string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// suiteOf names the suite a suite-specific package belongs to, or "".
func suiteOf(path string) string {
	if path == "internal/attack/faultproxy" {
		return "kungfu" // transport faults for Kungfu targets
	}
	if !under(path, "suite", "steps", "reference", "adapters", "internal/attack") {
		return ""
	}
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if under(path, "reference") && len(parts) > 2 {
		last = parts[1] // reference/kungfuref/sqlitestore
	}
	for _, s := range []string{"kungfu", "kcp", "acp", "agentkit"} {
		if strings.HasPrefix(last, s) {
			return s
		}
	}
	return ""
}

// core is the machinery that knows no suite.
var core = []string{"internal/engine", "internal/runner", "internal/results", "internal/declaration", "internal/report",
	"internal/catalogue", "internal/schema", "internal/knownfail", "internal/attack/fuzz", "internal/attack/linear",
	"internal/attack/selftest", "internal/progress", "internal/proc", "internal/ndjson", "internal/netmsg", "internal/inputfile", "internal/quickstart", "internal/interrupt", "internal/recordjson"}

// transports are the packages that reach an implementation.
var transports = []string{"net", "net/http", "net/http/httptest", "net/http/httputil", "os/exec", "github.com/go-resty/resty/v2"}

func TestTheReferencesKnowNothingOfTheHarness(t *testing.T) {
	for _, p := range packages(t) {
		if !under(p.rel(), "reference") {
			continue
		}
		for _, i := range ours(append(p.Imports, p.TestImports...)) {
			if !under(i, "reference") {
				t.Errorf("%s imports %s: a reference implementation knows nothing of the harness", p.rel(), i)
			}
		}
	}
}

func TestOnlyAdaptersKnowATransport(t *testing.T) {
	for _, p := range packages(t) {
		if under(p.rel(), "adapters", "reference", "internal/proc", "internal/ndjson") {
			continue
		}
		for _, i := range p.Imports {
			if slices.Contains(transports, i) {
				t.Errorf("%s imports %s: only adapters (and internal/proc, internal/ndjson under them) reach an implementation", p.rel(), i)
			}
		}
	}
}

func TestTheCoreKnowsNoSuite(t *testing.T) {
	for _, p := range packages(t) {
		if !under(p.rel(), core...) {
			continue
		}
		for _, i := range ours(p.Deps) {
			if suiteOf(i) != "" || under(i, "suite", "steps", "reference", "adapters", "internal/registry", "cmd") {
				t.Errorf("%s depends on %s: the core knows no suite", p.rel(), i)
			}
		}
	}
}

func TestEachSuitesPackagesKeepToTheirSuite(t *testing.T) {
	for _, p := range packages(t) {
		s := suiteOf(p.rel())
		if s == "" {
			continue
		}
		for _, i := range ours(p.Imports) {
			if other := suiteOf(i); other != "" && other != s {
				t.Errorf("%s (suite %s) imports %s (suite %s): only internal/registry brings suites together", p.rel(), s, i, other)
			}
			switch {
			case under(p.rel(), "suite") && under(i, "adapters", "reference", "internal/registry"):
				t.Errorf("%s imports %s: a suite's seam knows no adapter and no reference", p.rel(), i)
			case under(p.rel(), "steps") && !under(i, "internal/engine", "steps"):
				t.Errorf("%s imports %s: step definitions only compile steps", p.rel(), i)
			}
		}
	}
}

func TestPackageNamesDoNotCollide(t *testing.T) {
	std, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}}", "std").Output()
	if err != nil {
		t.Fatal(err)
	}
	stdNames := map[string]bool{} // of the packages a program may import
	for _, line := range strings.Split(strings.TrimSpace(string(std)), "\n") {
		path, name, _ := strings.Cut(line, " ")
		if !strings.Contains(path, "internal") && !strings.HasPrefix(path, "vendor/") {
			stdNames[name] = true
		}
	}
	seen := map[string]string{}
	for _, p := range packages(t) {
		if p.Name == "main" {
			continue
		}
		if prev, dup := seen[p.Name]; dup {
			t.Errorf("%s and %s are both package %s", prev, p.rel(), p.Name)
		}
		seen[p.Name] = p.rel()
		if stdNames[p.Name] && p.Name != "sifu" {
			t.Errorf("%s is package %s, as a standard library package is", p.rel(), p.Name)
		}
	}
}

// TestUnixOnlyCallsAreBuildConstrained: process groups and file locks are
// Unix calls; a file that makes them outside internal/proc is built on
// Unix only, so that sifu builds for Windows (.ci/run builds it).
func TestUnixOnlyCallsAreBuildConstrained(t *testing.T) {
	for _, p := range packages(t) {
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src := string(raw)
			if !strings.Contains(src, "syscall.Kill(") && !strings.Contains(src, "Setpgid") && !strings.Contains(src, "syscall.Flock(") {
				continue
			}
			if !unixOnly(f, src) {
				t.Errorf("%s calls a Unix-only syscall without a unix build constraint", filepath.Join(p.rel(), f))
			}
		}
	}
}

func unixOnly(name, src string) bool {
	for _, suffix := range []string{"_unix.go", "_linux.go", "_darwin.go"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if c, ok := strings.CutPrefix(line, "//go:build "); ok {
			return c == "unix" || c == "linux" || c == "darwin" || strings.Contains(c, "unix &&")
		}
	}
	return false
}

// TestFilesAreReadThroughInputfile: the harness reads the files it is given
// through internal/inputfile only (regular files, bounded, never blocking
// on a pipe); the references, which know nothing of the harness, read as
// they like.
func TestFilesAreReadThroughInputfile(t *testing.T) {
	for _, p := range packages(t) {
		if under(p.rel(), "reference", "internal/inputfile") {
			continue
		}
		for _, f := range p.GoFiles {
			raw, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []string{"os.ReadFile(", "fs.ReadFile(", "ioutil.ReadFile(", "os.Open("} {
				if strings.Contains(string(raw), call) {
					t.Errorf("%s calls %s: read the files sifu is given with internal/inputfile", filepath.Join(p.rel(), f), strings.TrimSuffix(call, "("))
				}
			}
		}
	}
}

// TestTheDocumentNamesEveryDirectory: docs/architecture.md names every
// package directory of the tree.
func TestTheDocumentNamesEveryDirectory(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packages(t) {
		if p.rel() == "." {
			continue
		}
		if !strings.Contains(string(doc), "`"+p.rel()+"`") && !strings.Contains(string(doc), "`"+p.rel()+"/`") {
			t.Errorf("docs/architecture.md does not name %s", p.rel())
		}
	}
}

// TestTheCommandLineIsThin: cmd/sifu is flags, printing and exit codes, at
// most thinCommandLine lines of code outside its tests (blank and comment
// lines not counted); the rest belongs to internal/registry.
func TestTheCommandLineIsThin(t *testing.T) {
	const thinCommandLine = 1000
	files, err := filepath.Glob("cmd/sifu/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in cmd/sifu: %v", err)
	}
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "//") {
				lines++
			}
		}
	}
	if lines > thinCommandLine {
		t.Errorf("cmd/sifu holds %d lines of code outside its tests, more than %d: move what is not flags, printing and exit codes into internal/registry", lines, thinCommandLine)
	}
}
