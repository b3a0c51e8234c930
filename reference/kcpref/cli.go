package kcpref

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Exit codes of the kcp-agent CLI.
const (
	// ExitOK: the plan was produced (also --help; validate found no
	// errors; replay found no drift).
	ExitOK = 0
	// ExitFailure: the manifest could not be read or parsed, is not a
	// mapping, or its signature is invalid; validate found errors; replay
	// found drift.
	ExitFailure = 1
	// ExitUsage: unknown option, missing task or manifest, missing
	// option value, or no command.
	ExitUsage = 2
)

// PlanInvocation is a parsed `kcp-agent plan` command line.
type PlanInvocation struct {
	Task          string // --task, else the positionals joined by spaces
	Manifest      string // --manifest: a path, directory or URL
	JSON          bool   // --json
	Help          bool   // --help or -h
	CorrelationID string // --correlation-id
	Trace         bool   // --trace: the decision trace (PlanTrace)
	// Follow (--follow, or --max-depth) walks the selected federation refs
	// that are local files, MaxDepth hops deep (1) and MaxNodes manifests
	// in all (64).
	Follow             bool
	MaxDepth, MaxNodes int
	// Signature is --no-verify, --require-signature and --trust-key.
	Signature SignaturePolicy
	// AllowPrivateHosts (--allow-private-hosts) lets remote reads reach
	// loopback, private and link-local hosts and http://.
	AllowPrivateHosts bool
	// Options maps the planner flags. AsOf stays "" without --as-of
	// (AsOfGiven false); the caller fills it from its clock with
	// DefaultAsOf.
	Options   Options
	AsOfGiven bool
	// Memory (--memory) is the episodic-memory directory the plan is
	// recorded in (its reuse key: PlanFlags, OptionsKey).
	Memory string
}

// UsageError is a command-line error; the CLI exits with ExitUsage.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is ExitUsage.
func (e *UsageError) ExitCode() int { return ExitUsage }

// The flags of `kcp-agent plan` that map to the planner, and their
// defaults (applied by Plan when the flag is absent):
//
//	--task <text>           the task (or positionals joined by spaces)
//	--manifest <loc>        required
//	--env <name>            no env: context-tagged federation refs are not followed
//	--as-of <date>          today, UTC (not validated)
//	--max-units <n>         5 (JS Number(): "abc" is NaN, which disables the cap)
//	--strict                false
//	--role <role>           agent (an empty value is ignored)
//	--methods <a,b>         free (split on ",", trimmed, empties dropped; "" gives none)
//	--credentials <a,b>     none (same splitting)
//	--attest <provider>     none (an empty value is ignored)
//	--budget <amount>       none (NaN is dropped)
//	--currency <code>       USDC (with --budget)
//	--context-budget <n>    none (NaN is dropped)
//	--json                  machine-readable plan (PlanJSON)
//	--correlation-id <id>   echoed in the JSON envelope
//	--trace                 the per-unit gate cascade (PlanTrace, TraceJSON)
//	--follow                walk the selected local federation refs (TreeJSON)
//	--max-depth <n>         hops to follow, 1 (implies --follow)
//	--max-nodes <n>         manifests read in all, 64
//	--no-verify             no signature check (the JSON has no signature)
//	--require-signature     refuse a manifest whose signature is not verified
//	--trust-key <loc>       the only key a signature is checked with
//	--allow-private-hosts   remote reads may reach loopback, private hosts and http://
//	--help, -h              usage, exit 0
func planValueFlag(name string) bool {
	switch name {
	case "task", "manifest", "env", "as-of", "max-units", "role", "methods", "credentials", "attest",
		"budget", "currency", "context-budget", "correlation-id", "max-depth", "max-nodes", "memory", "trust-key":
		return true
	}
	return false
}

func planBoolFlag(name string) bool {
	switch name {
	case "strict", "json", "help", "trace", "follow", "no-verify", "require-signature", "allow-private-hosts":
		return true
	}
	return false
}

// ParsePlanArgs maps the arguments after `kcp-agent plan` to a
// PlanInvocation, the way kcp-agent's parser does: a flag takes the next
// argument as its value, whatever it is (at the end there is none: the
// flag is as if not given), the last occurrence wins, an argument that
// does not start with "--" is a positional (but -h is help), and any
// other --flag, --flag=value included, is unknown. Errors are
// *UsageError.
func ParsePlanArgs(args []string) (PlanInvocation, error) {
	var inv PlanInvocation
	values, positionals, help, err := planValues(args)
	inv.Help = help
	if err != nil {
		return inv, err
	}
	return planInvocation(inv, values, positionals)
}

// PlanFlags are the flags of a plan command line as given (name → value,
// "true" for a switch), for the memory's reuse key (OptionsKey).
func PlanFlags(args []string) map[string]string {
	values, _, _, _ := planValues(args)
	return values
}

