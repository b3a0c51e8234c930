package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/inputfile"
)

// The folder corpus: collaboration folders (the fixtures, recorded runs of
// the upstream scripts and of sifu's tools, and mutations of them), each
// with the exit codes upstream's validators gave it, recorded on a machine
// that had the scripts. A validator in compat mode should give the same
// exit codes; Agreement measures how often it does.

// FixtureVerdicts is the corpus's index of the fixtures' verdicts.
const FixtureVerdicts = "fixtures.json"

// Verdicts are upstream's validator exit codes for one folder: v1 is the
// seed's scripts (c12ba73), head the schema v2 scripts. A *_crash entry
// holds the last line of a traceback when the script crashed (exit 1).
type Verdicts struct {
	V1        int    `json:"v1"`
	Head      int    `json:"head"`
	V1Crash   string `json:"v1_crash,omitempty"`
	HeadCrash string `json:"head_crash,omitempty"`
}

// CorpusFolder is one folder of the corpus.
type CorpusFolder struct {
	Name     string         `json:"-"`
	Origin   string         `json:"origin"`
	Upstream Verdicts       `json:"upstream"`
	Files    map[string]any `json:"files"` // path inside the folder → text or {"base64": …}
}

// LoadCorpus reads the fixture folders under the vectors directory dir of
// fsys, with their verdicts from the corpus's index, and the corpus
// folders of corpus (one JSON file each). Every fixture must have verdicts.
func LoadCorpus(fsys fs.FS, dir string, corpus fs.FS) ([]CorpusFolder, error) {
	var out []CorpusFolder
	idx := FixtureVerdicts
	raw, err := inputfile.ReadFS(corpus, idx)
	if err != nil {
		return nil, err
	}
	raw = inputfile.Text(raw)
	verdicts := map[string]Verdicts{}
	if err := json.Unmarshal(raw, &verdicts); err != nil {
		return nil, fmt.Errorf("%s: %v", idx, err)
	}
	entries, err := fs.ReadDir(fsys, path.Join(dir, FixturesDir))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		v, ok := verdicts[e.Name()]
		if !ok {
			return nil, fmt.Errorf("%s: fixture %s has no upstream verdicts; record them", idx, e.Name())
		}
		files, err := readFixture(fsys, path.Join(dir, FixturesDir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, CorpusFolder{Name: "fixtures/" + e.Name(), Origin: "fixture", Upstream: v, Files: files})
	}
	list, err := fs.ReadDir(corpus, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range list {
		if e.IsDir() || e.Name() == FixtureVerdicts || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		file := e.Name()
		raw, err := inputfile.ReadFS(corpus, file)
		if err != nil {
			return nil, err
		}
		raw = inputfile.Text(raw)
		var f CorpusFolder
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		f.Name = "corpus/" + strings.TrimSuffix(e.Name(), ".json")
		out = append(out, f)
	}
	return out, nil
}

// Materialize writes the folder under root as root/collab (a path
// starting "../" lands beside it, for external deliverables) and returns
// the folder's path.
func (f CorpusFolder) Materialize(root string) (string, error) {
	folder := filepath.Join(root, "collab")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return "", err
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range f.Files {
			if !yield(k) {
				return
			}
		}
	}) {
		p := filepath.Clean(filepath.Join(folder, filepath.FromSlash(name)))
		if !strings.HasPrefix(p, root+string(filepath.Separator)) {
			return "", fmt.Errorf("%s: %s leaves the corpus root", f.Name, name)
		}
		var data []byte
		switch c := f.Files[name].(type) {
		case string:
			data = []byte(c)
		case map[string]any:
			s, _ := c["base64"].(string)
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return "", fmt.Errorf("%s: %s: %v", f.Name, name, err)
			}
			data = b
		default:
			return "", fmt.Errorf("%s: %s is neither text nor {\"base64\": …}", f.Name, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
	}
	return folder, nil
}

// Disagreement is a folder on which a validator's exit code differs from
// upstream's.
type Disagreement struct {
	Folder, Schema string
	Upstream, Got  int
	Crash          string // upstream crashed: the traceback's last line
}

// Agreement is the outcome of comparing a validator with upstream's over
// the corpus, per schema (v1 with upstream v1, v2 with upstream HEAD).
type Agreement struct {
	Folders         int
	Agreed          map[string]int // per schema
	Disagreed       []Disagreement
	UpstreamCrashed map[string]int // folders where upstream crashed, per schema
}

// Verdicts counts the exit codes upstream gave as a validator: every folder
// under both schemas, less those where it crashed (a traceback is no
// verdict).
func (a Agreement) Verdicts() int {
	return 2*a.Folders - a.UpstreamCrashed["v1"] - a.UpstreamCrashed["v2"]
}

// Percent is the share of upstream's verdicts the validator agrees with.
func (a Agreement) Percent() float64 {
	if a.Verdicts() == 0 {
		return 0
	}
	disagreed := 0
	for _, d := range a.Disagreed {
		if d.Crash == "" {
			disagreed++
		}
	}
	return 100 * float64(a.Verdicts()-disagreed) / float64(a.Verdicts())
}

// PercentWithCrashes counts a crash as a disagreement too.
func (a Agreement) PercentWithCrashes() float64 {
	if a.Folders == 0 {
		return 0
	}
	return 100 * float64(2*a.Folders-len(a.Disagreed)) / float64(2*a.Folders)
}

// Compare runs validate (a validator of a folder under a schema: "v1" or
// "v2"; it returns the exit code) on every folder and counts agreement.
func Compare(folders []CorpusFolder, tmp string, validate func(folder, schema string) int) (Agreement, error) {
	a := Agreement{Folders: len(folders), Agreed: map[string]int{}, UpstreamCrashed: map[string]int{}}
	for i, f := range folders {
		root := filepath.Join(tmp, fmt.Sprintf("f%04d", i))
		folder, err := f.Materialize(root)
		if err != nil {
			return a, err
		}
		for _, c := range []struct {
			schema, crash string
			want          int
		}{{"v1", f.Upstream.V1Crash, f.Upstream.V1}, {"v2", f.Upstream.HeadCrash, f.Upstream.Head}} {
			if c.crash != "" {
				a.UpstreamCrashed[c.schema]++
			}
			if got := validate(folder, c.schema); got == c.want {
				a.Agreed[c.schema]++
			} else {
				a.Disagreed = append(a.Disagreed, Disagreement{Folder: f.Name, Schema: c.schema, Upstream: c.want, Got: got, Crash: c.crash})
			}
		}
		os.RemoveAll(root)
	}
	return a, nil
}
