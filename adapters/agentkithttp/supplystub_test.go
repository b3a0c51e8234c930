package agentkithttp

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// refusesA2A launches a "gateway" that starts unless its app.yaml has an
// a2a source.
type refusesA2A struct{ starts *int }

func (refusesA2A) Hello() agentkit.Hello { return agentkit.Hello{Implementation: "no-a2a"} }

func (r refusesA2A) Launch(_ context.Context, dir, _ string) (Instance, error) {
	*r.starts++
	raw, err := os.ReadFile(dir + "/app.yaml")
	if err != nil {
		return nil, err
	}
	if strings.Contains(string(raw), "type: a2a") {
		return nil, &StartFailure{ExitCode: 1, Stderr: "log line\nunknown source type \"a2a\"\n"}
	}
	return fixedUp{}, nil
}

// TestProbeNamesTheSupplyAGatewayRefuses: a gateway that starts with the
// default configuration and MCP sources but not with the supply checks'
// sources is said once, naming them; seen failing before probeSupply.
func TestProbeNamesTheSupplyAGatewayRefuses(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	starts := 0
	m := &Managed{Launcher: refusesA2A{&starts}, Client: NewClient(time.Second), Server: stub}
	err = m.Probe(context.Background())
	var pe *ProbeError
	if !errors.As(err, &pe) {
		t.Fatalf("want a ProbeError, got %v", err)
	}
	for _, want := range []string{"probe_a2a", "probe_vector", "cap://prompt/remote/probe", `unknown source type "a2a"`, "--target-config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q: %s", want, err)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the message is not one line: %q", err)
	}
}

// TestSupplyStubRecordsAndAnswers: the stub A2A deployment lists its
// agents, answers a task with a numbered receipt or the scripted error,
// and the prompt platform fills the label; each request is recorded per
// check and source.
func TestSupplyStubRecordsAndAnswers(t *testing.T) {
	stub, err := StartStub("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Close()
	c := NewClient(time.Second)
	ctx := context.Background()
	list, err := c.Do(ctx, stub.URL(), agentkit.Request{Method: "GET", Path: "/a2a-stub/k1/team/ok/a2a/agents"})
	if err != nil || list.Status != 200 || !strings.Contains(string(list.Body), "researcher") {
		t.Fatalf("listing: %v %d %s", err, list.Status, list.Body)
	}
	task, _ := c.Do(ctx, stub.URL(), agentkit.Request{Method: "POST", Path: "/a2a-stub/k1/team/ok/a2a/agents/writer/tasks", Body: []byte(`{"task":"t"}`)})
	if !strings.Contains(string(task.Body), `"writer-a2a-receipt-1"`) {
		t.Errorf("task answer %s", task.Body)
	}
	failed, _ := c.Do(ctx, stub.URL(), agentkit.Request{Method: "POST", Path: "/a2a-stub/k1/other/error/a2a/agents/writer/tasks", Body: []byte(`{"task":"t"}`)})
	if !strings.Contains(string(failed.Body), `"error"`) {
		t.Errorf("scripted error answer %s", failed.Body)
	}
	reqs := stub.SupplyRequests("k1", "team")
	if len(reqs) != 2 || reqs[1].Method != "POST" || reqs[1].Body.(map[string]any)["task"] != "t" {
		t.Errorf("recorded %+v", reqs)
	}
	d := ConfigData{Settings: agentkit.Settings{MCPKey: "k2", Supply: agentkit.Supply{Prompts: &agentkit.PromptSettings{Served: map[string]string{"p": "label {label}"}}}}}
	stub.supplyData(&d)
	got, _ := c.Do(ctx, stub.URL(), agentkit.Request{Method: "GET", Path: "/prompt-stub/k2/prompts/p?label=beta"})
	if !strings.Contains(string(got.Body), `"label beta"`) {
		t.Errorf("prompt answer %s", got.Body)
	}
	if missing, _ := c.Do(ctx, stub.URL(), agentkit.Request{Method: "GET", Path: "/prompt-stub/k2/prompts/q"}); missing.Status != 404 {
		t.Errorf("a prompt the check did not set: %d", missing.Status)
	}
	if q := stub.SupplyRequests("k2", "prompts"); len(q) != 2 || q[0].Query["label"] != "beta" {
		t.Errorf("prompt requests %+v", q)
	}
}
