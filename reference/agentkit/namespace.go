package agentkit

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// namespace is a namespaces/<name>.yaml file: a library of tools,
// components and skills an agent mounts.
type namespace struct {
	Name       string      `yaml:"-"`
	Imports    []string    `yaml:"imports"`
	Sources    []Source    `yaml:"sources"`
	Components []component `yaml:"components"`
	Skills     []skill     `yaml:"skills"`
}

type component struct {
	Name   string   `yaml:"name"`
	Engine string   `yaml:"engine"`
	Prompt string   `yaml:"prompt"`
	Params []string `yaml:"params"`
	Tools  []string `yaml:"tools"`
	Export bool     `yaml:"export"`
}

type skill struct {
	Name   string   `yaml:"name"`
	Engine string   `yaml:"engine"`
	Params []string `yaml:"params"`
	Steps  []step   `yaml:"steps"`
	Output string   `yaml:"output"`
}

type step struct {
	Name    string    `yaml:"name"`
	Use     string    `yaml:"use"`
	Needs   *[]string `yaml:"needs"`
	Args    any       `yaml:"args"`
	Input   string    `yaml:"input"`
	Context string    `yaml:"context"`
}

var (
	placeholder = regexp.MustCompile(`\{(\$?[\p{L}\p{N}_\-]+)\}`)
	builtins    = []string{"$input", "$user_input", "$user_id"}
	engines     = []string{"direct", "react", "plan-execute", "reflection", "router", "rewoo"}
)

// readNamespace loads a namespace file; its name is the file name.
func readNamespace(fsys fs.FS, file string) (*namespace, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("namespace file %s: %w", file, err)
	}
	if err := checkNamespace(raw, file); err != nil {
		return nil, err
	}
	ns := &namespace{Name: strings.TrimSuffix(path.Base(file), path.Ext(file))}
	if err := yaml.Unmarshal(raw, ns); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ns, nil
}

// checkNamespaces validates an agent's mounts in order: each namespace's
// components and skills, and every reference between namespaces.
func checkNamespaces(mounts []*namespace) error {
	byName := map[string]*namespace{}
	for _, ns := range mounts {
		byName[ns.Name] = ns
	}
	mounted := map[string]bool{}
	for _, ns := range mounts {
		for _, imp := range ns.Imports {
			if imp == ns.Name {
				return fmt.Errorf("namespace %s imports itself", ns.Name)
			}
		}
		for _, c := range ns.Components {
			if err := ns.checkComponent(c, byName, mounted); err != nil {
				return fmt.Errorf("namespace %s: component %s/%s: %w", ns.Name, ns.Name, c.Name, err)
			}
		}
		for _, s := range ns.Skills {
			if err := ns.checkSkill(s, byName, mounted); err != nil {
				return fmt.Errorf("namespace %s: skill %s/%s: %w", ns.Name, ns.Name, s.Name, err)
			}
		}
		mounted[ns.Name] = true
	}
	return nil
}

func (ns *namespace) checkComponent(c component, byName map[string]*namespace, mounted map[string]bool) error {
	if c.Engine == "" {
		return fmt.Errorf("engine must be declared explicitly: %s | a registered template", strings.Join(engines, " | "))
	}
	for _, m := range placeholder.FindAllStringSubmatch(c.Prompt, -1) {
		if !strings.HasPrefix(m[1], "$") && !slices.Contains(c.Params, m[1]) {
			return fmt.Errorf("prompt: undeclared placeholder {%s} — declare it under params: or it silently stays literal", m[1])
		}
	}
	for _, t := range c.Tools {
		if err := ns.checkUse(t, byName, mounted); err != nil {
			return err
		}
	}
	return nil
}

