package kcpcli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// commandArgs is the command line after validate, replay or diff: its
// positionals, --json, --help, and the value flags the command takes.
type commandArgs struct {
	positionals []string
	json, help  bool
	// allowPrivate is --allow-private-hosts (validate and replay read
	// remote manifests through the fetch guard).
	allowPrivate bool
	values       map[string]string
}

// parseCommandArgs reads args the way kcp-agent's parser does for these
// commands: a value flag takes the next argument, -h is help, and any
// other --flag is unknown (a usage error).
func parseCommandArgs(args []string, valueFlags ...string) (commandArgs, error) {
	a := commandArgs{values: map[string]string{}}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		switch {
		case arg == "-h" || arg == "--help":
			a.help = true
		case arg == "--json":
			a.json = true
		case arg == "--allow-private-hosts":
			a.allowPrivate = true
		case strings.HasPrefix(arg, "--") && contains(valueFlags, name):
			if !hasValue {
				if i+1 >= len(args) {
					continue
				}
				i++
				value = args[i]
			}
			a.values[name] = value
		case strings.HasPrefix(arg, "--"):
			return a, &kcpref.UsageError{Msg: "Unknown option: " + arg}
		default:
			a.positionals = append(a.positionals, arg)
		}
	}
	return a, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// commandArgs parses a command's arguments; done says the command ends
// here with code: a usage error (2), or --help printed (0).
func (c CLI) commandArgs(args []string, valueFlags ...string) (a commandArgs, code int, done bool) {
	a, err := parseCommandArgs(args, valueFlags...)
	if err != nil {
		return a, c.fail(kcpref.ExitUsage, err.Error()), true
	}
	if a.help {
		fmt.Fprintln(c.Stdout, c.usage())
		return a, kcpref.ExitOK, true
	}
	return a, 0, false
}

// Validate is `validate <file|dir>` (or --manifest): it lints the manifest
// and prints the findings, as text or as JSON (--json), and exits 1 when
// there is an error. A manifest that cannot be read or parsed is one
// error. --as-of pins the date of the expired warning (default today, UTC).
func (c CLI) Validate(args []string) int {
	a, exit, done := c.commandArgs(args, "manifest", "as-of")
	if done {
		return exit
	}
	loc := strings.Join(a.positionals, " ")
	if m, ok := a.values["manifest"]; ok {
		loc = m
	}
	if loc == "" {
		return c.fail(kcpref.ExitUsage, "Missing manifest location.\n\n"+c.usage())
	}
	asOf, ok := a.values["as-of"]
	if !ok {
		asOf = kcpref.DefaultAsOf(c.now())
	}
	var v kcpref.Validation
	if m, raw, bad := readLocation(loc, c.guard(a.allowPrivate)); bad != nil {
		v = kcpref.Unread(loc, bad.finding())
	} else {
		v = kcpref.Validate(m, kcpref.ValidateOptions{Source: m.Source, AsOf: asOf, Raw: raw, Files: unitFiles(m.Source)})
	}
	code := v.ExitCode()
	if kcpref.HasFault(c.Faults, kcpref.FaultValidateExitsZero) {
		code = kcpref.ExitOK
	}
	if a.json {
		c.Stdout.Write(kcpref.ValidationJSON(v))
		return code
	}
	title := v.Source
	if v.Project != "" {
		title += " (" + v.Project + ")"
	}
	fmt.Fprintf(c.Stdout, "\nValidate: %s\n", title)
	errs, warns := 0, 0
	for _, f := range v.Findings {
		mark := "⚠"
		if f.Level == kcpref.LevelError {
			mark, errs = "✗", errs+1
		} else {
			warns++
		}
		fmt.Fprintf(c.Stdout, "  %s %s: %s\n", mark, f.Where, f.Message)
	}
	if errs > 0 {
		fmt.Fprintf(c.Stdout, "\n✗ invalid — %d error(s), %d warning(s)\n\n", errs, warns)
	} else {
		fmt.Fprintf(c.Stdout, "\n✓ valid — %d warning(s)\n\n", warns)
	}
	return code
}

// readArtifact reads a saved JSON artifact; failing, it says so on
// standard error and returns false.
func (c CLI) readArtifact(path string) (any, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
		return nil, false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		c.fail(kcpref.ExitFailure, fmt.Sprintf("kcp-agent: %s is not valid JSON: %v", path, err))
		return nil, false
	}
	return v, true
}

