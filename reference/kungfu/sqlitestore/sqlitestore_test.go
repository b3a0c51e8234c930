package sqlitestore

import (
	"database/sql"
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

// TestAnotherApplicationsDatabaseIsRefused: a SQLite file of another
// application is refused and left as it was; sifu's own, reopened, is
// taken.
func TestAnotherApplicationsDatabaseIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "another application") || !strings.Contains(err.Error(), "users") {
		t.Fatalf("another application's database: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the refused database was changed")
	}
	own := filepath.Join(t.TempDir(), "kungfu.db")
	s, err := Open(own)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(own); err != nil {
		t.Fatalf("sifu's own database, reopened: %v", err)
	}
	s.Close()
}
