package agentkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/steps/agentkitsteps"
)

// Suite is where the agent-kit suite's data lives in sifu's assets.
var Suite = runner.Suite{
	Name:          "agentkit",
	Catalogue:     "vectors/agentkit/rules.json",
	Features:      "features/agentkit",
	Vectors:       "vectors/agentkit",
	Schemas:       "vectors/schema",
	Register:      agentkitsteps.Register,
	CompileVector: CompileVector,
	// A restart stops the gateway every check of a shared one talks to.
	// What the gateway itself wrote, the system messages it sends the
	// stub model (its built-in prompts around the agent's instructions)
	// and what it prints at start-up, is its authors' prose: transcripts
	// keep its digest, and of it only the texts a check searched for.
	Vocabulary: engine.Vocabulary{Disturbing: []string{"restart"}, PeerText: PeerText},
}

// PeerText are the places of the gateway's own prose in the suite's
// exchanges: the content of every system message of the model requests,
// the texts of the last request joined (/result/seen, which holds it), each
// request's texts joined (requests/*/text), the summary calls' texts, and
// the gateway's start-up output. User, assistant and tool messages are the
// stub's and the checks' texts (a tool message may end with a note the
// gateway adds, which a check reads), and stay.
var PeerText = []engine.Place{
	{Op: engine.OpRead, Name: "model_requests", Pointer: "/outcome/result/requests/*/messages/*/content", If: map[string]any{"role": "system"}},
	{Op: engine.OpRead, Name: "model_requests", Pointer: "/outcome/result/seen"},
	{Op: engine.OpRead, Name: "model_requests", Pointer: "/outcome/result/requests/*/text"},
	{Op: engine.OpRead, Name: "model_requests", Pointer: "/outcome/result/summaries/*/text"},
	{Op: engine.OpControl, Name: "startup", Pointer: "/outcome/result/stderr"},
}

// vectorFile is the suite's vector format: HTTP exchanges, or start-up
// attempts with configuration fixtures (the format is in vectors/agentkit/README.md and docs/agentkit.md).
type vectorFile struct {
	Suite       string             `json:"suite"`
	Description string             `json:"description"`
	Base        map[string]*string `json:"base"`
	Cases       []vectorCase       `json:"cases"`
}

type vectorCase struct {
	ID      string             `json:"id"`
	Title   string             `json:"title"`
	Rules   []string           `json:"rules"`
	Comment string             `json:"comment"`
	Request *vectorRequest     `json:"request"`
	Files   map[string]*string `json:"files"`
	Expect  vectorExpect       `json:"expect"`
}

type vectorRequest struct {
	Method string         `json:"method"`
	Path   string         `json:"path"`
	Accept string         `json:"accept"`
	JSON   map[string]any `json:"json"`
	Raw    *string        `json:"raw"`
}

type vectorExpect struct {
	Status      *int    `json:"status"`
	Text        *string `json:"text"`
	Allow       *string `json:"allow"`
	ContentType *string `json:"content_type"` // a prefix
	JSON        any     `json:"json"`
	// start-up
	Starts         *bool       `json:"starts"`
	StderrContains stderrParts `json:"stderr_contains"`
}

// stderrParts is /expect/stderr_contains: one text, or a list of texts
// that must all be contained.
type stderrParts []string

func (p *stderrParts) UnmarshalJSON(raw []byte) error {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		*p = stderrParts{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return fmt.Errorf("stderr_contains must be a string or a list of strings")
	}
	*p = many
	return nil
}

var caseID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// CompileVector reads one vector file of the agent-kit format and compiles
// each case into a check. Every problem names the file and the case.
func CompileVector(fsys fs.FS, file string, schemas *schema.Set) ([]engine.Check, error) {
	raw, err := inputfile.ReadFS(fsys, file)
	if err != nil {
		return nil, err
	}
	raw = inputfile.Text(raw)
	if err := schemas.Validate("agentkit-vector.schema.json", file, raw); err != nil {
		return nil, err
	}
	var v vectorFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: not an agentkit vector file: %v (the format is in vectors/agentkit/README.md and docs/agentkit.md)", file, err)
	}
	if v.Suite != "agentkit" {
		return nil, fmt.Errorf("%s: /suite is %q; it must be \"agentkit\"", file, v.Suite)
	}
	if len(v.Cases) == 0 {
		return nil, fmt.Errorf("%s: /cases is empty", file)
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	var out []engine.Check
	seen := map[string]bool{}
	for i, c := range v.Cases {
		where := fmt.Sprintf("%s#/cases/%d", file, i)
		switch {
		case !caseID.MatchString(c.ID):
			return nil, fmt.Errorf("%s: /id %q must be a lower-case slug", where, c.ID)
		case seen[c.ID]:
			return nil, fmt.Errorf("%s: /id %q is used twice in the file", where, c.ID)
		case len(c.Rules) == 0:
			return nil, fmt.Errorf("%s: /rules is empty; name the rule IDs the case evidences", where)
		case (c.Request == nil) == (c.Files == nil && v.Base == nil):
			return nil, fmt.Errorf("%s: a case has either /request (an HTTP exchange) or /files (a start-up attempt, with /base)", where)
		}
		seen[c.ID] = true
		title := c.Title
		if title == "" {
			title = c.ID
		}
		check := engine.Check{ID: "agentkit/" + stem + "/" + c.ID, Kind: "vector", Title: title, Source: where, Rules: c.Rules}
		if c.Request != nil {
			step, err := requestStep(where, c)
			if err != nil {
				return nil, err
			}
			check.Tags, check.Steps = []string{"http"}, []engine.Step{step}
		} else {
			step, err := startupStep(where, v.Base, c)
			if err != nil {
				return nil, err
			}
			check.Tags, check.Steps = []string{"startup"}, []engine.Step{step}
		}
		out = append(out, check)
	}
	return out, nil
}