// Replay is `replay <plan.json>`: it re-reads the saved plan's manifest,
// re-plans from the saved inputs, and says whether the plan reproduced
// (exit 0) or drifted (exit 1), naming the sha256 change or the fields.
func (c CLI) Replay(args []string) int {
	checkGaps := slices.Contains(args, "--check-gaps")
	args = slices.DeleteFunc(slices.Clone(args), func(s string) bool { return s == "--check-gaps" })
	a, code, done := c.commandArgs(args)
	if done {
		return code
	}
	artifact := strings.Join(a.positionals, " ")
	if artifact == "" {
		return c.fail(kcpref.ExitUsage, "Missing artifact path.\n\n"+c.usage())
	}
	doc, ok := c.readArtifact(artifact)
	if !ok {
		return kcpref.ExitFailure
	}
	if kcpref.IsGroundedAnswer(doc) || isGroundedDoc(doc) {
		return c.replayGroundedAnswer(artifact, a.json, checkGaps)
	}
	plans := kcpref.TreePlans(doc)
	if plans == nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: unrecognized artifact — expected the JSON output of `plan --json` (a plan or a --follow tree; the Go reference does not replay grounded answers)")
	}
	var checks []kcpref.ReplayCheck
	for _, saved := range plans {
		checks = append(checks, c.replayOne(saved, c.guard(a.allowPrivate)))
	}
	r := kcpref.Replay{Artifact: artifact, Checks: checks}
	if a.json {
		c.Stdout.Write(kcpref.ReplayJSON(r))
		return r.ExitCode()
	}
	fmt.Fprintf(c.Stdout, "\nReplay: %s\n", artifact)
	for _, ch := range r.Checks {
		if ch.Status == kcpref.ReplayIdentical {
			fmt.Fprintf(c.Stdout, "  ✓ %s %s\n     %s\n", ch.Project, ch.Source, ch.Detail)
		} else {
			fmt.Fprintf(c.Stdout, "  ✗ %s %s\n     %s: %s\n", ch.Project, ch.Source, ch.Status, ch.Detail)
		}
	}
	if r.OK() {
		fmt.Fprint(c.Stdout, "\n✓ deterministic: every saved plan reproduced byte-identically\n\n")
	} else {
		fmt.Fprint(c.Stdout, "\n✗ drift detected — the saved artifact no longer matches the world\n\n")
	}
	return r.ExitCode()
}

// replayOne replays one saved plan against its manifest as it is now.
func (c CLI) replayOne(saved map[string]any, guard kcpref.FetchGuard) kcpref.ReplayCheck {
	source, project := kcpref.SavedSource(saved)
	m, raw, bad := readLocation(source, guard)
	if bad != nil {
		return kcpref.ReplayCheck{Source: source, Project: project, Status: kcpref.ReplayError, Detail: strings.TrimPrefix(bad.line(), "kcp-agent: "+bad.loc+": ")}
	}
	m.Source = source
	sig := kcpref.VerifySignature(raw, m.Signing, m.Source, reader(guard))
	return kcpref.ReplayPlan(saved, m, sig, c.Faults)
}

// Diff is `diff <a.json> <b.json>`: what changed between two saved plans;
// exit 0 when nothing did, 1 when something did, 2 without two files.
func (c CLI) Diff(args []string) int {
	a, code, done := c.commandArgs(args)
	if done {
		return code
	}
	if len(a.positionals) != 2 {
		return c.fail(kcpref.ExitUsage, "Usage: kcp-agent diff <a.json> <b.json> [--json]\n\n"+c.usage())
	}
	var plans [2]map[string]any
	for i, f := range a.positionals {
		doc, ok := c.readArtifact(f)
		if !ok {
			return kcpref.ExitFailure
		}
		if !kcpref.IsPlanArtifact(doc) {
			return c.fail(kcpref.ExitFailure, "kcp-agent: "+f+" is not a plan artifact (the JSON output of `plan --json`)")
		}
		plans[i] = doc.(map[string]any)
	}
	d := kcpref.DiffPlans(plans[0], plans[1])
	if kcpref.HasFault(c.Faults, kcpref.FaultDiffWarningsIgnored) {
		d.Added, d.Removed = []string{}, []string{}
	}
	if a.json {
		c.Stdout.Write(kcpref.DiffJSON(d))
		return d.ExitCode()
	}
	line := func(h kcpref.PlanHeader) string {
		return fmt.Sprintf("%s v%s · %q · %s", h.Project, h.Version, h.Task, h.AsOf)
	}
	fmt.Fprintf(c.Stdout, "\nPlan Diff\n  A: %s\n  B: %s\n\n", line(d.A), line(d.B))
	if d.Identical() {
		fmt.Fprint(c.Stdout, "✓ plans are identical\n\n")
		return d.ExitCode()
	}
	for _, m := range d.Moves {
		if m.SelectedToSkip {
			fmt.Fprintf(c.Stdout, "  ↓ %s: selected (score %v) → skipped (%s)\n", m.ID, m.Score, m.Reason)
		} else {
			fmt.Fprintf(c.Stdout, "  ↑ %s: skipped (%s) → selected (score %v)\n", m.ID, m.Reason, m.Score)
		}
	}
	for _, s := range d.ScoreChanges {
		fmt.Fprintf(c.Stdout, "  ~ %s: score %v → %v\n", s.ID, s.Before, s.After)
	}
	for _, p := range d.Presence {
		side := "added in B"
		if p.AOnly {
			side = "removed in B"
		}
		fmt.Fprintf(c.Stdout, "  ± %s (%s)\n", p.ID, side)
	}
	for _, s := range d.BudgetShifts {
		fmt.Fprintf(c.Stdout, "  $ %s: %v → %v\n", s.Field, orDash(s.Before), orDash(s.After))
	}
	for _, r := range d.ReasonChanges {
		fmt.Fprintf(c.Stdout, "  ≠ %s: %s → %s\n", r.ID, r.Before, r.After)
	}
	for _, w := range d.Added {
		fmt.Fprintf(c.Stdout, "  + %s\n", w)
	}
	for _, w := range d.Removed {
		fmt.Fprintf(c.Stdout, "  - %s\n", w)
	}
	fmt.Fprintln(c.Stdout)
	return d.ExitCode()
}

