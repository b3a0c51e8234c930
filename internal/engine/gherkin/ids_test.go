package gherkin_test

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/engine/gherkin"
)

func compile(t *testing.T, text string) ([]engine.Check, error) {
	t.Helper()
	return gherkin.Compile(fstest.MapFS{"f/x.feature": {Data: []byte(text)}}, "f/x.feature", "s", register)
}

// wantRefused compiles text and wants an error holding every one of want.
func wantRefused(t *testing.T, text string, want ...string) {
	t.Helper()
	checks, err := compile(t, text)
	if err == nil {
		ids := make([]string, len(checks))
		for i, c := range checks {
			ids[i] = c.ID + " (" + c.Source + ")"
		}
		t.Fatalf("compiled to %v; want it refused, saying %q", ids, want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
}

func ids(t *testing.T, text string) []string {
	t.Helper()
	checks, err := compile(t, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range checks {
		out = append(out, c.ID)
	}
	return out
}

// TestOutlineThatWouldCheckNothingIsRefused: an outline without Examples
// would run its steps with the text "<what>" and pass; an Examples table
// without rows would compile to no check. Both are refused, naming the
// outline's line and what to do.
func TestOutlineThatWouldCheckNothingIsRefused(t *testing.T) {
	t.Run("no Examples", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: fine\n    Given agent alice\n\n  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n",
			`f/x.feature:5: Scenario Outline "alice does <what>" has no Examples`, `<what>`, "add an Examples table with at least one row, or make it a plain Scenario")
	})
	t.Run("no Examples, in another language", func(t *testing.T) {
		wantRefused(t, "# language: fr\nFonctionnalité: x\n  Plan du scénario: alice fait <what>\n    Quand alice does \"<what>\"\n",
			`f/x.feature:3: Plan du scénario "alice fait <what>" has no Examples`)
	})
	t.Run("Examples with a header and no row", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: fine\n    Given agent alice\n\n  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n",
			`f/x.feature:5: Scenario Outline "alice does <what>" has an Examples table (line 7) with no row`, "add at least one row")
	})
	t.Run("Examples with no table", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: fine\n    Given agent alice\n\n  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n    Examples:\n",
			`f/x.feature:5: Scenario Outline "alice does <what>" has an Examples table (line 7) with no row`)
	})
	t.Run("one empty Examples beside a full one", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | a    |\n    Examples: later\n      | what |\n",
			`f/x.feature:2: Scenario Outline "alice does <what>" has an Examples table (line 7) with no row`)
	})
}

// TestUnboundPlaceholderIsRefused: a placeholder that no column of the
// row's Examples fills would run as its literal text.
func TestUnboundPlaceholderIsRefused(t *testing.T) {
	t.Run("in a step", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: alice does <what>\n    When alice does \"<wat>\"\n    Examples:\n      | what |\n      | a    |\n",
			`f/x.feature:3: the step "When alice does \"<wat>\"" names the placeholder <wat>, but the Examples table at line 4 has no column "wat" (its columns: what)`)
	})
	t.Run("in the title", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: <who> does <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | a    |\n",
			`f/x.feature:2: the title names the placeholder <who>, but the Examples table at line 4 has no column "who"`)
	})
	t.Run("in one of two Examples", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | a    |\n    Examples:\n      | how |\n      | b   |\n",
			`f/x.feature:2: the title names the placeholder <what>, but the Examples table at line 7 has no column "what"`)
	})
}

