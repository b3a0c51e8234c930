package report_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sifu-dev/sifu/internal/engine"
	"github.com/sifu-dev/sifu/internal/results"
)

// browser finds Chromium, or skips the test; with SIFU_BROWSER=required
// (as .ci/run sets it) a missing browser fails instead.
func browser(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SIFU_BROWSER") == "required" {
		t.Fatal("no Chromium on PATH, and SIFU_BROWSER=required (install Debian's chromium)")
	}
	t.Skip("no Chromium on PATH; .ci/run installs it (set SIFU_BROWSER=required to fail instead)")
	return ""
}

func rulesWith(rs *results.Run, status string) int {
	n := 0
	for _, r := range rs.Rules {
		if r.Status == status {
			n++
		}
	}
	return n
}

// TestReportInABrowser opens the page from disk in headless Chromium and
// uses it as a reader would: each column of the matrix shows as many
// passing and failing cells as its run has rules that pass and fail; a
// failing cell opens its checks, and a failing check its transcript, whose
// first line is the check's first line in transcript.jsonl; the status
// filter leaves exactly the rules that failed somewhere. It saves a
// screenshot in $SIFU_ARTIFACTS (or the test's temporary directory).
func TestReportInABrowser(t *testing.T) {
	exe := browser(t)
	dir, good, bad := site(t) // columns: bad (0), good (1), in the order of their directories
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.WindowSize(1400, 1000))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	const matrix = `#suite-kungfu table.matrix tbody`
	cells := func(status string, col int) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("`+matrix+` td.st-`+status+` button[data-impl='`+strconv.Itoa(col)+`']").length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "index.html")), chromedp.WaitVisible(chromedp.CSS(matrix))); err != nil {
		t.Fatal(err)
	}
	for col, run := range []*results.Run{bad, good} {
		for _, st := range []string{results.RulePass, results.RuleFail} {
			if got, want := cells(st, col), rulesWith(run, st); got != want {
				t.Errorf("column %d shows %d %s cells, its run has %d such rules", col, got, st, want)
			}
		}
	}
	if rulesWith(bad, results.RuleFail) == 0 {
		t.Fatal("the run with a planted fault fails no rule")
	}

	// A failing cell, its failing check, that check's transcript.
	const detail = `#suite-kungfu section.detail`
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(matrix+` td.st-fail button`)),
		chromedp.WaitVisible(chromedp.CSS(detail+` article.check.st-fail`)),
		chromedp.Click(chromedp.CSS(detail+` article.check.st-fail button.transcript`)),
		chromedp.WaitVisible(chromedp.CSS(detail+` article.check.st-fail ol.transcript li.exchange`)),
	); err != nil {
		t.Fatal(err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(detail+` h3`)))
	if err != nil {
		t.Fatal(err)
	}
	check, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(detail+` article.check.st-fail`), "data-check"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(detail+` article.check.st-fail ol.transcript li.exchange`), "data-line"))
	if err != nil {
		t.Fatal(err)
	}
	var lines *results.LineRange
	for _, tc := range bad.Tests {
		if tc.ID == check.Value && tc.Status == engine.Fail {
			lines = tc.Lines
		}
	}
	if n, _ := strconv.Atoi(first.Value); lines == nil || n != lines.From {
		t.Errorf("the transcript shown for %s starts at line %s, want %v", check.Value, first.Value, lines)
	}
	if !strings.Contains(heading, "fail") {
		t.Errorf("the detail heading %q does not name the verdict", heading)
	}

	// The status filter leaves the rules that failed in some run.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#suite-kungfu select[data-filter=status]`), "fail"),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#suite-kungfu select[data-filter=status]").dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("`+matrix+` tr:not([hidden])").length`))
	if err != nil {
		t.Fatal(err)
	}
	if want := rulesWith(bad, results.RuleFail); shown != want {
		t.Errorf("with status fail, %d rows are shown, want the %d failing rules", shown, want)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#suite-kungfu select[data-filter=status]`), "")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#suite-kungfu select[data-filter=status]").dispatchEvent(new Event("change")); document.querySelector("#suite-kungfu section.detail").scrollIntoView()`)); err != nil {
		t.Fatal(err)
	}

	// What a reader sees: the top of the page, and the opened transcript.
	top, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	_ = top
	if err != nil {
		t.Fatal(err)
	}
	page, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("`+detail+`").scrollIntoView()`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("SIFU_ARTIFACTS")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, img := range map[string][]byte{"report-top.png": page, "report-transcript.png": png} {
		shot := filepath.Join(out, name)
		if err := os.WriteFile(shot, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", shot)
	}
}
