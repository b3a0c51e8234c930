// Package runner plans and executes a conformance run: it loads a suite's
// rule catalogue, compiles its features and vectors into checks, selects the
// checks that apply, runs each through the engine against a fresh executor,
// and assembles the one result model every report reads.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
	"github.com/sifu-dev/sifu/internal/engine/vector"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/schema"
)

// Suite describes where a suite's data lives and how its Gherkin compiles.
type Suite struct {
	Name      string
	Catalogue string // path of rules.json inside the file system
	Features  string // directory of .feature files
	Vectors   string // directory of vector .json files
	Schemas   string // directory of JSON Schemas
	Register  gherkin.Registrar
	// CompileVector compiles one vector file of the suite's own format,
	// validating it with the run's schema set; nil means sifu's vector
	// format (engine/vector).
	CompileVector func(fsys fs.FS, file string, schemas *schema.Set) ([]engine.Check, error)
	// Vocabulary is what the suite's steps mean to the core: every check
	// the suite compiles is linted with it, and the runner keeps checks
	// that use a disturbing control apart on a shared target.
	Vocabulary engine.Vocabulary
	// Uses returns the profiles whose actions or views a check uses. A check
	// that uses a profile the target does not offer is not_applicable, even
	// when the rules it evidences are in scope. Nil means no constraint.
	Uses func(engine.Check) []string
}

// Target is the implementation under test as the runner sees it.
type Target interface {
	// Describe returns what the implementation says about itself.
	Describe(ctx context.Context) (results.TargetInfo, error)
	// NewExecutor returns a fresh executor for one check, and a function
	// that releases it.
	NewExecutor(ctx context.Context) (engine.Executor, func(), error)
}

// WorkersTarget is a Target that says how many checks it takes at once when
// the run does not say: a remote implementation, whose checks mostly wait
// on the wire, takes more than there are processors.
type WorkersTarget interface{ Workers() int }

// AxisCell is one value of one axis a catalogue rule names (Rule.Axes),
// with the checks that evidence the rule and carry the tag "axis:value".
type AxisCell struct {
	Rule   string   `json:"rule"`
	Axis   string   `json:"axis"`
	Value  string   `json:"value"`
	Checks []string `json:"checks"`
}

// Axes lists every cell of every rule's matrix, in catalogue order, axes
// and values as the catalogue gives them; a cell no check covers has no
// checks.
func (p *Plan) Axes() []AxisCell {
	var cells []AxisCell
	for _, r := range p.Catalogue.Rules {
		axes := slices.Sorted(maps.Keys(r.Axes))
		for _, axis := range axes {
			for _, value := range r.Axes[axis] {
				cell := AxisCell{Rule: r.ID, Axis: axis, Value: value, Checks: []string{}}
				tag := axis + ":" + value
				for _, c := range p.Checks {
					if slices.Contains(c.Rules, r.ID) && slices.Contains(c.Tags, tag) {
						cell.Checks = append(cell.Checks, c.ID)
					}
				}
				cells = append(cells, cell)
			}
		}
	}
	return cells
}

// CheckTarget is a Target that prepares an executor knowing which check it
// is for: it may give a check that would disturb a shared implementation
// (by restarting it) an implementation of its own. The runner prefers it.
type CheckTarget interface {
	NewExecutorFor(ctx context.Context, c engine.Check) (engine.Executor, func(), error)
}

// UsageError is a problem with what the user asked for or with the suite's
// input files: the run cannot start. The CLI exits 2 on it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return &UsageError{Msg: fmt.Sprintf(format, args...)} }

// Plan is a loaded suite: the catalogue and every compiled check.
type Plan struct {
	Suite     Suite
	Catalogue *catalogue.Catalogue
	Checks    []engine.Check
}

