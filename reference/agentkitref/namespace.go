package agentkitref

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// namespace is a namespaces/<name>.yaml file: a library of tools (its own
// sources), components and skills an agent mounts. Its tools never leave
// it; only its skills are visible to the namespaces mounted after it.
type namespace struct {
	Name        string       `yaml:"name"`
	Model       *ModelConfig `yaml:"model"`
	Loop        LoopProfile  `yaml:"loop"`
	Reliability Reliability  `yaml:"reliability"`
	Sources     []Source     `yaml:"sources"`
	ToolsLegacy []Source     `yaml:"tools"`
	Imports     []string     `yaml:"imports"`
	Components  []component  `yaml:"components"`
	Skills      []skillDecl  `yaml:"skills"`

	file  string
	local []*capability // the tools of its sources
	// skills are the assembled skills, offered to the agent's model.
	skills []*skillRT
}

// ParamDecl declares a parameter of a skill or component.
type ParamDecl struct {
	Type     string `yaml:"type"`
	Desc     string `yaml:"desc"`
	Required bool   `yaml:"required"`
}

type component struct {
	Name         string               `yaml:"name"`
	Engine       string               `yaml:"engine"`
	Export       bool                 `yaml:"export"`
	Prompt       string               `yaml:"prompt"`
	Tools        []string             `yaml:"tools"`
	EngineConfig map[string]any       `yaml:"engine_config"`
	Model        *ModelConfig         `yaml:"model"`
	Loop         LoopProfile          `yaml:"loop"`
	Reliability  Reliability          `yaml:"reliability"`
	Todo         bool                 `yaml:"todo"`
	Params       map[string]ParamDecl `yaml:"params"`
	Steps        []step               `yaml:"steps"`
	Output       string               `yaml:"output"`
	Deliver      string               `yaml:"deliver"`
}

type skillDecl struct {
	Name         string               `yaml:"name"`
	Version      string               `yaml:"version"`
	Description  string               `yaml:"description"`
	Params       map[string]ParamDecl `yaml:"params"`
	Steps        []step               `yaml:"steps"`
	Output       string               `yaml:"output"`
	Engine       string               `yaml:"engine"`
	Deliver      string               `yaml:"deliver"`
	From         string               `yaml:"from"`
	MaxRounds    int                  `yaml:"max_rounds"`
	Use          string               `yaml:"use"`
	Integrity    string               `yaml:"integrity"`
	Tools        []string             `yaml:"tools"`
	Context      string               `yaml:"context"`
	StepDefaults struct {
		Timeout Duration `yaml:"timeout"`
		Retry   int      `yaml:"retry"`
	} `yaml:"step_defaults"`
}

type step struct {
	Name    string    `yaml:"name"`
	Use     string    `yaml:"use"`
	Args    any       `yaml:"args"`
	Prompt  string    `yaml:"prompt"`
	Needs   *[]string `yaml:"needs"`
	Timeout Duration  `yaml:"timeout"`
	Retry   int       `yaml:"retry"`
	Context string    `yaml:"context"`
	Input   string    `yaml:"input"`
}

// skillRT is an assembled skill: its steps in declaration order, each with
// the tool it calls (nil for steps that call no HTTP tool), and the step
// whose result is the skill's.
type skillRT struct {
	ref         Ref
	description string
	params      map[string]ParamDecl
	deliver     string
	steps       []step
	tools       []*capability
	needs       [][]string
	output      int
	risk        int
}

var (
	placeholder = regexp.MustCompile(`\{(\$?[\p{L}\p{N}_\-]+)\}`)
	builtins    = []string{"$input", "$user_input", "$user_id"}
)

// readNamespace loads a namespace file; its name is the file name.
func readNamespace(fsys fs.FS, file string, strict bool) (*namespace, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("namespace file %s: %w", file, err)
	}
	ns := &namespace{file: file}
	if err := decode(raw, file, ns, strict); err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	if ns.Name == "" {
		ns.Name = stem
	}
	if ns.Name != stem {
		return nil, fmt.Errorf("namespace file %s: declared name %q does not match file name %q", file, ns.Name, stem)
	}
	return ns, nil
}

