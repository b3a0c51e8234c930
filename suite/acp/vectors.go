package acp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/steps/acpsteps"
)

// VectorSchema is the schema ACP vector files satisfy.
const VectorSchema = "acp-vector.schema.json"

// FixturesDir holds the fixture folders, inside the vectors directory.
const FixturesDir = "fixtures"

type vectorFile struct {
	Suite       string       `json:"suite"`
	Schema      string       `json:"schema"`
	Description string       `json:"description"`
	Cases       []vectorCase `json:"cases"`
}

type vectorCase struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Rules        []string `json:"rules"`
	Tags         []string `json:"tags"`
	Comment      string   `json:"comment"`
	Start        string   `json:"start"`
	Participants []string `json:"participants"`
	Fixture      string   `json:"fixture"`
	Calls        []call   `json:"calls"`
}

type call struct {
	Init *struct {
		Participants     []string `json:"participants"`
		Objective        *string  `json:"objective"`
		Completion       []string `json:"completion"`
		Resume           bool     `json:"resume"`
		PrimaryType      *string  `json:"primary_type"`
		PrimaryFile      string   `json:"primary_file"`
		PrimaryChecks    []string `json:"primary_checks"`
		DeliverablesMode string   `json:"deliverables_mode"`
		DeliverablesDir  string   `json:"deliverables_dir"`
		RepoRoot         string   `json:"repo_root"`
	} `json:"init"`
	Append *struct {
		From    string `json:"from"`
		Event   string `json:"event"`
		ReplyTo int    `json:"reply_to"`
		Doc     string `json:"doc"`
		Summary string `json:"summary"`
		Role    string `json:"role"`
		SHA256  string `json:"sha256"`
	} `json:"append"`
	Next string `json:"next"`
	Wait *struct {
		Participant string  `json:"participant"`
		Timeout     float64 `json:"timeout"`
	} `json:"wait"`
	Validate *struct{}       `json:"validate"`
	Write    *map[string]any `json:"write"`
	Parallel []call          `json:"parallel"`
	Compat   bool            `json:"compat"`
	Expect   *map[string]any `json:"expect"`
	Comment  string          `json:"comment"`
}

// CompileVector compiles one ACP vector file. Files inside the fixture
// folders are data, not vectors, and compile to nothing.
func CompileVector(fsys fs.FS, file string, schemas *schema.Set) ([]engine.Check, error) {
	if isFixture(file) {
		return nil, nil
	}
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, err
	}
	raw = inputfile.Text(raw)
	if err := schemas.Validate(VectorSchema, file, raw); err != nil {
		return nil, err
	}
	var vf vectorFile
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&vf); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	seen := map[string]bool{}
	var checks []engine.Check
	for i, vc := range vf.Cases {
		ptr := fmt.Sprintf("%s#/cases/%d", file, i)
		if seen[vc.ID] {
			return nil, fmt.Errorf("%s/id: case id %q is used twice in the file; ids must be unique", ptr, vc.ID)
		}
		seen[vc.ID] = true
		c := engine.Check{ID: "acp/" + stem + "/" + vc.ID, Kind: "vector", Title: vc.Title, Source: ptr, Rules: vc.Rules, Tags: vc.Tags}
		v2 := vf.Schema == acpsteps.V2
		if v2 && !slices.Contains(c.Tags, acpsteps.V2) {
			c.Tags = append(slices.Clone(c.Tags), acpsteps.V2)
		}
		if vc.Fixture != "" {
			files, err := readFixture(fsys, path.Join(path.Dir(file), FixturesDir, vc.Fixture))
			if err != nil {
				return nil, fmt.Errorf("%s/fixture: %v; put the folder under %s/%s/", ptr, err, path.Join(path.Dir(file), FixturesDir), vc.Fixture)
			}
			c.Steps = append(c.Steps, engine.Step{Source: ptr + "/fixture", Text: "fixture " + vc.Fixture, Op: engine.OpControl, Name: "fixture",
				Params: map[string]any{"files": files}})
		} else {
			start := vc.Start
			if start == "" {
				start = "drafting"
			}
			preset := acpsteps.Preset
			if v2 {
				preset = acpsteps.PresetV2
			}
			pre, err := preset(start, vc.Participants, nil)
			if err != nil {
				return nil, fmt.Errorf("%s/start: %v", ptr, err)
			}
			for _, s := range pre {
				s.Source = ptr + "/start"
				if v2 {
					s = acpsteps.WithSchema(s, acpsteps.V2)
				}
				c.Steps = append(c.Steps, s)
			}
		}
		for j, cl := range vc.Calls {
			s, err := compileCall(cl, fmt.Sprintf("%s/calls/%d", ptr, j), v2)
			if err != nil {
				return nil, err
			}
			if v2 {
				s = acpsteps.WithSchema(s, acpsteps.V2)
			}
			c.Steps = append(c.Steps, s)
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func isFixture(file string) bool {
	return strings.Contains("/"+file, "/"+FixturesDir+"/")
}

// readFixture reads every file of a fixture folder, by its path inside the
// folder ("deliverables/design-spec.md"). Content that is not UTF-8 is
// carried as {"base64": …}, so it survives the step model's JSON.
func readFixture(fsys fs.FS, dir string) (map[string]any, error) {
	if _, err := fs.ReadDir(fsys, dir); err != nil {
		return nil, err
	}
	files := map[string]any{}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := inputfile.ReadFS(fsys, p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, dir+"/")] = FileContent(raw)
		return nil
	})
	return files, err
}