// TestCheckIDsAreUniqueAndStable: two scenarios whose titles give one ID
// are refused, naming both (as two vectors with one id are), where they
// used to be numbered by their place in the file; so are two rows of an
// outline. A title with no ASCII letter needs an @id: tag where it used to
// be "scenario", "scenario-2" in order.
func TestCheckIDsAreUniqueAndStable(t *testing.T) {
	t.Run("two scenarios with one title", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: Same\n    Given agent alice\n\n  Scenario: same!\n    Given agent bob\n",
			"f/x.feature:5: check id s/x/same is also used by f/x.feature:2; rename one, or give one an @id: tag")
	})
	t.Run("two rows of an outline", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: alice acts\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | a    |\n      | b    |\n",
			"f/x.feature:7: check id s/x/alice-acts is also used by the row at f/x.feature:6 of the same outline")
	})
	t.Run("rows whose values have no ASCII letter", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: \"<what>\" approves\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | 同意 |\n      | 是   |\n",
			"f/x.feature:7: check id s/x/approves is also used by the row at f/x.feature:6 of the same outline")
	})
	t.Run("a title with no ASCII letter", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: 同意\n    Given agent alice\n",
			`f/x.feature:2: the title "同意" has no ASCII letter or digit to make a check ID of`, "@id:")
	})
	t.Run("a row that makes a title with no ASCII letter", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario Outline: <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | 同意 |\n",
			`f/x.feature:6: the row makes the title "同意", which has no ASCII letter or digit`, "@id:<id>")
	})
	t.Run("an @id: that is no slug", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  @id:Yes_Please\n  Scenario: 同意\n    Given agent alice\n",
			"f/x.feature:3: @id:Yes_Please is no check ID")
	})
	t.Run("an @id: on a plain scenario naming a column", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  @id:x-<what>\n  Scenario: fine\n    Given agent alice\n",
			"f/x.feature:3: @id:x-<what> names the placeholder <what>, but only an outline's Examples have columns")
	})
	t.Run("an @id: naming a column the row lacks", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  @id:x-<how>\n  Scenario Outline: a <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | a    |\n",
			"f/x.feature:7: @id:x-<how> names the placeholder <how>, but the row's Examples table has no such column (its columns: what)")
	})
	t.Run("two @id: tags", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  @id:a @id:b\n  Scenario: fine\n    Given agent alice\n",
			"f/x.feature:3: the scenario has 2 @id: tags, counting those of its outline, Examples, rule and feature (@id:a, @id:b); give it one")
	})
	t.Run("an @id: another title gives", func(t *testing.T) {
		wantRefused(t, "Feature: x\n  Scenario: fine\n    Given agent alice\n\n  @id:fine\n  Scenario: 同意\n    Given agent bob\n",
			"f/x.feature:6: check id s/x/fine is also used by f/x.feature:2")
	})
}

// TestExplicitAndNormalisedIDs: an @id: tag names the check (and is no
// rule and no tag); on an outline it may fill columns; accents are taken
// off a title rather than cut it.
func TestExplicitAndNormalisedIDs(t *testing.T) {
	checks, err := compile(t, `Feature: x
  @R-1 @id:approves-in-chinese @fast
  Scenario: 同意
    Given agent alice

  Scenario: Café crème, ｆｕｌｌ width
    Given agent alice

  @R-2
  Scenario Outline: "<what>" approves
    When alice does "<what>"
    Examples:
      | what |
      | yes  |
    @id:<id>
    Examples: in Chinese
      | what | id         |
      | 同意 | approves   |
      | 是   | approves-2 |
    @id:approves-<n>-again
    Examples: numbered
      | what | n |
      | 好   | 1 |
      | 好   | 2 |
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checks {
		got = append(got, c.ID)
	}
	want := []string{"s/x/approves-in-chinese", "s/x/cafe-creme-full-width", "s/x/yes-approves", "s/x/approves", "s/x/approves-2", "s/x/approves-1-again", "s/x/approves-2-again"}
	if !slices.Equal(got, want) {
		t.Errorf("ids %v, want %v", got, want)
	}
	if c := checks[0]; !slices.Equal(c.Rules, []string{"R-1"}) || !slices.Equal(c.Tags, []string{"fast"}) {
		t.Errorf("the @id: tag is counted as a rule or a tag: rules %v, tags %v", c.Rules, c.Tags)
	}
	for _, c := range checks[2:] {
		if len(c.Tags) > 0 {
			t.Errorf("%s: the @id: tag is counted as a tag: %v", c.ID, c.Tags)
		}
	}
}

// TestReorderingKeepsIDs: moving scenarios and rows about changes no
// check's ID.
func TestReorderingKeepsIDs(t *testing.T) {
	a := "  Scenario: Café\n    Given agent alice\n\n"
	b := "  @id:hao\n  Scenario: 好\n    Given agent bob\n\n"
	o := "  Scenario Outline: alice does <what>\n    When alice does \"<what>\"\n    Examples:\n      | what |\n      | %s |\n      | %s |\n\n"
	one := ids(t, "Feature: x\n"+a+b+strings.ReplaceAll(strings.Replace(o, "%s", "p", 1), "%s", "q"))
	two := ids(t, "Feature: x\n"+strings.ReplaceAll(strings.Replace(o, "%s", "q", 1), "%s", "p")+b+a)
	slices.Sort(one)
	slices.Sort(two)
	if !slices.Equal(one, two) || !slices.Equal(one, []string{"s/x/alice-does-p", "s/x/alice-does-q", "s/x/cafe", "s/x/hao"}) {
		t.Errorf("ids in one order %v, in the other %v", one, two)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"One thing":        "one-thing",
		"Ça marche, déjà":  "ca-marche-deja",
		"ＡＢＣ 123":          "abc-123",
		"同意":               "",
		"  -- ":            "",
		`"好\r\n" approves`: "r-n-approves",
	} {
		if got := gherkin.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
