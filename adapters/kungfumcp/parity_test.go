package kungfumcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/adapters/kungfuinproc"
	"github.com/sifu-dev/sifu/adapters/kungfumcp"
	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/inputfile"
	"github.com/sifu-dev/sifu/internal/results"
	"github.com/sifu-dev/sifu/internal/runner"
	"github.com/sifu-dev/sifu/reference/kungfuref"
	"github.com/sifu-dev/sifu/suite/kungfu"
)

func mustPlan(t *testing.T) *runner.Plan {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func bundled(t *testing.T, plan *runner.Plan) *kungfumcp.Surface {
	t.Helper()
	raw, err := inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kungfumcp.Load(kungfumcp.Bundled, raw, kungfumcp.Known(plan.Checks))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// overMCP runs the suite through the map against the reference (with
// opts) served behind the map's tools.
func overMCP(t *testing.T, plan *runner.Plan, s *kungfumcp.Surface, form string, opts ...kungfuref.Option) *results.Run {
	t.Helper()
	var c *kungfumcp.Client
	if form == "stdio" {
		// This test binary serves, in a process of its own (TestMain).
		c = kungfumcp.NewCommandClient(fmt.Sprintf("%s=1 %q -test.run='^$'", serveEnv, os.Args[0]), s, 10*time.Second)
	} else {
		ref, err := kungfuinproc.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(kungfumcp.NewServer(ref, s).Handler())
		defer srv.Close()
		c = kungfumcp.NewClient(srv.URL, s, 10*time.Second)
		if form == "api" {
			c = kungfumcp.NewAPIClient(srv.URL, s, 10*time.Second)
		}
	}
	defer c.Close()
	rt := kungfu.RunTarget{IsShared: true, Concurrency: 8, Memo: &kungfu.HelloMemo{}, Lack: s.Lacking,
		New: func(context.Context) (kungfu.Target, func(), error) { return c, func() {}, nil }}
	run, err := plan.Run(context.Background(), runner.Config{Target: rt, TargetName: "mcp", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// inProcess runs the checks named in only against a fresh reference each.
func inProcess(t *testing.T, plan *runner.Plan, only []string, opts ...kungfuref.Option) map[string]results.Test {
	t.Helper()
	rt := kungfu.RunTarget{New: func(context.Context) (kungfu.Target, func(), error) {
		ref, err := kungfuinproc.New(opts...)
		return ref, func() {}, err
	}}
	run, err := plan.Run(context.Background(), runner.Config{Target: rt, TargetName: "inproc", Only: only, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]results.Test{}
	for _, tt := range run.Tests {
		out[tt.ID] = tt
	}
	return out
}

// compare runs the suite over MCP and in process and wants, for every
// check the map expresses, the same verdict; every other check is
// untestable with the reason named. It returns the runs' verdicts.
func compare(t *testing.T, form string, opts ...kungfuref.Option) (mcp *results.Run, local map[string]results.Test) {
	return compareBut(t, form, nil, opts...)
}

// compareBut is compare, but for the checks that probe a name the map
// lists as absent when absent is set: there the verdict over MCP is about
// the node's tool list, which the reference's rejection of an unknown
// action (what a fault may break) never reaches.
func compareBut(t *testing.T, form string, absent []string, opts ...kungfuref.Option) (mcp *results.Run, local map[string]results.Test) {
	t.Helper()
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	s := bundled(t, plan)
	mcp = overMCP(t, plan, s, form, opts...)
	var ran []string
	for _, tt := range mcp.Tests {
		if tt.Status == engine.Untestable {
			if tt.Message == "" {
				t.Errorf("%s: untestable without a reason", tt.ID)
			}
			continue
		}
		ran = append(ran, tt.ID)
	}
	if len(ran) < 120 {
		t.Fatalf("only %d checks ran over MCP; the map should express more than 120", len(ran))
	}
	local = inProcess(t, plan, ran, opts...)
	probes := map[string]bool{}
	for _, c := range plan.Checks {
		for name := range kungfumcp.Known([]engine.Check{c}) {
			if slices.Contains(absent, name) {
				probes[c.ID] = true
			}
		}
	}
	for _, tt := range mcp.Tests {
		if !slices.Contains(ran, tt.ID) || probes[tt.ID] {
			continue
		}
		if want := local[tt.ID]; want.Status != tt.Status {
			t.Errorf("%s: %s over MCP, %s in process\n  over MCP: %s\n  in process: %s", tt.ID, tt.Status, want.Status, tt.Message, want.Message)
		}
	}
	return mcp, local
}

func TestTheSuiteOverMCPGivesTheInProcessVerdicts(t *testing.T) {
	mcp, _ := compare(t, "mcp")
	untestable := 0
	for _, tt := range mcp.Tests {
		if tt.Status == engine.Untestable {
			untestable++
		}
	}
	if untestable == 0 {
		t.Error("no check untestable: the 3.0 map lacks the clock, deactivation and Task judging")
	}
	t.Logf("%d checks over MCP: %s", len(mcp.Tests), results.SummaryLine(mcp.Summary))
}

// The same tools in their plain HTTP form (POST /api/v1/<tool>) give the
// same verdicts.
func TestTheSuiteOverThePlainHTTPFormGivesTheInProcessVerdicts(t *testing.T) {
	run, _ := compare(t, "api")
	t.Logf("%d checks over /api/v1: %s", len(run.Tests), results.SummaryLine(run.Summary))
}

// And so does MCP over a process's standard input and output.
func TestTheSuiteOverMCPOnStdioGivesTheInProcessVerdicts(t *testing.T) {
	run, _ := compare(t, "stdio")
	t.Logf("%d checks over stdio: %s", len(run.Tests), results.SummaryLine(run.Summary))
}

// serveEnv makes this test binary serve the reference behind the bundled
// map on its standard input and output instead of testing.
const serveEnv = "SIFU_KUNGFUMCP_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "" {
		os.Exit(m.Run())
	}
	raw, err := inputfile.ReadFS(sifu.Assets, kungfumcp.Bundled)
	if err == nil {
		var s *kungfumcp.Surface
		if s, err = kungfumcp.Parse(kungfumcp.Bundled, raw, nil); err == nil {
			var ref *kungfuinproc.Reference
			if ref, err = kungfuinproc.New(); err == nil {
				err = kungfumcp.NewServer(ref, s).ServeIO(context.Background(), os.Stdin, os.Stdout)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// A planted fault is caught over MCP as in process: the same checks fail,
// and one of them evidences a rule the fault must break.
func TestAPlantedFaultIsCaughtOverMCP(t *testing.T) {
	for _, f := range []kungfuref.Fault{kungfuref.FaultNonAuthorWrites, kungfuref.FaultReissueKeepsOldGrant, kungfuref.FaultNoNextStep} {
		t.Run(string(f), func(t *testing.T) {
			var absent []string
			if f == kungfuref.FaultNoNextStep {
				// It drops the next step of every rejection, the
				// reference's unknown_action included; over MCP an
				// absent name is answered by the SDK (no such tool).
				absent = bundled(t, mustPlan(t)).Absent
			}
			mcp, _ := compareBut(t, "mcp", absent, kungfuref.WithFaults(f))
			caught := false
			for _, tt := range mcp.Tests {
				if tt.Status != engine.Fail {
					continue
				}
				for _, r := range kungfuref.CaughtBy[f] {
					if strings.Contains(strings.Join(tt.Rules, " "), r) {
						caught = true
					}
				}
			}
			t.Logf("over MCP: %s", results.SummaryLine(mcp.Summary))
			if !caught {
				t.Errorf("no check over MCP failed on a rule of %v", kungfuref.CaughtBy[f])
			}
		})
	}
}

// The comparison can fail: a client whose map reads a closed thread's code
// as another reason than the server meant gets verdicts that differ.
func TestAMapThatMisreadsACodeChangesVerdicts(t *testing.T) {
	plan, err := runner.Load(sifu.Assets, kungfu.Suite)
	if err != nil {
		t.Fatal(err)
	}
	served := bundled(t, plan)
	misread := *served
	misread.Errors = slices.Clone(served.Errors)
	for i, c := range misread.Errors {
		if c.Code == "THREAD_CLOSED" {
			misread.Errors[i].Reason = "invalid_params"
		}
	}
	ref, err := kungfuinproc.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(kungfumcp.NewServer(ref, served).Handler())
	defer srv.Close()
	c := kungfumcp.NewClient(srv.URL, &misread, 10*time.Second)
	defer c.Close()
	rt := kungfu.RunTarget{IsShared: true, Concurrency: 8, Memo: &kungfu.HelloMemo{}, Lack: misread.Lacking,
		New: func(context.Context) (kungfu.Target, func(), error) { return c, func() {}, nil }}
	run, err := plan.Run(context.Background(), runner.Config{Target: rt, TargetName: "mcp", Timeout: 30 * time.Second, Checks: []string{"kungfu/thread_*"}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Summary.Fail == 0 {
		t.Errorf("no check failed through a map that misreads THREAD_CLOSED: %s", results.SummaryLine(run.Summary))
	}
}
