package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// A step's time is written when it was measured and left out when it is
// zero (a reproducible run keeps none).
func TestElapsedIsWrittenOnlyWhenMeasured(t *testing.T) {
	timed, _ := json.Marshal(Exchange{Op: "act", Elapsed: 1500})
	if !strings.Contains(string(timed), `"elapsed_ns":1500`) {
		t.Errorf("a measured step: %s", timed)
	}
	var back Exchange
	if err := json.Unmarshal(timed, &back); err != nil || back.Elapsed != 1500 {
		t.Errorf("read back: %v %v", back.Elapsed, err)
	}
	untimed, _ := json.Marshal(Exchange{Op: "act"})
	if strings.Contains(string(untimed), "elapsed_ns") {
		t.Errorf("a step with no time: %s", untimed)
	}
}
