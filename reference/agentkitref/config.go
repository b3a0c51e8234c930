package agentkitref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// App is an assembled gateway configuration: app.yaml and the agent and
// namespace files it names. Every file is decoded strictly: a key the
// schema does not know fails start-up, naming the file and the key.
type App struct {
	Serving     Serving        `yaml:"serving"`
	Model       *ModelConfig   `yaml:"model"`
	Loop        LoopProfile    `yaml:"loop"`
	Reliability Reliability    `yaml:"reliability"`
	Suspend     *SuspendConfig `yaml:"suspend"`
	Sources     []Source       `yaml:"sources"`
	Catalog     struct {
		MaxRisk string `yaml:"max_risk"`
	} `yaml:"catalog"`
	Stores        []StoreDecl   `yaml:"stores"`
	Channels      []Channel     `yaml:"channels"`
	Files         []string      `yaml:"agents"`
	StateDir      string        `yaml:"state_dir"`
	Secrets       SecretsConfig `yaml:"secrets"`
	Prompts       PromptsConfig `yaml:"prompts"`
	Observability Observability `yaml:"observability"`
	// Renamed keys, kept only to refuse them with their replacement.
	WorkDirLegacy      *string      `yaml:"work_dir"`
	DefaultModelLegacy *ModelConfig `yaml:"default_model"`

	Agents []*Agent `yaml:"-"` // in declaration order
	// maxRisk is catalog.max_risk parsed (default mutating).
	maxRisk int
	// sources are the top-level sources in declaration order; an mcp one
	// is connected when the gateway is built.
	sources []sourceDecl
	// supply is what the gateway reaches besides http, exec and mcp
	// sources (prompt files).
	supply
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
	Dir         string         `yaml:"dir"`
	Store       string         `yaml:"store"`
	StoreConfig map[string]any `yaml:"store_config"`
	TTL         Duration       `yaml:"ttl"`
}

// LoopProfile bounds the tool-calling loop and turns on compaction.
type LoopProfile struct {
	MaxRounds      *int        `yaml:"max_rounds"`
	MaxStepsLegacy *int        `yaml:"max_steps"`
	Compaction     *Compaction `yaml:"compaction"`
}

// Compaction is loop.compaction; any threshold above zero turns it on.
type Compaction struct {
	MaxMessages   int    `yaml:"max_messages"`
	MaxTokens     int    `yaml:"max_tokens"`
	KeepRecent    int    `yaml:"keep_recent"`
	ToolClearOver int    `yaml:"tool_clear_over"`
	ToolClearKeep int    `yaml:"tool_clear_keep"`
	Prompt        string `yaml:"prompt"`
}

// Reliability is retry of transient model errors and the tool time limit.
type Reliability struct {
	ToolTimeout *Duration `yaml:"tool_timeout"`
	Retry       *Retry    `yaml:"retry"`
}

// Retry says how often a transient model error is tried again.
type Retry struct {
	MaxAttempts int      `yaml:"max_attempts"`
	BaseDelay   Duration `yaml:"base_delay"`
	MaxDelay    Duration `yaml:"max_delay"`
}

// Duration is "30s" or a number of seconds.
type Duration time.Duration

// UnmarshalYAML reads "250ms"-style text or seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			var secs float64
			if n.Decode(&secs) == nil {
				*d = Duration(time.Duration(secs * float64(time.Second)))
				return nil
			}
			return fmt.Errorf("bad duration %q: %v", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := n.Decode(&secs); err != nil {
		return fmt.Errorf("a duration is \"30s\"-style text or a number of seconds")
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}

// Source supplies capabilities: type http (declared endpoints) or mcp (an
// MCP server's tools). Its
// configuration is free-form below config.
type Source struct {
	Name     string         `yaml:"name"`
	Type     string         `yaml:"type"`
	Required *bool          `yaml:"required"`
	Priority int            `yaml:"priority"`
	Config   map[string]any `yaml:"config"`
}

// httpSource is the config of an http source (decoded leniently, as JSON).
type httpSource struct {
	Headers    map[string]string `json:"headers"`
	TimeoutSec int               `json:"timeout_sec"`
	Tools      []HTTPTool        `json:"tools"`
}

// HTTPTool is one declared HTTP endpoint offered to the model as a tool.
// It accepts only its declared parameters.
type HTTPTool struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Method      string               `json:"method"`
	URL         string               `json:"url"`
	Headers     map[string]string    `json:"headers"`
	Params      map[string]HTTPParam `json:"params"`
	Risk        string               `json:"risk"`
	TimeoutSec  int                  `json:"timeout_sec"`
	MaxRespLen  int                  `json:"max_resp_len"`
}