// Load reads the catalogue and compiles every feature and vector of a suite.
// Any malformed file, or a check naming a rule the catalogue lacks, is a
// UsageError naming the file.
func Load(fsys fs.FS, s Suite, opts ...LoadOption) (*Plan, error) {
	lo := loadOptions{featuresFS: fsys, featuresDir: s.Features, vectorsFS: fsys, vectorsDir: s.Vectors}
	for _, o := range opts {
		o(&lo)
	}
	set := schema.For(fsys, s.Schemas)
	cat, err := catalogue.Load(fsys, s.Catalogue, set)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	p := &Plan{Suite: s, Catalogue: cat}
	features, err := files(lo.featuresFS, lo.featuresDir, ".feature")
	if err != nil {
		return nil, err
	}
	if lo.otherFeatures && len(features) == 0 {
		return nil, usagef("the features directory given (--features) holds no *.feature file, so nothing of it would run; give the directory of the features")
	}
	for _, f := range features {
		checks, err := gherkin.Compile(lo.featuresFS, f, s.Name, s.Register)
		if err == nil {
			err = lint(checks, s.Vocabulary)
		}
		if err != nil {
			return nil, onDisk(lo.featuresPath, f, err)
		}
		p.Checks = append(p.Checks, checks...)
	}
	vectors, err := files(lo.vectorsFS, lo.vectorsDir, ".json")
	if err != nil {
		return nil, err
	}
	custom := lo.vectorsFS != fsys || lo.vectorsDir != s.Vectors
	compiled := 0
	for _, f := range vectors {
		if lo.vectorsFS == fsys && f == s.Catalogue {
			continue
		}
		if strings.HasSuffix(f, MapSuffix) {
			continue // a surface map says how to reach an implementation: it is no vector
		}
		if lo.vectorsFS != fsys && isCatalogue(lo.vectorsFS, f, set) {
			continue // a copied vectors directory holds its catalogue too: it is no vector
		}
		var checks []engine.Check
		if s.CompileVector != nil {
			checks, err = s.CompileVector(lo.vectorsFS, f, set)
		} else {
			checks, err = vector.Compile(lo.vectorsFS, f, s.Name, set)
		}
		if err == nil {
			err = lint(checks, s.Vocabulary)
		}
		if err != nil {
			return nil, onDisk(lo.vectorsPath, f, err)
		}
		compiled += len(checks)
		p.Checks = append(p.Checks, checks...)
	}
	if custom && compiled == 0 {
		return nil, usagef("the vectors directory given (--vectors) holds no %s vector (*.json files, a rule catalogue aside), so nothing of it would run; give the directory of the vectors", s.Name)
	}
	seen := map[string]string{}
	for _, c := range p.Checks {
		if prev, dup := seen[c.ID]; dup {
			return nil, usagef("%s: check id %s is also used by %s; rename one", c.Source, c.ID, prev)
		}
		seen[c.ID] = c.Source
		for _, id := range c.Rules {
			if _, ok := cat.Rule(id); !ok {
				return nil, usagef("%s: check %s names rule %s, which is not in %s; fix the rule ID", c.Source, c.ID, id, s.Catalogue)
			}
		}
	}
	sort.Slice(p.Checks, func(i, j int) bool { return p.Checks[i].ID < p.Checks[j].ID })
	return p, nil
}

// lint refuses the checks of one file when any has an authoring mistake,
// naming every one.
func lint(checks []engine.Check, v engine.Vocabulary) error {
	var problems []string
	for _, c := range checks {
		if err := engine.Lint(c, v); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// isCatalogue reports whether a JSON file is a rule catalogue (it has a spec
// and rules, and passes the catalogue schema).
func isCatalogue(fsys fs.FS, file string, set *schema.Set) bool {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return false
	}
	var head struct {
		Spec  json.RawMessage `json:"spec"`
		Rules json.RawMessage `json:"rules"`
	}
	if json.Unmarshal(inputfile.Text(raw), &head) != nil || head.Spec == nil || head.Rules == nil {
		return false
	}
	_, err = catalogue.Load(fsys, file, set)
	return err == nil
}

// LoadOption adjusts what Load reads.
type LoadOption func(*loadOptions)

type loadOptions struct {
	featuresFS    fs.FS
	featuresDir   string
	otherFeatures bool // the features are not the bundled ones
	vectorsFS     fs.FS
	vectorsDir    string
	featuresPath  string // the directory on disk the features were read from, if any
	vectorsPath   string // the same for the vectors
}

// onDisk is err, about file in the directory at (on disk; "" for assets),
// as a UsageError that names the file by the path a user can open.
func onDisk(at, file string, err error) error {
	msg := err.Error()
	if at != "" {
		full := filepath.Join(at, filepath.FromSlash(file))
		if rest, ok := strings.CutPrefix(msg, file); ok {
			msg = full + rest
		} else {
			msg = full + ": " + msg
		}
	}
	return &UsageError{Msg: msg}
}

// WithFeatures reads the suite's Gherkin features from dir in fsys (for
// example scenarios being written) instead of the bundled ones: the suite's
// vectors still run, its bundled features do not. A directory that holds
// no feature file is a UsageError.
func WithFeatures(fsys fs.FS, dir string) LoadOption {
	return func(o *loadOptions) { o.featuresFS, o.featuresDir, o.otherFeatures = fsys, dir, true }
}

// WithVectors reads the suite's vectors from dir in fsys (for example a
// directory of upstream vectors) instead of the bundled ones: the suite's
// features still run, its bundled vectors do not. A directory that holds no vector of the suite
// is a UsageError.
func WithVectors(fsys fs.FS, dir string) LoadOption {
	return func(o *loadOptions) { o.vectorsFS, o.vectorsDir = fsys, dir }
}

// WithFeaturesDir is WithFeatures for a directory on disk; a malformed file
// in it is named by its path.
func WithFeaturesDir(path string) LoadOption {
	return func(o *loadOptions) {
		WithFeatures(os.DirFS(path), ".")(o)
		o.featuresPath = path
	}
}

// WithVectorsDir is WithVectors for a directory on disk; a malformed file in
// it is named by its path.
func WithVectorsDir(path string) LoadOption {
	return func(o *loadOptions) {
		WithVectors(os.DirFS(path), ".")(o)
		o.vectorsPath = path
	}
}

func files(fsys fs.FS, dir, ext string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	if _, err := fs.Stat(fsys, dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // a suite without features, or without vectors
	}
	var out []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, usagef("read %s: %v", dir, err)
	}
	sort.Strings(out)
	return out, nil
}