func planValues(args []string) (values map[string]string, positionals []string, help bool, err error) {
	values = map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-h" {
			help = true
			continue
		}
		if !strings.HasPrefix(arg, "--") {
			positionals = append(positionals, arg)
			continue
		}
		name := arg[2:]
		switch {
		case planBoolFlag(name):
			values[name] = "true"
		case planValueFlag(name):
			i++
			if i < len(args) {
				values[name] = args[i]
			} else {
				delete(values, name) // no value: as if the flag was not given
			}
		default:
			return values, positionals, help, &UsageError{Msg: "Unknown option: " + arg}
		}
	}
	return values, positionals, help, nil
}

func planInvocation(inv PlanInvocation, values map[string]string, positionals []string) (PlanInvocation, error) {
	inv.Help = inv.Help || values["help"] == "true"
	inv.JSON = values["json"] == "true"
	inv.Trace = values["trace"] == "true"
	inv.MaxDepth, inv.MaxNodes = 1, 64
	if s, ok := values["max-depth"]; ok {
		inv.Follow = true
		inv.MaxDepth = int(jsNumberFromString(s))
	}
	if s, ok := values["max-nodes"]; ok {
		inv.MaxNodes = int(jsNumberFromString(s))
	}
	inv.Follow = inv.Follow || values["follow"] == "true"
	inv.Manifest = values["manifest"]
	inv.CorrelationID = values["correlation-id"]
	inv.Memory = values["memory"]
	inv.AllowPrivateHosts = values["allow-private-hosts"] == "true"
	inv.Signature = SignaturePolicy{NoVerify: values["no-verify"] == "true", Require: values["require-signature"] == "true", TrustedKey: values["trust-key"]}
	inv.Task = strings.Join(positionals, " ")
	if t, ok := values["task"]; ok {
		inv.Task = t
	}
	_, inv.AsOfGiven = values["as-of"]
	inv.Options = planOptionsFromFlags(values)
	if inv.Help {
		return inv, nil
	}
	if inv.Task == "" {
		return inv, &UsageError{Msg: "Missing task."}
	}
	if inv.Manifest == "" {
		return inv, &UsageError{Msg: "Missing --manifest."}
	}
	return inv, nil
}

func planOptionsFromFlags(v map[string]string) Options {
	var o Options
	if s, ok := v["env"]; ok {
		o.Env = &s
	}
	o.AsOf = v["as-of"]
	o.Strict = v["strict"] == "true"
	if s, ok := v["max-units"]; ok {
		n := jsNumberFromString(s)
		o.MaxUnits = &n
	}
	if s := v["role"]; s != "" {
		o.Capabilities.Role = &s
	}
	if s := v["attest"]; s != "" {
		o.Capabilities.AttestationProvider = &s
	}
	if s, ok := v["methods"]; ok {
		o.Capabilities.PaymentMethods = splitList(s)
	}
	if s, ok := v["credentials"]; ok {
		o.Capabilities.Credentials = splitList(s)
	}
	if s, ok := v["budget"]; ok {
		if n := jsNumberFromString(s); !math.IsNaN(n) {
			o.Budget = &Budget{Amount: n}
			if c, ok := v["currency"]; ok {
				o.Budget.Currency = &c
			}
		}
	}
	if s, ok := v["context-budget"]; ok {
		if n := jsNumberFromString(s); !math.IsNaN(n) {
			o.ContextBudget = &n
		}
	}
	return o
}

// splitList splits a comma list, trims each item (JS trim) and drops
// empties; "" gives an empty, non-nil list.
func splitList(s string) []string {
	out := []string{}
	for _, part := range strings.Split(s, ",") {
		if p := jsTrim(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DefaultAsOf is the --as-of default: the UTC date of now, YYYY-MM-DD.
// Plan never reads a clock; the CLI calls this with time.Now().
func DefaultAsOf(now time.Time) string { return now.UTC().Format("2006-01-02") }

// FetchFailedMessage is the CLI's stderr line when a manifest cannot be
// read (exit ExitFailure).
func FetchFailedMessage(loc string, err error) string {
	return fmt.Sprintf("kcp-agent: %s: fetch failed: %v", loc, err)
}

// ParseFailedMessage is the CLI's stderr line when a manifest is not YAML
// or not a mapping (exit ExitFailure).
func ParseFailedMessage(loc string, err error) string {
	return fmt.Sprintf("kcp-agent: %s: parse failed: %v", loc, err)
}

// ParseWatchArgs reads `watch`'s command line (without --once and
// --diff): the location is --manifest, else the first positional; the
// task is --task alone (none: the cycle only validates); the planner
// flags are plan's.
func ParseWatchArgs(args []string) (inv PlanInvocation, location string, err error) {
	values, positionals, help, err := planValues(args)
	inv.Help = help
	if err != nil {
		return inv, "", err
	}
	inv, _ = planInvocation(inv, values, positionals)
	inv.Task = values["task"]
	location = values["manifest"]
	if location == "" && len(positionals) > 0 {
		location = positionals[0]
	}
	return inv, location, nil
}
