package acpref

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WaitRequest says who waits, for how long, and how often to look when the
// file system sends no notifications.
type WaitRequest struct {
	Participant string
	// Timeout 0 waits forever; a negative one times out after the first look.
	Timeout time.Duration
	// Interval is the fallback poll; floored at 100ms. Zero means 2s.
	Interval time.Duration
}

// DefaultWaitTimeout is wait's default: 30 minutes.
const DefaultWaitTimeout = 30 * time.Minute

// Wait blocks until the participant is in protocol.json's waitingFor or the
// collaboration is completed or blocked. It watches the folder for changes
// (no busy loop), printing a "waiting:" line whenever the state it sees
// changes; when ready it prints "ready: <reason>" and next's answer. It
// returns the exit code: 0 ready, 1 timed out (the "timeout:" line goes to
// stderr), 2 on an error (a missing protocol, an unlisted participant, a
// broken event log).
func (t *Tools) Wait(ctx context.Context, folder string, req WaitRequest, stdout, stderr io.Writer) int {
	interval := req.Interval
	if interval == 0 {
		interval = 2 * time.Second
	}
	interval = max(interval, 100*time.Millisecond)
	var timeout <-chan time.Time
	if req.Timeout > 0 {
		timeout = t.After(req.Timeout)
	}
	changed := make(chan struct{}, 1)
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(folder) == nil {
			go func() {
				for {
					select {
					case ev, ok := <-w.Events:
						if !ok {
							return
						}
						if base := filepath.Base(ev.Name); base == "protocol.json" || base == "events.jsonl" {
							select {
							case changed <- struct{}{}:
							default:
							}
						}
					case _, ok := <-w.Errors:
						if !ok {
							return
						}
					}
				}
			}()
		}
	}
	poll := time.NewTicker(interval)
	defer poll.Stop()
	var lastSig, reason string
	for {
		ready, why, sig, err := t.turn(folder, req.Participant)
		if err != nil {
			fmt.Fprintln(stderr, "error: "+err.Error())
			return 2
		}
		if ready {
			fmt.Fprintln(stdout, "ready: "+why)
			n, err := t.Next(folder, req.Participant)
			if err != nil {
				fmt.Fprintln(stderr, "error: "+err.Error())
				return 2
			}
			fmt.Fprintln(stdout, strings.Join(n.Lines(), "\n"))
			return 0
		}
		reason = why
		if sig != lastSig {
			fmt.Fprintln(stdout, "waiting: "+why)
			lastSig = sig
		}
		if req.Timeout < 0 {
			fmt.Fprintln(stderr, "timeout: "+reason)
			return 1
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(stderr, "timeout: "+reason)
			return 1
		case <-timeout:
			fmt.Fprintln(stderr, "timeout: "+reason)
			return 1
		case <-changed:
		case <-poll.C:
		}
	}
}

// turn looks once, as upstream's is_ready does: is it the participant's
// turn, why (or what it waits for), and a signature of what was seen.
func (t *Tools) turn(folder, participant string) (bool, string, string, error) {
	proto, err := ReadProtocol(folder)
	if err != nil {
		return false, "", "", err
	}
	if !slices.Contains(proto.Participants(), participant) {
		return false, "", "", refuse("participant %s is not listed in protocol.json", PyRepr(participant))
	}
	read, err := ReadEvents(folder, t.Compat)
	if err != nil {
		return false, "", "", err
	}
	if read.Missing {
		return false, "", "", refuse("missing events.jsonl")
	}
	if msgs := t.readProblems(read); len(msgs) > 0 {
		return false, "", "", refuse("%s", strings.Join(msgs, "; "))
	}
	events := read.Events
	phase := proto["currentPhase"]
	var waiting []string
	if _, isList := proto["waitingFor"].([]any); isList {
		waiting = proto.Waiting()
	}
	if phase == PhaseCompleted || phase == PhaseBlocked {
		return true, "phase is " + PyStr(phase), "", nil
	}
	if slices.Contains(waiting, participant) || t.faults[FaultWaitIgnoresTurn] {
		return true, participant + " is listed in waitingFor", "", nil
	}
	list := "none"
	if len(waiting) > 0 {
		list = strings.Join(waiting, ", ")
	}
	why := "waiting for " + list
	if len(events) > 0 {
		why += " after seq " + events[len(events)-1].SeqLabel()
	}
	sig := fmt.Sprintf("%s|%d", why, len(events))
	for _, name := range []string{"protocol.json", "events.jsonl"} {
		if st, err := os.Stat(filepath.Join(folder, name)); err == nil {
			sig += "|" + st.ModTime().String()
		}
	}
	return false, why, sig, nil
}
