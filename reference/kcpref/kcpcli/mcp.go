package kcpcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// MCP serves kcp-agent's MCP tools (kcp_plan, kcp_load, kcp_validate,
// kcp_trace, kcp_replay) on stdin and stdout until stdin closes.
func (c CLI) MCP(args []string) int {
	if len(args) > 0 {
		return c.fail(kcpref.ExitUsage, "mcp takes no arguments: it speaks MCP on standard input and output")
	}
	in := c.Stdin
	if in == nil {
		in = os.Stdin
	}
	d := newDraining(in, c.Stdout)
	t := &mcp.IOTransport{Reader: d, Writer: d}
	if err := c.MCPServer().Run(context.Background(), t); err != nil && err != io.EOF && !strings.Contains(err.Error(), "EOF") {
		return c.fail(kcpref.ExitFailure, "mcp: "+err.Error())
	}
	return kcpref.ExitOK
}

// MCPServer is the MCP server with the five tools; the CLI's Faults are
// planted in what they answer.
func (c CLI) MCPServer() *mcp.Server { return c.mcpServer(false) }

// mcpServer is the MCP server of mcp (stdio) or of serve's /mcp (serving).
func (c CLI) mcpServer(serving bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Implementation, Version: Version}, nil)
	for _, t := range c.servedTools(serving) {
		tool := t
		s.AddTool(&mcp.Tool{Name: tool.name, Description: tool.description, InputSchema: tool.schema()},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args map[string]any
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
						return toolError("arguments are not a JSON object: " + err.Error()), nil
					}
				}
				text, err := c.runTool(tool.name, args)
				if err != nil {
					return toolError(err.Error()), nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
			})
	}
	return s
}

// servedTools are the tools listed: all five (serve's /mcp loses
// kcp_replay under FaultServeMCPToolDropped).
func (c CLI) servedTools(serving bool) []mcpTool {
	if !serving || !slices.Contains(c.Faults, kcpref.FaultServeMCPToolDropped) {
		return mcpTools
	}
	var out []mcpTool
	for _, t := range mcpTools {
		if t.name != "kcp_replay" {
			out = append(out, t)
		}
	}
	return out
}

