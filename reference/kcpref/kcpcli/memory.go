package kcpcli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// The episodic-memory commands: remember, recall, plan --memory, and the
// replay of a grounded answer. A memory directory holds one <id>.json per
// entry (kcpref.MemoryEntry).

// memoryArgs parses remember's and recall's command line: their
// positionals, --json, --help, --replay and the value flags.
func (c CLI) memoryArgs(args []string) (a commandArgs, replay bool, code int, done bool) {
	var rest []string
	for _, arg := range args {
		if arg == "--replay" {
			replay = true
			continue
		}
		rest = append(rest, arg)
	}
	a, code, done = c.commandArgs(rest, "memory", "limit", "task", "manifest", "as-of")
	return a, replay, code, done
}

// recordedAt is now as an ISO instant with milliseconds.
func (c CLI) recordedAt() string { return c.now().UTC().Format("2006-01-02T15:04:05.000Z") }

// memoryEntries reads every entry of the directory (made when missing),
// in file-name order.
func memoryEntries(dir string) ([]kcpref.MemoryEntry, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []kcpref.MemoryEntry
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			return nil, err
		}
		e, err := kcpref.ReadMemoryEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name(), err)
		}
		out = append(out, e)
	}
	return out, nil
}

func storeEntry(dir string, e kcpref.MemoryEntry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, e.ID+".json"), []byte(e.EntryJSON()), 0o644)
}

// readJSONArtifact reads a saved artifact keeping its member order.
func (c CLI) readJSONArtifact(path string) (kcpref.JSONValue, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		c.fail(kcpref.ExitFailure, "kcp-agent: "+nodeError(err, path))
		return nil, false
	}
	v, err := kcpref.ParseJSON(raw)
	if err != nil {
		c.fail(kcpref.ExitFailure, fmt.Sprintf("kcp-agent: %s is not valid JSON: %v", path, err))
		return nil, false
	}
	return v, true
}

// nodeError words a file error as Node does for a missing file.
func nodeError(err error, path string) string {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("ENOENT: no such file or directory, open '%s'", path)
	}
	return err.Error()
}

// Remember is `remember <artifact.json> --memory <dir>`: it stores the
// artifact, stripped of its unit bytes, under the sha256 of what is kept.
func (c CLI) Remember(args []string) int {
	a, _, code, done := c.memoryArgs(args)
	if done {
		return code
	}
	file := strings.Join(a.positionals, " ")
	if t, ok := a.values["task"]; ok {
		file = t
	} else if m, ok := a.values["manifest"]; ok && file == "" {
		file = m
	}
	if file == "" {
		return c.fail(kcpref.ExitUsage, "Missing artifact path.\n\n"+c.usage())
	}
	dir := a.values["memory"]
	if dir == "" {
		return c.fail(kcpref.ExitUsage, "Missing --memory <dir>.\n\n"+c.usage())
	}
	artifact, ok := c.readJSONArtifact(file)
	if !ok {
		return kcpref.ExitFailure
	}
	e := kcpref.NewMemoryEntry(artifact, c.recordedAt(), "", c.Faults)
	if err := storeEntry(dir, e); err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	task := e.Task()
	if a.json {
		fmt.Fprintln(c.Stdout, kcpref.MemoryReceiptJSON(e))
		return kcpref.ExitOK
	}
	fmt.Fprintf(c.Stdout, "Remembered %s %s… — \"%s\" (content stripped; only the replay skeleton is kept)\n", e.Kind, e.ID[:12], kcpref.JSString(task))
	return kcpref.ExitOK
}

