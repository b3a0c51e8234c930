package kcpref

import "slices"

// federation is §3.8: one decision per manifests[] ref, in order. A ref
// with no context tag is always in scope; a tagged one only when the
// declared env is listed. A credential the agent lacks is reported even
// when the ref is out of scope; it does not unselect the ref (the
// federation walker refuses to fetch it).
func (pl *planner) federation() []FederationChoice {
	out := make([]FederationChoice, 0, len(pl.m.Manifests))
	env := pl.o.env
	for _, ref := range pl.m.Manifests {
		f := FederationChoice{ID: ref.ID, URL: ref.URL, LocalMirror: ref.LocalMirror}
		inEnv := ref.Context == nil || (env != nil && slices.Contains(ref.Context, *env))
		if ai := ref.AgentIdentity; ai != nil {
			f.DocsURL = ai.DocsURL
			if isTrue(ai.Required) && ai.CredentialHint != "" && !slices.Contains(pl.o.credentials, ai.CredentialHint) {
				f.CredentialNeeded = ai.CredentialHint
			}
		}
		f.Selected = inEnv
		switch {
		case !inEnv && env != nil:
			f.Reason = contextReason(ref.Context, " excludes env '", *env, "'")
		case !inEnv:
			f.Reason = contextReason(ref.Context, " requires a declared env; none given (fail-closed)", "", "")
		case f.CredentialNeeded != "":
			f.Reason = "needs " + f.CredentialNeeded + " before fetch"
		default:
			f.Reason = "eligible"
		}
		out = append(out, f)
	}
	return out
}

// contextReason is "context <tags as JSON> " followed by the rest, built
// in one buffer.
func contextReason(tags []string, a, b, c string) string {
	var buf [160]byte
	r := appendJSONStringArray(append(buf[:0], "context "...), tags)
	return string(append(append(append(r, a...), b...), c...))
}
