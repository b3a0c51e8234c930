package agentkithttp

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/suite/agentkit"
)

//go:embed templates
var templates embed.FS

// DefaultTemplates are the config templates sifu renders for a gateway: an
// app.yaml with agents/assistant.yaml and agents/helper.yaml.
func DefaultTemplates() fs.FS {
	sub, _ := fs.Sub(templates, "templates")
	return sub
}

// ConfigData fills the templates.
type ConfigData struct {
	Addr     string // host:port the gateway listens on
	ModelURL string // base_url of the stub model
	ToolsURL string // base of the stub tools
	// MCPURL is the base of the stub MCP server's endpoints (for fixtures).
	MCPURL string
	// MCPSources are the settings' MCP sources as the templates write them.
	MCPSources []MCPSourceData
	// ExtraSources are the settings' further sources, their URLs placed.
	ExtraSources []agentkit.Source
	// IncludeGiven says the settings give the assistant's include patterns,
	// none among them ([]).
	IncludeGiven bool
	// SupplySources are the settings' a2a and vector sources, and
	// PromptsURL the base_url of the stub prompt platform.
	SupplySources []SupplySourceData
	PromptsURL    string
	agentkit.Settings
}

// MCPSourceData is one MCP source ready to render: its config: mapping
// points at sifu's stub MCP server.
type MCPSourceData struct {
	Name     string
	Required bool
	Priority int
	Config   map[string]any
}

// Render executes every *.tmpl file of tmpl and returns the files by path
// (without .tmpl).
func Render(tmpl fs.FS, data ConfigData) (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(tmpl, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tmpl") {
			return err
		}
		raw, err := inputfile.ReadFS(tmpl, p)
		if err != nil {
			return err
		}
		text, err := RenderText(p, string(raw), data)
		if err != nil {
			return err
		}
		out[strings.TrimSuffix(p, ".tmpl")] = text
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("config templates: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("config templates: no *.tmpl file found")
	}
	return out, nil
}

// funcs are the template functions: json renders a value as JSON (which
// YAML reads as a flow value).
var funcs = template.FuncMap{"json": func(v any) (string, error) {
	raw, err := json.Marshal(v)
	return string(raw), err
}}

// RenderText executes one template text.
func RenderText(name, text string, data ConfigData) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return b.String(), nil
}

// WriteFiles writes rendered files under dir, in a stable order. A file
// that cannot be written is a *SetupError.
func WriteFiles(dir string, files map[string]string) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return &SetupError{Msg: fmt.Sprintf("cannot write the generated config %s: %v; check that the temporary directory is writable (TMPDIR)", p, err)}
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			return &SetupError{Msg: fmt.Sprintf("cannot write the generated config %s: %v; check that the temporary directory is writable (TMPDIR)", p, err)}
		}
	}
	return nil
}

// SetupError is a problem of the harness's own setup (a config it cannot
// write, a port it cannot bind): the run cannot start.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }
