// Package sifu carries the suites' data — Gherkin features, JSON vectors,
// their schemas and the rule catalogues — inside every sifu binary, so a run
// needs nothing but the binary.
package sifu

import "embed"

// Assets holds features/ and vectors/ as they are in the repository.
//
//go:embed features vectors
var Assets embed.FS
