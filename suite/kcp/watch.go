package kcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
)

// A command vector's steps may start a command line that keeps running
// (watch without --once), wait for a line of its output, change files of
// the check's directory and wait for what the command prints next, and
// stop it: steps cli_start, cli_await and cli_stop.

// Background is a target that can start a command line that keeps
// running.
type Background interface {
	// StartCLI writes the request's manifest and files to its Dir (as
	// RunCLI does) and starts the command line there, returning at once.
	StartCLI(ctx context.Context, req CLIRequest) (RunningCLI, error)
}

// RunningCLI is a command line that runs until it is stopped.
type RunningCLI interface {
	// Output is its standard output, which the adapter writes as the
	// command prints.
	Output() *Output
	// Stop ends the command and returns what it printed after the last
	// Await of its Output, and all it wrote on standard error.
	Stop() CLIResult
}

// AwaitTimeout bounds an Await whose context has no deadline.
const AwaitTimeout = 30 * time.Second

// RewriteAfter is how long a step that changed files waits for the
// command to print anything before it writes them again, the same text:
// kcp-agent 0.27.0 starts watching only after it has printed its first
// cycle, so a change made at once can go unseen. An implementation that
// saw the first write prints within this time, and is not written to
// again.
const RewriteAfter = time.Second

// Output is the standard output of a running command as Await reads it:
// an io.Writer safe for concurrent use, which wakes Await at each write.
type Output struct {
	mu     sync.Mutex
	buf    []byte
	read   int           // how much of buf Await has returned
	wake   chan struct{} // closed and renewed at each write and at End
	ended  bool
	format func(string) string
}

// NewOutput is an Output whose Await text goes through format (writing
// the paths back as placeholders; nil: as printed).
func NewOutput(format func(string) string) *Output {
	return &Output{wake: make(chan struct{}), format: format}
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) < 16<<20 {
		o.buf = append(o.buf, p...)
	}
	close(o.wake)
	o.wake = make(chan struct{})
	return len(p), nil
}

// End says the command has ended: Await returns what is left.
func (o *Output) End() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.ended {
		o.ended = true
		close(o.wake)
		o.wake = make(chan struct{})
	}
}

// Await returns the output since the last Await up to and including the
// first whole line holding want; when the command has ended, all that is
// left.
func (o *Output) Await(ctx context.Context, want string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, AwaitTimeout)
		defer cancel()
	}
	for {
		o.mu.Lock()
		rest := string(o.buf[o.read:])
		if i := lineWith(rest, want); i >= 0 {
			o.read += i
			o.mu.Unlock()
			return o.formatted(rest[:i]), nil
		}
		if o.ended {
			o.read = len(o.buf)
			o.mu.Unlock()
			return o.formatted(rest), nil
		}
		wake := o.wake
		o.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return "", fmt.Errorf("no line holding %q within the time a step has (it printed %q): %w", want, tailOf(o.formatted(rest)), ctx.Err())
		}
	}
}

// Printed is how many bytes the command has printed.
func (o *Output) Printed() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf)
}

