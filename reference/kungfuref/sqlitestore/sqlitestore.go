// Package sqlitestore keeps the reference Kungfu fact log in an embedded
// SQLite database (modernc.org/sqlite: pure Go, no cgo), in WAL mode with
// full synchronisation, so a fact is on disk before the service answers.
//
// One database holds the log of the default scope and the logs of any
// number of named scopes (each an independent reference instance, see
// Store.Scope). Appends that arrive while a commit is being made to disk
// are committed together in the next transaction (group commit): each
// caller still returns only once its own facts are durable, and each
// caller's facts are recorded all or none, whatever the others' fate.
package sqlitestore

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sifu-dev/sifu/reference/kungfuref"
)

// Store is a kungfuref.Store backed by one SQLite file, held exclusively by
// this process.
type Store struct {
	db   *sql.DB
	path string

	mu      sync.RWMutex // held for reading while an append is queued; Close takes it for writing
	closed  bool
	queue   chan *write
	stopped chan struct{}

	insert, insertScoped *sql.Stmt
}

// write is one caller's append: its facts, already encoded, and where to
// report the outcome once they are durable or refused.
type write struct {
	scope  string
	seqs   []int64
	bodies []string
	done   chan error
}

// maxBatch caps how many appends one transaction commits.
const maxBatch = 256

// Option configures Open.
type Option func(*options)

type options struct{ sync string }

// SyncNormal makes a commit write its facts to the file (the operating
// system holds them) before it returns, and sync them to the disk only at
// checkpoints and on close: SQLite's synchronous=NORMAL in WAL mode. A
// process killed at any moment loses nothing it answered (which is what a
// restart test does); an operating system crash or a power loss may lose
// the last commits. The default, synchronous=FULL, syncs every commit to
// the disk before it returns.
func SyncNormal() Option { return func(o *options) { o.sync = "NORMAL" } }

// Open opens (creating if needed) the database at path and takes an
// exclusive lock on it: a second process opening the same file is refused.
func Open(path string, opts ...Option) (*Store, error) {
	o := options{sync: "FULL"}
	for _, opt := range opts {
		opt(&o)
	}
	if err := inspect(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(" + o.sync + ")&_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one connection keeps the exclusive lock for the process
	if err := claim(db, path); err != nil {
		db.Close()
		return nil, err
	}
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS facts (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
		CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
		CREATE TABLE IF NOT EXISTS scoped_facts (scope TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
			PRIMARY KEY (scope, seq)) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	// Take the write lock now, so a second server fails at start, not later.
	if _, err := db.Exec(`BEGIN EXCLUSIVE; COMMIT`); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	st := &Store{db: db, path: path, queue: make(chan *write, maxBatch), stopped: make(chan struct{})}
	if st.insert, err = db.Prepare(`INSERT INTO facts (seq, body) VALUES (?, ?)`); err == nil {
		st.insertScoped, err = db.Prepare(`INSERT INTO scoped_facts (scope, seq, body) VALUES (?, ?, ?)`)
	}
	if err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	go st.committer()
	return st, nil
}

// applicationID marks a SQLite file as sifu's ("sifu" in ASCII), in the
// header field SQLite keeps for the purpose (PRAGMA application_id).
const applicationID = 0x73696675

// inspect makes sure an existing file is sifu's before anything is written
// to it, reading it without changing a byte: a marked database, or an
// unmarked one holding only sifu's tables (made before the mark), is
// sifu's; any other database belongs to another application and is
// refused. A missing or empty file is new.
func inspect(path string) error {
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return describe(path, err)
	}
	defer db.Close()
	var id int64
	if err := db.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil {
		return describe(path, err)
	}
	if id == applicationID {
		return nil
	}
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return describe(path, err)
	}
	defer rows.Close()
	var tables []string
	ours := id == 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return describe(path, err)
		}
		tables = append(tables, name)
		ours = ours && (name == "facts" || name == "meta" || name == "scoped_facts")
	}
	if !ours {
		return fmt.Errorf("%s is a SQLite database of another application (application_id %d, tables %s), not sifu's; it was left untouched: choose another --db",
			path, id, strings.Join(tables, ", "))
	}
	return nil
}

// claim marks the database as sifu's.
func claim(db *sql.DB, path string) error {
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, applicationID)); err != nil {
		return describe(path, err)
	}
	return nil
}

func describe(path string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "locked") || strings.Contains(msg, "busy") {
		return fmt.Errorf("database %s is in use by another process; stop it or choose another --db", path)
	}
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") {
		return fmt.Errorf("%s is not a sifu database (%v); choose another --db", path, err)
	}
	return fmt.Errorf("database %s: %w", path, err)
}

// Append stores one fact durably.
func (s *Store) Append(f kungfuref.Fact) error { return s.AppendAll([]kungfuref.Fact{f}) }

// AppendAll stores the facts of one action durably and atomically: all or none.
func (s *Store) AppendAll(facts []kungfuref.Fact) error { return s.append("", facts) }

