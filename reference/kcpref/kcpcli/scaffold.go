package kcpcli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// The publisher tools: init (a draft knowledge.yaml from a directory or an
// llms.txt) and watch --once (one validation and planning cycle).

// switches takes the named switches out of args and says which were there.
func switches(args []string, names ...string) (rest []string, on map[string]bool) {
	on = map[string]bool{}
	for _, a := range args {
		if slices.Contains(names, a) {
			on[a] = true
			continue
		}
		rest = append(rest, a)
	}
	return rest, on
}

// Init is `init [dir] [--publisher name] [--from-llms-txt path] [--dry-run] [--force]`.
func (c CLI) Init(args []string) int {
	rest, on := switches(args, "--dry-run", "--force", "--allow-private-hosts")
	a, code, done := c.commandArgs(rest, "publisher", "from-llms-txt", "attest")
	if done {
		return code
	}
	dir := "."
	if len(a.positionals) > 0 {
		dir = a.positionals[0]
	}
	dryRun, force := on["--dry-run"], on["--force"]
	publisher, ok := a.values["publisher"]
	if !ok {
		publisher = a.values["attest"]
	}
	target := filepath.Join(dir, "knowledge.yaml")
	_, statErr := os.Stat(target)
	exists := statErr == nil && !kcpref.HasFault(c.Faults, kcpref.FaultInitOverwrites)
	write := !dryRun || kcpref.HasFault(c.Faults, kcpref.FaultInitDryRunWrites)
	if from, ok := a.values["from-llms-txt"]; ok && from != "" {
		if !dryRun && exists && !force {
			return c.fail(kcpref.ExitUsage, fmt.Sprintf("%s already exists — pass --force to replace it, or --dry-run to preview.", target))
		}
		var text string
		if regexp.MustCompile(`(?i)^https?://`).MatchString(from) {
			g := discoverGuard{allowPrivate: on["--allow-private-hosts"], client: c.discoverClient()}
			var err error
			if text, err = g.fetch(from); err != nil {
				return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
			}
		} else {
			raw, err := os.ReadFile(from)
			if err != nil {
				return c.fail(kcpref.ExitFailure, "kcp-agent: "+nodeError(err, from))
			}
			text = string(raw)
		}
		yaml, err := kcpref.DraftFromLlmsTxt(kcpref.ParseLlmsTxt(text), publisher, c.Faults)
		if err != nil {
			return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
		}
		if write {
			if err := os.WriteFile(target, []byte(yaml), 0o644); err != nil {
				return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
			}
		}
		if dryRun {
			fmt.Fprintln(c.Stdout, yaml)
			return kcpref.ExitOK
		}
		fmt.Fprintf(c.Stdout, "knowledge.yaml drafted from %s → %s\n", from, target)
		fmt.Fprintln(c.Stdout, "Review the TODOs: llms.txt cannot express audiences, validity, signing, payment or federation.")
		return kcpref.ExitOK
	}
	if exists && !force {
		return c.fail(kcpref.ExitFailure, fmt.Sprintf("kcp-agent: knowledge.yaml already exists in %s — use --force to overwrite", dir))
	}
	project, version := detectProject(dir)
	units := draftUnits(dir, project)
	skipped := 0
	if len(units) > 30 {
		units, skipped = units[:30], len(units)-30
	}
	yaml := kcpref.DraftFromDirectory(project, version, kcpref.DefaultAsOf(c.now()), publisher, units, skipped)
	m, err := kcpref.ParseManifest([]byte(yaml))
	if err == nil {
		m.Source = target
		v := kcpref.Validate(m, kcpref.ValidateOptions{Source: target, Raw: []byte(yaml), Files: os.DirFS(dir)})
		var errs []string
		for _, f := range v.Findings {
			if f.Level == kcpref.LevelError {
				errs = append(errs, fmt.Sprintf("  %s: %s", f.Where, f.Message))
			}
		}
		if len(errs) > 0 {
			err = errors.New("Generated manifest has validation errors:\n" + strings.Join(errs, "\n"))
		}
	}
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	if write {
		if err := os.WriteFile(target, []byte(yaml), 0o644); err != nil {
			return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
		}
	}
	if dryRun {
		fmt.Fprintln(c.Stdout, yaml)
	} else {
		fmt.Fprintf(c.Stdout, "knowledge.yaml written to %s\n", dir)
	}
	return kcpref.ExitOK
}

