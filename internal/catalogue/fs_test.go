package catalogue_test

import (
	"io/fs"
	"os"
	"testing"
	"testing/fstest"
)

func dupFS(t *testing.T) fs.FS {
	t.Helper()
	sch, err := os.ReadFile("../../vectors/schema/rules.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	rule := `{"id":"KF-1-01","section":"1","level":"MUST","profiles":["core"],"summary":"a rule for the test","evidence":"black-box"}`
	return fstest.MapFS{
		"schema/rules.schema.json": {Data: sch},
		"rules.json":               {Data: []byte(`{"suite":"kungfu","spec":{"name":"n","version":"1","source":"s"},"rules":[` + rule + `,` + rule + `]}`)},
	}
}