// assemble builds an agent's mounts in order, as a gateway assembles them:
// each namespace's imports, its own checks, its tools, components and
// skills; a namespace sees the skills and exported components of those
// assembled before it. Every error names the namespace it is in.
func assemble(mounts []*namespace, maxRisk int, skip func(string) bool) error {
	built := map[string]*namespace{}
	var skills []*skillRT // the skills assembled so far, across namespaces
	for _, ns := range mounts {
		if err := ns.assemble(built, skills, maxRisk, skip); err != nil {
			return err
		}
		built[ns.Name] = ns
		skills = append(skills, ns.skills...)
	}
	return nil
}

func (ns *namespace) assemble(built map[string]*namespace, skills []*skillRT, maxRisk int, skip func(string) bool) error {
	for _, imp := range ns.Imports {
		if imp == ns.Name && !skip("self-import") {
			return fmt.Errorf("namespace %s: cannot import itself", ns.Name)
		}
		if built[imp] == nil && imp != ns.Name {
			return fmt.Errorf("namespace %s: import %q was not assembled earlier: mount %q before the namespaces that import it", ns.Name, imp, imp)
		}
	}
	if ns.Model != nil {
		return fmt.Errorf("namespace %s: model cannot be declared here (a capability cannot pick its own model; set it on the app, the agent, or the agent's mount)", ns.Name)
	}
	if err := ns.Loop.legacy("namespace " + ns.Name); err != nil {
		return err
	}
	if len(ns.ToolsLegacy) > 0 {
		return fmt.Errorf("namespace %s: tools has been renamed sources (it declares where capabilities come from, like the top-level sources:)", ns.Name)
	}
	for _, s := range ns.Sources {
		caps, err := s.capabilities(skip)
		if err != nil {
			return fmt.Errorf("namespace %s: tool source %s: %w", ns.Name, s.Name, err)
		}
		for _, c := range caps {
			if c.risk <= maxRisk {
				ns.local = append(ns.local, c)
			}
		}
	}
	comps := map[string]*component{}
	for i := range ns.Components {
		c := &ns.Components[i]
		where := fmt.Sprintf("namespace %s: component %s", ns.Name, c.Name)
		switch {
		case c.Name == "":
			return fmt.Errorf("namespace %s: a component needs a name", ns.Name)
		case comps[c.Name] != nil:
			return fmt.Errorf("namespace %s: duplicate component %q", ns.Name, c.Name)
		case c.Model != nil:
			return fmt.Errorf("%s: model cannot be declared here (a capability cannot pick its own model; set it on the app, the agent, or the agent's mount)", where)
		}
		if err := c.Loop.legacy(where); err != nil {
			return err
		}
		if len(c.Steps) > 0 {
			if c.Prompt != "" || len(c.Tools) > 0 || c.EngineConfig != nil || c.Loop.MaxRounds != nil || c.Todo {
				return fmt.Errorf("%s: steps exclude prompt, tools, engine_config, max_rounds and todo", where)
			}
			if c.Engine == "" {
				return fmt.Errorf("%s: engine must be declared explicitly: graph (a DAG) | workflow (a sequence)", where)
			}
			if _, err := ns.compile(c.Engine, c.Name, c.Params, c.Steps, c.Output, built, skills, comps, skip); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			comps[c.Name] = c
			continue
		}
		switch c.Engine {
		case "":
			if !skip("rules") {
				return fmt.Errorf("%s: engine must be declared explicitly: direct (one call) | react (a loop) | plan-execute | reflection | router | rewoo | a registered template", where)
			}
		case "graph", "workflow":
			return fmt.Errorf("%s: engine %s needs steps", where, c.Engine)
		}
		for _, t := range c.Tools {
			if _, err := ns.resolve(t, true, built, skills, comps); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		if err := checkParams(c.Params, skip); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for _, m := range placeholder.FindAllStringSubmatch(c.Prompt, -1) {
			name := m[1]
			if strings.HasPrefix(name, "$") {
				if !slices.Contains(builtins, name) {
					return fmt.Errorf("namespace %s: skill %s/%s prompt: unknown builtin variable {%s}", ns.Name, ns.Name, c.Name, name)
				}
				continue
			}
			if _, ok := c.Params[name]; !ok && name != "input" && !skip("rules") {
				return fmt.Errorf("namespace %s: skill %s/%s prompt: undeclared placeholder {%s} — declare it under params: or it silently stays literal", ns.Name, ns.Name, c.Name, name)
			}
		}
		comps[c.Name] = c
	}
	for i := range ns.Skills {
		s := &ns.Skills[i]
		if s.From != "" {
			return fmt.Errorf("namespace %s: skill %s: external skill packs are not supported by this gateway", ns.Name, s.Name)
		}
		steps := s.Steps
		if s.Use != "" {
			if len(steps) > 0 {
				return fmt.Errorf("namespace %s: skill %s: use and steps exclude each other", ns.Name, s.Name)
			}
			steps = []step{{Name: "main", Use: s.Use}}
		}
		engine := s.Engine
		if engine == "" {
			engine = "graph"
		}
		rt, err := ns.compile(engine, s.Name, s.Params, steps, s.Output, built, skills, comps, skip)
		if err != nil {
			return err
		}
		rt.description, rt.deliver = s.Description, s.Deliver
		rt.ref.Version = s.Version
		if !slices.Contains([]string{"", "attach", "always", "direct"}, s.Deliver) {
			return fmt.Errorf("namespace %s: skill %s: deliver must be attach|always|direct, got %q", ns.Name, s.Name, s.Deliver)
		}
		ns.skills = append(ns.skills, rt)
	}
	return nil
}

// checkParams checks the declared parameter types.
func checkParams(params map[string]ParamDecl, skip func(string) bool) error {
	for _, name := range sortedKeys(params) {
		switch t := params[name].Type; t {
		case "", "string", "number", "integer", "boolean":
		case "array", "object":
			return fmt.Errorf("param %s: type %q is not supported for a flat parameter (declare a string and describe its JSON in desc)", name, t)
		default:
			if !skip("param-types") {
				return fmt.Errorf("param %s: unknown type %q (want string|number|integer|boolean)", name, t)
			}
		}
	}
	return nil
}

// resolve checks a reference from this namespace: tools/<source>/<name> (its
// own tools), components/<name> (declared earlier in it), model, a
// cap://component of an imported namespace that exports it, or a cap://skill
// assembled earlier. Any other cap:// ref crosses namespaces and is refused.
func (ns *namespace) resolve(use string, wildcard bool, built map[string]*namespace, skills []*skillRT, comps map[string]*component) ([]*capability, error) {
	switch {
	case use == "model":
		return []*capability{nil}, nil
	case strings.HasPrefix(use, "tools/"):
		if !wildcard && strings.Contains(use, "*") {
			return nil, fmt.Errorf("step reference %q must name one tool (no wildcard)", use)
		}
		parts := strings.SplitN(strings.TrimPrefix(use, "tools/"), "/", 2)
		if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("bad tool reference %q: want tools/<source>/<name>", use)
		}
		pat := Ref{Kind: "tool", Domain: parts[0], Name: parts[1]}
		var out []*capability
		for _, c := range ns.local {
			if pat.Match(c.ref) {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s matches no tool in this namespace (tools do not cross namespaces)", use)
		}
		return out, nil
	case strings.HasPrefix(use, "components/"):
		if comps[strings.TrimPrefix(use, "components/")] == nil {
			return nil, fmt.Errorf("component %q is not declared (yet) in namespace %s", strings.TrimPrefix(use, "components/"), ns.Name)
		}
		return []*capability{nil}, nil
	case strings.HasPrefix(use, "cap://component/"):
		parts := strings.SplitN(strings.TrimPrefix(use, "cap://component/"), "/", 2)
		if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("bad reference %q: want cap://component/<ns>/<name>", use)
		}
		if !slices.Contains(ns.Imports, parts[0]) {
			return nil, fmt.Errorf("%s: namespace %s does not declare imports: [%s] (dependencies must be explicit)", use, ns.Name, parts[0])
		}
		dep := built[parts[0]]
		if dep == nil || !slices.ContainsFunc(dep.Components, func(c component) bool { return c.Name == parts[1] && c.Export }) {
			return nil, fmt.Errorf("%s: namespace %s does not export component %q (declare export: true on it)", use, parts[0], parts[1])
		}
		return []*capability{nil}, nil
	case strings.HasPrefix(use, "cap://"):
		ref, err := ParseRef(use)
		if err != nil {
			return nil, err
		}
		if ref.Kind != "skill" {
			return nil, fmt.Errorf("%s: only cap://skill refs may cross namespaces (tools and components do not leave the namespace)", use)
		}
		for _, s := range skills {
			if ref.Match(s.ref) {
				return []*capability{nil}, nil
			}
		}
		return nil, fmt.Errorf("%s: no skill of that name was assembled before this namespace", use)
	}
	return nil, fmt.Errorf("bad reference %q: want tools/<source>/<name>, components/<name>, model, cap://skill/... or cap://component/<ns>/<name>", use)
}