// MapSuffix ends the name of a file among a suite's vectors that is no
// vector but a surface map (how to reach an implementation's tools).
const MapSuffix = ".map.json"

// LackingTarget is a target that can say, before a check runs, that it
// lacks something the check needs (an action or view its interface has no
// counterpart for): the check is untestable, with that reason.
type LackingTarget interface {
	Lacking(c engine.Check) string
}

// PreparingTarget is a target that readies what the chosen checks need
// before the first runs (a server it must be able to start): an error is
// an unreachable target, and no check runs.
type PreparingTarget interface {
	Prepare(ctx context.Context, checks []engine.Check) error
}

// Config says what to run and how.
type Config struct {
	Target     Target
	TargetName string
	Profiles   []string // empty: the profiles the target claims
	Tags       string
	Rules      []string
	Timeout    time.Duration // per check; zero means 30s
	// HelloTimeout bounds the target's hello (Describe), which is one
	// request: the request timeout of the target (--request-timeout). The
	// shorter of it and Timeout applies; zero means Timeout.
	HelloTimeout time.Duration
	Concurrency  int       // zero means the target's Workers, or GOMAXPROCS
	Progress     io.Writer // one line per finished check; nil for silence
	// Ended, when set, is called after each check with how many checks of
	// the run have ended (a terminal's progress line).
	Ended   func(done, total int)
	Harness results.Harness
	// Conditions, when set, is recorded in the run: what the harness
	// changed about the target (a planted fault, injected faults).
	Conditions *results.Conditions
	Now        func() time.Time
	// Shard, when Count > 1, keeps only the checks of shard Index (1-based)
	// of Count; the split depends on check IDs only, so it is the same on
	// every machine.
	Shard Shard
	// Only, when set, keeps only the checks with these IDs (a rerun), and
	// Rerun names the results file they come from.
	Only  []string
	Rerun string
	// Checks, when set, keeps only the checks whose ID matches one of these
	// patterns, where * stands for any run of characters (slashes
	// included) and ? for one character.
	Checks []string
	// Repeat, when above 1, runs every check that many times, each on a
	// fresh executor, to expose checks whose outcome varies.
	Repeat int
}

// checkTimeout is the time limit of an ordinary check.
func (cfg Config) checkTimeout() time.Duration {
	if cfg.Timeout <= 0 {
		return 30 * time.Second
	}
	return cfg.Timeout
}

// Limit is the time limit of one check: the per-check limit times the
// factor the check declares (engine.TimeTag), so a check that makes many
// more calls than others fits its limit with room on any target.
func (cfg Config) Limit(c engine.Check) time.Duration {
	return cfg.checkTimeout() * time.Duration(c.TimeFactor())
}

// helloTimeout is the time limit of the target's hello, and the flag that
// sets it: the request timeout, unless a check's limit is shorter.
func (cfg Config) helloTimeout() (time.Duration, string) {
	if limit := cfg.checkTimeout(); cfg.HelloTimeout <= 0 || limit <= cfg.HelloTimeout {
		return limit, "--timeout"
	}
	return cfg.HelloTimeout, "--request-timeout"
}

// UnreachableError is a target that could not be reached, started or asked
// who it is, before any check ran: nothing about the implementation's
// conformance follows from it, so the CLI exits 2 with one message.
type UnreachableError struct {
	Target string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("target %s could not be reached or started, so no check ran: %v", e.Target, e.Err)
}

