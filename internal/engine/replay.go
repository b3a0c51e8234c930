package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Redacted is what a transcript records in place of a secret, at the
// places the suite declares (Vocabulary.Secrets), listing each such pointer
// in the exchange's Redacted; a replay takes a value there to match any
// value, and a "[redacted]" anywhere else as the text it is.
const Redacted = "[redacted]"

// errorKind classifies an executor's error for the transcript.
func errorKind(err error) string {
	var adapterErr *AdapterError
	var violation *Violation
	switch {
	case errors.Is(err, ErrUnsupported):
		return "unsupported"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return "timeout"
	case errors.As(err, &adapterErr):
		return "adapter"
	case errors.As(err, &violation):
		return "violation"
	}
	return "error"
}

// Replayed is the verdict a check gets when its steps are answered by a
// recorded transcript instead of an implementation.
type Replayed struct {
	Verdict Verdict
	// Used is how many recorded exchanges the check consumed; the
	// exchange that decided a non-pass verdict is the last of them, and a
	// caller that expected that verdict checks that none is left over.
	Used int
}

// MismatchError says that a recorded transcript is not what the check
// makes: at exchange Index (0-based, of the check's own exchanges) the
// check sends something else, or the transcript ends, or has more.
type MismatchError struct {
	Index int
	Msg   string
}

func (e *MismatchError) Error() string { return e.Msg }

// Replay judges a check offline against the exchanges recorded for it:
// every step the check makes is answered by the next recorded exchange,
// which must be the same request (a redacted secret matches any value). The
// verdict so follows from the recorded answers alone; a transcript that
// does not belong to the check is a *MismatchError.
func Replay(ctx context.Context, check Check, recorded []Exchange) (Replayed, error) {
	return ReplayRecorded(ctx, check, recorded, Vocabulary{})
}

// ReplayRecorded is Replay of a transcript recorded with the suite's
// vocabulary: the members of a result it left out (Vocabulary.Derived) are
// rebuilt before the check judges them.
func ReplayRecorded(ctx context.Context, check Check, recorded []Exchange, vocab Vocabulary) (Replayed, error) {
	r := &replayer{recorded: recorded, wild: wildcard(), derive: vocab.Derived}
	v := Run(ctx, check, r)
	if r.mismatch != nil {
		return Replayed{}, r.mismatch
	}
	if v.Status == Pass && r.next < len(recorded) {
		return Replayed{}, &MismatchError{Index: r.next, Msg: fmt.Sprintf("the transcript holds %d exchange(s) more than the check makes", len(recorded)-r.next)}
	}
	return Replayed{Verdict: v, Used: r.next}, nil
}

// replayer is an executor that answers from a transcript.
type replayer struct {
	recorded []Exchange
	next     int
	mismatch *MismatchError
	// wild stands in for every redacted secret (see wildcard).
	wild string
	// derive rebuilds what the transcript left out (Vocabulary.Derived).
	derive func(Exchange) map[string]any
	// rebuilt, when not nil, collects each exchange as rebuild makes it.
	rebuilt []Exchange
}

// rebuild puts back into a recorded exchange everything the transcript
// left out of it: what its step sent, the values its literals expected and
// the members the suite derives (in that order: deriving may read both).
func rebuild(ex Exchange, step Step, derive func(Exchange) map[string]any) (Exchange, error) {
	ex, err := resend(ex, step)
	if err == nil {
		ex, err = reexpect(ex, step)
	}
	if err == nil {
		ex, err = rederive(ex, derive)
	}
	return ex, err
}

// Rebuild gives a check's recorded exchanges whole, as every reader of a
// transcript must see them: the check is replayed over them, and each
// exchange it makes gets back what the transcript left out (its source and
// params, the values as expected, the derived members); secrets stay
// Redacted. An exchange the replay does not reach, or cannot rebuild, is
// given as recorded, and the replay's mismatch, if any, is returned too.
func Rebuild(ctx context.Context, check Check, recorded []Exchange, vocab Vocabulary) ([]Exchange, error) {
	r := &replayer{recorded: recorded, wild: wildcard(), derive: vocab.Derived, rebuilt: make([]Exchange, 0, len(recorded))}
	Run(ctx, check, r)
	out := append(r.rebuilt, recorded[len(r.rebuilt):]...)
	if r.mismatch != nil {
		return out, r.mismatch
	}
	return out, nil
}

