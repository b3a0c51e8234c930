package registry

import (
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/sifu-dev/sifu/internal/declaration"
	"github.com/sifu-dev/sifu/internal/knownfail"
	"github.com/sifu-dev/sifu/internal/results"
)

// UpdateExpectations writes the expectations file from a run's results:
// every check that did not pass, named in an entry with the status it
// ended with, keeping the reasons file already gives (knownfail.Update).
// It returns how many entries the file has and how many checks they name.
func UpdateExpectations(resultsPath, file string) (entries, checks int, err error) {
	run, _, err := declaration.ReadResults(resultsPath)
	if err != nil {
		return 0, 0, usagef("%v", err)
	}
	var old *knownfail.File
	if _, statErr := os.Stat(file); statErr == nil {
		if old, _, err = knownfail.Load(file); err != nil {
			return 0, 0, usagef("%v", err)
		}
	}
	f := knownfail.Update(run, old)
	raw, err := knownfail.Marshal(f)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range f.ExpectedFailures {
		checks += len(e.Checks) + len(e.Intermittent)
	}
	return len(f.ExpectedFailures), checks, os.WriteFile(file, raw, 0o644)
}

// WriteFinding writes a fuzz finding's vector to dir as
// fuzz-<suite>-<seed>.json and returns its path.
func WriteFinding(dir, suite string, seed uint64, vector []byte) (string, error) {
	file := filepath.Join(dir, fuzzName(suite, seed)+".json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", usagef("--out %s: %v", dir, err)
	}
	if err := os.WriteFile(file, vector, 0o644); err != nil {
		return "", usagef("--out %s: %v", dir, err)
	}
	return file, nil
}

// VersionLine is what --version prints: the version and, from the build
// information Go records, the commit it was built from and whether the
// tree had changes.
func VersionLine() string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(results.Version, info)
}

func versionFrom(v string, info *debug.BuildInfo) string {
	commit, modified := "", false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	switch {
	case commit == "":
		return v + " (commit unknown: built without version control information, as go run and -buildvcs=false build)"
	case modified:
		return v + " (commit " + commit + ", with uncommitted changes)"
	}
	return v + " (commit " + commit + ")"
}

// Diff reads two runs' results.json and compares them (results.Diff); a
// file that cannot be read, or two runs that cannot be compared, are a
// usage error.
func Diff(oldPath, newPath string) (*results.Delta, error) {
	old, _, err := declaration.ReadResults(oldPath)
	if err != nil {
		return nil, usagef("%v", err)
	}
	cur, _, err := declaration.ReadResults(newPath)
	if err != nil {
		return nil, usagef("%v", err)
	}
	d, err := results.Diff(old, cur)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return d, nil
}