// helloError is why a hello failed, without the adapter's "adapter: step:"
// prefix: what the adapter was doing is the hello, which the message says.
func helloError(err error) error {
	for {
		ae, ok := err.(*engine.AdapterError)
		if !ok {
			return err
		}
		err = ae.Err
	}
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Selected is a check chosen for a run, with the verdict it gets without
// running when it cannot apply.
type Selected struct {
	Check    engine.Check
	Preset   engine.Status // NotApplicable or Untestable, or "" to run
	Reason   string
	Advisory bool // every rule it evidences is a SHOULD
	// Limit is the check's time limit in the run that chose it
	// (Config.Limit); zero when it was selected without a run's
	// configuration.
	Limit time.Duration
}

// Select chooses the checks of a run. It fails with a UsageError when the
// selection is malformed or empty.
// profiles are the profiles checked; claimed are those the target offers,
// whose actions may be used to observe rules of the checked profiles.
func (p *Plan) Select(profiles, claimed []string, tags string, rules []string, controls []string) ([]Selected, Scope, error) {
	sc, err := p.scope(profiles, claimed)
	if err != nil {
		return nil, sc, err
	}
	closure, available := sc.Checked, sc.Available
	if tags != "" {
		if msg := ValidTagExpr(tags); msg != "" {
			return nil, sc, usagef("--tags %q: %s", tags, msg)
		}
	}
	want := map[string]bool{}
	for _, id := range rules {
		if _, ok := p.Catalogue.Rule(id); !ok {
			return nil, sc, usagef("--rule %s: no such rule in the %s catalogue; `sifu rules --suite %s` lists them", id, p.Suite.Name, p.Suite.Name)
		}
		want[id] = true
	}
	has := map[string]bool{}
	for _, c := range controls {
		has[c] = true
	}
	var out []Selected
	for _, c := range p.Checks {
		if !MatchTags(tags, append(append([]string{c.Kind}, c.Tags...), c.Rules...)) {
			continue
		}
		if len(want) > 0 && !anyOf(c.Rules, want) {
			continue
		}
		sel := Selected{Check: c, Advisory: true}
		inScope, needs := false, map[string]bool{}
		for _, id := range c.Rules {
			r, _ := p.Catalogue.Rule(id)
			if !r.Advisory() {
				sel.Advisory = false
			}
			in, n := catalogue.Scope(r, closure, available)
			if in && len(n) == 0 {
				inScope = true
			}
			for _, x := range n {
				needs[x] = true
			}
		}
		if !inScope {
			if len(needs) == 0 {
				continue // the check is about profiles outside this run
			}
			sel.Preset, sel.Reason = engine.NotApplicable, fmt.Sprintf("observable only with the %s profile", strings.Join(slices.Sorted(maps.Keys(needs)), ", "))
		}
		if sel.Preset == "" && p.Suite.Uses != nil {
			var lacking []string
			for _, prof := range p.Suite.Uses(c) {
				if !available[prof] {
					lacking = append(lacking, prof)
				}
			}
			if len(lacking) > 0 {
				sel.Preset, sel.Reason = engine.NotApplicable, fmt.Sprintf("uses %s actions, which the target does not offer", strings.Join(lacking, ", "))
			}
		}
		if sel.Preset == "" {
			var missing []string
			for _, ctl := range c.Controls() {
				if !has[ctl] {
					missing = append(missing, ctl)
				}
			}
			if len(missing) > 0 {
				sel.Preset, sel.Reason = engine.Untestable, fmt.Sprintf("needs the %s control, which the target does not offer", strings.Join(missing, ", "))
			}
		}
		out = append(out, sel)
	}
	if len(out) == 0 {
		return nil, sc, usagef("no check selected (suite %s, profiles %v, tags %q, rules %v): nothing would be evidenced; widen the selection", p.Suite.Name, profiles, tags, rules)
	}
	return out, sc, nil
}

// scope computes what a run checks and may use to observe.
func (p *Plan) scope(profiles, claimed []string) (Scope, error) {
	if len(profiles) == 0 {
		return Scope{}, usagef("no profile to check: the target claims none; pass --profile (one of %v)", p.Catalogue.ProfileNames())
	}
	closure, err := p.Catalogue.Closure(profiles)
	if err != nil {
		return Scope{}, &UsageError{Msg: err.Error()}
	}
	offered := append([]string{}, profiles...)
	for _, c := range claimed {
		if slices.Contains(p.Catalogue.ProfileNames(), c) {
			offered = append(offered, c)
		}
	}
	available, _ := p.Catalogue.Closure(offered)
	return Scope{Checked: closure, Available: available}, nil
}

// Fold recomputes a run's summary and rule verdicts from its tests, for
// example after merging the results of shards.
func (p *Plan) Fold(run *results.Run) error {
	sc, err := p.scope(run.Profiles, run.Target.Profiles)
	if err != nil {
		return err
	}
	sort.Slice(run.Tests, func(i, j int) bool { return run.Tests[i].ID < run.Tests[j].ID })
	run.Summary = results.Summary{}
	for _, t := range run.Tests {
		run.Summary.Add(t.Status)
	}
	sel := run.Selection
	run.Rules = p.ruleVerdicts(run.Tests, sc, sel.Filtered(), sel.Rules)
	return nil
}

// Scope is what a run checks (the closure of its profiles) and what it may
// use to observe (that plus the closure of the target's claimed profiles).
type Scope struct {
	Checked   map[string]bool
	Available map[string]bool
}

func anyOf(ids []string, want map[string]bool) bool {
	for _, id := range ids {
		if want[id] {
			return true
		}
	}
	return false
}

// Chosen is what a run executes: the target as it describes itself, the
// profiles checked, the selected checks and the rule scope.
type Chosen struct {
	Target   results.TargetInfo
	Profiles []string
	Checks   []Selected
	Scope    Scope
}

// Choose asks the target to describe itself and selects the checks cfg
// asks for (profiles, tags, rules, check patterns, shard, rerun), without
// running any.
func (p *Plan) Choose(ctx context.Context, cfg Config) (*Chosen, error) {
	// The hello is one request, bounded by the request timeout (and never
	// longer than a check): a target that never answers it must not hang
	// the run, even one that does not heed its context.
	desc, err := hello(ctx, cfg)
	if err != nil {
		return nil, err
	}
	desc.Name = cfg.TargetName
	profiles := cfg.Profiles
	if len(profiles) == 0 {
		profiles = desc.Profiles
	}
	selected, scope, err := p.Select(profiles, desc.Profiles, cfg.Tags, cfg.Rules, desc.Controls)
	if err != nil {
		return nil, err
	}
	if selected, err = matching(selected, cfg.Checks); err != nil {
		return nil, err
	}
	if selected, err = narrow(selected, cfg.Shard, cfg.Only); err != nil {
		return nil, err
	}
	for i := range selected {
		selected[i].Limit = cfg.Limit(selected[i].Check)
		if l, ok := cfg.Target.(LackingTarget); ok && selected[i].Preset == "" {
			if why := l.Lacking(selected[i].Check); why != "" {
				selected[i].Preset, selected[i].Reason = engine.Untestable, why
			}
		}
	}
	return &Chosen{Target: desc, Profiles: profiles, Checks: selected, Scope: scope}, nil
}

// Run executes a plan against a target and returns the results.
func (p *Plan) Run(ctx context.Context, cfg Config) (*results.Run, error) {
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	started := now()
	chosen, err := p.Choose(ctx, cfg)
	if err != nil {
		return nil, err
	}
	desc, selected := chosen.Target, chosen.Checks
	if pt, ok := cfg.Target.(PreparingTarget); ok {
		var checks []engine.Check
		for _, sel := range selected {
			if sel.Preset == "" {
				checks = append(checks, sel.Check)
			}
		}
		if err := pt.Prepare(ctx, checks); err != nil {
			return nil, &UnreachableError{Target: cfg.TargetName, Err: err}
		}
	}
	workers := cfg.Concurrency
	if wt, ok := cfg.Target.(WorkersTarget); ok && workers <= 0 {
		workers = wt.Workers()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	tests := make([]results.Test, len(selected))
	ran := make([]bool, len(selected))
	var mu sync.Mutex
	ended := 0
	runAll := func(indices []int, workers int) {
		var wg sync.WaitGroup
		jobs := make(chan int)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					if ctx.Err() != nil {
						continue // interrupted: the checks not started are left out
					}
					t := p.RunSelected(ctx, cfg, selected[i])
					if ctx.Err() != nil && t.Status != engine.Pass && t.Status != engine.NotApplicable && t.Status != engine.Untestable {
						t.Status, t.Message = engine.HarnessError, "interrupted before a verdict: "+t.Message
					}
					tests[i], ran[i] = t, true
					mu.Lock()
					ended++
					if cfg.Progress != nil {
						fmt.Fprintf(cfg.Progress, "%-14s %s\n", t.Status, t.ID)
					}
					if cfg.Ended != nil {
						cfg.Ended(ended, len(selected))
					}
					mu.Unlock()
				}
			}()
		}
		for _, i := range indices {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
	}
	// On a target shared by every check, a check that uses a disturbing
	// control (moves the clock, restarts the implementation) would disturb
	// the others: such checks run afterwards, one at a time, unless the
	// target confines those controls to the check that uses them
	// (desc.Scoped).
	var together, alone []int
	for i, sel := range selected {
		if isShared(cfg.Target) && p.Suite.Vocabulary.Disturbs(sel.Check, desc.Scoped) {
			alone = append(alone, i)
		} else {
			together = append(together, i)
		}
	}
	runAll(together, workers)
	runAll(alone, 1)
	interrupted := ctx.Err() != nil
	if interrupted {
		var done []results.Test
		for i, t := range tests {
			if ran[i] {
				done = append(done, t)
			}
		}
		tests = done
	}
	run := p.Assemble(cfg, chosen, tests)
	run.StartedAt, run.DurationMS = started.UTC().Format(time.RFC3339), now().Sub(started).Milliseconds()
	run.Interrupted = interrupted
	return run, nil
}

