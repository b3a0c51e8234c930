package agentkit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// App is an assembled gateway configuration: app.yaml and the agent and
// namespace files it names.
type App struct {
	Serving  Serving        `yaml:"serving"`
	Model    ModelConfig    `yaml:"model"`
	Suspend  *SuspendConfig `yaml:"suspend"`
	Sources  []Source       `yaml:"sources"`
	Stores   []StoreDecl    `yaml:"stores"`
	Channels []Channel      `yaml:"channels"`
	Files    []string       `yaml:"agents"`

	Agents []*Agent `yaml:"-"` // in declaration order
}

// Serving is the HTTP listener; an empty Addr means no gateway.
type Serving struct {
	Addr string `yaml:"addr"`
}

// ModelConfig selects and configures the model provider.
type ModelConfig struct {
	Provider string         `yaml:"provider"`
	Config   map[string]any `yaml:"config"`
}

// SuspendConfig turns on durable suspend; Dir is CWD-relative.
type SuspendConfig struct {
	Dir string `yaml:"dir"`
}

// Source supplies capabilities; only type http is understood.
type Source struct {
	Name     string     `yaml:"name"`
	Type     string     `yaml:"type"`
	Required *bool      `yaml:"required"`
	Tools    []HTTPTool `yaml:"tools"`
}

// HTTPTool is one declared HTTP endpoint offered to the model as a tool.
type HTTPTool struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Method      string `yaml:"method"`
	URL         string `yaml:"url"`
	Risk        string `yaml:"risk"`
}

// StoreDecl declares a named store instance for the store slots.
type StoreDecl struct {
	Name string `yaml:"name"`
	Kind string `yaml:"kind"`
	Type string `yaml:"type"`
}

// Channel is an IM channel; the gateway only validates them.
type Channel struct {
	Type           string `yaml:"type"`
	Agent          string `yaml:"agent"`
	SessionMapping string `yaml:"session_mapping"`
	ReplyMode      string `yaml:"reply_mode"`
}

// Agent is one agent file.
type Agent struct {
	Name         string `yaml:"name"`
	Description  string `yaml:"description"`
	Prompt       any    `yaml:"prompt"`
	Capabilities struct {
		Include []string `yaml:"include"`
		Exclude []string `yaml:"exclude"`
		AskUser *bool    `yaml:"ask_user"`
	} `yaml:"capabilities"`
	Approval struct {
		Mode  string         `yaml:"mode"`
		Rules []ApprovalRule `yaml:"rules"`
	} `yaml:"approval"`
	Session struct {
		Window      int    `yaml:"window"`
		RecordTools string `yaml:"record_tools"`
		Store       string `yaml:"store"`
	} `yaml:"session"`
	Loop struct {
		MaxRounds  int `yaml:"max_rounds"`
		Compaction struct {
			MaxMessages   int `yaml:"max_messages"`
			MaxTokens     int `yaml:"max_tokens"`
			KeepRecent    int `yaml:"keep_recent"`
			ToolClearOver int `yaml:"tool_clear_over"`
		} `yaml:"compaction"`
	} `yaml:"loop"`
	Budget struct {
		MaxModelCalls int `yaml:"max_model_calls"`
	} `yaml:"budget"`
	Memory struct {
		Store string `yaml:"store"`
		Scope struct {
			Write string   `yaml:"write"`
			Read  []string `yaml:"read"`
		} `yaml:"scope"`
	} `yaml:"memory"`
	Todo struct {
		Store string `yaml:"store"`
	} `yaml:"todo"`
	Digest struct {
		Store string `yaml:"store"`
	} `yaml:"digest"`
	Stores     []StoreDecl `yaml:"stores"`
	Namespaces []string    `yaml:"namespaces"`

	file  string
	rules []rule
}

// ApprovalRule lets (capability, arguments) through, asks, or refuses.
type ApprovalRule struct {
	Ref    string            `yaml:"ref"`
	Args   map[string]string `yaml:"args"`
	Action string            `yaml:"action"`
}

type rule struct {
	ref    Ref
	args   map[string]string
	action string
}

// renamed keys fail fast with the name that replaced them.
var renamed = map[string]string{
	"loop.max_steps": "loop.max_rounds",
	"default_model":  "model",
	"memory.tools":   "memory.expose_tools",
	"work_dir":       "state_dir",
}

// openaiKeys are the only keys of the openai provider's config.
var openaiKeys = []string{"api_key", "base_url", "model", "temperature", "top_p", "max_tokens"}

// Load reads app.yaml from dir, with the files it names, and checks every
// assembly rule. The first broken rule is the error.
func Load(dir string) (*App, error) {
	return LoadFS(os.DirFS(dir), "app.yaml", nil)
}

