package sqlitestore

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu/reference/kungfuref"
)

func TestFactsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kf.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := kungfuref.New(kungfuref.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	alice, _ := svc.Provision("alice")
	r := svc.Act(kungfuref.Request{Agent: alice, Action: "memory.create", Key: "k1", Params: map[string]any{"content": "durable"}})
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
	again, err := kungfuref.New(kungfuref.WithStore(st2))
	if err != nil {
		t.Fatal(err)
	}
	replay := again.Act(kungfuref.Request{Agent: alice, Action: "memory.create", Key: "k1", Params: map[string]any{"content": "durable"}})
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
	own := filepath.Join(t.TempDir(), "kungfuref.db")
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

// TestScopesKeepSeparateLogs: each named scope is a log of its own, kept
// apart from the default log and from the other scopes, across a reopen.
func TestScopesKeepSeparateLogs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kf.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, scope := range []string{"", "a", "b"} {
		for n := int64(1); n <= int64(i+1); n++ {
			if err := st.Scope(scope).Append(kungfuref.Fact{Seq: n, Kind: kungfuref.FactAgentProvisioned, Agent: scope + "x"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	st, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, scope := range []string{"", "a", "b"} {
		facts, err := st.Scope(scope).Facts()
		if err != nil || len(facts) != i+1 || facts[0].Agent != scope+"x" {
			t.Errorf("scope %q: %d facts %v, %v", scope, len(facts), facts, err)
		}
	}
	if has, _ := st.HasScope("a"); !has {
		t.Error("HasScope(a) is false")
	}
	if has, _ := st.HasScope("c"); has {
		t.Error("HasScope(c) is true")
	}
}

// TestGroupCommitKeepsEachAppendWhole: appends made at once are committed
// together, yet one that fails (a sequence number used twice) is refused
// alone and leaves none of its facts, while the others are recorded.
func TestGroupCommitKeepsEachAppendWhole(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "kf.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 40
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			scope := fmt.Sprintf("s%d", i)
			facts := []kungfuref.Fact{{Seq: 1, Kind: kungfuref.FactAgentProvisioned}, {Seq: 2, Kind: kungfuref.FactAgentProvisioned}}
			if i == 7 {
				facts[1].Seq = 1 // the same sequence number twice: this append must fail whole
			}
			errs <- st.Scope(scope).(kungfuref.BatchStore).AppendAll(facts)
		}()
	}
	failed := 0
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d appends failed, want exactly the broken one", failed)
	}
	for i := 0; i < n; i++ {
		facts, err := st.Scope(fmt.Sprintf("s%d", i)).Facts()
		want := 2
		if i == 7 {
			want = 0
		}
		if err != nil || len(facts) != want {
			t.Errorf("scope s%d holds %d facts (%v), want %d", i, len(facts), err, want)
		}
	}
}