var markdownH1 = regexp.MustCompile(`(?m)^#[ \t\n\v\f\r]+(.+)`)

// The directories init scans, and the index files that stand for a
// source directory.
var (
	sourceDirs = []string{"src", "lib", "pkg", "app"}
	indexFiles = []string{"index.ts", "index.js", "index.mjs", "index.mts", "mod.ts", "mod.js", "mod.rs", "lib.rs", "main.rs", "main.go", "main.py", "__init__.py"}
	sourceExts = []string{".ts", ".js", ".mjs", ".mts", ".py", ".rs", ".go", ".java", ".kt", ".rb", ".cs", ".c", ".cpp", ".h"}
	exampleExt = []string{".ts", ".js", ".py", ".rs", ".go", ".java", ".md", ".sh"}
	testFile   = regexp.MustCompile(`\.(test|spec)\.(ts|js|py|rs|go|java)$`)
	developers = []string{"agent", "developer"}
)

// detectProject is the project's name and version: package.json,
// Cargo.toml, pom.xml or go.mod, else the directory's name and 0.1.0.
func detectProject(dir string) (name, version string) {
	base := filepath.Base(dir)
	read := func(f string) (string, bool) {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		return string(raw), err == nil
	}
	if text, ok := read("package.json"); ok {
		if doc, err := kcpref.ParseJSON([]byte(text)); err == nil {
			name, version = base, "0.1.0"
			if v, ok := kcpref.JSONMember(doc, "name"); ok && v != nil {
				name = kcpref.JSString(v)
			}
			if v, ok := kcpref.JSONMember(doc, "version"); ok && v != nil {
				version = kcpref.JSString(v)
			}
			return name, version
		}
	}
	match := func(re, text, otherwise string) string {
		if m := regexp.MustCompile(re).FindStringSubmatch(text); m != nil {
			return m[1]
		}
		return otherwise
	}
	if text, ok := read("Cargo.toml"); ok {
		return match(`(?m)^name\s*=\s*"(.+)"`, text, base), match(`(?m)^version\s*=\s*"(.+)"`, text, "0.1.0")
	}
	if text, ok := read("pom.xml"); ok {
		return match(`<artifactId>(.+?)</artifactId>`, text, base), match(`<version>(.+?)</version>`, text, "0.1.0")
	}
	if text, ok := read("go.mod"); ok {
		name = base
		if m := regexp.MustCompile(`(?m)^module\s+(.+)`).FindStringSubmatch(text); m != nil {
			parts := strings.Split(strings.TrimSpace(m[1]), "/")
			name = parts[len(parts)-1]
		}
		return name, "0.1.0"
	}
	return base, "0.1.0"
}

var (
	jsdoc     = regexp.MustCompile(`/\*\*\s*([\s\S]*?)\*/`)
	jsdocLine = regexp.MustCompile(`^\s*\*\s?`)
	// kcp-agent's docstring pattern wants a quote after the closing
	// triple quote, so it seldom matches; kept as it is.
	docstring = regexp.MustCompile(`(?m)^(?:"""|\'\'\')([\s\S]*?)(?:"""|\'\'\')'`)
)

// firstComment is a source file's first doc comment, docstring or
// leading line comment, when it is 11 to 199 characters long.
func firstComment(file string) (string, bool) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	content := string(raw)
	fits := func(s string) bool { n := len([]rune(s)); return n > 10 && n < 200 }
	if m := jsdoc.FindStringSubmatch(content); m != nil {
		var parts []string
		for _, l := range strings.Split(m[1], "\n") {
			if t := strings.TrimSpace(jsdocLine.ReplaceAllString(l, "")); t != "" {
				parts = append(parts, t)
			}
		}
		if c := strings.Join(parts, " "); fits(c) {
			return c, true
		}
	}
	if m := docstring.FindStringSubmatch(content); m != nil {
		if c := strings.TrimSpace(strings.Split(strings.TrimSpace(m[1]), "\n")[0]); fits(c) {
			return c, true
		}
	}
	var comments []string
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		if t == "" && len(comments) == 0 {
			continue
		}
		if !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") {
			break
		}
		t = regexp.MustCompile(`^//\s?`).ReplaceAllString(t, "")
		comments = append(comments, strings.TrimSpace(regexp.MustCompile(`^#\s?`).ReplaceAllString(t, "")))
	}
	if len(comments) > 0 && fits(comments[0]) && !strings.HasPrefix(comments[0], "!") {
		return comments[0], true
	}
	return "", false
}

