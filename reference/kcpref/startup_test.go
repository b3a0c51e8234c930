package kcpref

import (
	"regexp"
	"strconv"
	"testing"
)

// The tables below are written out (or replaced by switches) so that
// loading the package costs nothing; these tests check each against the
// computation it replaces.

func TestASCIIElementsTable(t *testing.T) {
	for r := range rune(128) {
		want, _ := element(r)
		if asciiElements[r] != want {
			t.Errorf("asciiElements[%q] = %v, want %v", r, asciiElements[r], want)
		}
	}
}

func TestCountReasonTables(t *testing.T) {
	for _, tc := range []struct {
		t      *[16]string
		prefix string
	}{{intentReasons, intentPrefix}, {triggerReasons, triggerPrefix}, {idPathReasons, idPathPrefix}} {
		for n, got := range tc.t {
			if want := tc.prefix + strconv.Itoa(n) + " term(s)"; got != want {
				t.Errorf("table %q[%d] = %q, want %q", tc.prefix, n, got, want)
			}
		}
	}
}

func TestStopwordSwitchMatchesSet(t *testing.T) {
	if len(stopwords) != 38 {
		t.Fatalf("%d stopwords, want 38", len(stopwords))
	}
	for w := range stopwords {
		if !isStopword(w) {
			t.Errorf("isStopword(%q) = false", w)
		}
	}
	for _, w := range []string{"", "th", "thee", "The", "gets", "award", "compute", "wh", "o"} {
		if isStopword(w) != stopwords[w] {
			t.Errorf("isStopword(%q) = %v, want %v", w, isStopword(w), stopwords[w])
		}
	}
}

func TestYAMLDateMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$`)
	for _, s := range []string{"2026-01-01", "2026-1-01", "2026-01-1", "2026-01-011", "20260-01-01", "2026/01/01",
		"2026-01-01 ", " 2026-01-01", "2026-0a-01", "2026-01-0\u0661", "0000-00-00", "9999-99-99", "2026-01-01\n", ""} {
		if got, want := isYAMLDate(s), pattern.MatchString(s); got != want {
			t.Errorf("isYAMLDate(%q) = %v, want %v", s, got, want)
		}
	}
}
