package results

import "runtime/debug"

// Version is the harness version; release builds may set it with
// -ldflags "-X github.com/sifu-dev/sifu/internal/results.Version=…".
var Version = "0.1.0-dev"

// This is what results say ran them: sifu, its version and the commit
// it was built from, when Go recorded one.
func This() Harness {
	h := Harness{Name: "sifu", Version: Version}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				h.Commit = s.Value
			}
		}
	}
	return h
}
