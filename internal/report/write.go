package report

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/sifu-dev/sifu/internal/runner"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/app.js
	appJS string
	//go:embed assets/style.css
	styleCSS string
)

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"label": label,
	"join":  strings.Join,
	"statuses": func(cells []cell) string {
		var out []string
		for _, c := range cells {
			if c.Status != "" && !strings.Contains(" "+strings.Join(out, " ")+" ", " "+c.Status+" ") {
				out = append(out, c.Status)
			}
		}
		return strings.Join(out, " ")
	},
}).Parse(pageHTML))

// label is a status as people read it; every cell says it in words, not by
// colour alone.
func label(status string) string {
	switch status {
	case "":
		return "not reported"
	case "not_evidenced":
		return "not evidenced"
	case "not_applicable":
		return "not applicable"
	case "not_black_box":
		return "not black-box"
	case "harness_error":
		return "harness error"
	}
	return status
}

// Summary says what a report holds.
type Summary struct {
	Suites, Runs, Files int
	Skipped             []Skipped
}

// Make reads the runs at paths and writes the site into dir: index.html
// and, under dir/data, one script per check transcript. plans gives the
// harness's plan of each suite.
func Make(ctx context.Context, dir string, paths []string, suites Suites) (Summary, error) {
	// The site's own directory may be among the inputs (sifu report --out
	// out/report out/*): it holds no run, and is passed over.
	var inputs []string
	for _, p := range paths {
		if !sameDir(p, dir) {
			inputs = append(inputs, p)
		}
	}
	runs, skipped, err := Load(ctx, inputs, suites)
	if err != nil {
		return Summary{Skipped: skipped}, err
	}
	plans := map[string]*runner.Plan{}
	for _, r := range runs {
		name := r.Results.Suite
		if _, ok := plans[name]; ok {
			continue
		}
		plan, _, err := suites(name)
		if err != nil {
			return Summary{}, fmt.Errorf("%s: %w", r.Dir, err)
		}
		plans[name] = plan
	}
	s, files, err := build(ctx, runs, plans, skipped)
	if err != nil {
		return Summary{}, err
	}
	if err := write(dir, s, files); err != nil {
		return Summary{}, err
	}
	return Summary{Suites: len(s.Suites), Runs: len(runs), Files: len(files) + 1, Skipped: skipped}, nil
}

func write(dir string, s *site, files []dataFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The data of an earlier report would be stale: it is made anew.
	if err := os.RemoveAll(filepath.Join(dir, "data")); err != nil {
		return err
	}
	var b bytes.Buffer
	err := page.Execute(&b, struct {
		*site
		CSS template.CSS
		JS  template.JS
	}{s, template.CSS(styleCSS), template.JS(appJS)})
	if err != nil {
		return fmt.Errorf("render the report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644); err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		key, _ := json.Marshal(f.Key)
		body, err := json.Marshal(f.Body)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		js := fmt.Sprintf("sifuTranscript(%s, %s);\n", key, body)
		if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sameDir(a, b string) bool {
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}
