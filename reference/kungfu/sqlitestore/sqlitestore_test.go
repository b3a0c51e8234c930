package sqlitestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/reference/kungfu"
)

func TestFactsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kf.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := kungfu.New(kungfu.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	alice, _ := svc.Provision("alice")
	r := svc.Act(kungfu.Request{Agent: alice, Action: "memory.create", Key: "k1", Params: map[string]any{"content": "durable"}})
	if r.Rejection != nil {
		t.Fatal(r.Rejection)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	again, err := kungfu.New(kungfu.WithStore(st2))
	if err != nil {
		t.Fatal(err)
	}
	replay := again.Act(kungfu.Request{Agent: alice, Action: "memory.create", Key: "k1", Params: map[string]any{"content": "durable"}})
	if replay.Rejection != nil || replay.Result["memory"] != r.Result["memory"] {
		t.Fatalf("replay after reopen: %+v, first %+v", replay, r.Result)
	}
	read := again.Read(alice, "memory", map[string]any{"memory": r.Result["memory"]})
	if read.Result["content"] != "durable" {
		t.Fatalf("read after reopen: %+v", read)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kf.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second open: %v", err)
	}
}

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not sqlite\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("junk file: %v", err)
	}
}
