// Package kungfumcp carries the Kungfu suite over MCP: a surface map (data
// saying which tool stands for each of sifu's actions and views, and how
// arguments, results and rejections translate), a client that implements
// the suite's Target through a map, and a server that offers the bundled
// reference behind the tools a map describes (docs/kungfu-mcp.md).
package kungfumcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/schema"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

// SchemaName is the JSON Schema of a surface map in vectors/schema.
const SchemaName = "kungfu-surface.schema.json"

// Bundled is where sifu's own map of the Kungfu 3.0 surface lives in its
// assets.
const Bundled = "vectors/kungfu/surface-3.0.map.json"

// Surface is one implementation's tool surface as sifu maps it.
type Surface struct {
	Surface        string   `json:"surface"`
	About          string   `json:"about,omitempty"`
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Spec           string   `json:"spec"`
	Profiles       []string `json:"profiles"`
	// Endpoint is the MCP path below the server's URL (default /mcp).
	Endpoint string `json:"endpoint,omitempty"`
	// API, when set, is the path prefix under which the same tools answer
	// plain HTTP: POST <api><tool> with the arguments as the body.
	API       string          `json:"api,omitempty"`
	Envelope  Envelope        `json:"envelope"`
	Provision *Provision      `json:"provision,omitempty"`
	Errors    []Code          `json:"errors"`
	Opaque    []string        `json:"opaque,omitempty"`
	Actions   map[string]Tool `json:"actions"`
	Views     map[string]Tool `json:"views"`
	Lacks     Lacks           `json:"lacks"`
	// Absent are actions and views that must not exist (sifu's probes of
	// default-deny): sifu calls the tool of the same name, dots made
	// underscores, and takes "no such tool" for unknown_action.
	Absent []string `json:"absent,omitempty"`
}

// absentTool is the tool an absent name would be.
func absentTool(name string) string { return strings.ReplaceAll(name, ".", "_") }

