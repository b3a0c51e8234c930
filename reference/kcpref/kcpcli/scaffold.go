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
	rest, on := switches(args, "--dry-run", "--force")
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
		if strings.Contains(from, "://") {
			return c.fail(kcpref.ExitFailure, "kcp-agent: the Go reference reads an llms.txt from a file, not a URL")
		}
		raw, err := os.ReadFile(from)
		if err != nil {
			return c.fail(kcpref.ExitFailure, "kcp-agent: "+nodeError(err, from))
		}
		yaml, err := kcpref.DraftFromLlmsTxt(kcpref.ParseLlmsTxt(string(raw)), publisher, c.Faults)
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
	units := draftUnits(dir)
	yaml := kcpref.DraftFromDirectory(filepath.Base(dir), "0.1.0", kcpref.DefaultAsOf(c.now()), publisher, units)
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

// draftUnits are the units init finds in a directory: README.md as the
// front door, then each docs/*.md and guides/*.md (file-name order), ids
// unique (the first kept), at most 30. Source, example and test
// directories are not scanned by the Go reference.
func draftUnits(dir string) []kcpref.DraftUnit {
	var units []kcpref.DraftUnit
	project := filepath.Base(dir)
	if st, err := os.Stat(filepath.Join(dir, "README.md")); err == nil && !st.IsDir() {
		units = append(units, kcpref.DraftUnit{ID: "front-door", Path: "README.md", Intent: "What is " + project + ", how to install and use it",
			Triggers: []string{"overview", "install", "getting started"}, Eager: true})
	}
	for _, docDir := range []string{"docs", "guides"} {
		entries, err := os.ReadDir(filepath.Join(dir, docDir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 || filepath.Ext(e.Name()) != ".md" {
				continue
			}
			stem := strings.TrimSuffix(e.Name(), ".md")
			id := kcpref.InitUnitID(docDir + "-" + stem)
			if id == "" {
				continue
			}
			u := kcpref.DraftUnit{ID: id, Path: docDir + "/" + e.Name(), Triggers: kcpref.InitTriggers(stem)}
			raw, _ := os.ReadFile(filepath.Join(dir, docDir, e.Name()))
			if m := markdownH1.FindStringSubmatch(string(raw)); m != nil {
				u.Intent = strings.TrimSpace(m[1])
			} else {
				u.Intent, u.TodoIntent = "Documentation: "+stem, true
			}
			units = append(units, u)
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
	if len(out) > 30 {
		out = out[:30]
	}
	return out
}

// Watch is `watch <path|dir> --once [--task t] [--json]`: one cycle of
// validation and, with --task, planning. Without --once it would watch
// the files, which the Go reference does not.
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
		return c.fail(kcpref.ExitUsage, "watch without --once: the Go reference runs one cycle only (pass --once)")
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