// Assemble makes the run of what cfg chose (Choose) out of the tests of
// the chosen checks that ran: the summary and every rule's verdict folded
// from them. The caller dates it.
func (p *Plan) Assemble(cfg Config, chosen *Chosen, tests []results.Test) *results.Run {
	run := &results.Run{
		Harness:    cfg.Harness,
		Suite:      p.Suite.Name,
		Spec:       p.Catalogue.Spec.Name + " " + p.Catalogue.Spec.Version,
		Target:     chosen.Target,
		Conditions: cfg.Conditions,
		Profiles:   chosen.Profiles,
		Selection:  results.Selection{Tags: cfg.Tags, Rules: cfg.Rules, Checks: cfg.Checks, Shard: cfg.Shard.String(), Rerun: cfg.Rerun},
		Tests:      tests,
	}
	for _, t := range tests {
		run.Summary.Add(t.Status)
	}
	run.Rules = p.ruleVerdicts(tests, chosen.Scope, run.Selection.Filtered(), cfg.Rules)
	return run
}

// RunSelected runs one chosen check against cfg.Target, on a fresh
// executor, within its time limit (cfg.Limit) and as many times as
// cfg.Repeat says, and returns its test (a preset verdict without running
// it).
func (p *Plan) RunSelected(ctx context.Context, cfg Config, sel Selected) results.Test {
	return p.runRepeated(ctx, cfg.Target, sel, cfg.Limit(sel.Check), cfg.Repeat)
}