// Envelope names the fields of the flat object every tool answers.
type Envelope struct {
	OK       string `json:"ok"`
	Error    string `json:"error"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	NextStep string `json:"next_step"`
	// Meta are the envelope's other fields, which are no part of a result.
	Meta []string `json:"meta,omitempty"`
	// Fixed are fields (and values) every answer carries, e.g. api_version.
	Fixed map[string]any `json:"fixed,omitempty"`
}

// Provision says how sifu makes an agent: a public tool that registers an
// account and answers its bearer key and its id.
type Provision struct {
	Tool     string `json:"tool"`
	Name     string `json:"name"`     // the argument carrying the account name
	Password string `json:"password"` // the argument carrying a password sifu makes up
	Key      string `json:"key"`      // the result field holding the bearer key
	Agent    string `json:"agent"`    // the result field holding the account's id
}

// Code is one error code of the surface and the reason it means.
type Code struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
	// Status is the HTTP status of the plain HTTP form (default 400).
	Status int `json:"status,omitempty"`
	// Tools, when set, are the tools that answer this code (a trailing *
	// matches any rest): where a reason has several codes, the server
	// picks the first whose tools match.
	Tools []string `json:"tools,omitempty"`
}

// Tool is one sifu action or view on the surface.
type Tool struct {
	Tool string `json:"tool"`
	// When tells apart the actions that share a tool: an argument that
	// must be present (true) or absent (false).
	When map[string]bool `json:"when,omitempty"`
	// Args renames parameters (sifu name → tool name), at any depth.
	Args map[string]string `json:"args,omitempty"`
	// Const are arguments the tool needs that sifu has no parameter for.
	Const map[string]any `json:"const,omitempty"`
	// Result renames result fields (tool name → sifu name), at any depth.
	Result map[string]string `json:"result,omitempty"`
	// Values translates values of a (sifu-named) field: tool value → sifu value.
	Values map[string]map[string]string `json:"values,omitempty"`
	// Key is the argument carrying the idempotency key; empty: the tool
	// takes none, and a check that replays a keyed request is untestable.
	Key string `json:"key,omitempty"`
}

// Lacks says, for what the surface does not have, why.
type Lacks struct {
	Controls map[string]string `json:"controls,omitempty"`
	Actions  map[string]string `json:"actions,omitempty"`
	Views    map[string]string `json:"views,omitempty"`
}

// Parse reads a map already valid against its schema and checks what the
// schema cannot: that every action and view it names is one of known (the
// names sifu's checks use), that a name is not both mapped and lacking, and
// that every translation can be undone. file names the map in messages.
func Parse(file string, raw []byte, known map[string]bool) (*Surface, error) {
	var s Surface
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if s.Endpoint == "" {
		s.Endpoint = "/mcp"
	}
	check := func(kind string, mapped map[string]Tool, lacks map[string]string) error {
		for _, name := range slices.Sorted(maps.Keys(mapped)) {
			if known != nil && !known[name] {
				return fmt.Errorf("%s: /%s/%s: sifu has no %s %q (docs/kungfu-actions.md lists them)", file, kind, name, strings.TrimSuffix(kind, "s"), name)
			}
			if _, dup := lacks[name]; dup {
				return fmt.Errorf("%s: /%s/%s is both mapped and listed under /lacks/%s", file, kind, name, kind)
			}
			t := mapped[name]
			for field, vals := range t.Values {
				if inv := invert(vals); len(inv) != len(vals) {
					return fmt.Errorf("%s: /%s/%s/values/%s maps two tool values to one sifu value; the server could not undo it", file, kind, name, field)
				}
			}
			if len(invert(t.Args)) != len(t.Args) || len(invert(t.Result)) != len(t.Result) {
				return fmt.Errorf("%s: /%s/%s renames two fields to one name", file, kind, name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(lacks)) {
			if known != nil && !known[name] {
				return fmt.Errorf("%s: /lacks/%s/%s: sifu has no %s %q", file, kind, name, strings.TrimSuffix(kind, "s"), name)
			}
		}
		return nil
	}
	if err := check("actions", s.Actions, s.Lacks.Actions); err != nil {
		return nil, err
	}
	if err := check("views", s.Views, s.Lacks.Views); err != nil {
		return nil, err
	}
	for name := range s.Lacks.Controls {
		if !slices.Contains(kungfu.Controls, name) {
			return nil, fmt.Errorf("%s: /lacks/controls/%s: sifu has no control %q; the controls are %v", file, name, name, kungfu.Controls)
		}
	}
	for i, name := range s.Absent {
		_, act := s.Actions[name]
		_, view := s.Views[name]
		if act || view {
			return nil, fmt.Errorf("%s: /absent/%d: %s is mapped, so it is not absent", file, i, name)
		}
		if known != nil && !known[name] {
			return nil, fmt.Errorf("%s: /absent/%d: no check probes %q", file, i, name)
		}
	}
	means := map[string]string{}
	for i, c := range s.Errors {
		if r, dup := means[c.Code]; dup && r != c.Reason {
			return nil, fmt.Errorf("%s: /errors/%d: code %s means %s here and %s earlier; a code has one reason", file, i, c.Code, c.Reason, r)
		}
		means[c.Code] = c.Reason
	}
	if s.Provision == nil {
		if _, said := s.Lacks.Controls[kungfu.ControlProvision]; !said {
			return nil, fmt.Errorf("%s: no /provision, and /lacks/controls does not say why: every check provisions its agents", file)
		}
	}
	return &s, nil
}

// Known is every action and view name the checks use.
func Known(checks []engine.Check) map[string]bool {
	out := map[string]bool{}
	var walk func([]engine.Step)
	walk = func(steps []engine.Step) {
		for _, s := range steps {
			walk(s.Steps)
			if s.Op == engine.OpAct || s.Op == engine.OpRead {
				out[s.Name] = true
			}
		}
	}
	for _, c := range checks {
		walk(c.Steps)
	}
	return out
}

// Tools are the tool names the map uses, sorted, the provision tool
// included.
func (s *Surface) Tools() []string {
	set := map[string]bool{}
	for _, t := range s.Actions {
		set[t.Tool] = true
	}
	for _, t := range s.Views {
		set[t.Tool] = true
	}
	if s.Provision != nil {
		set[s.Provision.Tool] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// mapping is one sifu name on one tool.
type mapping struct {
	name string
	view bool
	Tool
}

// toolsNamed is every sifu action and view mapped onto tool, actions first,
// each in name order.
func (s *Surface) toolsNamed(tool string) []mapping {
	var out []mapping
	for _, n := range slices.Sorted(maps.Keys(s.Actions)) {
		if s.Actions[n].Tool == tool {
			out = append(out, mapping{name: n, Tool: s.Actions[n]})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(s.Views)) {
		if s.Views[n].Tool == tool {
			out = append(out, mapping{name: n, view: true, Tool: s.Views[n]})
		}
	}
	return out
}

// Lacking is why a check cannot run on this surface, or "": an action or
// view the map has no tool for, or a keyed request repeated on a tool
// that takes no key (so a replay cannot be asked for).
func (s *Surface) Lacking(c engine.Check) string {
	var why []string
	seen := map[string]bool{}
	keys := map[string]bool{}
	var walk func([]engine.Step)
	walk = func(steps []engine.Step) {
		for _, st := range steps {
			walk(st.Steps)
			var t Tool
			var ok bool
			var kind, reason string
			switch st.Op {
			case engine.OpAct:
				t, ok = s.Actions[st.Name]
				kind, reason = "action", s.Lacks.Actions[st.Name]
			case engine.OpRead:
				t, ok = s.Views[st.Name]
				kind, reason = "view", s.Lacks.Views[st.Name]
			default:
				continue
			}
			if slices.Contains(s.Absent, st.Name) {
				continue
			}
			if !ok {
				if reason == "" {
					reason = "the map names no tool for it"
				}
				if msg := fmt.Sprintf("%s %s (%s)", kind, st.Name, reason); !seen[msg] {
					seen[msg] = true
					why = append(why, msg)
				}
				continue
			}
			for arg, present := range t.When {
				param := arg
				for p, to := range t.Args {
					if to == arg {
						param = p
					}
				}
				if _, has := st.Params[param]; has != present {
					if msg := fmt.Sprintf("%s %s its %s parameter (tool %s tells its uses apart by it)", st.Name, map[bool]string{true: "without", false: "with"}[present], param, t.Tool); !seen[msg] {
						seen[msg] = true
						why = append(why, msg)
					}
				}
			}
			if st.Op == engine.OpAct && st.Key != "" && t.Key == "" {
				k := st.Agent + "\x00" + st.Name + "\x00" + st.Key
				if keys[k] {
					if msg := fmt.Sprintf("an idempotency key on %s (tool %s takes none, so a replay cannot be asked for)", st.Name, t.Tool); !seen[msg] {
						seen[msg] = true
						why = append(why, msg)
					}
				}
				keys[k] = true
			}
		}
	}
	walk(c.Steps)
	if len(why) == 0 {
		return ""
	}
	if len(why) > 3 {
		why = append(why[:3], fmt.Sprintf("and %d more", len(why)-3))
	}
	return "the " + s.Surface + " surface lacks " + strings.Join(why, "; ")
}

// reasonOf is the reason an error code means; an unknown code is kept as
// it came, so the check judges it.
func (s *Surface) reasonOf(code string) string {
	for _, c := range s.Errors {
		if c.Code == code {
			return c.Reason
		}
	}
	return code
}

// statusOf is the HTTP status of a code.
func (s *Surface) statusOf(code string) int {
	for _, c := range s.Errors {
		if c.Code == code && c.Status != 0 {
			return c.Status
		}
	}
	return 400
}

// codeOf is the code the server answers for a reason on a tool.
func (s *Surface) codeOf(reason, tool string) string {
	for _, c := range s.Errors {
		if c.Reason != reason {
			continue
		}
		if len(c.Tools) == 0 || slices.ContainsFunc(c.Tools, func(p string) bool { return glob(p, tool) }) {
			return c.Code
		}
	}
	return strings.ToUpper(reason)
}

func glob(pattern, s string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(s, p)
	}
	return pattern == s
}

func invert(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// translate renames the fields of v at any depth (renames: from → to) and
// translates the values of the fields values names (by the new name),
// leaving the opaque fields' values as they are. It fails when a rename
// meets a field already there.
func translate(v any, renames map[string]string, values map[string]map[string]string, opaque []string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			name := k
			if to, ok := renames[k]; ok {
				name = to
			}
			if _, clash := out[name]; clash {
				return nil, fmt.Errorf("field %q and the field renamed to it meet in one object", name)
			}
			val := t[k]
			if !slices.Contains(opaque, name) && !slices.Contains(opaque, k) {
				var err error
				if val, err = translate(val, renames, values, opaque); err != nil {
					return nil, err
				}
				if vm, ok := values[name]; ok {
					if s, ok := val.(string); ok {
						if to, ok := vm[s]; ok {
							val = to
						}
					}
				}
			}
			out[name] = val
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			var err error
			if out[i], err = translate(x, renames, values, opaque); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// fromSifu is values translated for the server's side of a field:
// sifu-named field values → tool values, keyed by the tool's field name.
func fromSifu(values map[string]map[string]string, renames map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for field, vm := range values {
		name := field
		if to, ok := renames[field]; ok {
			name = to
		}
		out[name] = invert(vm)
	}
	return out
}

// Load validates a map against its JSON Schema (vectors/schema) and parses
// it (Parse).
func Load(file string, raw []byte, known map[string]bool) (*Surface, error) {
	if err := schema.Bundled().Validate(SchemaName, file, raw); err != nil {
		return nil, err
	}
	return Parse(file, raw, known)
}