func (r *replayer) Execute(_ context.Context, step Step) (Outcome, error) {
	if r.mismatch != nil {
		return Outcome{}, r.mismatch
	}
	i := r.next
	if i >= len(r.recorded) {
		r.mismatch = &MismatchError{Index: i, Msg: fmt.Sprintf("%s: the check makes this step, but the transcript ends before it", step.Source)}
		return Outcome{}, r.mismatch
	}
	ex, err := rebuild(r.recorded[i], step, r.derive)
	if err != nil {
		r.mismatch = &MismatchError{Index: i, Msg: fmt.Sprintf("%s: %v", step.Source, err)}
		return Outcome{}, r.mismatch
	}
	if r.rebuilt != nil {
		r.rebuilt = append(r.rebuilt, ex)
	}
	ex = unredact(ex, r.wild)
	r.next++
	if why := sameRequest(step, ex, r.wild); why != "" {
		r.mismatch = &MismatchError{Index: i, Msg: fmt.Sprintf("%s: the transcript records another request here: %s", step.Source, why)}
		return Outcome{}, r.mismatch
	}
	if ex.Error != "" || ex.Outcome == nil {
		return Outcome{}, recordedError(ex)
	}
	return *ex.Outcome, nil
}

// recordedError rebuilds an executor's error from its transcript line.
func recordedError(ex Exchange) error {
	msg := ex.Error
	switch ex.ErrorKind {
	case "unsupported":
		return fmt.Errorf("%s (%w)", msg, ErrUnsupported)
	case "timeout":
		return fmt.Errorf("%s (%w)", msg, context.DeadlineExceeded)
	case "adapter":
		return &AdapterError{Step: ex.Source, Err: errors.New(msg)}
	case "violation":
		return &Violation{Msg: msg}
	}
	if msg == "" {
		msg = "the transcript records neither an answer nor an error"
	}
	return errors.New(msg)
}

// sameRequest compares a step as the check makes it with a recorded one.
func sameRequest(step Step, ex Exchange, wild string) string {
	switch {
	case step.Op != ex.Op:
		return fmt.Sprintf("op %q, not %q", ex.Op, step.Op)
	case step.Name != ex.Name:
		return fmt.Sprintf("%q, not %q", ex.Name, step.Name)
	case step.Agent != ex.Agent:
		return fmt.Sprintf("agent %q, not %q", ex.Agent, step.Agent)
	case step.Key != ex.Key && ex.Key != wild:
		return fmt.Sprintf("key %q, not %q", ex.Key, step.Key)
	}
	want, got := Normalize(step.Params), Normalize(ex.Params)
	if isEmpty(want) && isEmpty(got) {
		return ""
	}
	if !matchRedacted(got, want, wild) {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		return fmt.Sprintf("params %s, not %s", brief(string(g)), brief(string(w)))
	}
	return ""
}

func isEmpty(v any) bool {
	m, ok := v.(map[string]any)
	return v == nil || (ok && len(m) == 0)
}

// matchRedacted compares recorded JSON data with the data the check sends,
// where the string wild in recorded stands for any value.
func matchRedacted(recorded, sent any, wild string) bool {
	if s, ok := recorded.(string); ok && wild != "" && s == wild {
		return true
	}
	switch r := recorded.(type) {
	case map[string]any:
		s, ok := sent.(map[string]any)
		if !ok || len(s) != len(r) {
			return false
		}
		for k, v := range r {
			sv, ok := s[k]
			if !ok || !matchRedacted(v, sv, wild) {
				return false
			}
		}
		return true
	case []any:
		s, ok := sent.([]any)
		if !ok || len(s) != len(r) {
			return false
		}
		for i := range r {
			if !matchRedacted(r[i], s[i], wild) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(recorded, sent)
}