func orDash(v any) any {
	if v == nil {
		return "—"
	}
	return v
}

// trace is `plan --trace`: the decision trace, as JSON (--json) or text.
func (c CLI) trace(inv kcpref.PlanInvocation, m kcpref.Manifest) int {
	t := kcpref.PlanTrace(inv.Task, m, inv.Options)
	if inv.JSON {
		c.Stdout.Write(kcpref.TraceJSON(t, kcpref.Envelope{CorrelationID: inv.CorrelationID}))
		return kcpref.ExitOK
	}
	fmt.Fprintf(c.Stdout, "trace for %q over %s (as of %s)\n", inv.Task, inv.Manifest, inv.Options.AsOf)
	for _, u := range t.Units {
		fmt.Fprintf(c.Stdout, "  %s %s\n", u.Outcome, u.ID)
		for _, g := range u.Gates {
			mark := "✓"
			if !g.Passed {
				mark = "✗"
			}
			fmt.Fprintf(c.Stdout, "    %s %-17s %s\n", mark, g.Gate, g.Detail)
		}
	}
	return kcpref.ExitOK
}

// follow is `plan --follow`: it plans the manifest, then walks its
// selected federation refs depth first, each a local file relative to the
// manifest that names it, up to MaxDepth hops and MaxNodes manifests,
// never one twice, and prints the tree. A remote ref is a node that could
// not be fetched: the Go reference reads no network. Each manifest is
// planned with the same options (a money budget is not shared across the
// walk, as kcp-agent shares it).
func (c CLI) follow(inv kcpref.PlanInvocation, args []string, m kcpref.Manifest, rootSig *kcpref.SignatureResult, guard kcpref.FetchGuard) int {
	root := c.walk(inv, m, rootSig, guard)
	if inv.Memory != "" {
		// plan --memory records the root manifest's plan, after the output.
		defer func() {
			c.rememberPlan(inv, args, kcpref.PlanJSON(*root.Plan, kcpref.Envelope{Signature: root.Signature}))
		}()
	}
	if inv.JSON {
		c.Stdout.Write(kcpref.TreeJSON(root, kcpref.Envelope{CorrelationID: inv.CorrelationID}))
		return kcpref.ExitOK
	}
	var print func(n kcpref.TreeNode, indent string)
	print = func(n kcpref.TreeNode, indent string) {
		switch {
		case n.Error != "":
			fmt.Fprintf(c.Stdout, "%s%s: %s\n", indent, n.Location, n.Error)
		default:
			fmt.Fprintf(c.Stdout, "%s%s: %d selected, %d skipped\n", indent, n.Location, len(n.Plan.Selected), len(n.Plan.Skipped))
		}
		for _, f := range n.NotFollowed {
			fmt.Fprintf(c.Stdout, "%s  · %s not followed: %s\n", indent, f.ID, f.Reason)
		}
		for _, ch := range n.Children {
			print(ch, indent+"  ")
		}
	}
	print(root, "")
	return kcpref.ExitOK
}

