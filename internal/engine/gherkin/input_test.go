package gherkin_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu/internal/engine/gherkin"
)

// TestIrregularFeatureFiles: an empty feature file (or one without a
// scenario) is an error naming the file, not a silent pass; a UTF-8 byte
// order mark is read as the editor meant it; an unknown step is reported
// once, with its line.
func TestIrregularFeatureFiles(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		want string // "" means it compiles
	}{
		"empty":        {"", "no scenario"},
		"only comment": {"# nothing yet\n", "no scenario"},
		"no scenario":  {"Feature: later\n  Some prose.\n", "no scenario"},
		"bom":          {"\ufeff" + feature, ""},
		"unknown step": {"Feature: x\n  Scenario: y\n    When alice dances\n", "f/x.feature:3: no step definition matches \"alice dances\""},
		"unknown step in an outline": {"Feature: x\n  Scenario Outline: y\n    When alice dances <n>\n    Examples:\n      | n |\n      | 1 |\n      | 2 |\n      | 3 |\n",
			"f/x.feature:3: no step definition matches \"alice dances 1\""},
		"unknown background step": {"Feature: x\n  Background:\n    Given the moon\n  Scenario: a\n    Given agent bob\n  Scenario: b\n    Given agent carol\n",
			"f/x.feature:3: no step definition matches \"the moon\""},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"f/x.feature": {Data: []byte(c.text)}}
			checks, err := gherkin.Compile(fsys, "f/x.feature", "s", register)
			if c.want == "" {
				if err != nil || len(checks) != 3 {
					t.Fatalf("%d checks, %v", len(checks), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if n := strings.Count(err.Error(), "no step definition"); n > 1 {
				t.Errorf("the unknown step is reported %d times: %v", n, err)
			}
			if !strings.Contains(err.Error(), "f/x.feature") {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
}
