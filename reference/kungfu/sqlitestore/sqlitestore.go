// Package sqlitestore keeps the reference Kungfu fact log in an embedded
// SQLite database (modernc.org/sqlite: pure Go, no cgo), in WAL mode with
// full synchronisation, so a fact is on disk before the service answers.
package sqlitestore

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/sifu-dev/sifu/reference/kungfu"
)

// Store is a kungfu.Store backed by one SQLite file, held exclusively by
// this process.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens (creating if needed) the database at path and takes an
// exclusive lock on it: a second process opening the same file is refused.
func Open(path string) (*Store, error) {
	if err := inspect(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)"
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
		CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)`); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	// Take the write lock now, so a second server fails at start, not later.
	if _, err := db.Exec(`BEGIN EXCLUSIVE; COMMIT`); err != nil {
		db.Close()
		return nil, describe(path, err)
	}
	return &Store{db: db, path: path}, nil
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
		ours = ours && (name == "facts" || name == "meta")
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
func (s *Store) Append(f kungfu.Fact) error { return s.AppendAll([]kungfu.Fact{f}) }

// AppendAll stores the facts of one action in one transaction: all or none.
func (s *Store) AppendAll(facts []kungfu.Fact) error {
	tx, err := s.db.Begin()
	if err != nil {
		return describe(s.path, err)
	}
	for _, f := range facts {
		body, err := json.Marshal(f)
		if err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.Exec(`INSERT INTO facts (seq, body) VALUES (?, ?)`, f.Seq, string(body)); err != nil {
			tx.Rollback()
			return describe(s.path, err)
		}
	}
	return tx.Commit()
}

// Facts reads the whole log in order.
func (s *Store) Facts() ([]kungfu.Fact, error) {
	rows, err := s.db.Query(`SELECT body FROM facts ORDER BY seq`)
	if err != nil {
		return nil, describe(s.path, err)
	}
	defer rows.Close()
	var out []kungfu.Fact
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var f kungfu.Fact
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
	return s.db.Close()
}
