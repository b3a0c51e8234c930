// Package acpexec drives an ACP implementation whose tools are commands:
// a target config gives each tool's command template (docs/acp.md), and
// every call runs one process in the check's collaboration folder.
package acpexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/proc"
	"github.com/sifu-dev/sifu/suite/acp"
)

// Config says how to call one ACP implementation's tools: a command
// template per tool (see docs/acp.md). Placeholders in argv items are
// replaced by the call's values (Placeholders lists which each tool
// knows); a placeholder a tool does not know is refused when the config is
// loaded.
type Config struct {
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Profiles       []string `json:"profiles"`
	// Schemas are the ACP schemas the implementation speaks (v1, v2);
	// default v1. Checks of another schema do not apply to it.
	Schemas []string          `json:"schemas"`
	Env     map[string]string `json:"env"`
	// NowEnv names an environment variable the implementation reads the
	// current time from (RFC 3339); empty when it cannot be told.
	NowEnv string `json:"now_env"`
	// CompatEnv is set for calls that ask for the upstream verdicts.
	CompatEnv map[string]string   `json:"compat_env"`
	Commands  map[string]Template `json:"commands"`

	dir, self string
}

// Template is the command line of one tool.
type Template struct {
	Argv []string `json:"argv"`
	// Each repeats its items for every element of a list value
	// (participants, completion), with {item} the element.
	Each map[string][]string `json:"each,omitempty"`
	// Optional adds its items only when the value is set (doc, reply_to,
	// resume).
	Optional map[string][]string `json:"optional,omitempty"`
}

var placeholder = regexp.MustCompile(`\{[a-z_][a-z0-9_]*\}`)

var acpTools = []string{"init", "append", "next", "wait", "validate"}

// Placeholders are the values each tool's template may use, besides
// {folder}, {schema}, {sifu} and {config_dir}, which every tool has. Lists
// (used by "each", whose items see {item}) are marked with a trailing "[]".
var Placeholders = map[string][]string{
	"init": {"objective", "resume", "participants[]", "completion[]", "primary_type", "primary_file", "primary_checks[]",
		"deliverables_mode", "deliverables_dir", "repo_root"},
	"append":   {"participant", "event", "summary", "doc", "reply_to", "role", "sha256"},
	"next":     {"participant"},
	"wait":     {"participant", "timeout"},
	"validate": {},
}

var commonPlaceholders = []string{"folder", "schema", "sifu", "config_dir"}

// checkPlaceholders refuses a template that names a value its tool does not
// have, so a typo fails at load instead of turning checks into failures.
func checkPlaceholders(file, tool string, t Template) error {
	var values, lists []string
	values = append(values, commonPlaceholders...)
	for _, p := range Placeholders[tool] {
		if name, ok := strings.CutSuffix(p, "[]"); ok {
			lists = append(lists, name)
		} else {
			values = append(values, p)
		}
	}
	known := func(where string, items []string, extra ...string) error {
		for i, a := range items {
			for _, m := range placeholder.FindAllString(a, -1) {
				name := m[1 : len(m)-1]
				if !slices.Contains(values, name) && !slices.Contains(extra, name) {
					have := slices.Clone(append(values, extra...))
					for j := range have {
						have[j] = "{" + have[j] + "}"
					}
					return fmt.Errorf("%s: %s/%d: unknown placeholder %s; the %s command knows %s (see docs/acp.md)", file, where, i, m, tool, strings.Join(have, " "))
				}
			}
		}
		return nil
	}
	if err := known("/commands/"+tool+"/argv", t.Argv); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(t.Each)) {
		if !slices.Contains(lists, key) {
			return fmt.Errorf("%s: /commands/%s/each/%s: %s has no list %q; its lists are %s", file, tool, key, tool, key, strings.Join(append([]string{}, lists...), ", "))
		}
		if err := known("/commands/"+tool+"/each/"+key, t.Each[key], "item"); err != nil {
			return err
		}
	}
	for _, key := range slices.Sorted(maps.Keys(t.Optional)) {
		if !slices.Contains(values, key) {
			return fmt.Errorf("%s: /commands/%s/optional/%s: %s has no value %q; its values are %s", file, tool, key, tool, key, strings.Join(values, ", "))
		}
		if err := known("/commands/"+tool+"/optional/"+key, t.Optional[key]); err != nil {
			return err
		}
	}
	return nil
}