// FileContent is a file's content as a step parameter: the text, or
// {"base64": …} when it is not UTF-8.
func FileContent(raw []byte) any {
	if utf8.Valid(raw) {
		return string(raw)
	}
	return map[string]any{"base64": base64.StdEncoding.EncodeToString(raw)}
}

func compileCall(cl call, source string, v2 bool) (engine.Step, error) {
	var s engine.Step
	switch {
	case cl.Init != nil:
		participants, gates, objective := acpsteps.DefaultParticipants, acpsteps.DefaultGates, acpsteps.DefaultObjective
		if cl.Init.Participants != nil {
			participants = cl.Init.Participants
		}
		if cl.Init.Completion != nil {
			gates = cl.Init.Completion
		}
		if cl.Init.Objective != nil {
			objective = *cl.Init.Objective
		}
		s = acpsteps.Init(participants, objective, gates, cl.Init.Resume)
		ptype := ""
		if v2 {
			ptype = acpsteps.DefaultPrimaryType
		}
		if cl.Init.PrimaryType != nil {
			ptype = *cl.Init.PrimaryType
		}
		for k, v := range map[string]string{"primary_type": ptype, "primary_file": cl.Init.PrimaryFile,
			"deliverables_mode": cl.Init.DeliverablesMode, "deliverables_dir": cl.Init.DeliverablesDir, "repo_root": cl.Init.RepoRoot} {
			if v != "" {
				s.Params[k] = v
			}
		}
		if cl.Init.PrimaryChecks != nil {
			s.Params["primary_checks"] = anyList(cl.Init.PrimaryChecks)
		}
	case cl.Append != nil:
		s = acpsteps.Append(cl.Append.From, cl.Append.Event, cl.Append.ReplyTo, cl.Append.Doc)
		if cl.Append.Summary != "" {
			s.Params["summary"] = cl.Append.Summary
		}
		if cl.Append.Role != "" {
			s.Params["role"] = cl.Append.Role
		}
		if cl.Append.SHA256 != "" {
			s.Params["sha256"] = cl.Append.SHA256
		}
	case cl.Next != "":
		s = acpsteps.Next(cl.Next)
	case cl.Wait != nil:
		s = acpsteps.Wait(cl.Wait.Participant, cl.Wait.Timeout)
	case cl.Validate != nil:
		s = acpsteps.Validate()
	case cl.Write != nil:
		w := *cl.Write
		s = engine.Step{Op: engine.OpControl, Name: "write", Params: w}
	case len(cl.Parallel) > 0:
		s = engine.Step{Op: engine.OpParallel}
		for k, sub := range cl.Parallel {
			ss, err := compileCall(sub, fmt.Sprintf("%s/parallel/%d", source, k), v2)
			if err != nil {
				return s, err
			}
			s.Steps = append(s.Steps, ss)
		}
		s.Steps = acpsteps.AtOnce(s.Steps)
	}
	if cl.Compat {
		s = acpsteps.Compat(s)
	}
	s.Source = source
	s.Text = cl.Comment
	if cl.Expect != nil {
		exp, err := compileExpect(*cl.Expect)
		if err != nil {
			return s, fmt.Errorf("%s/expect: %v", source, err)
		}
		s.Expect = exp
	}
	return s, nil
}

// compileExpect turns the vector's expectation keys into pointer matchers
// over the outcome document, in a fixed order.
func compileExpect(m map[string]any) (*engine.Expect, error) {
	e := &engine.Expect{}
	add := func(ptr string, v any) {
		e.Match = append(e.Match, engine.Match{Pointer: ptr, Matcher: engine.Normalize(v)})
	}
	for _, k := range []string{"exit", "phase", "owner", "waitingFor", "seqs", "next_action", "errors", "warnings", "changed", "ok_count"} {
		if v, ok := m[k]; ok {
			ptr := "/result/" + k
			add(ptr, v)
		}
	}
	for _, k := range []string{"stdout", "stderr", "errors_include", "warnings_include"} {
		list, _ := m[k].([]any)
		ptr := "/result/" + strings.TrimSuffix(k, "_include")
		for _, item := range list {
			add(ptr, map[string]any{"$contains": item})
		}
	}
	if raw, ok := m["match"].(map[string]any); ok {
		for _, ptr := range sortedKeys(raw) {
			add(ptr, raw[ptr])
		}
	}
	return e, nil
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