// HTTPParam declares one argument of an HTTP tool and where it goes.
type HTTPParam struct {
	Type     string `json:"type"`
	Desc     string `json:"desc"`
	Required bool   `json:"required"`
	In       string `json:"in"` // path, query or body; by default query for GET, body otherwise
}

// StoreDecl declares a named store instance for the store slots.
type StoreDecl struct {
	Name   string         `yaml:"name"`
	Kind   string         `yaml:"kind"`
	Type   string         `yaml:"type"`
	Config map[string]any `yaml:"config"`
	TTL    Duration       `yaml:"ttl"`
}

// Channel is an IM channel; the gateway only validates them.
type Channel struct {
	Name           string         `yaml:"name"`
	Type           string         `yaml:"type"`
	Agent          string         `yaml:"agent"`
	SessionMapping string         `yaml:"session_mapping"`
	ReplyMode      string         `yaml:"reply_mode"`
	Config         map[string]any `yaml:"config"`
}

// Agent is one agent file.
type Agent struct {
	Name        string       `yaml:"name"`
	Description string       `yaml:"description"`
	Model       *ModelConfig `yaml:"model"`
	Loop        LoopProfile  `yaml:"loop"`
	Reliability Reliability  `yaml:"reliability"`
	Prompt      struct {
		System string `yaml:"system"`
		Loop   string `yaml:"loop"`
	} `yaml:"prompt"`
	Capabilities struct {
		Include   []string `yaml:"include"`
		Exclude   []string `yaml:"exclude"`
		AskUser   *bool    `yaml:"ask_user"`
		GoalCheck *bool    `yaml:"goal_check"`
	} `yaml:"capabilities"`
	Stores   []StoreDecl `yaml:"stores"`
	Approval struct {
		Mode        string         `yaml:"mode"`
		Remember    bool           `yaml:"remember"`
		Rules       []ApprovalRule `yaml:"rules"`
		Store       string         `yaml:"store"`
		StoreConfig map[string]any `yaml:"store_config"`
	} `yaml:"approval"`
	Session struct {
		Window      int            `yaml:"window"`
		RecordTools string         `yaml:"record_tools"`
		Store       string         `yaml:"store"`
		StoreConfig map[string]any `yaml:"store_config"`
	} `yaml:"session"`
	StructuredOutput StructuredOutput `yaml:"structured_output"`
	Budget           struct {
		MaxModelCalls int    `yaml:"max_model_calls"`
		MaxTokens     int    `yaml:"max_tokens"`
		Store         string `yaml:"store"`
	} `yaml:"budget"`
	Memory struct {
		Store       string `yaml:"store"`
		ExposeTools bool   `yaml:"expose_tools"`
		ToolsLegacy *bool  `yaml:"tools"`
		Scope       struct {
			Write string   `yaml:"write"`
			Read  []string `yaml:"read"`
		} `yaml:"scope"`
		Seed   []MemorySeed `yaml:"seed"`
		Recall struct {
			TopK int `yaml:"top_k"`
		} `yaml:"recall"`
	} `yaml:"memory"`
	Todo struct {
		Enabled     *bool          `yaml:"enabled"`
		Store       string         `yaml:"store"`
		StoreConfig map[string]any `yaml:"store_config"`
	} `yaml:"todo"`
	Digest struct {
		Over     *int   `yaml:"over"`
		Truncate *int   `yaml:"truncate"`
		Store    string `yaml:"store"`
	} `yaml:"digest"`
	Namespaces []string `yaml:"namespaces"`

	file   string
	rules  []rule
	mounts []*namespace
}

// ApprovalRule lets (capability, arguments) through, asks, or refuses.
type ApprovalRule struct {
	Ref    string            `yaml:"ref"`
	Args   map[string]string `yaml:"args"`
	Action string            `yaml:"action"`
}

