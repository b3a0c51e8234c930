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

// TestServesTheRoutes: a padded body has exactly its size, a streamed one
// declares no length, a redirect names the base URL placed, and an
// unknown path is 404.
func TestServesTheRoutes(t *testing.T) {
	base, stop, err := Start(&kcp.LoopbackServer{Routes: map[string]kcp.Route{
		"/padded":   {Body: "a: 1\n", Size: 5000},
		"/streamed": {Body: "b", Size: 200000, Streamed: true},
		"/hop":      {Redirect: "<server>/padded"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, []byte) {
		res, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	if res, b := get("/padded"); len(b) != 5000 || res.ContentLength != 5000 || string(b[:5]) != "a: 1\n" {
		t.Errorf("/padded: %d bytes, length %d", len(b), res.ContentLength)
	}
	if res, b := get("/streamed"); len(b) != 200000 || res.ContentLength != -1 {
		t.Errorf("/streamed: %d bytes, length %d", len(b), res.ContentLength)
	}
	if res, _ := get("/hop"); res.StatusCode != http.StatusFound || res.Header.Get("Location") != base+"/padded" {
		t.Errorf("/hop: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := get("/other"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/other: %d", res.StatusCode)
	}
	if got := strings.Join(stop(), ", "); got != "GET /padded, GET /streamed, GET /hop, GET /other" {
		t.Errorf("requests %q", got)
	}
}
