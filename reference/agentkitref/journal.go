package agentkitref

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// journal is the durable suspend store: pending turns, the questions and
// answers of each turn, and the effect log, as JSON files under one
// directory. Writes go through a temporary file and a rename.
type journal struct {
	dir string
	mu  sync.Mutex
}

// pending is a suspended turn waiting for an answer.
type pending struct {
	TurnID    string `json:"turn_id"`
	Input     string `json:"input"`
	WaitingID string `json:"waiting_id"`
	Session   string `json:"session"`
}

// interaction is a question of a turn and, once given, its answer.
type interaction struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Answered bool   `json:"answered"`
}

// effect is the log entry of a mutating call: in flight, or done with its
// result.
type effect struct {
	State  string `json:"state"` // "inflight" or "done"
	Result string `json:"result"`
}

func openJournal(dir string) (*journal, error) {
	if err := os.MkdirAll(filepath.Join(dir, "pending"), 0o755); err != nil {
		return nil, err
	}
	return &journal{dir: dir}, nil
}

func (j *journal) pendingPath(key string) string {
	return filepath.Join(j.dir, "pending", hex.EncodeToString([]byte(key))+".json")
}

func (j *journal) turnPath(turn, name string) string {
	return filepath.Join(j.dir, "turns", turn, name+".json")
}

// take reads and deletes the pending turn under key, atomically.
func (j *journal) take(key string) (*pending, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var p pending
	ok, err := readJSON(j.pendingPath(key), &p)
	if err != nil || !ok {
		return nil, err
	}
	return &p, os.Remove(j.pendingPath(key))
}

func (j *journal) putPending(key string, p pending) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return writeJSON(j.pendingPath(key), p)
}

func (j *journal) interaction(turn, id string) (interaction, bool, error) {
	var it interaction
	ok, err := readJSON(j.turnPath(turn, "ask-"+id), &it)
	return it, ok, err
}

func (j *journal) putInteraction(turn, id string, it interaction) error {
	return writeJSON(j.turnPath(turn, "ask-"+id), it)
}

func (j *journal) effect(turn, key string) (effect, bool, error) {
	var e effect
	ok, err := readJSON(j.turnPath(turn, "effect-"+key), &e)
	return e, ok, err
}

func (j *journal) putEffect(turn, key string, e effect) error {
	return writeJSON(j.turnPath(turn, "effect-"+key), e)
}

// dropTurn deletes a finished turn's questions and effects.
func (j *journal) dropTurn(turn string) error {
	return os.RemoveAll(filepath.Join(j.dir, "turns", turn))
}

func readJSON(path string, v any) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal(raw, v)
}

func writeJSON(path string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