// LoadFS reads an app file from fsys. Relative paths resolve against the
// directory of the file that names them. skip, when true for a rule name,
// leaves that rule unchecked (planted faults).
func LoadFS(fsys fs.FS, entry string, skip func(string) bool) (*App, error) {
	if skip == nil {
		skip = func(string) bool { return false }
	}
	raw, err := fs.ReadFile(fsys, entry)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var app App
	if err := decode(raw, entry, &app); err != nil {
		return nil, err
	}
	lenient := skip("rules")
	if err := renamedKeys(raw, entry, "", "default_model", "work_dir"); err != nil && !lenient {
		return nil, err
	}
	if err := app.Model.check(); err != nil && !lenient {
		return nil, err
	}
	if len(app.Channels) > 0 && strings.TrimSpace(app.Serving.Addr) == "" && !lenient {
		return nil, errors.New("channels configured but serving.addr is empty")
	}
	base := path.Dir(entry)
	declared := map[string]string{}
	for _, f := range app.Files {
		file := path.Join(base, f)
		a, err := loadAgent(fsys, file, lenient)
		if err != nil {
			return nil, err
		}
		if prev, dup := declared[a.Name]; dup && !lenient {
			return nil, fmt.Errorf("agent %q declared by both %s and %s", a.Name, prev, file)
		}
		declared[a.Name] = file
		if err := a.validate(fsys, &app, skip); err != nil {
			return nil, err
		}
		app.Agents = append(app.Agents, a)
	}
	for i, c := range app.Channels {
		if lenient {
			break
		}
		if !slices.Contains([]string{"", "chat", "chat_user"}, c.SessionMapping) {
			return nil, fmt.Errorf("channel %d: session_mapping must be chat|chat_user, got %q", i, c.SessionMapping)
		}
		if !slices.Contains([]string{"", "text", "card", "stream"}, c.ReplyMode) {
			return nil, fmt.Errorf("channel %d: reply_mode must be text|card|stream, got %q", i, c.ReplyMode)
		}
		if _, ok := declared[c.Agent]; !ok {
			return nil, fmt.Errorf("channel %d: unknown agent %q", i, c.Agent)
		}
	}
	for _, s := range app.Sources {
		if s.Type != "http" {
			return nil, fmt.Errorf("source %q: unsupported type %q (this gateway knows http)", s.Name, s.Type)
		}
	}
	return &app, nil
}

func decode(raw []byte, file string, v any) error {
	if err := yaml.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// renamedKeys rejects a removed key, naming the key that replaced it. keys
// are dotted paths below prefix.
func renamedKeys(raw []byte, file, prefix string, keys ...string) error {
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, k := range keys {
		var cur any = doc
		found := true
		for _, part := range strings.Split(k, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				found = false
				break
			}
			if cur, ok = m[part]; !ok {
				found = false
				break
			}
		}
		if found {
			full := prefix + k
			return fmt.Errorf("%s: %s was renamed to %s; write %s instead", file, full, renamed[k], renamed[k])
		}
	}
	return nil
}

func (m ModelConfig) check() error {
	if m.Provider != "openai" {
		return fmt.Errorf("model.provider %q: this gateway knows openai", m.Provider)
	}
	for k := range m.Config {
		if !slices.Contains(openaiKeys, k) {
			return fmt.Errorf("model.config: unknown key %q for provider openai (allowed: %s)", k, strings.Join(openaiKeys, ", "))
		}
	}
	return nil
}

func loadAgent(fsys fs.FS, file string, lenient bool) (*Agent, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", file, err)
	}
	a := &Agent{file: file}
	if err := decode(raw, file, a); err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(path.Base(file), path.Ext(file))
	if a.Name == "" {
		a.Name = stem
	}
	if lenient {
		return a, nil
	}
	if a.Name != stem {
		return nil, fmt.Errorf("agent file %s: declared name %q does not match file name %q", file, a.Name, stem)
	}
	if err := renamedKeys(raw, file, "", "loop.max_steps", "memory.tools", "work_dir"); err != nil {
		return nil, err
	}
	if p, ok := a.Prompt.(map[string]any); ok && p["ref"] != nil {
		return nil, fmt.Errorf("agent %s: prompt value: 只接受标量——引用写 \"cap://prompt/<source>/<name>\"", a.Name)
	}
	return a, nil
}

// keep is the number of recent messages compaction keeps.
func (a *Agent) keep() int {
	c := a.Loop.Compaction
	switch {
	case c.KeepRecent > 0:
		return c.KeepRecent
	case c.MaxMessages > 0:
		return c.MaxMessages / 2
	}
	return 10
}

