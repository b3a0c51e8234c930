//go:build unix

package ndjson

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func opts() Options {
	return Options{Who: "the process", Answer: "answer", MaxLine: 1 << 20, Tail: 64}
}

// TestAnswersAreRoutedByID: an answer reaches the request of its id, 1.0
// being id 1.
func TestAnswersAreRoutedByID(t *testing.T) {
	c, err := Start(`read l; echo '{"id":1.0,"ok":true}'; read l`, opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := c.Call(ctx, "1", []byte(`{"id":1}`))
	if err != nil || !strings.Contains(string(got), `"ok":true`) {
		t.Fatalf("%s %v", got, err)
	}
}

// TestAProcessThatStopsIsQuotedWhole: a request to a process that exits
// ends with Stopped, quoting the end of its stderr once it is drained.
func TestAProcessThatStopsIsQuotedWhole(t *testing.T) {
	c, err := Start(`read l; echo "the last words" >&2; exit 3`, opts())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(context.Background(), "1", []byte(`{"id":1}`))
	var s *Stopped
	if !errors.As(err, &s) || s.Stderr != "the last words" || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("%v", err)
	}
	if _, err := c.Call(context.Background(), "2", []byte(`{"id":2}`)); !IsStopped(err) {
		t.Errorf("a request after the end: %v", err)
	}
}

// TestALineThatIsNoAnswerBreaksTheConnection: the process is killed and
// the waiting request says what the line was.
func TestALineThatIsNoAnswerBreaksTheConnection(t *testing.T) {
	c, err := Start(`read l; echo 'hello there'; sleep 30`, opts())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(context.Background(), "1", []byte(`{"id":1}`))
	if !IsStopped(err) || !strings.Contains(err.Error(), `not an answer: "hello there"`) {
		t.Fatalf("%v", err)
	}
}

// TestAnExitIsSaidInWords: a process that exits, even with status 0, is said
// to have exited with its status, and one that wrote nothing on standard
// error is said so; Go's "<nil>" and an empty quoted tail never reach the
// user.
func TestAnExitIsSaidInWords(t *testing.T) {
	for script, want := range map[string]string{
		"read l; exit 0":        "the process exited with status 0; it wrote nothing on standard error",
		"exit 0":                "the process exited with status 0; it wrote nothing on standard error", // before it read the request: no "broken pipe"
		"read l; exit 4":        "the process exited with status 4; it wrote nothing on standard error",
		"read l; kill -SEGV $$": "the process was killed by a signal (segmentation fault); it wrote nothing on standard error",
	} {
		c, err := Start(script, opts())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Call(context.Background(), "1", []byte(`{"id":1}`))
		if err == nil || err.Error() != want {
			t.Errorf("sh -c %q: %v, want %q", script, err, want)
		}
		for _, leak := range []string{"<nil>", `""`, "exited ("} {
			if err != nil && strings.Contains(err.Error(), leak) {
				t.Errorf("sh -c %q: %q leaks %s", script, err, leak)
			}
		}
	}
}

// TestALineTooLongIsOneSentence: a line over MaxLine ends the connection
// with a sentence naming the process, its command and the limit, not the
// scanner's "token too long".
func TestALineTooLongIsOneSentence(t *testing.T) {
	command := `read l; head -c 1100000 /dev/zero | tr '\0' x; echo; sleep 30`
	c, err := Start(command, opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	_, err = c.Call(context.Background(), "1", []byte(`{"id":1}`))
	if !IsStopped(err) {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{"the process (" + strconv.Quote(command) + ") wrote a line longer than 1 MiB (1048576 bytes)", "one JSON document"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "token too long") {
		t.Errorf("%q quotes the scanner", err)
	}
}
