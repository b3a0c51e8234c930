package kcpref

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"How do I deploy to production?", []string{"deploy", "production"}},
		{"the a an is are was were do does how what why when where which who to of in on for and or i we you it this that with my our can should will be get getting", []string{}},
		// Duplicates are kept; tokens of one or two code units are dropped.
		{"award award AI ok", []string{"award", "award"}},
		// Split on anything but letters and numbers, including _ and marks.
		{"hello_world foo-bar v2.0", []string{"hello", "world", "foo", "bar"}},
		{"cafe\u0301 naïve", []string{"cafe", "naïve"}},
		// İ lower-cases to i + U+0307, and the combining dot separates.
		{"İstanbul", []string{"stanbul"}},
		// Final sigma: Σ at the end of a word is ς, inside it σ.
		{"ΟΔΟΣ ΣΟΦΟΣ", []string{"οδος", "σοφος"}},
		// Length is in UTF-16 code units: one astral letter counts 2.
		{"𝒳 𝒳𝒴 abc", []string{"𝒳𝒴", "abc"}},
		// Devanagari vowel signs and virama are marks: the words fall apart
		// into single letters, which are dropped.
		{"हिन्दी कार्य", []string{}},
		{"数字 ٣٤٥ Ⅻ½", []string{"٣٤٥"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSLower(t *testing.T) {
	tests := map[string]string{
		"ABC Straße":   "abc straße",
		"İ":            "i\u0307",
		"Σ":            "σ",   // no cased letter before: not final
		"AΣ":           "aς",  // final
		"AΣB":          "aσb", // medial
		"AΣ.":          "aς.", // '.' is case-ignorable, then nothing
		"AΣ'B":         "aσ'b",
		"ΑΣ\u0301 x":   "ας\u0301 x",
		"ǅ":            "ǆ",
		"\u212a elvin": "k elvin",
	}
	for in, want := range tests {
		if got := jsLower(in); got != want {
			t.Errorf("jsLower(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScoringIsSubstringAndBidirectional(t *testing.T) {
	u := Unit{ID: "ops", Path: "x.md", Intent: "Maintainers' handbook", Triggers: []string{"ai", "MAINTENANCE window"}}
	// "maintain" is inside the intent and inside a trigger; the trigger
	// "ai" is inside the term.
	score, reasons := scoreUnit(u, []string{"maintain"})
	if score != 3+4 || !slices.Equal(reasons, []string{"intent matches 1 term(s)", "triggers match 1 term(s)"}) {
		t.Errorf("score %d reasons %q", score, reasons)
	}
	// Final sigma in both the task and the intent still matches.
	if score, _ := scoreUnit(Unit{Intent: "ΟΔΟΣ"}, Terms("οδος")); score != 3 {
		t.Errorf("sigma score %d", score)
	}
}

func TestCompareUTF16(t *testing.T) {
	// U+FFFF is one code unit 0xFFFF; 😀 starts with the surrogate 0xD83D.
	if compareUTF16("😀", "\uffff") >= 0 {
		t.Error("astral must sort before U+FFFF in UTF-16 order")
	}
	if compareUTF16("2026-07-06", "2026-07-06") != 0 || compareUTF16("2026-07-05", "2026-07-06") >= 0 || compareUTF16("2026", "2026-01") >= 0 {
		t.Error("ISO dates must compare as strings")
	}
}

func TestLocaleCompareTieBreak(t *testing.T) {
	// The notes' example: localeCompare order, not code unit order.
	want := []string{"a", "a_b", "a-b", "a.b", "A1", "a10", "a9", "ab", "b", "B", "e", "é", "f", "z"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, localeCompare)
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if localeCompare("a2", "U2") >= 0 {
		t.Error("a2 must sort before U2")
	}
}
