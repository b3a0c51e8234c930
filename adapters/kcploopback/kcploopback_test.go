package kcploopback

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/suite/kcp"
)

// TestRunServesTheRoutesAndRecordsTheRequests: the command line sees the
// server's URL in its arguments, a declared route answers its body and
// type, another path is a 404, the output has the URL written back and
// the result lists the requests in order.
func TestRunServesTheRoutesAndRecordsTheRequests(t *testing.T) {
	req := kcp.CLIRequest{Args: []string{"discover", "<server>/x"},
		Server: &kcp.LoopbackServer{Routes: map[string]kcp.Route{"/k.yaml": {Type: "application/yaml", Body: "project: p\n"}}}}
	res, err := Run(req, func(r kcp.CLIRequest) (kcp.CLIResult, error) {
		base := strings.TrimSuffix(r.Args[1], "/x")
		ok, err := http.Get(base + "/k.yaml")
		if err != nil {
			return kcp.CLIResult{}, err
		}
		body, _ := io.ReadAll(ok.Body)
		ok.Body.Close()
		missing, err := http.Get(base + "/none?q=1")
		if err != nil {
			return kcp.CLIResult{}, err
		}
		missing.Body.Close()
		if string(body) != "project: p\n" || ok.Header.Get("Content-Type") != "application/yaml" || missing.StatusCode != 404 {
			t.Errorf("served %q %s, then %d", body, ok.Header.Get("Content-Type"), missing.StatusCode)
		}
		return kcp.CLIResult{Stdout: "fetched " + base + "/k.yaml\n"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "fetched <server>/k.yaml\n" || strings.Join(res.Requests, ",") != "GET /k.yaml,GET /none?q=1" {
		t.Errorf("result %+v", res)
	}
}