func requestStep(where string, c vectorCase) (engine.Step, error) {
	r := c.Request
	if r.Method == "" || !strings.HasPrefix(r.Path, "/") {
		return engine.Step{}, fmt.Errorf("%s: /request needs a method and a path starting with /", where)
	}
	params := map[string]any{"method": r.Method, "path": r.Path}
	if r.Accept != "" {
		params["accept"] = r.Accept
	}
	if r.JSON != nil {
		params["json"] = r.JSON
	}
	if r.Raw != nil {
		params["raw"] = *r.Raw
	}
	e := c.Expect
	var m []engine.Match
	if e.Status != nil {
		m = append(m, engine.Match{Pointer: "/result/status", Matcher: float64(*e.Status)})
	}
	if e.Text != nil {
		m = append(m, engine.Match{Pointer: "/result/text", Matcher: *e.Text})
	}
	if e.Allow != nil {
		m = append(m, engine.Match{Pointer: "/result/allow", Matcher: *e.Allow})
	}
	if e.ContentType != nil {
		m = append(m, engine.Match{Pointer: "/result/content_type", Matcher: map[string]any{"$regex": "^" + regexp.QuoteMeta(*e.ContentType)}})
	}
	if e.JSON != nil {
		m = append(m, engine.Match{Pointer: "/result/json", Matcher: engine.Normalize(e.JSON)})
	}
	if len(m) == 0 || e.Starts != nil || e.StderrContains != nil {
		return engine.Step{}, fmt.Errorf("%s: /expect of an HTTP case needs status, text, allow, content_type or json (and no start-up keys)", where)
	}
	return engine.Step{Source: where, Text: r.Method + " " + r.Path, Op: engine.OpAct, Name: "request",
		Params: engine.Normalize(params).(map[string]any), Expect: &engine.Expect{Outcome: "ok", Match: m}}, nil
}

func startupStep(where string, base map[string]*string, c vectorCase) (engine.Step, error) {
	files := map[string]any{}
	for name, text := range base {
		if text != nil {
			files[name] = *text
		}
	}
	for name, text := range c.Files {
		if text == nil {
			delete(files, name)
		} else {
			files[name] = *text
		}
	}
	if _, ok := files["app.yaml"]; !ok {
		return engine.Step{}, fmt.Errorf("%s: the start-up files have no app.yaml", where)
	}
	e := c.Expect
	if e.Starts == nil || e.Status != nil || e.Text != nil || e.JSON != nil {
		return engine.Step{}, fmt.Errorf("%s: /expect of a start-up case needs starts (true or false) and no HTTP keys", where)
	}
	m := []engine.Match{{Pointer: "/result/started", Matcher: *e.Starts}}
	if !*e.Starts {
		m = append(m, engine.Match{Pointer: "/result/exit_code", Matcher: map[string]any{"$ne": float64(0)}})
		if len(e.StderrContains) == 0 {
			return engine.Step{}, fmt.Errorf("%s: a case that must not start names the message: /expect/stderr_contains", where)
		}
		for _, part := range e.StderrContains {
			m = append(m, engine.Match{Pointer: "/result/stderr", Matcher: map[string]any{"$contains": part}})
		}
	}
	text := "start with " + strings.Join(slices.Sorted(maps.Keys(c.Files)), ", ")
	return engine.Step{Source: where, Text: text, Op: engine.OpControl, Name: "startup",
		Params: map[string]any{"files": files}, Expect: &engine.Expect{Outcome: "ok", Match: m}}, nil
}