// LoadConfig reads and checks a target config. Every problem names the
// file and the field.
func LoadConfig(file string) (*Config, error) {
	raw, err := inputfile.Read(file)
	if err != nil {
		return nil, fmt.Errorf("--target-config: %v", err)
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(inputfile.Text(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: not an ACP target config: %v (see docs/acp.md)", file, err)
	}
	if len(c.Commands) == 0 {
		return nil, fmt.Errorf("%s: /commands is empty; give at least one of %s", file, strings.Join(acpTools, ", "))
	}
	for name, t := range c.Commands {
		if !slices.Contains(acpTools, name) {
			return nil, fmt.Errorf("%s: /commands/%s is not a tool; the tools are %s", file, name, strings.Join(acpTools, ", "))
		}
		if len(t.Argv) == 0 {
			return nil, fmt.Errorf("%s: /commands/%s/argv is empty", file, name)
		}
		if err := checkPlaceholders(file, name, t); err != nil {
			return nil, err
		}
	}
	if len(c.Schemas) == 0 {
		c.Schemas = []string{"v1"}
	}
	for i, s := range c.Schemas {
		if !slices.Contains(acp.Schemas, s) {
			return nil, fmt.Errorf("%s: /schemas/%d: %q is not an ACP schema (%s)", file, i, s, strings.Join(acp.Schemas, ", "))
		}
	}
	for _, p := range c.Profiles {
		if !slices.Contains(acp.Profiles, p) {
			return nil, fmt.Errorf("%s: /profiles: %q is not an ACP profile (%s)", file, p, strings.Join(acp.Profiles, ", "))
		}
	}
	abs, _ := filepath.Abs(file)
	c.dir = filepath.Dir(abs)
	c.self, _ = os.Executable()
	if c.Implementation == "" {
		c.Implementation = filepath.Base(file)
	}
	return &c, nil
}

// WithSelf sets what {sifu} stands for (tests run a built binary).
func (c *Config) WithSelf(path string) *Config {
	cc := *c
	cc.self = path
	return &cc
}

// Tools runs an ACP implementation's tools as processes.
type Tools struct{ Config *Config }

// Hello names the implementation, once every configured command can be
// started and one tool ran (probe): a program that is not found, a file
// under {config_dir} that does not exist, or a tool that never finishes or
// cannot run is a target that cannot be run, not checks that fail.
func (t Tools) Hello(ctx context.Context) (acp.Hello, error) {
	if err := t.Config.Runnable(); err != nil {
		return acp.Hello{}, err
	}
	if err := t.probe(ctx); err != nil {
		return acp.Hello{}, err
	}
	v := t.Config.Version
	if v == "" {
		v = "command line"
	}
	return acp.Hello{Implementation: t.Config.Implementation, Version: v}, nil
}

// probe runs one tool once, before any check, in a folder of its own:
// validate when the config has it, else init. A tool that does not finish
// before the hello's deadline, is killed by a signal, or whose program the
// shell cannot find or run (exit 127, 126) cannot be run; whatever else it
// answers is for the checks to judge.
func (t Tools) probe(ctx context.Context) error {
	tool := "validate"
	if _, ok := t.Config.Commands[tool]; !ok {
		tool = "init"
	}
	if _, ok := t.Config.Commands[tool]; !ok {
		return nil // append, next and wait need a folder some init made
	}
	root, err := os.MkdirTemp("", "sifu-acp-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	call := acp.Call{Folder: filepath.Join(root, "collab"), Now: acp.Epoch}
	var ans acp.Answer
	if tool == "validate" {
		ans, err = t.Validate(ctx, acp.ValidateRequest{Call: call})
	} else {
		ans, err = t.Init(ctx, acp.InitRequest{Call: call, Participants: []string{"sifu-a", "sifu-b"}, Objective: "sifu probe"})
	}
	argv, _ := t.Config.Argv(tool, call, nil, nil)
	line := fmt.Sprintf("the %s command (%s)", tool, strings.Join(argv, " "))
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s did not finish before the hello's deadline, run once in an empty directory: %w", line, ctx.Err())
	case err != nil:
		var ae *engine.AdapterError
		if errors.As(err, &ae) {
			err = ae.Err
		}
		return fmt.Errorf("%s could not be run: %w", line, err)
	case ans.Exit == 127 || ans.Exit == 126:
		return fmt.Errorf("%s exited with status %d, which is the shell saying it could not find or run a program: %s", line, ans.Exit, tail(ans.Stderr))
	}
	return nil
}

// Init runs the init template.
func (t Tools) Init(ctx context.Context, r acp.InitRequest) (acp.Answer, error) {
	vals := map[string]string{"objective": r.Objective, "primary_type": r.PrimaryType, "primary_file": r.PrimaryFile,
		"deliverables_mode": r.DeliverablesMode, "deliverables_dir": r.DeliverablesDir, "repo_root": r.RepoRoot}
	lists := map[string][]string{"participants": r.Participants, "completion": r.Completion, "primary_checks": r.PrimaryChecks}
	if r.Resume {
		vals["resume"] = "true"
	}
	return t.run(ctx, "init", r.Call, vals, lists)
}

// Append runs the append template.
func (t Tools) Append(ctx context.Context, r acp.AppendRequest) (acp.Answer, error) {
	vals := map[string]string{"participant": r.Participant, "event": r.Event, "summary": r.Summary, "doc": r.Doc,
		"role": r.Role, "sha256": r.SHA256}
	if r.ReplyTo != nil {
		vals["reply_to"] = strconv.Itoa(*r.ReplyTo)
	}
	return t.run(ctx, "append", r.Call, vals, nil)
}

// Next runs the next template.
func (t Tools) Next(ctx context.Context, r acp.NextRequest) (acp.Answer, error) {
	return t.run(ctx, "next", r.Call, map[string]string{"participant": r.Participant}, nil)
}

// Wait runs the wait template.
func (t Tools) Wait(ctx context.Context, r acp.WaitRequest) (acp.Answer, error) {
	return t.run(ctx, "wait", r.Call, map[string]string{"participant": r.Participant,
		"timeout": strconv.FormatFloat(r.Timeout.Seconds(), 'f', -1, 64)}, nil)
}

// Validate runs the validate template.
func (t Tools) Validate(ctx context.Context, r acp.ValidateRequest) (acp.Answer, error) {
	return t.run(ctx, "validate", r.Call, nil, nil)
}

// Runnable checks what can be checked of each command before any call: its
// program (argv[0], once {sifu} and {config_dir} are filled in) is found,
// and every argument that names a path under {config_dir} exists.
func (c *Config) Runnable() error {
	fixed := map[string]string{"sifu": c.self, "config_dir": c.dir}
	subst := func(s string) string { return fill(s, fixed) }
	for _, tool := range slices.Sorted(maps.Keys(c.Commands)) {
		argv := c.Commands[tool].Argv
		if len(argv) == 0 {
			continue
		}
		if prog := subst(argv[0]); !placeholder.MatchString(prog) {
			if _, err := exec.LookPath(prog); err != nil {
				return fmt.Errorf("the %s command cannot be started: %w", tool, err)
			}
		}
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "{config_dir}") {
				continue
			}
			path := subst(a)
			if placeholder.MatchString(path) {
				continue
			}
			if _, err := os.Stat(path); err != nil {
				return fmt.Errorf("the %s command names %s, which is not there ({config_dir} is the directory of the target config, %s): %w", tool, path, c.dir, err)
			}
		}
	}
	return nil
}

