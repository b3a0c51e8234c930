// Package kcpcli is the reference planner's command line: kcp-agent's plan
// (with --trace, --follow and --memory), validate, replay, diff, remember,
// recall, init, discover and watch --once commands with its flags, output
// and exit codes, and ask against an OpenAI-compatible model (ask*.go,
// model.go). It links nothing of the harness, so a planner-only binary
// (cmd/sifu-kcp) starts in a few milliseconds, and `sifu kcp` runs the very
// same code.
package kcpcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sifu-dev/sifu/reference/kcpref"
)

// Usage is the help text of both commands.
const Usage = `Usage: %[1]s plan --task "<task>" --manifest <file> [--json] [--env E] [--as-of YYYY-MM-DD]
         [--max-units N] [--strict] [--role R] [--methods a,b] [--credentials a,b] [--attest P]
         [--budget N] [--currency C] [--context-budget N] [--correlation-id ID]
         [--trace] [--follow] [--max-depth N] [--max-nodes N]
         [--no-verify] [--require-signature] [--trust-key <key|path>]
       %[1]s ask "<task>" --manifest <file> [plan's flags] [--json] [--model provider/id]
         [--base-url URL] [--api-key K] [--ground] [--ground-model M] [--ground-rounds N]
         [--loop] [--max-rounds N] [--loop-model M] [--memory DIR]
       %[1]s validate <file|dir> [--json] [--as-of YYYY-MM-DD]   (or --manifest <file|dir>)
       %[1]s replay <plan.json> [--json]
       %[1]s diff <a.json> <b.json> [--json]
       %[1]s remember <artifact.json> --memory <dir> [--json]
       %[1]s recall "<task>" --memory <dir> [--replay] [--limit <n>] [--json]
       %[1]s init [dir] [--publisher <name>] [--from-llms-txt <path>] [--dry-run] [--force]
       %[1]s watch <path|dir> [--once] [--diff] [--task "<task>"] [--json]
       %[1]s discover <url> [--json] [--allow-private-hosts]
       %[1]s --serve     (the planner runner protocol on stdin/stdout, docs/kcp-runner.md)
       %[1]s mcp         (kcp-agent's MCP tools on stdin/stdout: kcp_plan, kcp_load, kcp_validate, kcp_trace, kcp_replay)
       %[1]s serve [<port>] [--api-key K] [--manifest <file|dir>] [--public-url URL]
                         [--no-verify] [--require-signature] [--trust-key <key|path>]
                         (kcp-agent's HTTP server: /health, POST /plan /trace /validate /diff, /mcp; port 3100 by default)

The flags, defaults, JSON output and exit codes are kcp-agent's (0 ok, 1 the
manifest could not be read or parsed, validate found errors, replay found
drift or diff found changes, 2 usage), so sifu is a drop-in planner.`

// CLI runs the commands. Now is the clock used only when --as-of is not
// given (nil means time.Now); Name is how usage text names the program.
type CLI struct {
	Name   string
	Stdin  io.Reader // read by --serve
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	// Faults are planted in every plan (reference/kcp/faults.go); only
	// sifu's mutation self-test sets them.
	Faults []kcpref.Fault
	// DefaultManifest is the manifest a tool call that names none plans
	// over (serve --manifest).
	DefaultManifest string
	// Done, when set, stops a command that keeps running (watch without
	// --once) when it is closed; when nil, SIGINT and SIGTERM do.
	Done <-chan struct{}
	// Signature is how a tool call or REST request verifies the manifest
	// it plans (serve --no-verify, --require-signature, --trust-key); the
	// zero policy verifies it with its own key.
	Signature kcpref.SignaturePolicy
}

// Main runs one command line (without the program name) and returns its
// exit code; messages for a non-zero code go to Stderr.
func (c CLI) Main(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Stdout, c.usage()) // kcp-agent prints its usage on standard output
		return kcpref.ExitUsage
	}
	switch args[0] {
	case "plan":
		return c.Plan(args[1:])
	case "ask":
		return c.Ask(args[1:])
	case "validate":
		return c.Validate(args[1:])
	case "mcp":
		return c.MCP(args[1:])
	case "replay":
		return c.Replay(args[1:])
	case "diff":
		return c.Diff(args[1:])
	case "remember":
		return c.Remember(args[1:])
	case "recall":
		return c.Recall(args[1:])
	case "init":
		return c.Init(args[1:])
	case "watch":
		return c.Watch(args[1:])
	case "discover":
		return c.Discover(args[1:])
	case "serve":
		return c.HTTPServe(args[1:])
	case "--serve":
		if len(args) > 1 {
			return c.fail(kcpref.ExitUsage, "--serve takes no arguments: it reads runner requests on standard input (docs/kcp-runner.md)")
		}
		in := c.Stdin
		if in == nil {
			in = os.Stdin
		}
		return c.Serve(in)
	case "--help", "-h", "help":
		fmt.Fprintln(c.Stdout, c.usage())
		return kcpref.ExitOK
	}
	return c.fail(kcpref.ExitUsage, "Unknown command: "+args[0])
}

func (c CLI) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c CLI) usage() string {
	name := c.Name
	if name == "" {
		name = "sifu kcp"
	}
	return fmt.Sprintf(Usage, name)
}

func (c CLI) fail(code int, msg string) int {
	if msg != "" {
		fmt.Fprintln(c.Stderr, msg)
	}
	return code
}

// readFailure is a manifest that could not be read (fetch) or parsed.
type readFailure struct {
	loc   string // the location the message names
	parse bool
	err   error
}