// checkUse checks a reference from this namespace: only skills cross
// namespaces freely; a component of another namespace must be exported,
// imported and mounted earlier.
func (ns *namespace) checkUse(use string, byName map[string]*namespace, mounted map[string]bool) error {
	if !strings.HasPrefix(use, "cap://") {
		return nil // components/<name> and other local forms
	}
	ref, err := ParseRef(use)
	if err != nil {
		return err
	}
	if ref.Domain == ns.Name || ref.Domain == "*" || ref.Kind == "skill" {
		return nil
	}
	if ref.Kind != "component" {
		return fmt.Errorf("%s: only cap://skill refs may cross namespaces (tools and components do not leave the namespace)", use)
	}
	target := byName[ref.Domain]
	if target == nil || !slices.ContainsFunc(target.Components, func(c component) bool { return c.Name == ref.Name && c.Export }) {
		return fmt.Errorf("namespace %s does not export component %q (declare export: true on it)", ref.Domain, ref.Name)
	}
	if !slices.Contains(ns.Imports, ref.Domain) {
		return fmt.Errorf("namespace %s does not declare imports: [%s] (dependencies must be explicit)", ns.Name, ref.Domain)
	}
	if !mounted[ref.Domain] {
		return fmt.Errorf("import %q was not assembled earlier—mount it before %s", ref.Domain, ns.Name)
	}
	return nil
}

func (ns *namespace) checkSkill(s skill, byName map[string]*namespace, mounted map[string]bool) error {
	if len(s.Steps) == 0 {
		return nil
	}
	engine := s.Engine
	if engine == "" {
		engine = "graph"
	}
	if engine != "graph" && engine != "workflow" {
		return fmt.Errorf("steps need engine graph or workflow, not %q", s.Engine)
	}
	for _, p := range s.Params {
		if strings.HasPrefix(p, "$") {
			return fmt.Errorf("param %q: names starting with $ are reserved", p)
		}
	}
	index := map[string]int{}
	for i, st := range s.Steps {
		switch {
		case st.Name == "" || st.Use == "":
			return fmt.Errorf("step %d: name and use are required", i)
		case strings.HasPrefix(st.Name, "$"):
			return fmt.Errorf("step %q: names starting with $ are reserved", st.Name)
		case slices.Contains(s.Params, st.Name):
			return fmt.Errorf("step %q collides with a param name", st.Name)
		case st.Context != "" && st.Context != "fresh" && st.Context != "fork":
			return fmt.Errorf("step %q: bad context %q (want fresh|fork)", st.Name, st.Context)
		}
		if _, dup := index[st.Name]; dup {
			return fmt.Errorf("duplicate step name %q", st.Name)
		}
		index[st.Name] = i
		if engine == "workflow" && st.Needs != nil && len(*st.Needs) > 0 {
			return fmt.Errorf("workflow is the simplified sequential form and does not support needs")
		}
		if err := ns.checkUse(st.Use, byName, mounted); err != nil {
			return err
		}
	}
	needs := make([][]string, len(s.Steps))
	for i, st := range s.Steps {
		switch {
		case st.Needs != nil:
			needs[i] = *st.Needs
		case i > 0:
			needs[i] = []string{s.Steps[i-1].Name}
		}
		for _, n := range needs[i] {
			if n == st.Name {
				return fmt.Errorf("step %q depends on itself", st.Name)
			}
			if _, ok := index[n]; !ok {
				return fmt.Errorf("step %q needs unknown step %q", st.Name, n)
			}
		}
	}
	if err := acyclic(s.Steps, needs, index); err != nil {
		return err
	}
	for i, st := range s.Steps {
		closure := map[string]bool{}
		var walk func(j int)
		walk = func(j int) {
			for _, n := range needs[j] {
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
					if err := resolvePlaceholder(st.Name, field.name, m[1], s.Params, index, closure); err != nil {
						return err
					}
				}
			}
		}
	}
	if s.Output != "" {
		if _, ok := index[s.Output]; !ok {
			return fmt.Errorf("output %q is not a step", s.Output)
		}
	}
	return nil
}

func resolvePlaceholder(stepName, field, name string, params []string, index map[string]int, closure map[string]bool) error {
	switch {
	case strings.HasPrefix(name, "$"):
		if !slices.Contains(builtins, name) {
			return fmt.Errorf("step %q %s references unknown builtin variable {%s}", stepName, field, name)
		}
	case slices.Contains(params, name):
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