// fill replaces the placeholders of s that vals names, in one pass, so a
// value that looks like a placeholder is never expanded again; the others
// stay as they are.
func fill(s string, vals map[string]string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vals[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// Argv renders a tool's command line for a call.
func (c *Config) Argv(tool string, call acp.Call, vals map[string]string, lists map[string][]string) ([]string, error) {
	tpl, ok := c.Commands[tool]
	if !ok {
		return nil, fmt.Errorf("the target config has no %s command: %w", tool, engine.ErrUnsupported)
	}
	all := map[string]string{"folder": call.Folder, "sifu": c.self, "config_dir": c.dir, "schema": call.Schema}
	for k, v := range vals {
		all[k] = v
	}
	subst := func(s string) string { return fill(s, all) }
	var argv []string
	for _, a := range tpl.Argv {
		argv = append(argv, subst(a))
	}
	for _, key := range slices.Sorted(maps.Keys(tpl.Each)) {
		for _, item := range lists[key] {
			for _, a := range tpl.Each[key] {
				all["item"] = item
				argv = append(argv, subst(a))
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(tpl.Optional)) {
		if all[key] == "" {
			continue
		}
		for _, a := range tpl.Optional[key] {
			argv = append(argv, subst(a))
		}
	}
	return argv, nil
}

func (t Tools) run(ctx context.Context, tool string, call acp.Call, vals map[string]string, lists map[string][]string) (acp.Answer, error) {
	c := t.Config
	argv, err := c.Argv(tool, call, vals, lists)
	if err != nil {
		return acp.Answer{}, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if c.NowEnv != "" && !call.Now.IsZero() {
		cmd.Env = append(cmd.Env, c.NowEnv+"="+call.Now.UTC().Format(time.RFC3339))
	}
	if call.Compat {
		for k, v := range c.CompatEnv {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	proc.Isolate(cmd)
	cmd.Cancel = func() error { proc.Kill(cmd); return nil }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return acp.Answer{}, fmt.Errorf("%s did not finish: %w (stderr: %s)", tool, ctx.Err(), tail(stderr.String()))
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		if exit.ExitCode() < 0 {
			return acp.Answer{}, &engine.AdapterError{Step: tool, Err: fmt.Errorf("%s %s", tool, proc.Ended(runErr))}
		}
		return acp.Answer{Exit: exit.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}, nil
	}
	if runErr != nil {
		return acp.Answer{}, &engine.AdapterError{Step: tool, Err: fmt.Errorf("cannot run %q: %v", argv[0], runErr)}
	}
	return acp.Answer{Stdout: stdout.String(), Stderr: stderr.String()}, nil
}

// Claims are the profiles the target offers: those the config lists (all
// but the schemas when it lists none) and the schemas it speaks.
func (c *Config) Claims() []string {
	claims := slices.Clone(c.Profiles)
	if len(claims) == 0 {
		claims = slices.DeleteFunc(slices.Clone(acp.Profiles), func(p string) bool { return slices.Contains(acp.Schemas, p) })
	}
	for _, s := range c.Schemas {
		if !slices.Contains(claims, s) {
			claims = append(claims, s)
		}
	}
	return claims
}

// tail is the end of a command's output, for an error message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		return "…" + s[len(s)-500:]
	}
	return s
}
