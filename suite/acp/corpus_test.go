package acp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sifu-dev/sifu"
	"github.com/sifu-dev/sifu/reference/acpref"
	"github.com/sifu-dev/sifu/suite/acp"
)

// TestCompatValidatorAgreesWithUpstreamOnTheCorpus: on every folder of the
// corpus (the fixtures and testdata/corpus), sifu's validator in compat mode
// gives the exit code upstream's validator gave (recorded with the folder):
// v1 against the seed's scripts, v2 against HEAD's. At least 99 % of
// upstream's verdicts must agree; where upstream crashed (no verdict) sifu
// must report the folder invalid (exit 2). Each disagreement is listed; run
// with -v to see the numbers.
func TestCompatValidatorAgreesWithUpstreamOnTheCorpus(t *testing.T) {
	folders, err := acp.LoadCorpus(sifu.Assets, "vectors/acp", os.DirFS("testdata/corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) < 100 {
		t.Fatalf("the corpus has %d folders; keep at least 100", len(folders))
	}
	a, err := acp.Compare(folders, t.TempDir(), func(folder, schema string) int {
		return acpref.New(acpref.Options{Compat: true, Schema: acpref.Schema(schema), NoSync: true}).Validate(folder).Exit()
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range a.Disagreed {
		note := ""
		if d.Crash != "" {
			note = " (upstream crashed: " + d.Crash + ")"
		}
		t.Logf("disagree: %s under %s: upstream %d, sifu --compat %d%s", d.Folder, d.Schema, d.Upstream, d.Got, note)
	}
	t.Logf("corpus: %d folders; upstream crashed on %d under v1 and %d under v2, and gave %d verdicts; sifu --compat agrees with %.2f %% of them (%d of %d folders under v1, %d of %d under v2; %.2f %% counting each crash as a disagreement)",
		a.Folders, a.UpstreamCrashed["v1"], a.UpstreamCrashed["v2"], a.Verdicts(), a.Percent(), a.Agreed["v1"], a.Folders, a.Agreed["v2"], a.Folders, a.PercentWithCrashes())
	if a.Percent() < 99 {
		t.Errorf("compat agreement %.2f %% is below 99 %%", a.Percent())
	}
	strict, err := acp.Compare(folders, t.TempDir(), func(folder, schema string) int {
		return acpref.New(acpref.Options{Schema: acpref.Schema(schema), NoSync: true}).Validate(folder).Exit()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("for comparison, sifu's strict default agrees with %.2f %% of upstream's verdicts (its strict rules find more)", strict.Percent())
	for _, d := range a.Disagreed {
		if d.Crash != "" && d.Got != 2 {
			t.Errorf("%s under %s: upstream crashed, and sifu must report the folder invalid (exit 2), not exit %d", d.Folder, d.Schema, d.Got)
		}
	}
}

// TestCorpusVerdictsAreUpstreams re-runs upstream's validators on the
// corpus when ACP_UPSTREAM_V1 and ACP_UPSTREAM_HEAD name local copies of
// their scripts directories (kept outside the repository), and reports any
// folder whose recorded verdict no longer matches. Skipped otherwise.
func TestCorpusVerdictsAreUpstreams(t *testing.T) {
	dirs := map[string]string{"v1": os.Getenv("ACP_UPSTREAM_V1"), "v2": os.Getenv("ACP_UPSTREAM_HEAD")}
	if dirs["v1"] == "" || dirs["v2"] == "" {
		t.Skip("set ACP_UPSTREAM_V1 and ACP_UPSTREAM_HEAD to local copies of upstream's scripts directories to check the recorded verdicts")
	}
	folders, err := acp.LoadCorpus(sifu.Assets, "vectors/acp", os.DirFS("testdata/corpus"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := acp.Compare(folders, t.TempDir(), func(folder, schema string) int {
		cmd := exec.Command("python3", filepath.Join(dirs[schema], "validate_collaboration.py"), "--folder", folder)
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, d := range a.Disagreed {
		stale = append(stale, fmt.Sprintf("%s (%s: recorded %d, now %d)", d.Folder, d.Schema, d.Upstream, d.Got))
	}
	if len(stale) > 0 {
		t.Errorf("recorded verdicts differ from the scripts': %s", strings.Join(stale, "; "))
	}
}
