package agentkitref

// This file holds secrets and prompts: ${NAME} and ${secret:NAME}
// placeholders in the configuration files, filled from the environment or
// a secrets provider before the files are read, and prompts that
// cap://prompt references bring from a file or an HTTP prompt platform.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// SecretsConfig is app.yaml's secrets section: where ${secret:NAME} values
// come from (env, the default, or file: a YAML map of name to value).
type SecretsConfig struct {
	Provider string         `yaml:"provider"`
	Config   map[string]any `yaml:"config"`
}

// PromptsConfig is app.yaml's prompts section: named prompt sources and the
// label a reference without one asks for.
type PromptsConfig struct {
	Sources      []PromptSource `yaml:"sources"`
	DefaultLabel string         `yaml:"default_label"`
}

// PromptSource is one prompt source: file (config dir: <dir>/<name>.md
// beside the configuration) or http (config base_url: GET
// <base_url>/prompts/<name>?label=<label> answering {name, version, text}).
type PromptSource struct {
	Name   string         `yaml:"name"`
	Type   string         `yaml:"type"`
	Config map[string]any `yaml:"config"`
}

// secretPattern is a placeholder: ${NAME} or ${secret:NAME}.
var secretPattern = regexp.MustCompile(`\$\{(secret:)?(\w+)\}`)

// secretLookup finds a ${secret:NAME} value.
type secretLookup func(name string) (string, error)

// secretsProvider reads the secrets section of the app file's text (it
// may hold no placeholder itself) and returns its lookup.
func secretsProvider(raw []byte, fsys fs.FS, base string, env func(string) (string, bool), skip func(string) bool) (secretLookup, error) {
	var head struct {
		Secrets SecretsConfig `yaml:"secrets"`
	}
	if err := yaml.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("parse app.yaml: %w", err)
	}
	fromEnv := func(name string) (string, error) {
		if v, ok := env(name); ok {
			return v, nil
		}
		return "", fmt.Errorf("secret %q is not in the environment", name)
	}
	switch head.Secrets.Provider {
	case "", "env":
		return fromEnv, nil
	case "file":
		if skip("secret-file-ignored") {
			return fromEnv, nil
		}
		p, _ := head.Secrets.Config["path"].(string)
		if p == "" {
			return nil, fmt.Errorf("secrets: the file provider needs config.path")
		}
		var data []byte
		var err error
		if filepath.IsAbs(p) {
			data, err = os.ReadFile(p)
		} else {
			data, err = fs.ReadFile(fsys, path.Join(base, p))
		}
		if err != nil {
			return nil, fmt.Errorf("secrets: read the secrets file: %w", err)
		}
		values := map[string]string{}
		if err := yaml.Unmarshal(data, &values); err != nil {
			return nil, fmt.Errorf("secrets: parse the secrets file %s: %w", p, err)
		}
		return func(name string) (string, error) {
			if v, ok := values[name]; ok {
				return v, nil
			}
			return "", fmt.Errorf("secret %q is not in the secrets file", name)
		}, nil
	}
	return nil, fmt.Errorf("secrets: unknown provider %q (env or file)", head.Secrets.Provider)
}

