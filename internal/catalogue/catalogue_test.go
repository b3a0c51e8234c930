package catalogue_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/internal/catalogue"
	"github.com/sifu-dev/sifu/internal/schema"
)

func load(t *testing.T) *catalogue.Catalogue {
	t.Helper()
	c, err := catalogue.Load(sifu.Assets, "vectors/kungfu/rules.json", schema.NewSet(sifu.Assets, "vectors/schema"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestKungfuCatalogue(t *testing.T) {
	c := load(t)
	if len(c.Rules) != 250 {
		t.Errorf("the Kungfu catalogue has %d rules; the notes list 244 rows, with KF-10.2-01..07 expanded to 250", len(c.Rules))
	}
	closure, err := c.Closure([]string{"memory"})
	if err != nil {
		t.Fatal(err)
	}
	if !closure["core"] || closure["thread"] {
		t.Errorf("memory closure is %v; want core and memory only", closure)
	}
}

// TestCatalogueMatchesNotes guards that every rule ID of the rule notes is in
// the catalogue, when the shared notes are beside the checkout.
func TestCatalogueMatchesNotes(t *testing.T) {
	raw, err := os.ReadFile("../../../shared/notes/kungfu-rules.md")
	if err != nil {
		t.Skip("shared notes not beside the checkout")
	}
	c := load(t)
	ids := regexp.MustCompile(`(?m)^\| (KF-[A-Za-z0-9.-]+) \|`).FindAllStringSubmatch(string(raw), -1)
	for _, m := range ids {
		id := m[1]
		if id == "KF-10.2-01..07" {
			continue
		}
		if _, ok := c.Rule(id); !ok {
			t.Errorf("rule %s of the notes is missing from rules.json", id)
		}
	}
}

func TestDuplicateIDsRejected(t *testing.T) {
	// A catalogue with a repeated ID is refused with the ID named.
	fs := dupFS(t)
	_, err := catalogue.Load(fs, "rules.json", schema.NewSet(fs, "schema"))
	if err == nil || !regexp.MustCompile(`KF-1-01 appears twice`).MatchString(err.Error()) {
		t.Fatalf("want a duplicate-ID error, got %v", err)
	}
}
