// Package faultproxy injects transport faults between sifu and a Kungfu
// implementation. Each fault is a small wrapper over kungfu.Target, in the
// manner of testing/iotest, so the same faults apply to every transport:
// in-process, HTTP and stdio. Adapters that own a real connection (HTTP,
// stdio) also take a hook from here to reset it mid-body.
//
// Only requests that are safe to repeat are faulted: reads, and actions that
// carry an idempotency key. Hello, the control plane and unkeyed actions pass
// untouched, because nothing in the protocol lets a client recover from
// losing their answers. A Retries wrapper on top repeats a faulted request
// with the same key, as a careful client would, so a check sees the answer of
// a later attempt and then judges the state it left behind.
//
// Every decision is drawn from a hash of the seed, the fault, the request and
// the attempt number: a run with the same seed against an implementation that
// answers the same makes the same decisions, whatever the goroutine schedule.
package faultproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// Fault names one kind of injected fault.
type Fault string

// The faults the proxy can inject.
const (
	// DropResponse delivers the request, lets the implementation apply it,
	// and loses the answer: the client sees a transport error.
	DropResponse Fault = "drop-response"
	// Duplicate delivers a request twice, one after the other or both at once.
	Duplicate Fault = "duplicate"
	// Delay holds an answer back for a while before the client sees it.
	Delay Fault = "delay"
	// Reset cuts the connection in the middle of the request body (the
	// request is lost) or of the response body (the answer is lost).
	Reset Fault = "reset"
	// Reorder gathers requests that arrive together and delivers them one
	// by one in another order.
	Reorder Fault = "reorder"
)

// All lists every fault in the order Wrap composes them.
var All = []Fault{DropResponse, Duplicate, Delay, Reset, Reorder}

// ErrInjected is wrapped by every error the proxy makes up. Retries repeats
// only requests that failed with it.
var ErrInjected = errors.New("injected fault")

// Parse reads a comma-separated list of fault names ("all" means every
// fault). Names may repeat; the result is in the order of All.
func Parse(list string) ([]Fault, error) {
	want := map[Fault]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "all":
			for _, f := range All {
				want[f] = true
			}
		case slices.Contains(All, Fault(name)):
			want[Fault(name)] = true
		default:
			return nil, fmt.Errorf("unknown fault %q; use a comma-separated list of %s, or all", name, names(All))
		}
	}
	var out []Fault
	for _, f := range All {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

func names(fs []Fault) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}

// String joins fault names with commas.
func String(fs []Fault) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ",")
}

// Request is one act or read as the proxy sees it.
type Request struct {
	Op     string // "act" or "read"
	Agent  string
	Name   string // the action or the view
	Key    string // the idempotency key of an action
	Params map[string]any
}

// Repeatable reports whether the request may be faulted: a read, or an
// action with an idempotency key.
func (r Request) Repeatable() bool { return r.Op == "read" || r.Op == "act" && r.Key != "" }

// Identity is the stable text a decision is drawn from. The agent id is left
// out: it differs between servers, while the check's steps do not.
func (r Request) Identity() string {
	params, _ := json.Marshal(r.Params) // map keys come out sorted
	return r.Op + "\x00" + r.Name + "\x00" + r.Key + "\x00" + string(params)
}

// Decider draws the proxy's seeded decisions.
type Decider struct {
	Seed uint64
	// Rate is the chance that a fault strikes one attempt (0 < Rate ≤ 1).
	Rate float64
	// Attempts is how many attempts at one request a fault may strike; later
	// attempts go through, so a client that retries often enough always gets
	// an answer. Zero means 2.
	Attempts int
}

// Draw returns a number derived from the seed, the fault, the request
// identity and the attempt.
func (d Decider) Draw(f Fault, identity string, attempt int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", d.Seed, f, identity, attempt)
	// fnv mixes its last bytes poorly into the high bits; finish with a
	// splitmix64 round.
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Strikes reports whether fault f strikes this attempt at a request.
func (d Decider) Strikes(f Fault, identity string, attempt int) bool {
	limit := d.Attempts
	if limit <= 0 {
		limit = 2
	}
	if attempt >= limit {
		return false
	}
	rate := d.Rate
	if rate <= 0 || rate > 1 {
		rate = 0.5
	}
	return float64(d.Draw(f, identity, attempt)>>11)/float64(1<<53) < rate
}

type attemptKey struct{}

// WithAttempt records in ctx which attempt at a request is being made;
// Retries sets it, the fault wrappers read it.
func WithAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

// Attempt is the attempt recorded in ctx (0 for the first).
func Attempt(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}

// injected makes an error that wraps ErrInjected.
func injected(f Fault, what string) error {
	return fmt.Errorf("%s: %s (%w)", f, what, ErrInjected)
}

// Clock is the time source of the delay and reorder faults; tests inject a
// manual one.
type Clock interface {
	After(d time.Duration) <-chan time.Time
}

// RealClock waits in real time.
type RealClock struct{}

// After waits d in real time.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// next performs the wrapped call.
type next func(ctx context.Context) (kungfu.Response, error)

// hook decides what happens to one repeatable request.
type hook func(ctx context.Context, r Request, call next) (kungfu.Response, error)

// wrapper is a Target whose repeatable acts and reads pass through a hook;
// everything else goes straight to the embedded Target.
type wrapper struct {
	kungfu.Target
	hook hook
}

func (w wrapper) Act(ctx context.Context, a kungfu.Action) (kungfu.Response, error) {
	r := Request{Op: "act", Agent: a.Agent, Name: a.Name, Key: a.Key, Params: a.Params}
	call := func(ctx context.Context) (kungfu.Response, error) { return w.Target.Act(ctx, a) }
	if !r.Repeatable() {
		return call(ctx)
	}
	return w.hook(ctx, r, call)
}

func (w wrapper) Read(ctx context.Context, rd kungfu.Read) (kungfu.Response, error) {
	r := Request{Op: "read", Agent: rd.Agent, Name: rd.View, Params: rd.Params}
	return w.hook(ctx, r, func(ctx context.Context) (kungfu.Response, error) { return w.Target.Read(ctx, rd) })
}

// Cut is the reset decision for an adapter that repeats requests itself
// (the HTTP client): whether attempt n at the request with this identity is
// cut, and whether after the implementation got the whole request.
func (d Decider) Cut(identity string, attempt int) (cut, afterDelivery bool) {
	if !d.Strikes(Reset, identity, attempt) {
		return false, false
	}
	return true, d.Draw(Reset, identity, attempt+1000)&1 == 1
}

// StreamCut is the reset decision for an adapter whose requests Retries
// repeats (stdio): a non-nil error means "cut the stream in the middle of
// this request and report this error". The attempt is read from ctx.
func (d Decider) StreamCut(ctx context.Context, identity string) error {
	if !d.Strikes(Reset, identity, Attempt(ctx)) {
		return nil
	}
	return injected(Reset, "the stream was cut in the middle of the request line")
}