// compile checks the steps of a skill or an orchestration component and
// resolves what each step uses.
func (ns *namespace) compile(engine, name string, params map[string]ParamDecl, steps []step, output string,
	built map[string]*namespace, skills []*skillRT, comps map[string]*component, skip func(string) bool) (*skillRT, error) {
	lenient := skip("rules")
	switch engine {
	case "graph":
	case "workflow":
		for _, st := range steps {
			if st.Needs != nil && !lenient {
				return nil, fmt.Errorf("namespace %s: skill %s: step %q: workflow is the simplified sequential form and does not support needs (use engine: graph for a DAG)", ns.Name, name, st.Name)
			}
		}
	default:
		return nil, fmt.Errorf("namespace %s: skill %s: steps need engine graph or workflow, not %q", ns.Name, name, engine)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("namespace %s: skill %s/%s: %s", ns.Name, ns.Name, name, fmt.Sprintf(format, a...))
	}
	rt := &skillRT{ref: Ref{Kind: "skill", Domain: ns.Name, Name: name}, params: params, steps: steps}
	if len(steps) == 0 {
		return nil, fail("name and steps are required")
	}
	if lenient {
		for _, st := range steps {
			caps, _ := ns.resolve(st.Use, false, built, skills, comps)
			rt.tools = append(rt.tools, first(caps))
			rt.needs = append(rt.needs, nil)
		}
		rt.output = len(steps) - 1
		return rt, nil
	}
	for _, p := range sortedKeys(params) {
		if strings.HasPrefix(p, "$") {
			return nil, fail("param %q: names must not start with $ (those are builtin variables)", p)
		}
	}
	index := map[string]int{}
	for i, st := range steps {
		switch {
		case st.Name == "" || st.Use == "":
			return nil, fail("step %d: name and use are required", i)
		case strings.HasPrefix(st.Name, "$"):
			return nil, fail("step %q: names must not start with $ (those are builtin variables)", st.Name)
		}
		if _, dup := index[st.Name]; dup {
			return nil, fail("duplicate step name %q", st.Name)
		}
		if _, clash := params[st.Name]; clash {
			return nil, fail("step %q collides with a param name (a template could mean either)", st.Name)
		}
		index[st.Name] = i
	}
	rt.needs = make([][]string, len(steps))
	for i, st := range steps {
		if st.Context != "" && st.Context != "fresh" && st.Context != "fork" {
			return nil, fail("step %q: bad context %q (want fresh|fork)", st.Name, st.Context)
		}
		switch {
		case st.Needs != nil:
			rt.needs[i] = *st.Needs
		case i > 0:
			rt.needs[i] = []string{steps[i-1].Name}
		}
		for _, n := range rt.needs[i] {
			j, ok := index[n]
			if !ok {
				return nil, fail("step %q needs unknown step %q", st.Name, n)
			}
			if j == i {
				return nil, fail("step %q depends on itself", st.Name)
			}
		}
		caps, err := ns.resolve(st.Use, false, built, skills, comps)
		if err != nil {
			return nil, fail("step %q: %v", st.Name, err)
		}
		rt.tools = append(rt.tools, first(caps))
	}
	if err := acyclic(steps, rt.needs, index); err != nil {
		return nil, fail("%v", err)
	}
	for i, st := range steps {
		closure := map[string]bool{}
		var walk func(j int)
		walk = func(j int) {
			for _, n := range rt.needs[j] {
				if !closure[n] {
					closure[n] = true
					walk(index[n])
				}
			}
		}
		walk(i)
		for _, field := range []struct {
			name string
			text []string
		}{{"args", strs(st.Args)}, {"input", []string{st.Input}}} {
			for _, text := range field.text {
				for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
					if err := resolvePlaceholder(st.Name, field.name, m[1], params, index, closure); err != nil {
						return nil, fail("%v", err)
					}
				}
			}
		}
	}
	rt.output = len(steps) - 1
	if output != "" {
		j, ok := index[output]
		if !ok {
			return nil, fail("output refers to unknown step %q", output)
		}
		rt.output = j
	}
	if err := checkParams(params, skip); err != nil {
		return nil, fmt.Errorf("namespace %s: graph %s: %w", ns.Name, name, err)
	}
	for _, c := range rt.tools {
		if c != nil && c.risk > rt.risk {
			rt.risk = c.risk
		}
	}
	return rt, nil
}

