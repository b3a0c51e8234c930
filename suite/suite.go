// Package suite runs sifu's conformance suites under go test. Each suite's
// package (suite/kungfu, suite/kcp, suite/acp, suite/agentkit) exports one
// entry, Test, that runs the suite against a constructor of the
// implementation, as testing/fstest.TestFS runs its checks against a file
// system:
//
//	func TestConformance(t *testing.T) {
//		kungfu.Test(t, func() (kungfu.Target, error) { return myimpl.New() })
//	}
//
// Every check is a subtest named by its stable check ID (kungfu/pins/…),
// so go test -run selects checks and go test -json reports each one. Each
// check gets a fresh implementation from the constructor; an
// implementation that is an io.Closer is closed after its check. The
// profiles checked and the controls used are those the implementation's
// hello offers. Verdicts are those of sifu run: a failing, timed-out,
// untestable or broken check fails its subtest; a check outside the
// profiles checked is skipped with its reason. With Out, or the
// environment variable SIFU_OUT naming a directory, the run's
// results.json, junit.xml, cucumber.json and transcript.jsonl are written
// there when the test ends, as sifu run --out writes them.
package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
)

// OutEnv names the environment variable that, when set, is the directory
// a run under go test writes its results to (Out overrides it).
const OutEnv = "SIFU_OUT"

// Option adjusts a run under go test.
type Option func(*options)

type options struct {
	out      string
	profiles []string
	checks   []string
	tags     string
	rules    []string
	timeout  time.Duration
}

// Out writes the run's results.json, junit.xml, cucumber.json and
// transcript.jsonl to dir when the test ends.
func Out(dir string) Option { return func(o *options) { o.out = dir } }

// Profiles checks these profiles instead of every profile the
// implementation's hello claims.
func Profiles(names ...string) Option { return func(o *options) { o.profiles = names } }

// Checks keeps the checks whose ID matches one of these patterns, * standing
// for any characters (sifu run --check).
func Checks(patterns ...string) Option { return func(o *options) { o.checks = patterns } }

// Tags keeps the checks matching a tag expression (sifu run --tags).
func Tags(expr string) Option { return func(o *options) { o.tags = expr } }

// Rules keeps the checks that evidence these rule IDs (sifu run --rule).
func Rules(ids ...string) Option { return func(o *options) { o.rules = ids } }

// Timeout bounds one check (default 30s, also when d is not positive); a
// check that declares @timeout:Nx gets N times d.
func Timeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

var (
	plansMu sync.Mutex
	plans   = map[string]*runner.Plan{}
)

// plan loads a suite's bundled checks once per process.
func plan(s runner.Suite) (*runner.Plan, error) {
	plansMu.Lock()
	defer plansMu.Unlock()
	if p, ok := plans[s.Name]; ok {
		return p, nil
	}
	p, err := runner.Load(sifu.Assets, s)
	if err == nil {
		plans[s.Name] = p
	}
	return p, err
}

// Run runs a suite's checks under go test against target, each check a
// subtest named by its check ID. The suites' Test entries call it; call
// those.
func Run(t *testing.T, s runner.Suite, target runner.Target, opts ...Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.out == "" {
		o.out = os.Getenv(OutEnv)
	}
	p, err := plan(s)
	if err != nil {
		t.Fatalf("sifu: load the %s suite: %v", s.Name, err)
	}
	cfg := runner.Config{Target: target, TargetName: t.Name(), Profiles: o.profiles, Tags: o.tags, Rules: o.rules,
		Checks: o.checks, Timeout: o.timeout, Harness: results.This()}
	chosen, err := p.Choose(t.Context(), cfg)
	if err != nil {
		t.Fatalf("sifu: %v", err)
	}
	started := time.Now()
	tests := make([]results.Test, len(chosen.Checks))
	ran := make([]bool, len(chosen.Checks))
	var mu sync.Mutex
	t.Cleanup(func() {
		var done []results.Test
		var ids []string
		for i, test := range tests {
			if ran[i] {
				done = append(done, test)
				ids = append(ids, test.ID)
			}
		}
		if o.out == "" || len(done) == 0 {
			return
		}
		if len(done) < len(tests) {
			cfg.Checks = ids // go test -run chose these: the run says so
		}
		run := p.Assemble(cfg, chosen, done)
		run.StartedAt, run.DurationMS = started.UTC().Format(time.RFC3339), time.Since(started).Milliseconds()
		if err := write(o.out, run, p); err != nil {
			t.Errorf("sifu: %v", err)
		}
	})
	shared := false
	if st, ok := target.(runner.SharedTarget); ok {
		shared = st.Shared()
	}
	for i, sel := range chosen.Checks {
		t.Run(sel.Check.ID, func(t *testing.T) {
			// On a shared implementation a check that disturbs every
			// check (a clock, a restart) runs alone: before the others,
			// which run in parallel once the test's own function returns.
			if !shared || !s.Vocabulary.Disturbs(sel.Check, chosen.Target.Scoped) {
				t.Parallel()
			}
			test := p.RunSelected(t.Context(), cfg, sel)
			mu.Lock()
			tests[i], ran[i] = test, true
			mu.Unlock()
			report(t, test)
		})
	}
}

// Factory adapts a constructor of implementations to a suite's factory: an
// implementation that has a Close method is closed when its check ends.
func Factory[T any](newTarget func() (T, error)) func(context.Context) (T, func(), error) {
	return func(context.Context) (T, func(), error) {
		t, err := newTarget()
		if err != nil {
			var zero T
			return zero, nil, err
		}
		switch c := any(t).(type) {
		case io.Closer:
			return t, func() { _ = c.Close() }, nil
		case interface{ Close() }:
			return t, c.Close, nil
		}
		return t, func() {}, nil
	}
}

// report turns a check's verdict into its subtest's.
func report(t *testing.T, test results.Test) {
	t.Helper()
	switch test.Status {
	case engine.Pass:
	case engine.Warn:
		t.Logf("warn: a SHOULD of %s did not hold: %s", strings.Join(test.Rules, ", "), test.Message)
	case engine.NotApplicable:
		t.Skipf("not_applicable: %s", test.Message)
	default:
		where := ""
		if test.Step != "" {
			where = " at " + test.Step
		}
		t.Errorf("%s%s (rules %s; %s): %s\n(%d exchange(s); set %s=DIR to write them to DIR/transcript.jsonl)",
			test.Status, where, strings.Join(test.Rules, ", "), test.Source, test.Message, len(test.Transcript), OutEnv)
	}
}

// write writes a run's files as sifu run --out does; with
// SOURCE_DATE_EPOCH set, dated by it and without durations.
func write(dir string, run *results.Run, p *runner.Plan) error {
	if v := os.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", v, err)
		}
		run.Reproducible(time.Unix(secs, 0))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteDir(dir, run); err != nil {
		return err
	}
	return results.WriteCucumberFile(filepath.Clean(dir), run, p.Checks)
}