// Recall is `recall <task> --memory <dir> [--replay] [--limit n]`.
func (c CLI) Recall(args []string) int {
	a, replay, code, done := c.memoryArgs(args)
	if done {
		return code
	}
	task := strings.Join(a.positionals, " ")
	if t, ok := a.values["task"]; ok {
		task = t
	}
	if task == "" {
		return c.fail(kcpref.ExitUsage, "Missing task.\n\n"+c.usage())
	}
	dir := a.values["memory"]
	if dir == "" {
		return c.fail(kcpref.ExitUsage, "Missing --memory <dir>.\n\n"+c.usage())
	}
	entries, err := memoryEntries(dir)
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	var limit *float64
	if s, ok := a.values["limit"]; ok && !kcpref.HasFault(c.Faults, kcpref.FaultRecallLimitIgnored) {
		n := kcpref.JSNumber(s)
		limit = &n
	}
	hits := kcpref.RecallEntries(entries, task, limit, c.Faults)
	drifted := false
	for i := range hits {
		h := &hits[i]
		if !replay {
			h.Status, h.Detail = "unverifiable", "not replayed — recall carries no freshness claim"
			continue
		}
		h.Status, h.Detail = c.replayEntry(h.Entry)
		drifted = drifted || h.Status == "drifted"
	}
	exit := kcpref.ExitOK
	if drifted && !kcpref.HasFault(c.Faults, kcpref.FaultRecallReplayExitZero) {
		exit = kcpref.ExitFailure
	}
	if a.json {
		fmt.Fprintln(c.Stdout, kcpref.RecallJSON(hits))
		return exit
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nRecall: %s\n", task)
	if len(hits) == 0 {
		b.WriteString("  (no episode overlaps this task)\n")
	}
	for _, h := range hits {
		mark := map[string]string{"valid": "✓", "drifted": "✗"}[h.Status]
		if mark == "" {
			mark = "?"
		}
		src, ok := h.Entry.Field("manifestSource")
		source := "?"
		if ok && src != nil {
			source = kcpref.JSString(src)
		}
		at, _ := h.Entry.Field("recordedAt")
		fmt.Fprintf(&b, "  %s %s %s · score %d %s\n     %s… · %s · %s\n     %s\n", mark, h.Status, h.Entry.Kind, h.Score,
			kcpref.JSString(h.Entry.Task()), prefix(h.Entry.ID, 12), kcpref.JSString(at), source, h.Detail)
	}
	fmt.Fprintln(c.Stdout, b.String())
	return exit
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// replayEntry re-verifies a recalled episode against today's world: a
// grounded answer by re-reading its cited units, a plan by replaying it.
func (c CLI) replayEntry(e kcpref.MemoryEntry) (status, detail string) {
	artifact, _ := e.Field("artifact")
	if e.Kind == "grounded-answer" {
		r, err := c.replayGrounded(artifact, e.ID, false)
		if err != nil {
			return "unverifiable", "could not replay: " + err.Error()
		}
		if r.OK() {
			return "valid", "every cited unit holds its pinned bytes"
		}
		n := 0
		for _, ch := range r.Claims {
			if ch.Status != "still-grounded" {
				n++
			}
		}
		return "drifted", fmt.Sprintf("%d cited unit(s) drifted or gone", n)
	}
	plans := kcpref.TreePlans(kcpref.PlainJSON(artifact))
	if plans == nil {
		return "unverifiable", "could not replay: unrecognized artifact — expected the JSON output of `plan --json` (a plan or a --follow tree)"
	}
	changed := 0
	for _, saved := range plans {
		if c.replayOne(saved, c.guard(false)).Status != kcpref.ReplayIdentical {
			changed++
		}
	}
	if changed == 0 {
		return "valid", "plan re-verifies against the live manifest"
	}
	return "drifted", fmt.Sprintf("%d node(s) drifted since recorded", changed)
}

// replayGrounded replays a grounded answer, its units read beside its
// manifest; checkGaps re-plans the manifest for the gaps, which needs a
// model unless the manifest can no longer be read (then none closes).
func (c CLI) replayGrounded(v kcpref.JSONValue, name string, checkGaps bool) (kcpref.GroundedReplay, error) {
	source, _ := kcpref.GroundedSource(v)
	read := func(p string) (string, error) {
		file := filepath.Join(filepath.Dir(source), filepath.FromSlash(p))
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", errors.New(nodeError(err, file))
		}
		return string(raw), nil
	}
	var reground func(string, []any) ([]any, error)
	if checkGaps {
		reground = func(task string, gaps []any) ([]any, error) {
			if kcpref.HasFault(c.Faults, kcpref.FaultCheckGapsCloses) {
				return gaps, nil
			}
			if source == "" {
				return nil, nil
			}
			if _, _, bad := readManifest(source); bad != nil {
				return nil, nil // today's manifest cannot be planned: nothing closes
			}
			return nil, errors.New("--check-gaps re-grounds the gaps with a model, which the Go reference does not call")
		}
	}
	return kcpref.ReplayGrounded(v, name, read, reground, c.Faults)
}

// rememberPlan is plan --memory: it says whether an episode of the same
// task, manifest and options exists and the manifest's bytes held since
// (text output only), then records the plan.
func (c CLI) rememberPlan(inv kcpref.PlanInvocation, args []string, planJSON []byte) int {
	artifact, err := kcpref.PlanArtifact(planJSON)
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	manifest, _ := kcpref.JSONMember(artifact, "manifest")
	src, _ := kcpref.JSONMember(manifest, "source")
	source, _ := src.(string)
	if source == "" {
		return kcpref.ExitOK
	}
	sha, _ := kcpref.JSONMember(manifest, "sha256")
	fresh, _ := sha.(string)
	entries, err := memoryEntries(inv.Memory)
	if err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	key := kcpref.OptionsKey(kcpref.PlanFlags(args), inv.Options.AsOf)
	d := kcpref.DecideReuse(entries, inv.Task, source, key, fresh, c.Faults)
	if !inv.JSON {
		at, _ := d.Entry.Field("recordedAt")
		switch d.Status {
		case "reuse":
			fmt.Fprintf(c.Stdout, "\n♻ determinism: provably identical to episode %s… (%s) — %s\n", prefix(d.Entry.ID, 12), kcpref.JSString(at), d.Detail)
		case "drifted":
			fmt.Fprintf(c.Stdout, "\n⚠ %s since episode %s… (%s) — this plan differs from the recorded one\n", d.Detail, prefix(d.Entry.ID, 12), kcpref.JSString(at))
		default:
			fmt.Fprint(c.Stdout, "\n· new episode for this task + manifest + options\n")
		}
	}
	if err := storeEntry(inv.Memory, kcpref.NewMemoryEntry(artifact, c.recordedAt(), key, c.Faults)); err != nil {
		return c.fail(kcpref.ExitFailure, "kcp-agent: "+err.Error())
	}
	return kcpref.ExitOK
}