// expandSecrets fills the placeholders of a configuration file's text,
// line by line; a comment line is left as it is. The first placeholder
// that cannot be filled is the error.
func expandSecrets(raw []byte, file string, env func(string) (string, bool), secret secretLookup, skip func(string) bool) ([]byte, error) {
	if skip("secrets-unexpanded") {
		return raw, nil
	}
	var first error
	lines := strings.Split(string(raw), "\n")
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && !skip("secrets-in-comments") {
			continue
		}
		lines[i] = secretPattern.ReplaceAllStringFunc(line, func(m string) string {
			g := secretPattern.FindStringSubmatch(m)
			var v string
			var err error
			if g[1] != "" {
				v, err = secret(g[2])
			} else if val, ok := env(g[2]); ok {
				v = val
			} else {
				err = fmt.Errorf("the environment variable %q is not set", g[2])
			}
			if err != nil && first == nil && !skip("secret-missing-empty") {
				first = err
			}
			return v
		})
	}
	if first != nil {
		return nil, fmt.Errorf("%s: %w", file, first)
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// expandingFS serves the configuration files (*.yaml) with their
// placeholders filled; other files as they are.
type expandingFS struct {
	fs.FS
	expand func(raw []byte, file string) ([]byte, error)
}

func (e expandingFS) ReadFile(name string) ([]byte, error) {
	raw, err := fs.ReadFile(e.FS, name)
	if err != nil || !strings.HasSuffix(name, ".yaml") {
		return raw, err
	}
	return e.expand(raw, name)
}

// resolvePrompt is a prompt value as the model gets it: a value starting
// with cap://prompt is a reference, read from its source; anything else is
// literal text.
func (app *App) resolvePrompt(value string, client *http.Client, faults []Fault) (string, error) {
	isRef := strings.HasPrefix(value, "cap://prompt")
	if i := strings.Index(value, "cap://prompt"); i > 0 && has(faults, FaultPromptRefAnywhere) {
		value, _, _ = strings.Cut(value[i:], " ")
		isRef = true
	}
	if !isRef || has(faults, FaultPromptLiteral) {
		return value, nil
	}
	text, err := app.fetchPrompt(value, client, faults)
	if err != nil && has(faults, FaultPromptMissingEmpty) {
		return "", nil
	}
	return text, err
}

func (app *App) fetchPrompt(value string, client *http.Client, faults []Fault) (string, error) {
	ref, err := ParseRef(value)
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", value, err)
	}
	if ref.Kind != "prompt" {
		return "", fmt.Errorf("prompt %s: not a prompt reference", value)
	}
	var src *PromptSource
	for i := range app.Prompts.Sources {
		if app.Prompts.Sources[i].Name == ref.Domain {
			src = &app.Prompts.Sources[i]
		}
	}
	if src == nil {
		return "", fmt.Errorf("prompt %s: no prompt source named %q", value, ref.Domain)
	}
	label := ref.Version
	if label == "" && !has(faults, FaultPromptNoLabel) {
		label = app.Prompts.DefaultLabel
	}
	switch src.Type {
	case "file":
		dir, _ := src.Config["dir"].(string)
		if dir == "" {
			return "", fmt.Errorf("prompt source %s: config.dir is required", src.Name)
		}
		data, err := fs.ReadFile(app.root, path.Join(app.base, path.Clean(dir), path.Clean(ref.Name)+".md"))
		if err != nil {
			return "", fmt.Errorf("prompt %s: %w", value, err)
		}
		return string(data), nil
	case "http":
		base, _ := src.Config["base_url"].(string)
		if base == "" {
			return "", fmt.Errorf("prompt source %s: config.base_url is required", src.Name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		u := base + "/prompts/" + url.PathEscape(ref.Name) + "?label=" + url.QueryEscape(label)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return "", err
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", fmt.Errorf("prompt %s: %w", value, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return "", fmt.Errorf("prompt %s: the prompt platform answered %d: %s", value, resp.StatusCode, strings.TrimSpace(string(body)))
		}
		var tpl struct{ Name, Version, Text string }
		if err := json.NewDecoder(resp.Body).Decode(&tpl); err != nil {
			return "", fmt.Errorf("prompt %s: %w", value, err)
		}
		return tpl.Text, nil
	case "inline":
		if t, ok := src.Config[ref.Name]; ok {
			return fmt.Sprint(t), nil
		}
		return "", fmt.Errorf("prompt %s: the inline source has no prompt %q", value, ref.Name)
	}
	return "", fmt.Errorf("prompt source %s: unknown type %q (inline, file or http)", src.Name, src.Type)
}
