// Package acpinproc drives the bundled ACP tools (reference/acpref) in
// process, through the suite's seam (acp.Target).
package acpinproc

import (
	"bytes"
	"context"
	"strconv"
	"time"

	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

// Reference adapts the reference ACP tools (reference/acpref) to acp.Target. It runs
// each tool through the reference's own command line, in process, with the
// check's clock, and with virtual time for wait: a timeout passes at once
// when it is not the participant's turn, since nobody else acts meanwhile.
type Reference struct {
	Faults []acpref.Fault
}

// Hello describes the reference.
func (Reference) Hello(context.Context) (acp.Hello, error) {
	return acp.Hello{Implementation: "sifu-reference-acp", Version: "0.1.0"}, nil
}

func (a Reference) run(ctx context.Context, c acp.Call, args ...string) (acp.Answer, error) {
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	tools := acpref.New(acpref.Options{
		Now:    func() time.Time { return now },
		Compat: c.Compat,
		Faults: a.Faults,
		NoSync: true,
		After: func(time.Duration) <-chan time.Time {
			ch := make(chan time.Time, 1)
			ch <- now
			return ch
		},
	})
	var stdout, stderr bytes.Buffer
	code := tools.Main(ctx, "sifu acp", args, &stdout, &stderr)
	return acp.Answer{Exit: code, Stdout: stdout.String(), Stderr: stderr.String()}, nil
}

// Init runs init.
func (a Reference) Init(ctx context.Context, r acp.InitRequest) (acp.Answer, error) {
	args := []string{"init", "--folder", r.Folder, "--objective", r.Objective}
	for _, p := range r.Participants {
		args = append(args, "--participant", p)
	}
	for _, g := range r.Completion {
		args = append(args, "--completion", g)
	}
	if r.Resume {
		args = append(args, "--resume")
	}
	for flag, v := range map[string]string{"--schema": r.Schema, "--primary-deliverable-type": r.PrimaryType, "--primary-deliverable-file": r.PrimaryFile,
		"--deliverables-mode": r.DeliverablesMode, "--deliverables-dir": r.DeliverablesDir, "--repo-root": r.RepoRoot} {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	for _, c := range r.PrimaryChecks {
		args = append(args, "--primary-deliverable-check", c)
	}
	return a.run(ctx, r.Call, args...)
}

// Append runs append.
func (a Reference) Append(ctx context.Context, r acp.AppendRequest) (acp.Answer, error) {
	args := appendArgs(r)
	if r.Role != "" {
		args = append(args, "--role", r.Role)
	}
	if r.SHA256 != "" {
		args = append(args, "--sha256", r.SHA256)
	}
	return a.run(ctx, r.Call, withSchema(args, r.Schema)...)
}

// Next runs next.
func (a Reference) Next(ctx context.Context, r acp.NextRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, withSchema([]string{"next", "--folder", r.Folder, "--participant", r.Participant}, r.Schema)...)
}

// Wait runs wait.
func (a Reference) Wait(ctx context.Context, r acp.WaitRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, withSchema([]string{"wait", "--folder", r.Folder, "--participant", r.Participant, "--timeout", r.Timeout.String()}, r.Schema)...)
}

// Validate runs validate.
func (a Reference) Validate(ctx context.Context, r acp.ValidateRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, withSchema([]string{"validate", "--folder", r.Folder}, r.Schema)...)
}

func withSchema(args []string, schema string) []string {
	if schema != "" {
		args = append(args, "--schema", schema)
	}
	return args
}

// appendArgs are the upstream command-line arguments of an append call.
func appendArgs(r acp.AppendRequest) []string {
	args := []string{"append", "--folder", r.Folder, "--participant", r.Participant, "--event", r.Event, "--summary", r.Summary}
	if r.Doc != "" {
		args = append(args, "--doc", r.Doc)
	}
	if r.ReplyTo != nil {
		args = append(args, "--reply-to", strconv.Itoa(*r.ReplyTo))
	}
	return args
}
