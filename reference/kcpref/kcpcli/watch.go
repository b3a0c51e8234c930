package kcpcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// watchPoll is how often watch without --once looks at its files.
const watchPoll = 10 * time.Millisecond

// exitInterrupted is the exit code of a watch stopped by SIGINT, as a
// shell reports a process the signal ended.
const exitInterrupted = 130

// watchLoop is watch without --once: a cycle at start, and another each
// time the manifest or a unit's file changes (seen by polling, once the
// files have stayed the same for one more poll, so a file caught half
// written is not read), until Done is closed or a signal comes. With
// --json each cycle prints one line per event, {type, timestamp, data}:
// validate, plan (with --task) and, with --diff, from the second cycle on,
// diff against the previous cycle's plan.
func (c CLI) watchLoop(inv kcpref.PlanInvocation, location string, diff bool) int {
	done, stop := c.Done, func() {}
	if done == nil {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		ch := make(chan struct{})
		go func() { <-sig; close(ch) }()
		done, stop = ch, func() { signal.Stop(sig) }
	}
	defer stop()
	if !inv.AsOfGiven {
		inv.Options.AsOf = kcpref.DefaultAsOf(c.now())
	}
	inv.Options.Faults = c.Faults
	w := watcher{c: c, inv: inv, location: location, diff: diff}
	seen := w.fingerprint()
	w.cycle()
	tick := time.NewTicker(watchPoll)
	defer tick.Stop()
	pending := ""
	for {
		select {
		case <-done:
			return exitInterrupted
		case <-tick.C:
		}
		now := w.fingerprint()
		switch {
		case now == seen:
			pending = ""
		case now != pending:
			pending = now // changed: read it once it has stayed so for a poll
		default:
			seen, pending = now, ""
			w.cycle()
		}
	}
}

// watcher is one watch's state between cycles.
type watcher struct {
	c        CLI
	inv      kcpref.PlanInvocation
	location string
	diff     bool
	cycles   int
	first    map[string]any  // the first cycle's plan
	previous map[string]any  // the last cycle's plan
	start    kcpref.Manifest // the manifest as the first cycle read it
}

// fingerprint is the manifest's bytes and those of every unit's file, as
// they are now.
func (w *watcher) fingerprint() string {
	var b strings.Builder
	m, raw, bad := readManifest(w.location)
	b.Write(raw)
	if bad != nil {
		return b.String() + "\x00unread"
	}
	dir := filepath.Dir(m.Source)
	for _, u := range m.Units {
		text, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(u.Path)))
		fmt.Fprintf(&b, "\x00%s\x00%t\x00", u.Path, err == nil)
		b.Write(text)
	}
	return b.String()
}

// cycle validates, plans and diffs once, and prints what it found.
func (w *watcher) cycle() {
	c := w.c
	w.cycles++
	var v kcpref.Validation
	m, raw, bad := readManifest(w.location)
	if bad != nil {
		v = kcpref.Unread(w.location, strings.TrimPrefix(bad.line(), "kcp-agent: "+bad.loc+": "))
		if errors.Is(bad.err, fs.ErrNotExist) || strings.HasPrefix(bad.err.Error(), "manifest not found") {
			v = kcpref.Unread(w.location, "manifest not found: "+w.location)
		}
	} else {
		v = kcpref.Validate(m, kcpref.ValidateOptions{Source: m.Source, Raw: raw, Files: os.DirFS(filepath.Dir(m.Source))})
	}
	if w.cycles == 1 {
		w.start = m
	}
	stamp := c.now().UTC().Format("2006-01-02T15:04:05.000Z")
	event := func(typ string, data []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			compact.Reset()
			compact.Write(data)
		}
		fmt.Fprintf(c.Stdout, `{"type":%q,"timestamp":%q,"data":%s}`+"\n", typ, stamp, compact.String())
	}
	if w.inv.JSON {
		event("validate", kcpref.ValidationJSON(v))
	} else if v.ExitCode() == kcpref.ExitOK {
		fmt.Fprintln(c.Stdout, "Manifest valid.")
	} else {
		fmt.Fprintln(c.Stdout, "Manifest validation failed.")
	}
	if w.inv.Task == "" || bad != nil {
		return
	}
	over := m
	if kcpref.HasFault(c.Faults, kcpref.FaultWatchPlanStale) {
		over = w.start
	}
	text := kcpref.PlanObject(kcpref.Plan(w.inv.Task, over, w.inv.Options))
	var plan map[string]any
	_ = json.Unmarshal(text, &plan)
	if w.inv.JSON {
		event("plan", text)
	}
	against := w.previous
	if kcpref.HasFault(c.Faults, kcpref.FaultWatchDiffAgainstFirst) {
		against = w.first
	}
	if w.diff && against != nil {
		d := kcpref.DiffPlans(against, plan)
		switch {
		case w.inv.JSON:
			event("diff", kcpref.DiffJSON(d))
		case d.Identical():
			fmt.Fprintln(c.Stdout, "  the plan did not change")
		default:
			fmt.Fprintf(c.Stdout, "  the plan changed: %d move(s), %d score change(s), %d unit(s) added or removed\n", len(d.Moves), len(d.ScoreChanges), len(d.Presence))
		}
	}
	if w.first == nil {
		w.first = plan
	}
	w.previous = plan
}