type rule struct {
	ref    *Ref // nil: any capability
	args   map[string]string
	action string
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
	return LoadFSEnv(fsys, entry, skip, os.LookupEnv)
}

// LoadFSEnv is LoadFS with the environment ${NAME} placeholders are
// filled from.
func LoadFSEnv(fsys fs.FS, entry string, skip func(string) bool, env func(string) (string, bool)) (*App, error) {
	if skip == nil {
		skip = func(string) bool { return false }
	}
	raw, err := fs.ReadFile(fsys, entry)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	secret, err := secretsProvider(raw, fsys, path.Dir(entry), env, skip)
	if err != nil {
		return nil, err
	}
	fsys = expandingFS{FS: fsys, expand: func(raw []byte, file string) ([]byte, error) {
		out, err := expandSecrets(raw, file, env, secret, skip)
		if err != nil {
			return nil, fmt.Errorf("expand secrets in %w", err)
		}
		return out, nil
	}}
	if raw, err = fs.ReadFile(fsys, entry); err != nil {
		return nil, err
	}
	lenient := skip("rules")
	var app App
	if err := decode(raw, entry, &app, !skip("strict")); err != nil {
		return nil, err
	}
	app.root, app.base = fsys, path.Dir(entry)
	if !lenient {
		if err := app.Loop.legacy("app.yaml"); err != nil {
			return nil, err
		}
		if app.WorkDirLegacy != nil {
			return nil, errors.New("app.yaml: work_dir was split: configuration is read from where app.yaml is, and what the gateway writes goes under state_dir; set state_dir instead")
		}
		if app.DefaultModelLegacy != nil {
			return nil, errors.New("app.yaml: default_model has been renamed model (same provider and config)")
		}
	}
	if app.Model != nil && !lenient {
		if err := app.Model.check(); err != nil {
			return nil, err
		}
	}
	app.maxRisk = 1
	if app.Catalog.MaxRisk != "" {
		if app.maxRisk, err = parseRisk(app.Catalog.MaxRisk); err != nil {
			return nil, fmt.Errorf("catalog.max_risk: %w", err)
		}
	}
	for _, s := range app.Sources {
		decl := sourceDecl{name: s.Name, priority: s.Priority}
		switch s.Type {
		case "mcp":
			d, err := s.readMCP()
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
			decl.mcp = d
		case "exec":
			caps, err := s.execCapabilities(skip)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
			decl.caps = caps
		case "a2a", "vector": // listed or made when the gateway is built
			if err := decl.readSupply(s); err != nil {
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
		default:
			caps, err := s.capabilities(skip)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
			decl.caps = caps
		}
		app.sources = append(app.sources, decl)
	}
	base := path.Dir(entry)
	declared := map[string]string{}
	for _, f := range app.Files {
		file := path.Join(base, f)
		a, err := loadAgent(fsys, file, lenient, !skip("strict"))
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
		name := c.Name
		if name == "" {
			name = fmt.Sprint(i)
		}
		if !slices.Contains([]string{"", "chat", "chat_user"}, c.SessionMapping) {
			return nil, fmt.Errorf("channel %s: session_mapping must be chat|chat_user, got %q", name, c.SessionMapping)
		}
		if !slices.Contains([]string{"", "text", "card", "stream"}, c.ReplyMode) {
			return nil, fmt.Errorf("channel %s: reply_mode must be text|card|stream, got %q", name, c.ReplyMode)
		}
		if _, ok := declared[c.Agent]; !ok {
			return nil, fmt.Errorf("channel %s: unknown agent %q", name, c.Agent)
		}
	}
	if len(app.Channels) > 0 && strings.TrimSpace(app.Serving.Addr) == "" && !lenient {
		return nil, errors.New("channels configured but serving.addr is empty")
	}
	return &app, nil
}

// decode reads one YAML file; strict refuses keys the schema does not know.
func decode(raw []byte, file string, v any, strict bool) error {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(strict)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("parse %s: %w", file, err)
	}
	return nil
}

func (l LoopProfile) legacy(where string) error {
	if l.MaxStepsLegacy != nil {
		return fmt.Errorf("%s: max_steps has been renamed max_rounds (it always counted rounds: one model decision and the tools it calls)", where)
	}
	return nil
}