// Grew waits until the command has printed more than n bytes or ended
// (true), or ctx ends (false).
func (o *Output) Grew(ctx context.Context, n int) bool {
	for {
		o.mu.Lock()
		grown, wake := len(o.buf) > n || o.ended, o.wake
		o.mu.Unlock()
		if grown {
			return true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}

// Rest is what Await has not returned.
func (o *Output) Rest() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.formatted(string(o.buf[o.read:]))
}

func (o *Output) formatted(s string) string {
	if o.format == nil {
		return s
	}
	return o.format(s)
}

// lineWith is the end (past its newline) of the first whole line of s
// that contains want, or -1.
func lineWith(s, want string) int {
	start := 0
	for {
		nl := strings.IndexByte(s[start:], '\n')
		if nl < 0 {
			return -1
		}
		if strings.Contains(s[start:start+nl], want) {
			return start + nl + 1
		}
		start += nl + 1
	}
}

func tailOf(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

// executeBackground performs a cli_start, cli_await or cli_stop step.
func (e *Executor) executeBackground(ctx context.Context, step engine.Step) (map[string]any, error) {
	raw, _ := json.Marshal(step.Params)
	var req CLIRequest
	_ = json.Unmarshal(raw, &req)
	until, _ := step.Params["until"].(string)
	switch step.Name {
	case "cli_start":
		bg, ok := e.target.(Background)
		if !ok {
			return nil, fmt.Errorf("the target cannot start a command line that keeps running: %w", engine.ErrUnsupported)
		}
		if e.running != nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("a check starts one command that keeps running")}
		}
		dir, err := e.sessionDir(req.Name)
		if err != nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: err}
		}
		req.Dir = dir
		run, err := bg.StartCLI(ctx, req)
		if err != nil {
			return nil, err
		}
		e.running = run
		out, err := run.Output().Await(ctx, until)
		if err != nil {
			return nil, err
		}
		return outputResult(out), nil
	case "cli_await":
		if e.running == nil {
			return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("no command is running: a step with background starts one")}
		}
		o := e.running.Output()
		before := o.Printed()
		for {
			if err := e.writeSession(req); err != nil {
				return nil, &engine.AdapterError{Step: step.Source, Err: err}
			}
			if req.Manifest == "" && len(req.Files) == 0 {
				break
			}
			wait, cancel := context.WithTimeout(ctx, RewriteAfter)
			grew := o.Grew(wait, before)
			cancel()
			if grew || ctx.Err() != nil {
				break
			}
		}
		out, err := o.Await(ctx, until)
		if err != nil {
			return nil, err
		}
		return outputResult(out), nil
	}
	if e.running == nil {
		return nil, &engine.AdapterError{Step: step.Source, Err: fmt.Errorf("no command is running: a step with background starts one")}
	}
	res := e.running.Stop()
	e.running = nil
	r := outputResult(res.Stdout)
	r["stderr"] = res.Stderr
	return r, nil
}

// writeSession writes a step's manifest and files over the check's
// directory, the placeholders in their text put in place.
func (e *Executor) writeSession(req CLIRequest) error {
	if e.dir == "" {
		return fmt.Errorf("the check has no directory")
	}
	manifest := filepath.Join(e.dir, req.Name+".yaml")
	if req.Manifest != "" {
		if err := os.WriteFile(manifest, []byte(req.Manifest), 0o644); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(req.Files)) {
		clean := path.Clean(name)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("files: %q is not a relative path inside the directory", name)
		}
		text := req.Files[name]
		m, d := manifest, e.dir
		if strings.HasSuffix(name, ".json") {
			m, d = jsonEscaped(m), jsonEscaped(d)
		}
		text = strings.ReplaceAll(strings.ReplaceAll(text, ManifestPlaceholder, m), DirPlaceholder, d)
		file := filepath.Join(e.dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// outputResult is what a step reads of a running command's output: its
// lines, the text, and each line read as JSON (events; null for a line
// that is none).
func outputResult(out string) map[string]any {
	events := []any{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var v any
		if json.Unmarshal([]byte(l), &v) != nil {
			v = nil
		}
		events = append(events, v)
	}
	return map[string]any{"stdout": Lines(out), "text": out, "events": events}
}

// deriveBackground is what a running command's step result holds that
// follows from its lines: the text and the events.
func deriveBackground(ex engine.Exchange) map[string]any {
	if ex.Outcome == nil {
		return nil
	}
	r, ok := engine.Normalize(ex.Outcome.Result).(map[string]any)
	if !ok {
		return nil
	}
	lines, _ := r["stdout"].([]any)
	var b strings.Builder
	for i, l := range lines {
		s, _ := l.(string)
		if s == NoNewline && i == len(lines)-1 {
			break
		}
		b.WriteString(s)
		if i+1 < len(lines) && lines[i+1] == NoNewline && i+2 == len(lines) {
			continue
		}
		b.WriteByte('\n')
	}
	derived := outputResult(b.String())
	delete(derived, "stdout")
	return engine.Normalize(derived).(map[string]any)
}

// stopRunning stops the command a check started and left running.
func (e *Executor) stopRunning() {
	if e.running != nil {
		e.running.Stop()
		e.running = nil
	}
}
