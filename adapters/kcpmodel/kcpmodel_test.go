package kcpmodel

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/suite/kcp"
)

func ptr(s string) *string { return &s }

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// A reply is served once, to the first request it fits; a request no
// reply fits is answered 500 and still recorded.
func TestRepliesAreServedOnceToTheFirstRequestTheyFit(t *testing.T) {
	m, err := Start(kcp.ModelScript{Replies: []kcp.ModelReply{
		{When: &kcp.ModelWhen{Model: "verifier"}, Content: ptr("V")},
		{When: &kcp.ModelWhen{Contains: "needle"}, Content: ptr("N")},
		{Status: 503, Body: ptr("busy")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	steps := []struct {
		body, want string
		status     int
	}{
		{`{"model":"answerer","messages":[{"role":"user","content":"a needle"}]}`, `"content":"N"`, 200},
		{`{"model":"verifier","messages":[]}`, `"content":"V"`, 200},
		{`{"model":"verifier","messages":[]}`, "busy", 503},
		{`{"model":"verifier","messages":[]}`, "no scripted reply", 500},
	}
	for i, s := range steps {
		status, body := post(t, m.URL(), s.body)
		if status != s.status || !strings.Contains(body, s.want) {
			t.Errorf("request %d: got %d %q, want %d with %q", i, status, body, s.status, s.want)
		}
	}
	reqs := m.Take()
	if len(reqs) != 4 || reqs[0].Text != "a needle" || reqs[0].Path != "POST /v1/chat/completions" {
		t.Fatalf("recorded %+v", reqs)
	}
	if again := m.Take(); len(again) != 0 {
		t.Fatalf("Take twice: %+v", again)
	}
}

// Run serves the model around the first command and its reruns, in one
// directory: a rerun's files are written there first, and the model's URL
// is written back as <model> in the output.
func TestRunKeepsOneDirectoryAndOneModel(t *testing.T) {
	req := kcp.CLIRequest{Name: "m", Manifest: "x: 1\n", Args: []string{"first", "<model>", "<dir>/f.txt"},
		Files: map[string]string{"f.txt": "one"},
		Model: &kcp.ModelScript{Replies: []kcp.ModelReply{{Content: ptr("hi")}}},
		Rerun: []kcp.CLIRerun{{Files: map[string]string{"f.txt": "two"}}, {Args: []string{"third"}}}}
	var seen []string
	res, err := Run(context.Background(), req, func(_ context.Context, args []string) (kcp.CLIResult, error) {
		out := strings.Join(args, " ")
		if len(args) == 3 {
			raw, err := readFile(args[2])
			if err != nil {
				return kcp.CLIResult{}, err
			}
			out += " " + raw
			if args[1] != "" && strings.HasPrefix(args[1], "http://127.0.0.1:") {
				if status, _ := post(t, args[1], `{"model":"m","messages":[]}`); status != 200 && len(seen) == 0 {
					t.Errorf("the model answered %d", status)
				}
			}
		}
		seen = append(seen, out)
		return kcp.CLIResult{Stdout: out}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Stdout, "first <model> <dir>/f.txt one") || len(res.Model) != 1 {
		t.Fatalf("first: %q, model %+v", res.Stdout, res.Model)
	}
	if len(res.Reruns) != 2 || !strings.HasSuffix(res.Reruns[0].Stdout, "two") || res.Reruns[1].Stdout != "third" {
		t.Fatalf("reruns: %+v", res.Reruns)
	}
	if len(res.Reruns[0].Model) != 1 || len(res.Reruns[1].Model) != 0 {
		t.Fatalf("the rerun's model requests: %+v", res.Reruns)
	}
}

func readFile(name string) (string, error) {
	raw, err := os.ReadFile(name)
	return string(raw), err
}
