package kcp

import (
	"strings"
	"testing"
)

// A command vector's model block and reruns are refused when malformed,
// naming the member.
func TestAskVectorsAreCheckedWhenCompiled(t *testing.T) {
	head := `{"name":"v","kind":"command","rules":["KCP-ask-json"],"description":"d","args":["ask"],"exit":0,`
	for _, c := range []struct{ body, want string }{
		{`"model":{"replies":[{"content":"a","status":500}]}}`, "/model/replies/0"},
		{`"model":{"replies":[{"body":"x"}]}}`, "/model/replies/0: a raw answer needs its status"},
		{`"rerun":[{"expect":{"/exit":0}}]}`, "/rerun/0/exit is required"},
		{`"rerun":[{"exit":0,"expect":{"/nope":1}}]}`, "/rerun/0/expect//nope"},
		{`"rerun":[{"exit":0,"files":{"../x":"y"}}]}`, "/rerun/0/files/../x"},
	} {
		_, err := compileCommand(nil, []byte(head+c.body), "v.json", "v")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.body, err, c.want)
		}
	}
	c, err := compileCommand(nil, []byte(head+`"model":{"replies":[{"content":"a"}]},"rerun":[{"exit":1,"expect":{"/model/requests":{"$len":0}}}]}`), "v.json", "v")
	if err != nil {
		t.Fatal(err)
	}
	step := c.Steps[0]
	if step.Params["model"] == nil || step.Params["rerun"] == nil {
		t.Fatalf("params %v", step.Params)
	}
	var ptrs []string
	for _, m := range step.Expect.Match {
		ptrs = append(ptrs, m.Pointer)
	}
	if got := strings.Join(ptrs, " "); !strings.Contains(got, "/result/rerun/0/exit") || !strings.Contains(got, "/result/rerun/0/model/requests") {
		t.Fatalf("matchers %s", got)
	}
	if !strings.Contains(strings.Join(c.Tags, " "), "ask") {
		t.Fatalf("tags %v", c.Tags)
	}
}