// runRepeated runs a check n times (once when n ≤ 1, or when its verdict
// is preset) and keeps the first run that did not pass, with the tally.
func (p *Plan) runRepeated(ctx context.Context, target Target, sel Selected, timeout time.Duration, n int) results.Test {
	if n <= 1 || sel.Preset != "" {
		return p.runOne(ctx, target, sel, timeout)
	}
	var kept results.Test
	var failedRuns []string
	passed, durationMS := 0, int64(0)
	for run := 1; run <= n; run++ {
		t := p.runOne(ctx, target, sel, timeout)
		durationMS += t.DurationMS
		if t.Status == engine.Pass {
			passed++
		} else {
			failedRuns = append(failedRuns, strconv.Itoa(run))
		}
		if len(failedRuns) == 0 || (t.Status != engine.Pass && len(failedRuns) == 1) {
			kept = t
		}
	}
	kept.DurationMS = durationMS
	kept.Repeat = &results.Repeat{Runs: n, Passed: passed}
	if passed < n {
		kept.Message = fmt.Sprintf("run %s of %d: %s (did not pass in run(s) %s; passed %d of %d)",
			failedRuns[0], n, kept.Message, strings.Join(failedRuns, ", "), passed, n)
	}
	return kept
}

// runOne runs a check once within its time limit. Whatever the target
// does, the check ends by its limit: a verdict that comes later, of any
// status, is a timeout, and a check still running at the limit is left to
// end by itself (its executor is released when it does) while the run goes
// on.
func (p *Plan) runOne(ctx context.Context, target Target, sel Selected, limit time.Duration) results.Test {
	c := sel.Check
	t := results.Test{ID: c.ID, Kind: c.Kind, Title: c.Title, Source: c.Source, Rules: c.Rules, Tags: c.Tags}
	if sel.Preset != "" {
		t.Status, t.Message = sel.Preset, sel.Reason
		return t
	}
	start := time.Now()
	cctx, cancel := context.WithTimeoutCause(ctx, limit, errLimit)
	defer cancel()
	e, ok := runBounded(cctx, target, c, p.Suite.Vocabulary)
	v := e.verdict
	within := limitText(limit, c)
	switch {
	case !ok && ctx.Err() != nil:
		v = engine.Verdict{Status: engine.HarnessError, Message: "the run was stopped while the check ran"}
	case !ok:
		v = engine.Verdict{Status: engine.Timeout, Message: fmt.Sprintf("no verdict within %s: the target did not stop when the check's time ran out (nor %s later), so the check was abandoned", within, Grace)}
	case e.late && (v.Status == engine.Timeout || v.Status == engine.Fail):
		// A step that waited until the time ran out failed for it.
		v.Status, v.Message = engine.Timeout, fmt.Sprintf("no verdict within %s: %s", within, v.Message)
	case e.late:
		msg := fmt.Sprintf("no verdict within %s: the check ended %s only after its time ran out", within, v.Status)
		if v.Message != "" {
			msg += ": " + v.Message
		}
		v.Status, v.Message = engine.Timeout, msg
	}
	if v.Status == engine.Fail && sel.Advisory {
		v.Status = engine.Warn
	}
	t.Status, t.Message, t.Step, t.Transcript = v.Status, v.Message, v.Step, v.Transcript
	t.DurationMS = time.Since(start).Milliseconds()
	return t
}

// errLimit is the cause of a check's context when its own time limit
// ends it (and not the run's).
var errLimit = errors.New("the check's time limit passed")

// limitText names a check's limit, and where it comes from when the check
// declares a factor.
func limitText(limit time.Duration, c engine.Check) string {
	if n := c.TimeFactor(); n > 1 {
		return fmt.Sprintf("%s (%d× --timeout, as its @%s%dx tag declares)", limit, n, engine.TimeTag, n)
	}
	return limit.String()
}

// ended is how a check run ended: its verdict, and whether it came only
// after the check's own time limit had passed.
type ended struct {
	verdict engine.Verdict
	late    bool
}

// Grace is how long past a check's time limit (or the hello's) sifu still
// waits for the target to return what it has, so that an executor that
// heeds its context reports where it stopped; one that is not back by then
// is abandoned. Either way the check is a timeout.
const Grace = time.Second

