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
	"errors"
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
// example row for outlines). suite prefixes check IDs. An outline that
// would check nothing, or run a placeholder's literal text, is refused; so
// are two checks of the file with one ID (see ids.go for how an ID is
// derived).
func Compile(fsys fs.FS, file, suite string, register Registrar) ([]engine.Check, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("feature file: %w", err)
	}
	// A byte order mark is how some editors start UTF-8; Gherkin's lexer
	// takes it for text.
	raw = inputfile.Text(raw)
	doc, err := parse(file, raw)
	if err != nil {
		return nil, err
	}
	if problems := outlineProblems(file, doc); len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	c := &compiler{file: file, prefix: suite + "/" + stem + "/", told: map[string]bool{}}
	c.index(doc)
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
	if problems := c.assignIDs(); len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return c.checks, nil
}

type compiler struct {
	file     string
	prefix   string
	lines    map[string]int64
	keywords map[string]string      // step node id → its keyword
	rows     map[string]*exampleRow // example row node id → its columns and values
	told     map[string]bool        // steps whose problem is already reported
	checks   []engine.Check
	pickles  []pickle // what each check's ID is derived from, beside c.checks
	problems []string
}

// pickle is what a check's ID is derived from: its title, its tags and its
// AST nodes (the scenario, and for an outline the example row).
type pickle struct {
	name  string
	tags  []string // without the leading @
	nodes []string
}

// exampleRow is one row of an outline's Examples: its table's columns and
// the row's values, in order.
type exampleRow struct {
	columns, values []string
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
	p := pickle{name: sc.Name, nodes: sc.AstNodeIds}
	for _, t := range sc.Tags {
		name := strings.TrimPrefix(t.Name, "@")
		p.tags = append(p.tags, name)
		switch {
		case strings.HasPrefix(name, IDTag):
			// the check's ID, neither a rule nor a tag to select by
		case RuleTag.MatchString(name):
			check.Rules = append(check.Rules, name)
		default:
			check.Tags = append(check.Tags, name)
		}
	}
	c.checks = append(c.checks, check)
	c.pickles = append(c.pickles, p)
	return ctx, nil
}

// parse parses the feature exactly as godog does (same id generator, so
// the AST node ids are the ones godog's pickles name).
func parse(file string, raw []byte) (*messages.GherkinDocument, error) {
	newID := (&messages.Incrementing{}).NewId
	doc, err := gherkinparser.ParseGherkinDocument(bytes.NewReader(raw), newID)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return doc, nil
}

// index maps every AST node id to its line, every step's id to its
// keyword and every example row's id to its columns and values.
func (c *compiler) index(doc *messages.GherkinDocument) {
	c.lines, c.keywords, c.rows = map[string]int64{}, map[string]string{}, map[string]*exampleRow{}
	addSteps := func(steps []*messages.Step) {
		for _, s := range steps {
			c.lines[s.Id] = s.Location.Line
			c.keywords[s.Id] = s.Keyword
		}
	}
	eachChild(doc, addSteps, func(s *messages.Scenario) {
		c.lines[s.Id] = s.Location.Line
		addSteps(s.Steps)
		for _, ex := range s.Examples {
			if ex.TableHeader == nil {
				continue
			}
			columns := cellValues(ex.TableHeader)
			for _, row := range ex.TableBody {
				c.lines[row.Id] = row.Location.Line
				c.rows[row.Id] = &exampleRow{columns: columns, values: cellValues(row)}
			}
		}
	})
}

// eachChild calls background with the steps of every background and
// scenario with every scenario (and outline) of the document, in order.
func eachChild(doc *messages.GherkinDocument, background func([]*messages.Step), scenario func(*messages.Scenario)) {
	if doc.Feature == nil {
		return
	}
	for _, child := range doc.Feature.Children {
		switch {
		case child.Scenario != nil:
			scenario(child.Scenario)
		case child.Background != nil:
			background(child.Background.Steps)
		case child.Rule != nil:
			for _, rc := range child.Rule.Children {
				if rc.Scenario != nil {
					scenario(rc.Scenario)
				}
				if rc.Background != nil {
					background(rc.Background.Steps)
				}
			}
		}
	}
}

func cellValues(row *messages.TableRow) []string {
	out := make([]string, len(row.Cells))
	for i, cell := range row.Cells {
		out[i] = cell.Value
	}
	return out
}
