package inproc

import (
	"bytes"
	"context"
	"time"

	refacp "github.com/sifu-dev/sifu/reference/acp"
	"github.com/sifu-dev/sifu/suite/acp"
)

// ACP adapts the reference ACP tools (reference/acp) to acp.Target. It runs
// each tool through the reference's own command line, in process, with the
// check's clock, and with virtual time for wait: a timeout passes at once
// when it is not the participant's turn, since nobody else acts meanwhile.
type ACP struct {
	Faults []refacp.Fault
}

// Hello describes the reference.
func (ACP) Hello(context.Context) (acp.Hello, error) {
	return acp.Hello{Implementation: "sifu-reference-acp", Version: "0.1.0"}, nil
}

func (a ACP) run(ctx context.Context, c acp.Call, args ...string) (acp.Answer, error) {
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	tools := refacp.New(refacp.Options{
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
func (a ACP) Init(ctx context.Context, r acp.InitRequest) (acp.Answer, error) {
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
	return a.run(ctx, r.Call, args...)
}

// Append runs append.
func (a ACP) Append(ctx context.Context, r acp.AppendRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, acp.AppendArgs(r)...)
}

// Next runs next.
func (a ACP) Next(ctx context.Context, r acp.NextRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, "next", "--folder", r.Folder, "--participant", r.Participant)
}

// Wait runs wait.
func (a ACP) Wait(ctx context.Context, r acp.WaitRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, "wait", "--folder", r.Folder, "--participant", r.Participant, "--timeout", r.Timeout.String())
}

// Validate runs validate.
func (a ACP) Validate(ctx context.Context, r acp.ValidateRequest) (acp.Answer, error) {
	return a.run(ctx, r.Call, "validate", "--folder", r.Folder)
}