// walk plans the manifest and the federation refs it selects, as follow
// describes, and returns the tree.
func (c CLI) walk(inv kcpref.PlanInvocation, m kcpref.Manifest, rootSig *kcpref.SignatureResult, guard kcpref.FetchGuard) kcpref.TreeNode {
	visited := map[string]bool{filepath.Clean(m.Source): true}
	nodes := 1
	var node func(loc string, m kcpref.Manifest, sig *kcpref.SignatureResult, depth int) kcpref.TreeNode
	node = func(loc string, m kcpref.Manifest, sig *kcpref.SignatureResult, depth int) kcpref.TreeNode {
		p := kcpref.Plan(inv.Task, m, inv.Options)
		n := kcpref.TreeNode{Location: loc, NotFollowed: []kcpref.NotFollowed{}, Children: []kcpref.TreeNode{}, Signature: sig, Plan: &p}
		for _, f := range p.Federation {
			skip := func(reason string) {
				n.NotFollowed = append(n.NotFollowed, kcpref.NotFollowed{ID: f.ID, URL: f.URL, Reason: reason})
			}
			child := kcpref.ResolveLocation(loc, f.URL)
			switch {
			case !f.Selected:
				skip(f.Reason)
			case f.CredentialNeeded != "" && !kcpref.HasFault(c.Faults, kcpref.FaultGatedRefFetched):
				skip("needs " + f.CredentialNeeded + " before fetch")
			case depth >= inv.MaxDepth:
				skip(kcpref.BeyondMaxDepth(inv.MaxDepth))
			case visited[filepath.Clean(child)]:
				skip(kcpref.AlreadyVisited)
			case nodes >= inv.MaxNodes:
				skip(kcpref.BeyondMaxNodes(inv.MaxNodes))
			default:
				visited[filepath.Clean(child)] = true
				nodes++
				cm, craw, bad := readLocation(child, guard)
				if bad != nil {
					n.Children = append(n.Children, kcpref.TreeNode{RefID: f.ID, Location: child, NotFollowed: []kcpref.NotFollowed{}, Children: []kcpref.TreeNode{},
						Error: strings.TrimPrefix(bad.line(), "kcp-agent: "+bad.loc+": ")})
					continue
				}
				csig, refusal := kcpref.CheckSignature(craw, cm, inv.Signature, reader(guard))
				if refusal != "" {
					// A child whose signature fails is an error node: its
					// subtree is not planned, the parent is.
					n.Children = append(n.Children, kcpref.TreeNode{RefID: f.ID, Location: cm.Source, NotFollowed: []kcpref.NotFollowed{}, Children: []kcpref.TreeNode{},
						Signature: csig, Error: refusal})
					continue
				}
				cn := node(cm.Source, cm, csig, depth+1)
				cn.RefID = f.ID
				n.Children = append(n.Children, cn)
			}
		}
		return n
	}
	return node(m.Source, m, rootSig, 0)
}

// isGroundedDoc says a document read by encoding/json has a grounding
// block with a claims list.
func isGroundedDoc(doc any) bool {
	m, _ := doc.(map[string]any)
	g, _ := m["grounding"].(map[string]any)
	_, ok := g["claims"].([]any)
	return ok
}

// replayGroundedAnswer is replay of an ask --ground --json artifact:
// exit 0 when every grounded claim's unit holds its pinned bytes.
func (c CLI) replayGroundedAnswer(artifact string, asJSON, checkGaps bool) int {
	v, ok := c.readJSONArtifact(artifact)
	if !ok {
		return kcpref.ExitFailure
	}
	r, err := c.replayGrounded(v, artifact, checkGaps)
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	if asJSON {
		fmt.Fprintln(c.Stdout, kcpref.GroundedReplayJSON(r))
	} else {
		fmt.Fprintln(c.Stdout, kcpref.GroundedReplayText(r))
	}
	if r.OK() {
		return kcpref.ExitOK
	}
	return kcpref.ExitFailure
}

// guard is the fetch guard of a command: the default, or with
// --allow-private-hosts.
func (c CLI) guard(allowPrivate bool) kcpref.FetchGuard {
	return kcpref.FetchGuard{AllowPrivate: allowPrivate && !kcpref.HasFault(c.Faults, kcpref.FaultAllowPrivateIgnored), Faults: c.Faults}
}

// unitFiles is where validate looks for unit paths: the directory of the
// manifest file read (for a directory, of the knowledge.yaml inside it);
// nowhere for a remote manifest, whose paths are not fetched.
func unitFiles(source string) fs.FS {
	if kcpref.IsRemote(source) {
		return nil
	}
	return os.DirFS(filepath.Dir(source))
}