// Facts reads the whole log of the default scope in order.
func (s *Store) Facts() ([]kungfuref.Fact, error) {
	return s.read(`SELECT body FROM facts ORDER BY seq`)
}

// Scope is the fact log of one named scope in the same database: an
// independent reference instance gets its own log, appended to with the
// same durability and group commit. The empty name is the default log.
func (s *Store) Scope(name string) kungfuref.Store {
	if name == "" {
		return s
	}
	return scoped{s, name}
}

// HasScope reports whether a named scope has recorded any fact.
func (s *Store) HasScope(name string) (bool, error) {
	var n int
	err := s.db.QueryRow(`SELECT COUNT(*) FROM (SELECT 1 FROM scoped_facts WHERE scope = ? LIMIT 1)`, name).Scan(&n)
	if err != nil {
		return false, describe(s.path, err)
	}
	return n > 0, nil
}

type scoped struct {
	s    *Store
	name string
}

func (sc scoped) Append(f kungfuref.Fact) error          { return sc.s.append(sc.name, []kungfuref.Fact{f}) }
func (sc scoped) AppendAll(facts []kungfuref.Fact) error { return sc.s.append(sc.name, facts) }
func (sc scoped) Facts() ([]kungfuref.Fact, error) {
	return sc.s.read(`SELECT body FROM scoped_facts WHERE scope = ? ORDER BY seq`, sc.name)
}

// append queues one caller's facts for the committer and waits until they
// are on disk, or refused.
func (s *Store) append(scope string, facts []kungfuref.Fact) error {
	w := &write{scope: scope, done: make(chan error, 1)}
	for _, f := range facts {
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		w.seqs = append(w.seqs, f.Seq)
		w.bodies = append(w.bodies, string(body))
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return fmt.Errorf("database %s is closed", s.path)
	}
	s.queue <- w
	s.mu.RUnlock()
	return <-w.done
}

// committer commits queued appends: whatever has queued up while the
// previous commit was made durable goes into the next transaction.
func (s *Store) committer() {
	defer close(s.stopped)
	for w := range s.queue {
		// Let the writers that are about to append join this commit: one
		// yield, never a wait.
		runtime.Gosched()
		batch := []*write{w}
	drain:
		for len(batch) < maxBatch {
			select {
			case next, ok := <-s.queue:
				if !ok {
					break drain
				}
				batch = append(batch, next)
			default:
				break drain
			}
		}
		s.commit(batch)
	}
}

// commit records a batch in one transaction. A write that fails (its
// insert is refused) undoes the transaction; it is then reported alone and
// the rest of the batch is committed again without it, so each write is
// recorded all or none, whatever the others' fate.
func (s *Store) commit(batch []*write) {
	for len(batch) > 0 {
		failed, err := s.commitAll(batch)
		switch {
		case err == nil:
			for _, w := range batch {
				w.done <- nil
			}
			return
		case failed < 0: // the transaction itself failed: nothing was recorded
			for _, w := range batch {
				w.done <- err
			}
			return
		}
		batch[failed].done <- err
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
}

// commitAll inserts every write of the batch in one transaction. It
// returns the index of a write whose insert failed (the transaction was
// rolled back), or -1 with the error of the transaction itself.
func (s *Store) commitAll(batch []*write) (int, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return -1, describe(s.path, err)
	}
	insert, insertScoped := tx.Stmt(s.insert), tx.Stmt(s.insertScoped)
	for i, w := range batch {
		for j, body := range w.bodies {
			var err error
			if w.scope == "" {
				_, err = insert.Exec(w.seqs[j], body)
			} else {
				_, err = insertScoped.Exec(w.scope, w.seqs[j], body)
			}
			if err != nil {
				tx.Rollback()
				return i, describe(s.path, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return -1, describe(s.path, err)
	}
	return -1, nil
}

func (s *Store) read(query string, args ...any) ([]kungfuref.Fact, error) {
	rows, err := s.db.Query(query, args...)
	if err != nil {
		return nil, describe(s.path, err)
	}
	defer rows.Close()
	var out []kungfuref.Fact
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var f kungfuref.Fact
		if err := json.Unmarshal([]byte(body), &f); err != nil {
			return nil, fmt.Errorf("database %s holds a damaged fact: %w", s.path, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Secret returns the named random secret kept in the database, creating it
// on first use, so that it survives restarts (for example the key that signs
// agent credentials).
func (s *Store) Secret(name string) ([]byte, error) {
	var v []byte
	err := s.db.QueryRow(`SELECT value FROM meta WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, describe(s.path, err)
	}
	v = make([]byte, 32)
	if _, err := rand.Read(v); err != nil {
		return nil, err
	}
	if _, err := s.db.Exec(`INSERT INTO meta (name, value) VALUES (?, ?)`, name, v); err != nil {
		return nil, describe(s.path, err)
	}
	return v, nil
}

// Close releases the database.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return errors.New("store is not open")
	}
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	<-s.stopped
	return s.db.Close()
}
