package kcpexec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/reference/kcpref/kcpcli"
	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestMain lets the test binary play sifu-kcp --serve, so the runner
// client is tested against the Go planner's real server.
func TestMain(m *testing.M) {
	if os.Getenv("SIFU_KCP_SERVE_HELPER") == "1" {
		os.Exit(kcpcli.CLI{Name: "sifu-kcp", Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}.Main([]string{"--serve"}))
	}
	if os.Getenv("SIFU_KCP_CLI_HELPER") == "1" {
		os.Exit(kcpcli.CLI{Name: "sifu-kcp", Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func serveCommand(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("SIFU_KCP_SERVE_HELPER=1 %q", os.Args[0])
}

func TestRunnerAgainstTheGoServer(t *testing.T) {
	ctx := context.Background()
	r, err := StartRunner(ctx, serveCommand(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.Hello(ctx)
	if err != nil || h.Implementation != kcpcli.Implementation {
		t.Fatalf("hello %+v %v", h, err)
	}
	if got := strings.Join(r.Profiles(), ","); got != "planner,assess" {
		t.Errorf("profiles %s", got)
	}
	req := kcp.PlanRequest{Name: "v", Manifest: "units: [{id: a, path: a.md, intent: deploy guide}]\n", Task: "deploy", Options: map[string]any{"asOf": "2026-07-06"}}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 { // requests overlap: answers are matched by id
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan, err := r.Plan(ctx, req)
			if err == nil && (plan["asOf"] != "2026-07-06" || plan["manifest"].(map[string]any)["source"] != "v") {
				err = fmt.Errorf("plan %v", plan)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	var refusal *kcp.Refusal
	if _, err := r.Plan(ctx, kcp.PlanRequest{Name: "v", Manifest: "- a list\n", Task: "t"}); !errors.As(err, &refusal) || refusal.Message != "manifest is not a YAML mapping" {
		t.Errorf("refusal: %v", err)
	}
	v, err := r.Assess(ctx, kcp.AssessRequest{Answer: "Confidence: 0.9", Options: map[string]any{"threshold": 0.5}, Evaluator: map[string]any{"score": 0.7, "reasoning": "fine"}})
	if err != nil || v["passed"] != true || len(v["signals"].([]any)) != 2 {
		t.Errorf("assess %v %v", v, err)
	}
	if _, err := r.Assess(ctx, kcp.AssessRequest{Options: map[string]any{"threshold": 1.5}}); !errors.As(err, &refusal) || !strings.HasPrefix(refusal.Message, "invalid threshold 1.5") {
		t.Errorf("assess refusal: %v", err)
	}
}

// TestDetect: a runner is told from a command line by its hello.
func TestDetect(t *testing.T) {
	ctx := context.Background()
	if r, _ := Detect(ctx, serveCommand(t)); r == nil {
		t.Error("the Go server was not detected as a runner")
	} else {
		r.Close()
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	for _, cmd := range []string{"echo 'Usage: kcp-agent plan'; exit 2", "exit 2", "cat", "sleep 5"} {
		c := short
		if cmd != "sleep 5" {
			c = ctx
		}
		if r, _ := Detect(c, cmd); r != nil {
			r.Close()
			t.Errorf("%q was taken for a runner", cmd)
		}
	}
}

// TestBrokenRunners: a runner that breaks the protocol gives harness
// errors, never verdicts; one that dies is started again.
func TestBrokenRunners(t *testing.T) {
	ctx := context.Background()
	// Each script answers hello with its request's id, then misbehaves;
	// cat waits for the end of input, as a runner does.
	hello := `read l; id=$(echo "$l" | sed 's/.*"id":\([0-9]*\).*/\1/'); echo '{"id":'$id',"result":{"protocol":1,"implementation":"x","version":"1","ops":["plan"]}}'`
	next := `read l; id=$(echo "$l" | sed 's/.*"id":\([0-9]*\).*/\1/'); `
	req := kcp.PlanRequest{Name: "v", Manifest: "units: []\n", Task: "t"}
	var ae *engine.AdapterError
	for name, script := range map[string]string{
		"garbage":      hello + `; read l; echo 'not json'; cat`,
		"wrong id":     hello + `; read l; echo '{"id":99,"result":{}}'; cat`,
		"error answer": hello + `; ` + next + `echo '{"id":'$id',"error":"unknown op"}'; cat`,
		"two keys":     hello + `; ` + next + `echo '{"id":'$id',"result":{},"refusal":"x"}'; cat`,
		"not a plan":   hello + `; ` + next + `echo '{"id":'$id',"result":{"selected":"x"}}'; cat`,
		"dies":         hello + `; read l; exit 3`,
	} {
		r, err := StartRunner(ctx, script)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := r.Plan(ctx, req); !errors.As(err, &ae) {
			t.Errorf("%s: want a harness error, got %v", name, err)
		}
		if name == "dies" {
			// The next request starts it again: hello is answered, the plan not.
			if _, err := r.Plan(ctx, req); !errors.As(err, &ae) || !strings.Contains(err.Error(), "exited") {
				t.Errorf("restart: %v", err)
			}
		}
		if _, err := r.Assess(ctx, kcp.AssessRequest{}); !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("%s: a runner without assess: %v", name, err)
		}
		r.Close()
	}
	if _, err := StartRunner(ctx, `read l; echo '{"id":1,"result":{"protocol":2}}'`); err == nil {
		t.Error("a hello of another protocol was accepted")
	}
}

// TestNodeRunner drives runners/kcp-node/runner.mjs over a stand-in for
// the kcp-agent library, when node is installed.
func TestNodeRunner(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	ctx := context.Background()
	r, err := StartRunner(ctx, "node ../../runners/kcp-node/runner.mjs --module testdata/fake-kcp-agent")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Info(); h.Implementation != "fake-kcp-agent" || h.Version != "9.9.9" || h.Language != "javascript" {
		t.Errorf("hello %+v", h)
	}
	opts := map[string]any{"grantCeiling": "observe", "spend": map[string]any{"amount": 2.0}}
	plan, err := r.Plan(ctx, kcp.PlanRequest{Name: "v", Manifest: "units: []", Task: "t", Options: opts})
	if err != nil || plan["source"] != "v" || plan["options"].(map[string]any)["grantCeiling"] != "observe" {
		t.Errorf("every option reaches plan(): %v %v", plan, err)
	}
	var refusal *kcp.Refusal
	for _, req := range []kcp.PlanRequest{{Manifest: "- x", Task: "t"}, {Manifest: "a: 1", Task: "throw"}} {
		if _, err := r.Plan(ctx, req); !errors.As(err, &refusal) {
			t.Errorf("a throw is a refusal: %v", err)
		}
	}
	v, err := r.Assess(ctx, kcp.AssessRequest{Options: map[string]any{"threshold": 0.5}, Evaluator: map[string]any{"score": 0.4, "reasoning": "r"}})
	if err != nil || v["signals"].([]any)[0].(map[string]any)["source"] != "evaluator" {
		t.Errorf("the fixed judge is the evaluator: %v %v", v, err)
	}
	msg := "judge down"
	if v, err := r.Assess(ctx, kcp.AssessRequest{Options: map[string]any{"threshold": 0.5}, EvaluatorError: &msg}); err != nil || v["detail"] != "evaluator failed: judge down" {
		t.Errorf("evaluatorError throws: %v %v", v, err)
	}
	if _, err := r.Assess(ctx, kcp.AssessRequest{Options: map[string]any{"threshold": 2.0}}); !errors.As(err, &refusal) {
		t.Errorf("assess refusal: %v", err)
	}
}

// TestRunnerBench: the Go runner times its planner in batches (the bench
// op of the side-by-side benchmark); a runner whose hello lists no bench is
// not asked, and a bench answer that is not a list of times is a harness
// error.
func TestRunnerBench(t *testing.T) {
	ctx := context.Background()
	r, err := StartRunner(ctx, serveCommand(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	req := kcp.PlanRequest{Name: "v", Manifest: "units: [{id: a, path: a.md, intent: deploy guide}]\n", Task: "deploy", Options: map[string]any{"asOf": "2026-07-06"}}
	took, err := r.Bench(ctx, BenchRequest{Plan: req, Warmup: 3, Batches: 4, Batch: 5})
	if err != nil || len(took) != 4 || slices.ContainsFunc(took, func(d time.Duration) bool { return d <= 0 }) {
		t.Fatalf("bench: %v %v", took, err)
	}
	if _, err := r.Bench(ctx, BenchRequest{Plan: kcp.PlanRequest{Name: "v", Manifest: "- x\n", Task: "t"}, Batches: 1, Batch: 1}); !isRefusal(err) {
		t.Errorf("a manifest the planner rejects: %v", err)
	}
	hello := `read l; id=$(echo "$l" | sed 's/.*"id":\([0-9]*\).*/\1/'); echo '{"id":'$id',"result":{"protocol":1,"implementation":"x","version":"1","ops":["plan"%s]}}'`
	plain, err := StartRunner(ctx, fmt.Sprintf(hello, "")+"; cat")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Bench(ctx, BenchRequest{Plan: req, Batches: 1, Batch: 1}); !errors.Is(err, engine.ErrUnsupported) {
		t.Errorf("a runner without bench: %v", err)
	}
	bad, err := StartRunner(ctx, fmt.Sprintf(hello, `,"bench"`)+`; read l; id=$(echo "$l" | sed 's/.*"id":\([0-9]*\).*/\1/'); echo '{"id":'$id',"result":{"ns_per_plan":"fast"}}'; cat`)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	var ae *engine.AdapterError
	if _, err := bad.Bench(ctx, BenchRequest{Plan: req, Batches: 1, Batch: 1}); !errors.As(err, &ae) {
		t.Errorf("a bench answer without times: %v", err)
	}
}

func isRefusal(err error) bool {
	var r *kcp.Refusal
	return errors.As(err, &r)
}
