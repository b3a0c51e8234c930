package runner

import "strings"

// MatchTags evaluates a tag expression in godog's syntax against a check's
// tags: "@a,@b" means a or b, "@a && @b" means both, "~@a" means not a.
// Tags are compared without their "@". An empty expression matches all.
func MatchTags(expr string, tags []string) bool {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return true
	}
	have := map[string]bool{}
	for _, t := range tags {
		have[strings.TrimPrefix(t, "@")] = true
	}
	for _, alt := range strings.Split(expr, ",") {
		all := true
		for _, term := range strings.Split(alt, "&&") {
			term = strings.TrimSpace(term)
			neg := strings.HasPrefix(term, "~")
			name := strings.TrimPrefix(strings.TrimPrefix(term, "~"), "@")
			if have[name] == neg {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// ValidTagExpr reports a problem with a tag expression, or "".
func ValidTagExpr(expr string) string {
	for _, alt := range strings.Split(expr, ",") {
		for _, term := range strings.Split(alt, "&&") {
			t := strings.TrimPrefix(strings.TrimSpace(term), "~")
			if !strings.HasPrefix(t, "@") || len(t) < 2 || strings.ContainsAny(t[1:], " @~") {
				return "each term must be a tag such as @replay or ~@slow, joined with && (and) or , (or)"
			}
		}
	}
	return ""
}