// runTool checks a call's arguments and runs the tool. A tool that takes
// a manifest is given DefaultManifest when the call names none.
func (c CLI) runTool(name string, args map[string]any) ([]byte, error) {
	var tool mcpTool
	for _, t := range mcpTools {
		if t.name == name {
			tool = t
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	if _, named := args["manifest"]; !named && c.DefaultManifest != "" && name != "kcp_replay" &&
		!slices.Contains(c.Faults, kcpref.FaultServeDefaultManifestIgnored) {
		args["manifest"] = c.DefaultManifest
	}
	if msg := tool.check(args); msg != "" {
		return nil, errors.New(msg)
	}
	return c.callTool(name, args)
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// argType is an argument's JSON type in a tool's input schema.
type argType string

const (
	argString  argType = "string"
	argNumber  argType = "number"
	argBool    argType = "boolean"
	argStrings argType = "strings" // an array of strings
	argKnown   argType = "known"   // kcp_load's [{id, sha256}]
	argAny     argType = "any"
)

type mcpArg struct {
	name string
	typ  argType
	what string
}

type mcpTool struct {
	name, description string
	args              []mcpArg
	required          []string
}

var planArgs = []mcpArg{
	{"task", argString, "the task to plan for"},
	{"manifest", argString, "a knowledge.yaml: its path, its directory, or an HTTPS URL"},
	{"env", argString, "the runtime environment federation refs are sliced by"},
	{"as_of", argString, "the date temporal gates are evaluated at, YYYY-MM-DD (default: today in UTC)"},
	{"max_units", argNumber, "how many units at most are selected (default 5)"},
	{"strict", argBool, "skip units that are not load-eligible instead of listing them"},
	{"budget", argNumber, "the money ceiling for units paid per request"},
	{"currency", argString, "the budget's currency (default USDC)"},
	{"context_budget", argNumber, "the token ceiling of what the plan loads"},
	{"follow", argBool, "walk eligible federation refs (default false)"},
	{"max_depth", argNumber, "federation hops when following (default 1)"},
	{"max_nodes", argNumber, "manifests fetched at most in one walk (default 64)"},
	{"allow_private_hosts", argBool, "let fetches reach loopback, private and link-local hosts and plain http (default false)"},
	{"role", argString, "the agent's role audiences are matched against (default agent)"},
	{"methods", argStrings, "the payment methods the agent can settle (default [free])"},
	{"credentials", argStrings, "the credential kinds the agent holds"},
	{"attest", argString, "the attestation provider the agent can present"},
}

var mcpTools = []mcpTool{
	{"kcp_plan", "Plan which units of a KCP manifest to load for a task, which to skip and why, deterministically; loads nothing.", planArgs, []string{"task", "manifest"}},
	{"kcp_load", "Plan as kcp_plan does, then return the text of the load-eligible units; units listed in known whose sha256 still matches come back as stubs without their bytes.",
		append(append([]mcpArg{}, planArgs...), mcpArg{"known", argKnown, "units the caller already holds, as [{id, sha256}]"}), []string{"task", "manifest"}},
	{"kcp_validate", "Lint a KCP manifest: structural errors and warnings.", []mcpArg{{"manifest", argString, "a knowledge.yaml: its path, its directory, or an HTTPS URL"}}, []string{"manifest"}},
	{"kcp_trace", "Plan as kcp_plan does and account for every manifest unit with the gates it went through.", planArgs, []string{"task", "manifest"}},
	{"kcp_replay", "Re-check a saved kcp_plan artifact: the manifest's sha256 against the pinned one, and the plan re-made from its echoed inputs.",
		[]mcpArg{{"artifact", argAny, "the JSON kcp_plan returned, as an object or as its text"}}, []string{"artifact"}},
}

// schema is the tool's input schema as JSON data.
func (t mcpTool) schema() map[string]any {
	props := map[string]any{}
	for _, a := range t.args {
		var p map[string]any
		switch a.typ {
		case argStrings:
			p = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case argKnown:
			p = map[string]any{"type": "array", "items": map[string]any{"type": "object",
				"properties": map[string]any{"id": map[string]any{"type": "string"}, "sha256": map[string]any{"type": "string"}},
				"required":   []string{"id", "sha256"}}}
		case argAny:
			p = map[string]any{}
		default:
			p = map[string]any{"type": string(a.typ)}
		}
		p["description"] = a.what
		props[a.name] = p
	}
	return map[string]any{"type": "object", "properties": props, "required": t.required}
}

// check validates the arguments against the schema: the required ones
// present, each of its type. It returns the message of the first fault.
func (t mcpTool) check(args map[string]any) string {
	for _, r := range t.required {
		if _, ok := args[r]; !ok {
			return fmt.Sprintf("%s: missing required argument %q", t.name, r)
		}
	}
	for _, a := range t.args {
		v, ok := args[a.name]
		if !ok {
			continue
		}
		bad := false
		switch a.typ {
		case argString:
			_, ok := v.(string)
			bad = !ok
		case argNumber:
			_, ok := v.(float64)
			bad = !ok
		case argBool:
			_, ok := v.(bool)
			bad = !ok
		case argStrings:
			list, ok := v.([]any)
			bad = !ok
			for _, it := range list {
				if _, ok := it.(string); !ok {
					bad = true
				}
			}
		case argKnown:
			list, ok := v.([]any)
			bad = !ok
			for _, it := range list {
				m, ok := it.(map[string]any)
				id, idOK := m["id"].(string)
				sha, shaOK := m["sha256"].(string)
				_, _ = id, sha
				if !ok || !idOK || !shaOK {
					bad = true
				}
			}
		}
		if bad {
			return fmt.Sprintf("%s: argument %q must be %s", t.name, a.name, describe(a.typ))
		}
	}
	return ""
}

func describe(t argType) string {
	switch t {
	case argStrings:
		return "an array of strings"
	case argKnown:
		return "an array of {id, sha256} objects of strings"
	case argBool:
		return "a boolean"
	case argNumber:
		return "a number"
	}
	return "a " + string(t)
}

func (c CLI) callTool(name string, args map[string]any) ([]byte, error) {
	switch name {
	case "kcp_validate":
		loc := args["manifest"].(string)
		allow := c.allowPrivate(args)
		m, raw, bad := readLocation(loc, kcpref.FetchGuard{AllowPrivate: allow, Faults: c.Faults})
		if bad != nil {
			return nil, fmt.Errorf("%s", strings.TrimPrefix(bad.line(), "kcp-agent: "))
		}
		// As the validate command: unit paths are relative to the file read.
		v := kcpref.Validate(m, kcpref.ValidateOptions{Source: m.Source, AsOf: kcpref.DefaultAsOf(c.now()), Raw: raw, Files: unitFiles(m.Source)})
		return kcpref.ValidationReportJSON(v), nil
	case "kcp_replay":
		return c.replay(args["artifact"], kcpref.FetchGuard{AllowPrivate: c.allowPrivate(args), Faults: c.Faults})
	}
	p, m, loc, sig, opts, err := c.planFromArgs(args)
	if err != nil {
		return nil, err
	}
	switch name {
	case "kcp_trace":
		return kcpref.TraceToolJSON(kcpref.PlanTrace(p.Task, m, opts)), nil
	case "kcp_load":
		var known []kcpref.KnownUnit
		if list, ok := args["known"].([]any); ok {
			for _, it := range list {
				e := it.(map[string]any)
				known = append(known, kcpref.KnownUnit{ID: e["id"].(string), SHA256: e["sha256"].(string)})
			}
		}
		l := kcpref.LoadUnits(p, os.DirFS(filepath.Dir(m.Source)), known, c.Faults)
		return kcpref.LoadJSON(p, loc, sig, l), nil
	}
	return kcpref.PlanTreeJSON(p, loc, sig), nil
}

// planFromArgs plans as the command line would with the arguments as
// flags.
func (c CLI) planFromArgs(args map[string]any) (kcpref.AgentPlan, kcpref.Manifest, string, kcpref.SignatureResult, kcpref.Options, error) {
	loc := args["manifest"].(string)
	allow := c.allowPrivate(args)
	if f, _ := args["follow"].(bool); f {
		return kcpref.AgentPlan{}, kcpref.Manifest{}, "", kcpref.SignatureResult{}, kcpref.Options{}, fmt.Errorf("follow: sifu's reference plans one local manifest and walks no federation refs")
	}
	flags := []string{"--task", args["task"].(string), "--manifest", loc}
	for _, f := range []struct{ arg, flag string }{{"env", "--env"}, {"as_of", "--as-of"}, {"max_units", "--max-units"},
		{"budget", "--budget"}, {"currency", "--currency"}, {"context_budget", "--context-budget"}, {"role", "--role"},
		{"methods", "--methods"}, {"credentials", "--credentials"}, {"attest", "--attest"}} {
		if f.arg == "attest" && kcpref.HasFault(c.Faults, kcpref.FaultMCPAttestDropped) {
			continue
		}
		switch v := args[f.arg].(type) {
		case string:
			flags = append(flags, f.flag, v)
		case float64:
			flags = append(flags, f.flag, strconv.FormatFloat(v, 'f', -1, 64))
		case []any:
			items := make([]string, len(v))
			for i, it := range v {
				items[i] = it.(string)
			}
			flags = append(flags, f.flag, strings.Join(items, ","))
		}
	}
	if s, _ := args["strict"].(bool); s {
		flags = append(flags, "--strict")
	}
	return c.planFlags(flags, loc, kcpref.FetchGuard{AllowPrivate: allow, Faults: c.Faults})
}

// planFlags plans with the flags, reading the manifest through the guard
// (on for MCP callers unless allow_private_hosts).
func (c CLI) planFlags(flags []string, loc string, guard kcpref.FetchGuard) (kcpref.AgentPlan, kcpref.Manifest, string, kcpref.SignatureResult, kcpref.Options, error) {
	var none kcpref.AgentPlan
	inv, err := kcpref.ParsePlanArgs(flags)
	if err != nil && inv.Task != "" {
		return none, kcpref.Manifest{}, "", kcpref.SignatureResult{}, inv.Options, err
	}
	m, raw, bad := readLocation(loc, guard)
	if bad != nil {
		return none, m, "", kcpref.SignatureResult{}, inv.Options, fmt.Errorf("%s", strings.TrimPrefix(bad.line(), "kcp-agent: "))
	}
	// The tools take no signature arguments: every manifest is verified
	// as the server was told (by default with its own key), and an
	// invalid signature refuses the call. With --no-verify the tree
	// carries no verdict (the zero SignatureResult).
	policy := c.Signature
	if kcpref.HasFault(c.Faults, kcpref.FaultServeSignatureFlagsIgnored) {
		policy = kcpref.SignaturePolicy{}
	}
	policy.Faults = c.Faults
	if kcpref.HasFault(c.Faults, kcpref.FaultMCPSignatureUnchecked) {
		policy.NoVerify = true
	}
	verdict, refusal := kcpref.CheckSignature(raw, m, policy, reader(guard))
	sig := kcpref.SignatureResult{Status: kcpref.SignatureUnsigned, Detail: "manifest declares no signature"}
	switch {
	case verdict != nil:
		sig = *verdict
	case c.Signature.NoVerify && !kcpref.HasFault(c.Faults, kcpref.FaultServeSignatureFlagsIgnored):
		sig = kcpref.SignatureResult{}
	}
	if refusal != "" {
		return none, m, "", sig, inv.Options, fmt.Errorf("%s: %s", m.Source, refusal)
	}
	if !inv.AsOfGiven {
		now := time.Now
		if c.Now != nil {
			now = c.Now
		}
		inv.Options.AsOf = kcpref.DefaultAsOf(now())
	}
	inv.Options.Faults = c.Faults
	return kcpref.Plan(inv.Task, m, inv.Options), m, loc, sig, inv.Options, nil
}

// replay cross-examines a plan artifact (a plan tree or a plan, as an
// object or as its text) as the replay command does (replayOne).
func (c CLI) replay(artifact any, guard kcpref.FetchGuard) ([]byte, error) {
	if s, ok := artifact.(string); ok {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil, errUnrecognized
		}
		artifact = v
	}
	plans := kcpref.TreePlans(artifact)
	if plans == nil {
		return nil, errUnrecognized
	}
	r := kcpref.Replay{Artifact: "mcp:artifact"}
	for _, saved := range plans {
		r.Checks = append(r.Checks, c.replayOne(saved, guard))
	}
	return bytes.TrimSuffix(kcpref.ReplayJSON(r), []byte("\n")), nil
}

var errUnrecognized = fmt.Errorf("unrecognized artifact — expected the JSON of a plan or a plan tree, as kcp_plan returns it")

// allowPrivate is a call's allow_private_hosts: the fetch guard stays on
// for MCP callers unless it is true.
func (c CLI) allowPrivate(args map[string]any) bool {
	allow, _ := args["allow_private_hosts"].(bool)
	return allow && !kcpref.HasFault(c.Faults, kcpref.FaultMCPAllowIgnored)
}
