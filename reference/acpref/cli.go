package acpref

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Usage lines of the command line, one per tool.
var Usage = map[string]string{
	"init":     "init --folder F --participant P [--participant P ...] --objective O --completion G [--completion G ...] [--resume] [--schema v1|v2] [--primary-deliverable-type T [--primary-deliverable-file F] [--primary-deliverable-check S ...] [--deliverables-mode internal|external] [--deliverables-dir D] [--repo-root R]]",
	"append":   "append --folder F --participant P --event E --summary S [--doc D] [--reply-to N] [--role primary|supporting] [--sha256 HEX] [--schema v1|v2]",
	"next":     "next --folder F --participant P [--schema v1|v2]",
	"wait":     "wait --folder F --participant P [--interval SECONDS] [--timeout SECONDS|DURATION] [--schema v1|v2]",
	"validate": "validate --folder F [--json] [--compat] [--schema v1|v2]",
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// Main runs one tool with command-line arguments (the tool name first),
// writing what the upstream script would print, and returns the exit code.
// prog prefixes usage errors ("sifu acp"). A --compat flag on any tool
// switches to the upstream verdicts for this call.
func (t *Tools) Main(ctx context.Context, prog string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || Usage[args[0]] == "" {
		fmt.Fprintf(stderr, "usage: %s {init,append,next,wait,validate} ...\n", prog)
		if len(args) > 0 && args[0] != "-h" && args[0] != "--help" {
			fmt.Fprintf(stderr, "%s: error: unknown tool %s\n", prog, PyRepr(args[0]))
			return 2
		}
		for _, name := range []string{"init", "append", "next", "wait", "validate"} {
			fmt.Fprintf(stderr, "  %s %s\n", prog, Usage[name])
		}
		return 0
	}
	tool := args[0]
	name := prog + " " + tool
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "usage: %s %s\n%s: error: %s\n", prog, Usage[tool], name, msg)
		return 2
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	folder := fs.String("folder", "", "collaboration folder")
	compat := fs.Bool("compat", t.Compat, "reproduce the upstream verdicts on every quirk")
	schemaFlag := fs.String("schema", string(t.Schema), "schema v1 or v2 (default: the folder's; init: v2 when given a primary deliverable)")
	var participants, completion, checks multi
	var participant, objective, event, summary, doc, replyTo, interval, timeout string
	var role, sha, ptype, pfile, mode, dir, repoRoot string
	var resume, asJSON bool
	switch tool {
	case "init":
		fs.Var(&participants, "participant", "participant ID (repeatable)")
		fs.Var(&completion, "completion", "completion gate (repeatable)")
		fs.StringVar(&objective, "objective", "", "objective")
		fs.BoolVar(&resume, "resume", false, "acknowledge an existing folder")
		fs.StringVar(&ptype, "primary-deliverable-type", "", "v2: the primary deliverable's type ("+strings.Join(DeliverableTypeNames(), ", ")+")")
		fs.StringVar(&pfile, "primary-deliverable-file", "", "v2: its Markdown file, relative to the deliverables directory")
		fs.Var(&checks, "primary-deliverable-check", "v2: a required section of a custom deliverable (repeatable)")
		fs.StringVar(&mode, "deliverables-mode", "internal", "v2: internal or external")
		fs.StringVar(&dir, "deliverables-dir", "deliverables", "v2: the deliverables directory")
		fs.StringVar(&repoRoot, "repo-root", "", "v2, external mode: the repository root, relative to the folder")
	case "append":
		fs.StringVar(&participant, "participant", "", "participant ID")
		fs.StringVar(&event, "event", "", "event name")
		fs.StringVar(&summary, "summary", "", "one-sentence summary")
		fs.StringVar(&doc, "doc", "", "document the event refers to")
		fs.StringVar(&replyTo, "reply-to", "", "seq of the event this answers")
		fs.StringVar(&role, "role", "", "v2 deliverable events: primary or supporting")
		fs.StringVar(&sha, "sha256", "", "v2 deliverable_frozen: the file's SHA-256, lowercase hex")
	case "next":
		fs.StringVar(&participant, "participant", "", "participant ID")
	case "wait":
		fs.StringVar(&participant, "participant", "", "participant ID")
		fs.StringVar(&interval, "interval", "2.0", "fallback poll interval in seconds")
		fs.StringVar(&timeout, "timeout", "", "seconds (or a duration such as 30m); 0 waits forever (default 1800 in v1, 0 in v2)")
	case "validate":
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON with file, line and seq")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s %s\n", prog, Usage[tool])
			return 0
		}
		return usage(err.Error())
	}
	if fs.NArg() > 0 {
		return usage("unrecognized arguments: " + strings.Join(fs.Args(), " "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var missing []string
	required := map[string][]string{
		"init": {"folder", "participant", "objective", "completion"}, "append": {"folder", "participant", "event", "summary"},
		"next": {"folder", "participant"}, "wait": {"folder", "participant"}, "validate": {"folder"},
	}
	for _, r := range required[tool] {
		if !set[r] {
			missing = append(missing, "--"+r)
		}
	}
	if len(missing) > 0 {
		return usage("the following arguments are required: " + strings.Join(missing, ", "))
	}
	tt := *t
	tt.Compat = *compat
	tt.Schema = ""
	if *schemaFlag != "" {
		s, ok := ParseSchema(*schemaFlag)
		if !ok {
			return usage(fmt.Sprintf("argument --schema: invalid choice: %s (choose from 'v1', 'v2')", PyRepr(*schemaFlag)))
		}
		tt.Schema = s
	}
	if tool == "append" && role != "" && role != "primary" && role != "supporting" {
		return usage(fmt.Sprintf("argument --role: invalid choice: %s (choose from 'primary', 'supporting')", PyRepr(role)))
	}
	switch tool {
	case "init":
		req := InitRequest{Participants: participants, Objective: objective, Completion: completion, Resume: resume, Schema: tt.Schema,
			PrimaryType: ptype, PrimaryFile: pfile, PrimaryChecks: checks, DeliverablesMode: mode, DeliverablesDir: dir, RepoRoot: repoRoot}
		if set["deliverables-mode"] || set["deliverables-dir"] || set["repo-root"] || set["primary-deliverable-file"] || len(checks) > 0 {
			if req.Schema == "" {
				req.Schema = SchemaV2
			}
		}
		res, err := tt.Init(*folder, req)
		if err != nil {
			return fail(err, usage, stderr)
		}
		if res.Resumed {
			fmt.Fprintln(stdout, "Collaboration folder already exists: "+res.Folder)
			return 0
		}
		if res.Schema == SchemaV2 {
			fmt.Fprintf(stdout, "Initialized ACP schema v2 collaboration folder: %s\n", res.Folder)
			return 0
		}
		fmt.Fprintf(stdout, "Initialized ACP collaboration folder: %s\nstate seq: 1\n", res.Folder)
	case "append":
		var rt *int
		if set["reply-to"] {
			n, err := strconv.Atoi(strings.TrimSpace(replyTo))
			if err != nil {
				return usage(fmt.Sprintf("argument --reply-to: invalid int value: %s", PyRepr(replyTo)))
			}
			rt = &n
		}
		seq, err := tt.Append(*folder, AppendRequest{Participant: participant, Event: event, Summary: summary, Doc: doc, ReplyTo: rt, Role: role, SHA256: sha})
		if err != nil {
			return fail(err, usage, stderr)
		}
		fmt.Fprintf(stdout, "appended seq %d: %s\n", seq, event)
	case "next":
		n, err := tt.Next(*folder, participant)
		if err != nil {
			return fail(err, usage, stderr)
		}
		fmt.Fprintln(stdout, strings.Join(n.Lines(), "\n"))
		if n.Invalid {
			return 1
		}
	case "wait":
		iv, err := seconds(interval)
		if err != nil {
			return usage("argument --interval: " + err.Error())
		}
		to := DefaultWaitTimeout
		if timeout != "" {
			if to, err = seconds(timeout); err != nil {
				return usage("argument --timeout: " + err.Error())
			}
		} else if p, err := ReadProtocol(*folder); err == nil && tt.schemaFor(p) == SchemaV2 {
			to = 0 // v2 waits until it is the participant's turn
		}
		return tt.Wait(ctx, *folder, WaitRequest{Participant: participant, Timeout: to, Interval: iv}, stdout, stderr)
	case "validate":
		r := tt.Validate(*folder)
		if asJSON {
			stdout.Write(r.JSON())
		} else {
			io.WriteString(stdout, r.Text())
		}
		return r.Exit()
	}
	return 0
}

func fail(err error, usage func(string) int, stderr io.Writer) int {
	var e *Error
	if errors.As(err, &e) && e.Usage {
		return usage(e.Msg)
	}
	fmt.Fprintln(stderr, "error: "+err.Error())
	if errors.As(err, &e) {
		return e.Code
	}
	return 2
}

// seconds reads a number of seconds ("1800", "0.3") or a Go duration ("30m").
func seconds(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s is neither seconds nor a duration such as 30m", PyRepr(s))
	}
	return d, nil
}
