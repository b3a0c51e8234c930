package agentkitref

import (
	"fmt"
	"strings"
)

// Ref is a parsed capability reference cap://kind/domain/name[@version].
type Ref struct{ Kind, Domain, Name, Version string }

// ParseRef reads the text form of a capability reference.
func ParseRef(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, "cap://")
	if !ok {
		return Ref{}, fmt.Errorf("invalid capability ref %q: missing cap:// scheme", s)
	}
	var r Ref
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest, r.Version = rest[:i], rest[i+1:]
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return Ref{}, fmt.Errorf("invalid capability ref %q: want cap://kind/domain/name", s)
	}
	for _, p := range parts {
		if p == "" {
			return Ref{}, fmt.Errorf("invalid capability ref %q: empty segment", s)
		}
	}
	if strings.Contains(parts[0], "*") {
		return Ref{}, fmt.Errorf("invalid capability ref %q: the kind segment cannot use wildcards (domain/name can, e.g. cap://tool/*/*)", s)
	}
	r.Kind, r.Domain, r.Name = parts[0], parts[1], parts[2]
	return r, nil
}

// String is the text form; the @ is left out when there is no version.
func (r Ref) String() string {
	s := "cap://" + r.Kind + "/" + r.Domain + "/" + r.Name
	if r.Version != "" {
		s += "@" + r.Version
	}
	return s
}

// Key is kind/domain/name, without the version.
func (r Ref) Key() string { return r.Kind + "/" + r.Domain + "/" + r.Name }

// Match reports whether the pattern r matches the reference c.
func (r Ref) Match(c Ref) bool {
	if r.Kind != c.Kind || !segMatch(r.Domain, c.Domain) || !segMatch(r.Name, c.Name) {
		return false
	}
	return r.Version == "" || r.Version == "*" || r.Version == c.Version
}

func segMatch(pat, v string) bool {
	if pat == "*" {
		return true
	}
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(v, p)
	}
	return pat == v
}
