package kcp

import (
	"fmt"
	"slices"
)

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
		inEnv := ref.Context == nil || (env != "" && slices.Contains(ref.Context, env))
		if ai := ref.AgentIdentity; ai != nil {
			f.DocsURL = ai.DocsURL
			if isTrue(ai.Required) && ai.CredentialHint != "" && !slices.Contains(pl.o.credentials, ai.CredentialHint) {
				f.CredentialNeeded = ai.CredentialHint
			}
		}
		f.Selected = inEnv
		switch {
		case !inEnv && env != "":
			f.Reason = fmt.Sprintf("context %s excludes env '%s'", jsonStringArray(ref.Context), env)
		case !inEnv:
			f.Reason = fmt.Sprintf("context %s requires a declared env; none given (fail-closed)", jsonStringArray(ref.Context))
		case f.CredentialNeeded != "":
			f.Reason = fmt.Sprintf("needs %s before fetch", f.CredentialNeeded)
		default:
			f.Reason = "eligible"
		}
		out = append(out, f)
	}
	return out
}
