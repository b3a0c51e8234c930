package agentkithttp

import (
	"bytes"
	"strings"

	"github.com/sifu-dev/sifu/suite/agentkit"
)

// splitStream splits a server-sent event stream into its data frames (the
// data lines of one event joined by newlines; an empty line ends an event)
// and its other lines, in order; comment lines are dropped.
func splitStream(body []byte) *agentkit.Stream {
	st := &agentkit.Stream{EndsWithBlankLine: bytes.HasSuffix(body, []byte("\n\n"))}
	var data []string
	flush := func() {
		if len(data) > 0 {
			st.Items = append(st.Items, agentkit.StreamItem{Frame: strings.Join(data, "\n")})
			data = nil
		}
	}
	// The body is bounded (MaxAnswer), so no line of it is too long to
	// split: every line is read, however long.
	lines := strings.Split(string(body), "\n")
	if strings.HasSuffix(string(body), "\n") || len(body) == 0 {
		lines = lines[:len(lines)-1]
	}
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, ":"):
		default:
			st.Items = append(st.Items, agentkit.StreamItem{Line: line, IsLine: true})
		}
	}
	flush()
	return st
}