func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

func names(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// draftUnits are the units init finds in a directory, in kcp-agent's
// order: README.md as the front door, the source directories' modules,
// docs/*.md and guides/*.md, examples, one test unit; ids unique (the
// first kept), at most 30.
func draftUnits(dir, project string) []kcpref.DraftUnit {
	var units []kcpref.DraftUnit
	if isFile(filepath.Join(dir, "README.md")) || isDir(filepath.Join(dir, "README.md")) {
		units = append(units, kcpref.DraftUnit{ID: "front-door", Path: "README.md", Intent: "What is " + project + ", how to install and use it",
			Triggers: []string{"overview", "install", "getting started"}, Eager: true})
	}
	for _, src := range sourceDirs {
		full := filepath.Join(dir, src)
		if !isDir(full) {
			continue
		}
		for _, entry := range names(full) {
			p := filepath.Join(full, entry)
			switch {
			case isDir(p):
				id := kcpref.InitUnitID(entry)
				if id == "" {
					continue
				}
				u := kcpref.DraftUnit{ID: id, Path: src + "/" + entry, Scope: "project", Audience: developers, Triggers: kcpref.InitDirTriggers(entry)}
				for _, f := range indexFiles {
					if _, err := os.Stat(filepath.Join(p, f)); err == nil {
						u.Path = src + "/" + entry + "/" + f
						u.Intent, _ = firstComment(filepath.Join(p, f))
						break
					}
				}
				if u.Intent == "" {
					u.Intent, u.TodoIntent = "Implementation of "+entry, true
				}
				units = append(units, u)
			case isFile(p):
				ext := filepath.Ext(entry)
				if !slices.Contains(sourceExts, ext) || slices.Contains(indexFiles, entry) {
					continue
				}
				stem := strings.TrimSuffix(entry, ext)
				id := kcpref.InitUnitID(stem)
				if id == "" {
					continue
				}
				u := kcpref.DraftUnit{ID: id, Path: src + "/" + entry, Scope: "project", Audience: developers, Triggers: kcpref.InitTriggers(stem)}
				var ok bool
				if u.Intent, ok = firstComment(p); !ok {
					u.Intent, u.TodoIntent = "Implementation of "+stem, true
				}
				units = append(units, u)
			}
		}
	}
	for _, docDir := range []string{"docs", "guides"} {
		full := filepath.Join(dir, docDir)
		if !isDir(full) {
			continue
		}
		for _, entry := range names(full) {
			p := filepath.Join(full, entry)
			if !isFile(p) || filepath.Ext(entry) != ".md" {
				continue
			}
			stem := strings.TrimSuffix(entry, ".md")
			id := kcpref.InitUnitID(docDir + "-" + stem)
			if id == "" {
				continue
			}
			u := kcpref.DraftUnit{ID: id, Path: docDir + "/" + entry, Triggers: kcpref.InitTriggers(stem)}
			raw, _ := os.ReadFile(p)
			if m := markdownH1.FindStringSubmatch(string(raw)); m != nil {
				u.Intent = strings.TrimSpace(m[1])
			} else {
				u.Intent, u.TodoIntent = "Documentation: "+stem, true
			}
			units = append(units, u)
		}
	}
	if full := filepath.Join(dir, "examples"); isDir(full) {
		for _, entry := range names(full) {
			p := filepath.Join(full, entry)
			switch {
			case isDir(p):
				id := kcpref.InitUnitID("example-" + entry)
				if id == "" {
					continue
				}
				path := "examples/" + entry
				if _, err := os.Stat(filepath.Join(p, "README.md")); err == nil {
					path += "/README.md"
				}
				units = append(units, kcpref.DraftUnit{ID: id, Path: path, Intent: "Example: " + entry, Scope: "project", Audience: developers, Triggers: []string{"example", entry}})
			case isFile(p):
				ext := filepath.Ext(entry)
				if !slices.Contains(exampleExt, ext) {
					continue
				}
				stem := strings.TrimSuffix(entry, ext)
				id := kcpref.InitUnitID("example-" + stem)
				if id == "" {
					continue
				}
				units = append(units, kcpref.DraftUnit{ID: id, Path: "examples/" + entry, Intent: "Example: " + stem, Scope: "project", Audience: developers, Triggers: []string{"example", stem}})
			}
		}
	}
	for _, testDir := range []string{"test", "tests"} {
		full := filepath.Join(dir, testDir)
		if !isDir(full) {
			continue
		}
		path := ""
		if _, err := os.Stat(filepath.Join(full, "README.md")); err == nil {
			path = testDir + "/README.md"
		}
		for _, pick := range []func(string) bool{func(e string) bool { return isFile(filepath.Join(full, e)) && testFile.MatchString(e) },
			func(e string) bool { return isFile(filepath.Join(full, e)) }} {
			for _, e := range names(full) {
				if path == "" && pick(e) {
					path = testDir + "/" + e
				}
			}
		}
		if path != "" {
			units = append(units, kcpref.DraftUnit{ID: "test-strategy", Path: path, Intent: "Test strategy and patterns for " + project,
				Scope: "project", Audience: developers, Triggers: []string{"test", "testing", "spec"}})
			break
		}
	}
	seen := map[string]bool{}
	var out []kcpref.DraftUnit
	for _, u := range units {
		if !seen[u.ID] {
			seen[u.ID] = true
			out = append(out, u)
		}
	}
	return out
}

// Watch is `watch <path|dir> [--once] [--diff] [--task t] [--json]`: one
// cycle of validation and, with --task, planning (--once), or such a
// cycle at start and after every change to the files until it is
// stopped (watchLoop, watch.go).
func (c CLI) Watch(args []string) int {
	rest, on := switches(args, "--once", "--diff")
	inv, location, err := kcpref.ParseWatchArgs(rest)
	if err != nil {
		return c.fail(kcpref.ExitUsage, err.Error())
	}
	if inv.Help {
		fmt.Fprintln(c.Stdout, c.usage())
		return kcpref.ExitOK
	}
	if location == "" {
		return c.fail(kcpref.ExitUsage, "Missing manifest location.\n\n"+c.usage())
	}
	if !on["--once"] {
		return c.watchLoop(inv, location, on["--diff"])
	}
	var v kcpref.Validation
	m, raw, bad := readManifest(location)
	if bad != nil {
		v = kcpref.Unread(location, strings.TrimPrefix(bad.line(), "kcp-agent: "+bad.loc+": "))
		if errors.Is(bad.err, fs.ErrNotExist) || strings.HasPrefix(bad.err.Error(), "manifest not found") {
			v = kcpref.Unread(location, "manifest not found: "+location)
		}
	} else {
		v = kcpref.Validate(m, kcpref.ValidateOptions{Source: m.Source, Raw: raw, Files: os.DirFS(filepath.Dir(m.Source))})
	}
	code := v.ExitCode()
	if kcpref.HasFault(c.Faults, kcpref.FaultWatchExitsZero) {
		code = kcpref.ExitOK
	}
	if inv.JSON {
		validation, _ := kcpref.ParseJSON(kcpref.ValidationJSON(v))
		var b strings.Builder
		b.WriteString(`{"validation":` + kcpref.StringifyJSON(validation, ""))
		if inv.Task != "" && bad == nil {
			if !inv.AsOfGiven {
				inv.Options.AsOf = kcpref.DefaultAsOf(c.now())
			}
			inv.Options.Faults = c.Faults
			b.WriteString(`,"plan":` + string(kcpref.PlanObject(kcpref.Plan(inv.Task, m, inv.Options))))
		}
		b.WriteString("}")
		fmt.Fprintln(c.Stdout, b.String())
		return code
	}
	if code != kcpref.ExitOK {
		return c.fail(code, "Manifest validation failed.")
	}
	fmt.Fprintln(c.Stdout, "Manifest valid.")
	return code
}