func first(caps []*capability) *capability {
	if len(caps) == 0 {
		return nil
	}
	return caps[0]
}

func resolvePlaceholder(stepName, field, name string, params map[string]ParamDecl, index map[string]int, closure map[string]bool) error {
	_, isParam := params[name]
	switch {
	case strings.HasPrefix(name, "$"):
		if !slices.Contains(builtins, name) {
			return fmt.Errorf("step %q %s references unknown builtin variable {%s}", stepName, field, name)
		}
	case isParam:
	case hasKey(index, name):
		if !closure[name] {
			return fmt.Errorf("step %q %s references {%s} which is not in its needs closure (add it to needs)", stepName, field, name)
		}
	default:
		return fmt.Errorf("step %q %s references unknown placeholder {%s} (not a param or step)", stepName, field, name)
	}
	return nil
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// acyclic runs Kahn's algorithm; the steps left over form a cycle.
func acyclic(steps []step, needs [][]string, index map[string]int) error {
	indeg := make([]int, len(steps))
	users := make([][]int, len(steps))
	for i := range steps {
		for _, n := range needs[i] {
			indeg[i]++
			users[index[n]] = append(users[index[n]], i)
		}
	}
	var queue []int
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	done := 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		done++
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if done == len(steps) {
		return nil
	}
	var left []string
	for i, d := range indeg {
		if d > 0 {
			left = append(left, steps[i].Name)
		}
	}
	slices.Sort(left)
	return fmt.Errorf("dependency cycle among steps: %s", strings.Join(left, ", "))
}

// strs collects the strings inside a decoded YAML value.
func strs(v any) []string {
	var out []string
	switch t := v.(type) {
	case string:
		out = append(out, t)
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = append(out, strs(t[k])...)
		}
	case []any:
		for _, e := range t {
			out = append(out, strs(e)...)
		}
	}
	return out
}