// line is the CLI's standard error line for it (exit ExitFailure).
func (f *readFailure) line() string {
	if f.parse {
		return kcpref.ParseFailedMessage(f.loc, f.err)
	}
	return kcpref.FetchFailedMessage(f.loc, f.err)
}

// finding is validate's manifest error for it.
func (f *readFailure) finding() string {
	if f.parse {
		return "does not parse: " + f.err.Error()
	}
	return f.err.Error()
}

// readManifest reads and parses a manifest file, failing like kcp-agent.
// A directory stands for its knowledge.yaml, or .well-known/knowledge.yaml.
// It returns the manifest (its Source the file read) and its text, or why
// it could not.
func readManifest(loc string) (kcpref.Manifest, []byte, *readFailure) {
	return readLocation(loc, kcpref.FetchGuard{})
}

// readLocation is readManifest for a location that may be an http(s) URL,
// read through the guard; the manifest's Source is then the URL its bytes
// came from, after redirects.
func readLocation(loc string, g kcpref.FetchGuard) (kcpref.Manifest, []byte, *readFailure) {
	if kcpref.IsRemote(loc) {
		text, final, err := kcpref.GuardedFetch(context.Background(), loc, g)
		if err != nil {
			return kcpref.Manifest{}, nil, &readFailure{loc: loc, err: err}
		}
		m, err := kcpref.ParseManifest([]byte(text))
		if err != nil {
			return kcpref.Manifest{}, nil, &readFailure{loc: final, parse: true, err: err}
		}
		m.Source = final
		return m, []byte(text), nil
	}
	path := loc
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = ""
		for _, c := range []string{filepath.Join(loc, "knowledge.yaml"), filepath.Join(loc, ".well-known", "knowledge.yaml")} {
			if _, err := os.Stat(c); err == nil {
				path = c
				break
			}
		}
		if path == "" {
			return kcpref.Manifest{}, nil, &readFailure{loc: loc, err: fmt.Errorf("no knowledge.yaml found in %s", loc)}
		}
	}
	if _, err := os.Stat(path); err != nil {
		return kcpref.Manifest{}, nil, &readFailure{loc: loc, err: fmt.Errorf("manifest not found: %s", path)}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return kcpref.Manifest{}, nil, &readFailure{loc: loc, err: err}
	}
	m, err := kcpref.ParseManifest(raw)
	if err != nil {
		return kcpref.Manifest{}, nil, &readFailure{loc: path, parse: true, err: err}
	}
	m.Source = path
	return m, raw, nil
}

// Plan is `plan`: it prints the plan as kcp-agent's JSON (--json) or as a
// short human summary. A manifest whose signature is invalid is refused.
func (c CLI) Plan(args []string) int {
	inv, err := kcpref.ParsePlanArgs(args)
	if err != nil {
		return c.fail(kcpref.ExitUsage, err.Error())
	}
	if inv.Help {
		fmt.Fprintln(c.Stdout, c.usage())
		return kcpref.ExitOK
	}
	guard := kcpref.FetchGuard{AllowPrivate: inv.AllowPrivateHosts && !kcpref.HasFault(c.Faults, kcpref.FaultAllowPrivateIgnored), Faults: c.Faults}
	m, raw, bad := readLocation(inv.Manifest, guard)
	if bad != nil {
		return c.fail(kcpref.ExitFailure, bad.line())
	}
	inv.Signature.Faults = c.Faults
	sig, refusal := kcpref.CheckSignature(raw, m, inv.Signature, reader(guard))
	if refusal != "" {
		return c.fail(kcpref.ExitFailure, fmt.Sprintf("kcp-agent: %s: %s", m.Source, refusal))
	}
	if !inv.AsOfGiven {
		inv.Options.AsOf = kcpref.DefaultAsOf(c.now())
	}
	inv.Options.Faults = c.Faults
	if inv.Trace {
		return c.trace(inv, m)
	}
	if inv.Follow {
		return c.follow(inv, args, m, sig, guard)
	}
	p := kcpref.Plan(inv.Task, m, inv.Options)
	if inv.JSON {
		if _, err := c.Stdout.Write(kcpref.PlanJSON(p, kcpref.Envelope{Signature: sig, CorrelationID: inv.CorrelationID})); err != nil {
			return c.fail(kcpref.ExitFailure, err.Error())
		}
		if inv.Memory != "" {
			return c.rememberPlan(inv, args, kcpref.PlanJSON(p, kcpref.Envelope{Signature: sig}))
		}
		return kcpref.ExitOK
	}
	if inv.Memory != "" {
		defer func() { c.rememberPlan(inv, args, kcpref.PlanJSON(p, kcpref.Envelope{Signature: sig})) }()
	}
	o := kcpref.Outcome(p)
	fmt.Fprintf(c.Stdout, "plan for %q over %s (as of %s)\n", inv.Task, inv.Manifest, inv.Options.AsOf)
	for _, s := range o.Selected {
		eligible := "load-eligible"
		if !s.LoadEligible {
			eligible = "not load-eligible"
		}
		fmt.Fprintf(c.Stdout, "  select %-30s score %-4d %s\n", s.ID, s.Score, eligible)
	}
	for _, s := range o.Skipped {
		fmt.Fprintf(c.Stdout, "  skip   %-30s %s\n", s.ID, s.Reason)
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(c.Stdout, "  warning: %s\n", w)
	}
	return kcpref.ExitOK
}

// reader reads a signature or key location: a URL through the guard, a
// path from the file system.
func reader(g kcpref.FetchGuard) kcpref.ReadFunc {
	return func(loc string) ([]byte, error) {
		if kcpref.IsRemote(loc) {
			text, _, err := kcpref.GuardedFetch(context.Background(), loc, g)
			return []byte(text), err
		}
		return os.ReadFile(loc)
	}
}
