package agentkitref

// This file holds the trajectory log: with observability.trajectory_path
// set, a JSON record a line for the start and the end of every model call
// and tool call of a turn.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Observability is app.yaml's observability section.
type Observability struct {
	TrajectoryPath string `yaml:"trajectory_path"`
}

// trajectory appends records to the trajectory file.
type trajectory struct {
	mu sync.Mutex
	f  *os.File
}

// openTrajectory opens the trajectory file (relative to workDir) for
// appending; nil for none.
func openTrajectory(p, workDir string) (*trajectory, error) {
	if p == "" {
		return nil, nil
	}
	if !filepath.IsAbs(p) && workDir != "" {
		p = filepath.Join(workDir, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trajectory: %w", err)
	}
	return &trajectory{f: f}, nil
}

// traceRecord is one record of the trajectory.
type traceRecord struct {
	TS        time.Time `json:"ts"`
	Agent     string    `json:"agent,omitempty"`
	Session   string    `json:"session,omitempty"`
	Component string    `json:"component"`
	Name      string    `json:"name,omitempty"`
	Phase     string    `json:"phase"` // start, end or error
	CostMS    int64     `json:"cost_ms,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// trace writes the start record of a component of the turn and returns
// the function that writes its end (or error) record.
func (t *turn) trace(component, name string) func(err error) {
	tr := t.g.trajectory
	if tr == nil || (component == "Tool" && has(t.g.faults, FaultTrajectoryNoTools)) {
		return func(error) {}
	}
	session := t.session
	if has(t.g.faults, FaultTrajectoryNoSession) {
		session = ""
	}
	start := t.g.now()
	rec := traceRecord{Agent: t.agent.cfg.Name, Session: session, Component: component, Name: name}
	tr.write(rec, start, "start", nil)
	return func(err error) {
		rec.CostMS = t.g.now().Sub(start).Milliseconds()
		tr.write(rec, t.g.now(), "end", err)
	}
}

func (tr *trajectory) write(rec traceRecord, at time.Time, phase string, err error) {
	rec.TS, rec.Phase = at.UTC(), phase
	if err != nil {
		rec.Phase, rec.Error = "error", err.Error()
	}
	line, _ := json.Marshal(rec)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	_, _ = tr.f.Write(append(line, '\n'))
}

func (tr *trajectory) close() {
	if tr != nil {
		_ = tr.f.Close()
	}
}
