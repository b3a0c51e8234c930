// Package netmsg turns the texts of Go's HTTP client errors that say
// nothing to a reader into sentences, for the adapters that speak HTTP.
package netmsg

import (
	"errors"
	"strings"
)

// peekFailed is what net/http says when a server writes before it is asked
// (a speaker of another protocol, such as an SSH banner): the connection
// is dropped with a text that wraps a nil error.
const peekFailed = "readLoopPeekFailLocked: %!w(<nil>)"

// Clean rewrites err's text where Go's HTTP client leaves a formatting
// artefact: a server that wrote before any request is reported as the
// malformed HTTP response it is. Any other error is returned as it is.
func Clean(err error) error {
	if err == nil || !strings.Contains(err.Error(), peekFailed) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), peekFailed, "malformed HTTP response: the server wrote before it was asked, so it does not speak HTTP"))
}
