package kcp

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sifu-dev/sifu/internal/inputfile"
)

// A command vector with steps, or one that judges the files a command
// wrote, runs its command lines in one directory the executor makes for
// the check and removes when the check ends (Executor.Close): a memory
// directory, a scaffolded manifest, a saved plan live on from one step to
// the next.

// maxFiles bounds what one step reads back of the session directory.
const maxFiles = 256

// sessionDir is the check's directory, made on first use (stableDir: the
// same path from run to run for a vector of that name).
func (e *Executor) sessionDir(name string) (string, error) {
	if e.dir == "" {
		dir, err := stableDir(name)
		if err != nil {
			return "", fmt.Errorf("the check's directory: %w", err)
		}
		e.dir = dir
	}
	return e.dir, nil
}

// Close ends a check: it stops the server a serve step or the command a
// cli_start step left running and removes the check's directory, if a
// step made one.
func (e *Executor) Close() {
	e.stopServe()
	e.stopRunning()
	if e.dir != "" {
		os.RemoveAll(e.dir)
		e.dir = ""
	}
}

// readBack reads what a step judges of the directory after its command:
// each path (slash-separated, relative) is a file, whose text it gives,
// or a directory, whose entries it gives as an object (name → text, or a
// directory's own object). The result nests each path's segments
// ({"mem": {"<id>.json": "…"}}); a path that does not exist is left out,
// so $absent finds nothing there. The manifest's and the directory's paths
// are written back as placeholders.
func readBack(dir, manifest string, paths []string) (map[string]any, error) {
	files := map[string]any{}
	budget := maxFiles
	for _, p := range slices.Sorted(slices.Values(paths)) {
		clean := path.Clean(p)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return nil, fmt.Errorf("files: %q is not a relative path inside the directory", p)
		}
		v, ok, err := readEntry(filepath.Join(dir, filepath.FromSlash(clean)), dir, manifest, &budget)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		segs := strings.Split(clean, "/")
		node := files
		for _, s := range segs[:len(segs)-1] {
			next, _ := node[s].(map[string]any)
			if next == nil {
				next = map[string]any{}
				node[s] = next
			}
			node = next
		}
		node[segs[len(segs)-1]] = v
	}
	return files, nil
}

func readEntry(file, dir, manifest string, budget *int) (any, bool, error) {
	st, err := os.Stat(file)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if *budget--; *budget < 0 {
		return nil, false, fmt.Errorf("files: more than %d entries to read back", maxFiles)
	}
	if !st.IsDir() {
		raw, err := inputfile.Read(file)
		if err != nil {
			return nil, false, err
		}
		return Unplace(string(raw), dir, manifest), true, nil
	}
	entries, err := os.ReadDir(file)
	if err != nil {
		return nil, false, err
	}
	out := map[string]any{}
	for _, ent := range entries {
		v, ok, err := readEntry(filepath.Join(file, ent.Name()), dir, manifest, budget)
		if err != nil {
			return nil, false, err
		}
		if ok {
			out[ent.Name()] = v
		}
	}
	return out, true, nil
}