// patience is closed a Grace after ctx is done; stop releases it early.
func patience(ctx context.Context) (<-chan struct{}, func() bool) {
	over := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(Grace, func() { close(over) }) })
	return over, stop
}

// runBounded prepares an executor and runs a check in a goroutine of its
// own, waiting for it no longer than cctx and a Grace: ok is false when the
// check had not ended by then. An executor that ignores its context is
// left running and released when it ends. A panic in the target, the
// executor or the adapter is the check's harness error.
func runBounded(cctx context.Context, target Target, c engine.Check, vocab engine.Vocabulary) (e ended, ok bool) {
	done := make(chan ended, 1)
	released := make(chan struct{})
	late := func() bool { return errors.Is(context.Cause(cctx), errLimit) }
	go func() {
		defer close(released)
		defer func() {
			if r := recover(); r != nil {
				select { // a panic while releasing, after the verdict, changes nothing
				case done <- ended{engine.Verdict{Status: engine.HarnessError, Message: fmt.Sprintf("the adapter panicked: %v", r)}, late()}:
				default:
				}
			}
		}()
		var exec engine.Executor
		var release func()
		var err error
		if ct, ok := target.(CheckTarget); ok {
			exec, release, err = ct.NewExecutorFor(cctx, c)
		} else {
			exec, release, err = target.NewExecutor(cctx)
		}
		if err != nil {
			done <- ended{engine.Verdict{Status: engine.HarnessError, Message: "could not prepare the target: " + err.Error()}, late()}
			return
		}
		defer release()
		v := runGuarded(cctx, c, exec, vocab)
		done <- ended{v, late()}
	}()
	over, stop := patience(cctx)
	defer stop()
	select {
	case e = <-done:
	case <-over:
		return ended{late: true}, false
	}
	// The executor is released before the run goes on, unless that takes
	// past the check's time and its grace: then it releases itself.
	select {
	case <-released:
	case <-over:
	}
	return e, true
}

// describe asks the target for its hello in a goroutine of its own,
// waiting no longer than ctx and a Grace: a target that does not heed its
// context cannot hang the run. The hello is no verdict: an answer that
// comes within the grace is taken.
// hello asks cfg's target who it is, within the hello's time limit; a
// target that does not answer is an *UnreachableError.
func hello(ctx context.Context, cfg Config) (results.TargetInfo, error) {
	limit, flag := cfg.helloTimeout()
	dctx, cancel := context.WithTimeout(ctx, limit)
	desc, err := describe(dctx, cfg.Target)
	cancel()
	if err != nil {
		err = helloError(err)
		if errors.Is(dctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return results.TargetInfo{}, &UnreachableError{Target: cfg.TargetName, Err: fmt.Errorf("it did not answer its hello within %s (%s bounds the hello; raise it for a target that starts slowly): %w", limit, flag, err)}
		}
		return results.TargetInfo{}, &UnreachableError{Target: cfg.TargetName, Err: err}
	}
	return desc, nil
}

// Probe asks cfg's target for its hello as a run does before its first
// check (cfg's Target, TargetName, Timeout and HelloTimeout): a target
// that cannot be reached or started is an *UnreachableError. The fuzzer
// and the race checker probe first, so such a target is no finding.
func Probe(ctx context.Context, cfg Config) error {
	_, err := hello(ctx, cfg)
	return err
}

func describe(ctx context.Context, target Target) (results.TargetInfo, error) {
	type hello struct {
		info results.TargetInfo
		err  error
	}
	done := make(chan hello, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- hello{err: fmt.Errorf("its adapter panicked while asking for its hello: %v", r)}
			}
		}()
		info, err := target.Describe(ctx)
		done <- hello{info, err}
	}()
	over, stop := patience(ctx)
	defer stop()
	select {
	case h := <-done:
		return h.info, h.err
	case <-over:
		return results.TargetInfo{}, ctx.Err()
	}
}

// Shard names one part of a deterministic split of the checks.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.Index, &sh.Count); err != nil || sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count {
		return Shard{}, usagef("--shard %q: write i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return sh, nil
}

// String is "i/n", or "" for the whole run.
func (sh Shard) String() string {
	if sh.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
}

// Holds reports whether a check belongs to the shard.
func (sh Shard) Holds(id string) bool {
	if sh.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(sh.Count)) == sh.Index-1
}

// MatchChecks keeps the checks whose ID matches one of the --check
// patterns (all of them when there is none); matching none is a
// UsageError.
func MatchChecks(checks []engine.Check, patterns []string) ([]engine.Check, error) {
	sel := make([]Selected, len(checks))
	for i, c := range checks {
		sel[i].Check = c
	}
	kept, err := matching(sel, patterns)
	if err != nil {
		return nil, err
	}
	out := make([]engine.Check, len(kept))
	for i, s := range kept {
		out[i] = s.Check
	}
	return out, nil
}

// matching keeps the selected checks whose ID matches one of patterns
// (all of them when there is none).
func matching(selected []Selected, patterns []string) ([]Selected, error) {
	if len(patterns) == 0 {
		return selected, nil
	}
	var res []*regexp.Regexp
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return nil, usagef("--check %q: give a check ID or a pattern such as 'kungfu/pins/*'", p)
		}
		expr := regexp.QuoteMeta(p)
		expr = strings.ReplaceAll(expr, `\*`, ".*")
		expr = strings.ReplaceAll(expr, `\?`, ".")
		res = append(res, regexp.MustCompile("^"+expr+"$"))
	}
	var out []Selected
	for _, s := range selected {
		if slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(s.Check.ID) }) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--check %s matched none of the %d selected checks; `sifu rules` lists each rule's checks, and results.json every check's ID",
			strings.Join(patterns, " --check "), len(selected))
	}
	return out, nil
}

func narrow(selected []Selected, sh Shard, only []string) ([]Selected, error) {
	if sh.Count <= 1 && len(only) == 0 {
		return selected, nil
	}
	var out []Selected
	for _, s := range selected {
		if sh.Holds(s.Check.ID) && (len(only) == 0 || slices.Contains(only, s.Check.ID)) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no check selected after sharding (%d/%d) and rerun filters (%d ids)", sh.Index, sh.Count, len(only))
	}
	return out, nil
}

// SharedTarget is implemented by targets whose state every check shares (a
// remote server), as opposed to a fresh implementation per check.
type SharedTarget interface{ Shared() bool }

func isShared(t Target) bool {
	st, ok := t.(SharedTarget)
	return ok && st.Shared()
}

// runGuarded runs a check, its transcript recorded as the suite's
// vocabulary says, and turns a panic in an executor or adapter into a
// harness_error instead of crashing the run.
func runGuarded(ctx context.Context, c engine.Check, exec engine.Executor, vocab engine.Vocabulary) (v engine.Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = engine.Verdict{Status: engine.HarnessError, Message: fmt.Sprintf("the adapter panicked: %v", r)}
		}
	}()
	return engine.RunRecording(ctx, c, exec, vocab)
}

// ruleVerdicts folds test verdicts into one verdict per rule in scope. With
// a filtered selection only rules that were asked for or evidenced appear.
func (p *Plan) ruleVerdicts(tests []results.Test, scope Scope, filtered bool, asked []string) []results.Rule {
	evidence := map[string][]results.Test{}
	for _, t := range tests {
		for _, id := range t.Rules {
			evidence[id] = append(evidence[id], t)
		}
	}
	askedSet := map[string]bool{}
	for _, id := range asked {
		askedSet[id] = true
	}
	var out []results.Rule
	for _, r := range p.Catalogue.Rules {
		in, needs := catalogue.Scope(r, scope.Checked, scope.Available)
		if !in {
			continue
		}
		ev := evidence[r.ID]
		if filtered && len(ev) == 0 && !askedSet[r.ID] {
			continue
		}
		rr := results.Rule{ID: r.ID, Level: r.Level, Profile: r.Profiles, Evidence: []string{}}
		for _, t := range ev {
			rr.Evidence = append(rr.Evidence, t.ID)
		}
		switch {
		case r.Evidence == catalogue.NotBlackBox:
			rr.Status, rr.Note = results.RuleNotBlackBox, r.Reason
		case len(needs) > 0:
			rr.Status, rr.Note = results.RuleNotApplicable, "observable only with the "+strings.Join(needs, ", ")+" profile"
		case len(ev) == 0:
			rr.Status = results.RuleNotEvidenced
		default:
			rr.Status, rr.Note = fold(ev)
		}
		out = append(out, rr)
	}
	return out
}

// fold gives a rule the worst verdict among its checks: any failure fails
// it, a rule passes only when every check of it passed.
func fold(ev []results.Test) (string, string) {
	rank := map[engine.Status]int{engine.Fail: 6, engine.HarnessError: 5, engine.Timeout: 4, engine.Untestable: 3,
		engine.Warn: 2, engine.NotApplicable: 1, engine.Pass: 0}
	// A check that does not apply to the run is no evidence either way:
	// the rule is judged by the checks that ran, when any did.
	applied := slices.DeleteFunc(slices.Clone(ev), func(t results.Test) bool { return t.Status == engine.NotApplicable })
	if len(applied) > 0 {
		ev = applied
	}
	worst := engine.Pass
	for _, t := range ev {
		if rank[t.Status] > rank[worst] {
			worst = t.Status
		}
	}
	switch worst {
	case engine.Pass:
		return results.RulePass, ""
	case engine.Fail:
		return results.RuleFail, ""
	case engine.Warn:
		return results.RuleWarn, ""
	case engine.NotApplicable:
		return results.RuleNotEvidenced, "its checks do not apply to this run"
	}
	return string(worst), "a check of this rule ended " + string(worst)
}