func (m ModelConfig) check() error {
	if m.Provider != "openai" {
		return fmt.Errorf("model: provider %q: this gateway knows openai", m.Provider)
	}
	for k := range m.Config {
		if !slices.Contains(openaiKeys, k) {
			return fmt.Errorf("model: unknown key %q in the openai config (allowed: %s)", k, strings.Join(openaiKeys, ", "))
		}
	}
	return nil
}

// parseRisk reads a risk level: 0 readonly, 1 mutating, 2 dangerous.
func parseRisk(s string) (int, error) {
	switch s {
	case "", "readonly":
		return 0, nil
	case "mutating":
		return 1, nil
	case "dangerous":
		return 2, nil
	}
	return 0, fmt.Errorf("unknown risk level %q", s)
}

// capabilities reads the tools of an http source. A tool's risk defaults by
// its method: GET is readonly, anything else mutating.
func (s Source) capabilities(skip func(string) bool) ([]*capability, error) {
	if s.Type != "http" {
		return nil, fmt.Errorf("unsupported type %q (this gateway knows http, exec and mcp)", s.Type)
	}
	raw, err := json.Marshal(s.Config)
	if err != nil {
		return nil, err
	}
	var cfg httpSource
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	var out []*capability
	for i := range cfg.Tools {
		t := cfg.Tools[i]
		if t.Name == "" || t.URL == "" {
			return nil, errors.New("an http tool needs a name and a url")
		}
		if t.Method == "" {
			t.Method = "GET"
		}
		t.Method = strings.ToUpper(t.Method)
		if t.TimeoutSec <= 0 {
			t.TimeoutSec = cfg.TimeoutSec
		}
		for k, v := range cfg.Headers {
			if _, ok := t.Headers[k]; !ok {
				if t.Headers == nil {
					t.Headers = map[string]string{}
				}
				t.Headers[k] = v
			}
		}
		risk, err := parseRisk(t.Risk)
		if err != nil && !skip("risk-levels") {
			return nil, err
		}
		if t.Risk == "" && t.Method != "GET" && !skip("risk-default") && (t.Method != "HEAD" || !skip("head-readonly")) {
			risk = 1
		}
		out = append(out, &capability{ref: Ref{Kind: "tool", Domain: s.Name, Name: t.Name}, description: t.Description, risk: risk, tool: &t})
	}
	return out, nil
}

func loadAgent(fsys fs.FS, file string, lenient, strict bool) (*Agent, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("agent file %s: %w", file, err)
	}
	a := &Agent{file: file}
	if err := decode(raw, file, a, strict); err != nil {
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
	return a, nil
}

// keep is the number of recent messages compaction keeps.
func (a *Agent) keep() int {
	c := a.compaction()
	switch {
	case c.KeepRecent > 0:
		return c.KeepRecent
	case c.MaxMessages > 0:
		return c.MaxMessages / 2
	}
	return 10
}

func (a *Agent) compaction() Compaction {
	if a.Loop.Compaction != nil {
		return *a.Loop.Compaction
	}
	return Compaction{}
}

