package kcp

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu/internal/engine"
)

// TestServeVectorsSayWhatIsWrong: a malformed serve vector is refused in
// one message naming the file and the step.
func TestServeVectorsSayWhatIsWrong(t *testing.T) {
	cases := map[string]string{
		`{"name":"v","kind":"serve","description":"d","rules":["KCP-serve-health"],"steps":[{"request":{"method":"GET","path":"/health"},"tools":true,"expect":[{"pointer":"/status","matcher":200}]}]}`:               "v.json#/steps/0: a step has exactly one of request",
		`{"name":"v","kind":"serve","description":"d","rules":["KCP-serve-health"],"steps":[{"stop":true,"expect":[{"pointer":"/stderr","matcher":""}]},{"tools":true,"expect":[{"pointer":"/names","matcher":[]}]}]}`: "v.json#/steps/1: a step after stop",
		`{"name":"w","kind":"serve","description":"d","rules":["KCP-serve-health"],"steps":[{"stop":true,"expect":[{"pointer":"/stderr","matcher":""}]}]}`:                                                             `/name is "w"`,
		`{"name":"v","kind":"serve","description":"d","rules":["KCP-serve-health"],"steps":[{"request":{"method":"GET","path":"health"},"expect":[{"pointer":"/status","matcher":200}]}]}`:                             "v.json#/steps/0/request: a request has a method and a path starting with /",
		`{"name":"v","kind":"serve","description":"d","rules":["KCP-serve-health"],"files":{"../x":""},"steps":[{"stop":true,"expect":[{"pointer":"/stderr","matcher":""}]}]}`:                                         "/files/../x",
	}
	for raw, want := range cases {
		_, err := CompileVector(fstest.MapFS{"v.json": {Data: []byte(raw)}}, "v.json", nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v, want %q", raw, err, want)
		}
	}
}

// TestAServeVectorStartsStepsAndStops: the check starts the server with
// the vector's arguments and files, then runs its steps; an mcp vector
// compiles into its stdio check and its twin over serve's /mcp.
func TestAServeVectorStartsStepsAndStops(t *testing.T) {
	raw := `{"name":"v","kind":"serve","description":"d","rules":["KCP-serve-health"],"args":["--manifest","<dir>/k.yaml"],"files":{"k.yaml":"x"},
		"steps":[{"request":{"method":"GET","path":"/health"},"expect":[{"pointer":"/status","matcher":200}]},{"stop":true,"expect":[{"pointer":"/stderr","matcher":""}]}]}`
	checks, err := CompileVector(fstest.MapFS{"v.json": {Data: []byte(raw)}}, "v.json", nil)
	if err != nil || len(checks) != 1 {
		t.Fatal(checks, err)
	}
	var names []string
	for _, s := range checks[0].Steps {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "serve http serve_stop" || checks[0].Steps[0].Params["args"].([]any)[1] != "<dir>/k.yaml" {
		t.Errorf("steps %v, %v", names, checks[0].Steps[0].Params)
	}
	mcp := `{"name":"m","kind":"mcp","description":"d","rules":["KCP-mcp-tools"],"steps":[{"tools":true,"expect":[{"pointer":"/names","matcher":[]}]}]}`
	checks, err = CompileVector(fstest.MapFS{"m.json": {Data: []byte(mcp)}}, "m.json", nil)
	if err != nil || len(checks) != 2 || checks[1].ID != "kcp/serve/mcp/m" || checks[1].Rules[0] != ServeMCPRule || !Serves(checks[1]) || Serves(checks[0]) {
		t.Fatalf("%v %v", checks, err)
	}
	if checks[1].Steps[1].Name != "mcp_tools" || len(checks[1].Steps) != 2 {
		t.Errorf("twin steps %v", checks[1].Steps)
	}
}

// TestServePlacesWritesTheDirectoryAndPortBack: in answers the server's
// directory and its port after a loopback host become placeholders; a
// request's are put in place.
func TestServePlacesWritesTheDirectoryAndPortBack(t *testing.T) {
	if got := ServePlaces("/tmp/d/k.yaml at http://127.0.0.1:4242/mcp, 4242 units", "/tmp/d", 4242); got != "<dir>/k.yaml at http://127.0.0.1:<port>/mcp, 4242 units" {
		t.Errorf("%q", got)
	}
	raw := "<dir>/x"
	r := HTTPRequest{Method: "POST", Path: "/p", Headers: map[string]string{"X": "<port>"}, Body: map[string]any{"m": "<dir>/k.yaml", "l": []any{"<port>"}}, Raw: &raw}.Place("/tmp/d", 7)
	if r.Headers["X"] != "7" || r.Body.(map[string]any)["m"] != "/tmp/d/k.yaml" || r.Body.(map[string]any)["l"].([]any)[0] != "7" || *r.Raw != "/tmp/d/x" {
		t.Errorf("%+v", r)
	}
	if res := HTTPResult(HTTPResponse{Status: 200, Header: map[string][]string{"Link": {"a", "b"}}, Body: `{"ok":true}`}); res["json"].(map[string]any)["ok"] != true || len(res["headers"].(map[string]any)["link"].([]any)) != 2 {
		t.Errorf("%v", res)
	}
	if d := deriveHTTP(engine.Exchange{Name: "http", Outcome: &engine.Outcome{OK: true, Result: map[string]any{"body": "[1]"}}}); len(d["json"].([]any)) != 1 {
		t.Errorf("derived %v", d)
	}
}