func (a *Agent) validate(fsys fs.FS, app *App, skip func(string) bool) error {
	c := a.Loop.Compaction
	compaction := c.MaxMessages > 0 || c.MaxTokens > 0 || c.ToolClearOver > 0
	need := a.keep() + 2
	if skip("boundary") {
		need++
	}
	if !skip("window") && compaction && a.Session.Window > 0 && a.Session.Window < need {
		return fmt.Errorf("agent %s: session.window (%d) must be >= loop.compaction keep_recent+2 (%d), or the rolling summary gets trimmed away",
			a.Name, a.Session.Window, a.keep()+2)
	}
	if a.Approval.Mode == "" {
		a.Approval.Mode = "interactive"
	}
	if skip("rules") {
		for _, r := range a.Approval.Rules {
			if ref, err := ParseRef(r.Ref); err == nil {
				a.rules = append(a.rules, rule{ref: ref, args: r.Args, action: r.Action})
			}
		}
		return nil
	}
	if !slices.Contains([]string{"", "summary", "full", "off"}, a.Session.RecordTools) {
		return fmt.Errorf("agent %s: session.record_tools must be summary|full|off, got %q", a.Name, a.Session.RecordTools)
	}
	if a.Approval.Mode == "" {
		a.Approval.Mode = "interactive"
	}
	if !slices.Contains([]string{"auto", "interactive", "deny"}, a.Approval.Mode) {
		return fmt.Errorf("agent %s: approval.mode must be auto|interactive|deny, got %q", a.Name, a.Approval.Mode)
	}
	for i, r := range a.Approval.Rules {
		ref, err := ParseRef(r.Ref)
		if err != nil {
			return fmt.Errorf("agent %s: approval_policy rule %d: %v", a.Name, i, err)
		}
		if !slices.Contains([]string{"allow", "ask", "deny"}, r.Action) {
			return fmt.Errorf("agent %s: approval_policy rule %d: action must be allow|ask|deny, got %q", a.Name, i, r.Action)
		}
		a.rules = append(a.rules, rule{ref: ref, args: r.Args, action: r.Action})
	}
	scopes := []string{"user", "shared", "session"}
	if w := a.Memory.Scope.Write; w != "" && !slices.Contains(scopes, w) {
		return fmt.Errorf("agent %s: memory.scope.write must be user|shared|session, got %q", a.Name, w)
	}
	for _, r := range a.Memory.Scope.Read {
		if !slices.Contains(scopes, r) {
			return fmt.Errorf("agent %s: memory.scope.read entries must be user|shared|session, got %q", a.Name, r)
		}
	}
	stores := map[string]StoreDecl{}
	for _, s := range append(slices.Clone(app.Stores), a.Stores...) {
		stores[s.Name] = s
	}
	for _, slot := range []struct{ kind, value string }{
		{"session", a.Session.Store}, {"memory", a.Memory.Store}, {"todo", a.Todo.Store}, {"result", a.Digest.Store},
	} {
		if err := checkSlot(slot.kind, slot.value, stores); err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
	}
	for _, inc := range append(slices.Clone(a.Capabilities.Include), a.Capabilities.Exclude...) {
		if _, err := ParseRef(inc); err != nil {
			return fmt.Errorf("agent %s: capabilities: %v", a.Name, err)
		}
	}
	var mounts []*namespace
	for _, ns := range a.Namespaces {
		n, err := readNamespace(fsys, path.Join(path.Dir(a.file), ns))
		if err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
		mounts = append(mounts, n)
	}
	if err := checkNamespaces(mounts); err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	return nil
}

// checkSlot checks a store slot: a bare backend type, or a reference to a
// declared store instance of the slot's kind.
func checkSlot(slot, value string, stores map[string]StoreDecl) error {
	if value == "" || !strings.HasPrefix(value, "cap://") {
		return nil
	}
	ref, err := ParseRef(value)
	if err != nil {
		return err
	}
	if ref.Kind != "store" {
		return fmt.Errorf("%s: not a store ref", value)
	}
	if ref.Domain != slot {
		return fmt.Errorf("%s: store kind is %q, this slot requires %q", value, ref.Domain, slot)
	}
	inst, ok := stores[ref.Name]
	if !ok {
		return fmt.Errorf("no store instance named %q is declared", ref.Name)
	}
	if inst.Kind != slot {
		return fmt.Errorf("store instance %q has kind %q, which does not match slot %q", inst.Name, inst.Kind, slot)
	}
	return nil
}

// checkNamespace rejects what a namespace file may not declare: a model,
// and the old tools key.
func checkNamespace(raw []byte, file string) error {
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if _, ok := doc["model"]; ok {
		return fmt.Errorf("namespace %s: model cannot be declared here (a capability cannot pick its own model; set it on the agent or per mount)", file)
	}
	if _, ok := doc["tools"]; ok {
		return fmt.Errorf("namespace %s: tools was renamed to sources; write sources instead", file)
	}
	return nil
}

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }
