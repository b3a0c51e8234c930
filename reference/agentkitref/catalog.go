package agentkitref

import (
	"context"
	"fmt"
	"time"
)

// sourceDecl is one top-level source in declaration order: its capabilities
// (http and exec sources), or its MCP server, remote agent service or vector
// source, connected or made when the gateway is built.
type sourceDecl struct {
	name     string
	priority int
	caps     []*capability
	mcp      *mcpDecl
	a2a      *a2aDecl
	vector   *vectorDecl
}

// catalog holds every source's capabilities by key (kind/domain/name),
// admitted by risk; a key keeps its first position when a higher priority
// shadows it.
type catalog struct {
	maxRisk int
	faults  []Fault
	keys    []string
	entries map[string]catalogEntry
}

type catalogEntry struct {
	c        *capability
	source   string
	priority int
}

func newCatalog(maxRisk int, faults []Fault) *catalog {
	return &catalog{maxRisk: maxRisk, faults: faults, entries: map[string]catalogEntry{}}
}

// add takes a source's capabilities: riskier than catalog.max_risk is left
// out; of one key the higher priority wins, and equal priorities conflict.
func (k *catalog) add(source string, priority int, caps []*capability) error {
	for _, c := range caps {
		if c.risk > k.maxRisk && !has(k.faults, FaultKeepDangerous) {
			continue
		}
		key := c.ref.Key()
		old, ok := k.entries[key]
		switch {
		case !ok:
			k.keys = append(k.keys, key)
		case has(k.faults, FaultCatalogFirstWins):
			continue
		case priority < old.priority:
			continue
		case priority == old.priority && !has(k.faults, FaultCatalogLastWins):
			return fmt.Errorf("catalog: capability %s supplied by both %q and %q with equal priority", c.ref, old.source, source)
		}
		k.entries[key] = catalogEntry{c: c, source: source, priority: priority}
	}
	return nil
}

// list is the admitted capabilities in the order their keys first came.
func (k *catalog) list() []*capability {
	out := make([]*capability, 0, len(k.keys))
	for _, key := range k.keys {
		out = append(out, k.entries[key].c)
	}
	return out
}

// localTools are the gateway's own capabilities, the source local:
// current_time answers the time in RFC 3339.
func localTools(now func() time.Time) []*capability {
	return []*capability{{ref: Ref{Kind: "tool", Domain: "local", Name: "current_time"}, description: "Get the current time",
		run: func(context.Context, string) (string, bool) { return now().Format(time.RFC3339), true }}}
}
