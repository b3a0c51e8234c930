package kcpref

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestParsePlanArgs(t *testing.T) {
	inv, err := ParsePlanArgs([]string{
		"--task", "sovereign compute award", "--manifest", "m.yaml", "--as-of", "2026-07-06", "--env", "prod",
		"--max-units", "3", "--strict", "--role", "human", "--methods", " free, x402 ,,", "--credentials", "oauth2",
		"--attest", "hsm", "--budget", "0.25", "--currency", "EURC", "--context-budget", "3000", "--json",
		"--correlation-id", "c1",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := PlanInvocation{
		Task: "sovereign compute award", Manifest: "m.yaml", JSON: true, CorrelationID: "c1", AsOfGiven: true,
		MaxDepth: 1, MaxNodes: 64,
		Options: Options{
			Env: Str("prod"), AsOf: "2026-07-06", MaxUnits: ptr(3.0), Strict: true,
			Budget: &Budget{Amount: 0.25, Currency: Str("EURC")}, ContextBudget: ptr(3000.0),
			Capabilities: Capabilities{Role: Str("human"), PaymentMethods: []string{"free", "x402"}, Credentials: []string{"oauth2"}, AttestationProvider: Str("hsm")},
		},
	}
	if !reflect.DeepEqual(inv, want) {
		t.Errorf("got  %+v\nwant %+v", inv, want)
	}
}

func TestParsePlanArgsDefaultsAndQuirks(t *testing.T) {
	inv, err := ParsePlanArgs([]string{"how", "do", "I", "deploy", "--manifest", ".", "--methods", "", "--role", "", "--budget", "lots"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Task != "how do I deploy" {
		t.Errorf("positionals are joined: %q", inv.Task)
	}
	o := inv.Options
	if o.Capabilities.PaymentMethods == nil || len(o.Capabilities.PaymentMethods) != 0 {
		t.Errorf(`--methods "" gives an empty list, got %#v`, o.Capabilities.PaymentMethods)
	}
	if o.Capabilities.Role != nil || o.Budget != nil || o.AsOf != "" || o.MaxUnits != nil || o.Capabilities.Credentials != nil {
		t.Errorf("defaults must stay unset for Plan to apply: %+v", o)
	}
	// A NaN maxUnits disables the cap, as Number("x") does in the reference.
	inv, _ = ParsePlanArgs([]string{"--task", "t", "--manifest", "m", "--max-units", "x"})
	if p := Plan("deploy", Manifest{}, inv.Options); p.Options.MaxUnits == p.Options.MaxUnits {
		t.Errorf("maxUnits %v, want NaN", p.Options.MaxUnits)
	}
	if got := DefaultAsOf(time.Date(2026, 7, 6, 23, 30, 0, 0, time.FixedZone("X", -5*3600))); got != "2026-07-07" {
		t.Errorf("DefaultAsOf is the UTC date, got %s", got)
	}
}

// TestParsePlanArgsFollow: --max-depth implies --follow; the defaults are
// one hop and 64 manifests.
func TestParsePlanArgsFollow(t *testing.T) {
	for _, tt := range []struct {
		args             []string
		follow           bool
		maxDepth, maxNod int
	}{
		{[]string{"--task", "t", "--manifest", "m"}, false, 1, 64},
		{[]string{"--task", "t", "--manifest", "m", "--follow"}, true, 1, 64},
		{[]string{"--task", "t", "--manifest", "m", "--max-depth", "3", "--max-nodes", "2"}, true, 3, 2},
	} {
		inv, err := ParsePlanArgs(tt.args)
		if err != nil || inv.Follow != tt.follow || inv.MaxDepth != tt.maxDepth || inv.MaxNodes != tt.maxNod {
			t.Errorf("%q: %+v %v", tt.args, inv, err)
		}
	}
}

func TestParsePlanArgsErrors(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--manifest", "m"}, "Missing task."},
		{[]string{"--task", "", "--manifest", "m"}, "Missing task."},
		{[]string{"--task", "t"}, "Missing --manifest."},
		{[]string{"--task", "t", "--manifest", "m", "--x"}, "Unknown option: --x"},
		{[]string{"--task", "t", "--manifest=m"}, "Unknown option: --manifest=m"},
		{[]string{"--manifest", "m", "--task"}, "Missing task."}, // a flag at the end has no value
	}
	for _, tt := range tests {
		_, err := ParsePlanArgs(tt.args)
		var ue *UsageError
		if !errors.As(err, &ue) || ue.Error() != tt.msg || ue.ExitCode() != ExitUsage {
			t.Errorf("%q: got %v, want usage error %q", tt.args, err, tt.msg)
		}
	}
	if inv, err := ParsePlanArgs([]string{"-h"}); err != nil || !inv.Help {
		t.Errorf("-h: %+v %v", inv, err)
	}
	// A flag takes the next argument whatever it is, and a single dash is
	// a positional, as kcp-agent's parser has it.
	inv, err := ParsePlanArgs([]string{"-v", "x", "--manifest", "m", "--env", "--strict", "--as-of", ""})
	if err != nil || inv.Task != "-v x" || inv.Options.Env == nil || *inv.Options.Env != "--strict" || inv.Options.Strict || !inv.AsOfGiven || inv.Options.AsOf != "" {
		t.Errorf("kcp-agent's parsing: %+v %v", inv, err)
	}
	// The signature flags: two switches and a value.
	inv, err = ParsePlanArgs([]string{"--task", "t", "--manifest", "m", "--no-verify", "--require-signature", "--trust-key", "k.pem"})
	if s := inv.Signature; err != nil || !s.NoVerify || !s.Require || s.TrustedKey != "k.pem" {
		t.Errorf("signature flags: %+v %v", inv.Signature, err)
	}
	// Every kcp-agent plan flag is implemented: --memory and
	// --allow-private-hosts are read, not refused.
	inv, err = ParsePlanArgs([]string{"--task", "t", "--manifest", "m", "--memory", "d", "--allow-private-hosts"})
	if err != nil || inv.Memory != "d" || !inv.AllowPrivateHosts {
		t.Errorf("memory and network flags: %+v %v", inv, err)
	}
	if ExitOK != 0 || ExitFailure != 1 || ExitUsage != 2 {
		t.Error("exit codes changed")
	}
}

func TestLoadFailureMessages(t *testing.T) {
	if got := ParseFailedMessage("m.yaml", ErrNotMapping); got != "kcp-agent: m.yaml: parse failed: manifest is not a YAML mapping" {
		t.Errorf("got %q", got)
	}
	if got := FetchFailedMessage("m.yaml", errors.New("no such file")); got != "kcp-agent: m.yaml: fetch failed: no such file" {
		t.Errorf("got %q", got)
	}
}