func (a *Agent) validate(fsys fs.FS, app *App, skip func(string) bool) error {
	if a.Approval.Mode == "" {
		a.Approval.Mode = "interactive"
	}
	c := a.compaction()
	compaction := c.MaxMessages > 0 || c.MaxTokens > 0 || c.ToolClearOver > 0
	need := a.keep() + 2
	if skip("boundary") {
		need++
	}
	if !skip("window") && compaction && a.Session.Window > 0 && a.Session.Window < need {
		return fmt.Errorf("agent %s: session.window (%d) must be >= loop.compaction keep_recent+2 (%d), or the rolling summary gets trimmed away",
			a.Name, a.Session.Window, a.keep()+2)
	}
	if skip("rules") {
		for _, r := range a.Approval.Rules {
			if ref, err := ParseRef(r.Ref); err == nil {
				a.rules = append(a.rules, rule{ref: &ref, args: r.Args, action: r.Action})
			}
		}
		for _, ns := range a.Namespaces {
			if n, err := readNamespace(fsys, path.Join(path.Dir(a.file), ns), !skip("strict")); err == nil {
				a.mounts = append(a.mounts, n)
			}
		}
		_ = assemble(a.mounts, app.maxRisk, skip)
		return nil
	}
	if err := a.Loop.legacy("agent " + a.Name); err != nil {
		return err
	}
	if a.Memory.ToolsLegacy != nil {
		return fmt.Errorf("agent %s: memory.tools has been renamed expose_tools (tools reads as the list of tools)", a.Name)
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
	if !slices.Contains([]string{"auto", "interactive", "deny"}, a.Approval.Mode) {
		return fmt.Errorf("agent %s: approval.mode must be auto|interactive|deny, got %q", a.Name, a.Approval.Mode)
	}
	for i, r := range a.Approval.Rules {
		if !slices.Contains([]string{"allow", "ask", "deny"}, r.Action) {
			return fmt.Errorf("agent %s: approval_policy rule %d: bad action %q (want allow|ask|deny)", a.Name, i, r.Action)
		}
		cr := rule{args: r.Args, action: r.Action}
		if r.Ref != "" && r.Ref != "*" {
			ref, err := ParseRef(r.Ref)
			if err != nil {
				return fmt.Errorf("agent %s: approval_policy rule %d: %v", a.Name, i, err)
			}
			cr.ref = &ref
		}
		a.rules = append(a.rules, cr)
	}
	if !slices.Contains([]string{"", "summary", "full", "off"}, a.Session.RecordTools) {
		return fmt.Errorf("agent %s: session.record_tools must be summary|full|off, got %q", a.Name, a.Session.RecordTools)
	}
	stores := map[string]StoreDecl{}
	for _, s := range append(slices.Clone(app.Stores), a.Stores...) {
		stores[s.Name] = s
	}
	slots := []struct{ kind, value string }{
		{"memory", a.Memory.Store}, {"todo", a.Todo.Store}, {"result", a.Digest.Store}, {"budget", a.Budget.Store}, {"approval", a.Approval.Store},
	}
	if a.Session.Window > 0 { // the session store is read only with a window
		slots = append([]struct{ kind, value string }{{"session", a.Session.Store}}, slots...)
		if a.Session.Store == "file" && a.Session.StoreConfig["dir"] == nil {
			return fmt.Errorf("agent %s: session: the file store needs store_config.dir", a.Name)
		}
	}
	if skip("module-slots") { // planted: only the session slot is checked
		slots = slices.DeleteFunc(slots, func(s struct{ kind, value string }) bool { return s.kind != "session" })
	}
	for _, slot := range slots {
		if err := checkSlot(slot.kind, slot.value, stores); err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
	}
	for _, inc := range append(slices.Clone(a.Capabilities.Include), a.Capabilities.Exclude...) {
		if _, err := ParseRef(inc); err != nil {
			return fmt.Errorf("agent %s: capabilities: %v", a.Name, err)
		}
	}
	for _, ns := range a.Namespaces {
		n, err := readNamespace(fsys, path.Join(path.Dir(a.file), ns), !skip("strict"))
		if err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
		a.mounts = append(a.mounts, n)
	}
	if err := assemble(a.mounts, app.maxRisk, skip); err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	return nil
}

// checkSlot checks a store slot: a bare backend type, or a reference to a
// declared store instance of the slot's kind.
func checkSlot(slot, value string, stores map[string]StoreDecl) error {
	if value == "" {
		return nil
	}
	if !strings.HasPrefix(value, "cap://") {
		if !slices.Contains(storeTypes, value) {
			return fmt.Errorf("%s: unknown store type %q (this gateway offers %s)", slot, value, strings.Join(storeTypes, ", "))
		}
		return nil
	}
	ref, err := ParseRef(value)
	if err != nil {
		return err
	}
	if ref.Kind != "store" {
		return fmt.Errorf("%s: not a store ref (kind=%s)", value, ref.Kind)
	}
	if ref.Domain != slot {
		return fmt.Errorf("%s: store kind is %q, this slot requires %q", value, ref.Domain, slot)
	}
	inst, ok := stores[ref.Name]
	if !ok {
		return fmt.Errorf("%s: no store instance named %q is declared", value, ref.Name)
	}
	if inst.Kind != slot {
		return fmt.Errorf("store instance %q has kind %q, which does not match slot %q", inst.Name, inst.Kind, slot)
	}
	return nil
}

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }
