// Package gherkin compiles Gherkin feature files into engine checks.
//
// godog is the Gherkin front end: it parses the file, expands outlines and
// backgrounds, and matches every step against the suite's step definitions.
// The step definitions do not touch an implementation: they append steps of
// the engine's step model to a Builder, so a scenario and a JSON vector end
// up as the same kind of check and run through the same interpreter.
package gherkin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"

	gherkinparser "github.com/cucumber/gherkin/go/v42"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
)

// Registrar registers a suite's step definitions on a scenario context. Each
// definition finds the Builder with From(ctx) and appends steps to it.
type Registrar func(sc *godog.ScenarioContext)

// RuleTag matches a tag that names a rule ID (without the leading @).
var RuleTag = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Za-z0-9.]+)+$`)

// Builder collects the steps of the scenario being compiled.
type Builder struct {
	steps   []engine.Step
	source  string
	text    string
	keyword string
}

type builderKey struct{}

// From returns the Builder of the scenario being compiled.
func From(ctx context.Context) *Builder {
	b, _ := ctx.Value(builderKey{}).(*Builder)
	if b == nil {
		panic("gherkin: step definition called outside a compiling scenario")
	}
	return b
}

// Add appends a step, stamped with the source and text of the Gherkin step.
func (b *Builder) Add(s engine.Step) {
	s.Source = b.source
	if s.Text == "" {
		s.Text = b.text
	}
	s.Keyword = b.keyword
	b.steps = append(b.steps, s)
}

// Last returns the most recently added step, or nil.
func (b *Builder) Last() *engine.Step {
	if len(b.steps) == 0 {
		return nil
	}
	return &b.steps[len(b.steps)-1]
}

// Compile parses one feature file and returns one check per scenario (one per
// example row for outlines). suite prefixes check IDs.
func Compile(fsys fs.FS, file, suite string, register Registrar) ([]engine.Check, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("feature file: %w", err)
	}
	// A byte order mark is how some editors start UTF-8; Gherkin's lexer
	// takes it for text.
	raw = inputfile.Text(raw)
	lines, keywords, err := nodeLines(file, raw)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	c := &compiler{file: file, prefix: suite + "/" + stem + "/", lines: lines, keywords: keywords, ids: map[string]int{}, told: map[string]bool{}}
	status := godog.TestSuite{
		Name: file,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			sc.Before(c.before)
			sc.StepContext().Before(c.beforeStep)
			sc.StepContext().After(c.afterStep)
			sc.After(c.after)
			register(sc)
		},
		Options: &godog.Options{
			Format:          "progress",
			Output:          io.Discard,
			Strict:          true,
			Concurrency:     1,
			NoColors:        true,
			FeatureContents: []godog.Feature{{Name: file, Contents: raw}},
		},
	}.Run()
	if len(c.problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(c.problems, "\n"))
	}
	if status != 0 {
		return nil, fmt.Errorf("%s: godog could not compile the feature (status %d)", file, status)
	}
	if len(c.checks) == 0 {
		return nil, fmt.Errorf("%s: no scenario in it, so it would check nothing; add a Scenario or remove the file", file)
	}
	return c.checks, nil
}

type compiler struct {
	file     string
	prefix   string
	lines    map[string]int64
	keywords map[string]string // step node id → its keyword
	told     map[string]bool   // steps whose problem is already reported
	ids      map[string]int
	checks   []engine.Check
	problems []string
}

func (c *compiler) line(ids []string) int64 {
	// The last AST node of a pickle (or pickle step) is the example row for
	// outlines, which is the most precise location.
	for i := len(ids) - 1; i >= 0; i-- {
		if l, ok := c.lines[ids[i]]; ok {
			return l
		}
	}
	return 0
}

// stepLine is the line of the Gherkin step itself (not of its example row).
func (c *compiler) stepLine(ids []string) int64 {
	if len(ids) == 0 {
		return 0
	}
	return c.lines[ids[0]]
}

func (c *compiler) before(ctx context.Context, sc *godog.Scenario) (context.Context, error) {
	return context.WithValue(ctx, builderKey{}, &Builder{}), nil
}

func (c *compiler) beforeStep(ctx context.Context, st *godog.Step) (context.Context, error) {
	b := From(ctx)
	b.source = fmt.Sprintf("%s:%d", c.file, c.stepLine(st.AstNodeIds))
	b.text = st.Text
	b.keyword = ""
	if len(st.AstNodeIds) > 0 {
		b.keyword = c.keywords[st.AstNodeIds[0]]
	}
	return ctx, nil
}

func (c *compiler) afterStep(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
	where := fmt.Sprintf("%s:%d", c.file, c.stepLine(st.AstNodeIds))
	if c.told[where] {
		return ctx, nil // an outline's rows, or a background, repeat the step: told once
	}
	if status == godog.StepUndefined || status == godog.StepAmbiguous || err != nil {
		c.told[where] = true
	}
	switch {
	case status == godog.StepUndefined:
		c.problems = append(c.problems, fmt.Sprintf("%s: no step definition matches %q; see docs/steps.md for the step vocabulary", where, st.Text))
	case status == godog.StepAmbiguous:
		c.problems = append(c.problems, fmt.Sprintf("%s: more than one step definition matches %q", where, st.Text))
	case err != nil:
		c.problems = append(c.problems, fmt.Sprintf("%s: %v", where, err))
	}
	return ctx, nil
}

func (c *compiler) after(ctx context.Context, sc *godog.Scenario, err error) (context.Context, error) {
	b := From(ctx)
	check := engine.Check{
		Kind:   "scenario",
		Title:  sc.Name,
		Source: fmt.Sprintf("%s:%d", c.file, c.line(sc.AstNodeIds)),
		Steps:  b.steps,
	}
	for _, t := range sc.Tags {
		name := strings.TrimPrefix(t.Name, "@")
		if RuleTag.MatchString(name) {
			check.Rules = append(check.Rules, name)
		} else {
			check.Tags = append(check.Tags, name)
		}
	}
	slug := Slug(sc.Name)
	c.ids[slug]++
	if n := c.ids[slug]; n > 1 {
		slug = fmt.Sprintf("%s-%d", slug, n)
	}
	check.ID = c.prefix + slug
	c.checks = append(c.checks, check)
	return ctx, nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug turns a scenario name into a stable ID segment.
func Slug(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "scenario"
	}
	return s
}

// nodeLines parses the feature exactly as godog does (same id generator) and
// maps every AST node id to its line, and every step's id to its keyword.
func nodeLines(file string, raw []byte) (map[string]int64, map[string]string, error) {
	newID := (&messages.Incrementing{}).NewId
	doc, err := gherkinparser.ParseGherkinDocument(bytes.NewReader(raw), newID)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	lines, keywords := map[string]int64{}, map[string]string{}
	addSteps := func(steps []*messages.Step) {
		for _, s := range steps {
			lines[s.Id] = s.Location.Line
			keywords[s.Id] = s.Keyword
		}
	}
	addScenario := func(s *messages.Scenario) {
		lines[s.Id] = s.Location.Line
		addSteps(s.Steps)
		for _, ex := range s.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = row.Location.Line
			}
		}
	}
	if doc.Feature == nil {
		return lines, keywords, nil
	}
	for _, child := range doc.Feature.Children {
		switch {
		case child.Scenario != nil:
			addScenario(child.Scenario)
		case child.Background != nil:
			addSteps(child.Background.Steps)
		case child.Rule != nil:
			for _, rc := range child.Rule.Children {
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
				if rc.Background != nil {
					addSteps(rc.Background.Steps)
				}
			}
		}
	}
	return lines, keywords, nil
}
