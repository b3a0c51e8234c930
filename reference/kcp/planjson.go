package kcp

import "strings"

// PlanSchemaVersion is the schemaVersion of the machine-readable plan.
const PlanSchemaVersion = 1

// Envelope is what the CLI adds around a plan in `plan --json`.
type Envelope struct {
	// Signature is the manifest signature status. When nil it is derived:
	// {unsigned, "manifest declares no signature"} for a manifest without
	// a signing block, else {unverified, …}, because this package does not
	// verify signatures.
	Signature *SignatureStatus
	// CorrelationID is echoed when non-empty (--correlation-id).
	CorrelationID string
}

// SignatureStatus is the signature verdict shown in the plan JSON.
type SignatureStatus struct {
	Status string
	Detail string
}

// PlanJSON renders a plan as `kcp-agent plan --json` prints it: the plan
// fields at the top level, then signature, serving, correlationId,
// schemaVersion 1 and kind "plan"; two-space indentation, JavaScript
// number formatting, optional fields left out when unset, and a trailing
// newline. The key order and the note texts are this package's choice;
// the decisions, reasons and numbers are the contract.
func PlanJSON(p AgentPlan, e Envelope) []byte {
	root := &jsonObject{}
	root.put("task", p.Task)
	root.put("manifest", manifestJSON(p.Manifest))
	root.put("trust", (&jsonObject{}).
		put("requiresAttestation", p.Trust.RequiresAttestation).
		put("agentCanAttest", p.Trust.AgentCanAttest).
		put("note", p.Trust.Note))
	root.putIf(p.Environment != "", "environment", p.Environment)
	root.put("asOf", p.AsOf)
	root.put("options", optionsJSON(p.Options))
	selected := make([]any, len(p.Selected))
	for i, s := range p.Selected {
		selected[i] = selectedJSON(s)
	}
	root.put("selected", selected)
	skipped := make([]any, len(p.Skipped))
	for i, s := range p.Skipped {
		o := (&jsonObject{}).put("id", s.ID).put("reason", s.Reason)
		governanceJSON(o, s.Governance)
		skipped[i] = o
	}
	root.put("skipped", skipped)
	federation := make([]any, len(p.Federation))
	for i, f := range p.Federation {
		federation[i] = (&jsonObject{}).
			put("id", f.ID).
			put("url", f.URL).
			put("selected", f.Selected).
			put("reason", f.Reason).
			putIf(f.CredentialNeeded != "", "credentialNeeded", f.CredentialNeeded).
			putIf(f.DocsURL != "", "docsUrl", f.DocsURL).
			putIf(f.LocalMirror != "", "localMirror", f.LocalMirror)
	}
	root.put("federation", federation)
	root.put("budget", budgetJSON(p.Budget))
	root.put("context", (&jsonObject{}).
		putIf(p.Context.Ceiling != nil, "ceiling", p.Context.Ceiling).
		putIf(p.Context.ProjectedTokens != nil, "projectedTokens", p.Context.ProjectedTokens).
		putIf(p.Context.Remaining != nil, "remaining", p.Context.Remaining).
		put("approximate", p.Context.Approximate).
		put("unmeasured", p.Context.Unmeasured).
		put("note", p.Context.Note))
	root.put("warnings", p.Warnings)
	sig := e.Signature
	if sig == nil {
		sig = &SignatureStatus{Status: "unsigned", Detail: "manifest declares no signature"}
		if p.Manifest.Signed {
			sig = &SignatureStatus{Status: "unverified", Detail: "manifest declares a signature; this implementation does not verify signatures"}
		}
	}
	root.put("signature", (&jsonObject{}).put("status", sig.Status).put("detail", sig.Detail))
	if s := p.Serving; s != nil {
		root.put("serving", (&jsonObject{}).
			putIf(s.Declared != nil, "manifest", s.Declared).
			put("source", s.Source).
			put("status", s.Status))
	}
	root.putIf(e.CorrelationID != "", "correlationId", e.CorrelationID)
	root.put("schemaVersion", PlanSchemaVersion)
	root.put("kind", "plan")
	var b strings.Builder
	jsonWrite(&b, root, "  ", 0)
	b.WriteByte('\n')
	return []byte(b.String())
}

func manifestJSON(m PlanManifest) *jsonObject {
	o := (&jsonObject{}).put("project", m.Project).put("version", m.Version)
	if m.KCPVersion != nil {
		o.put("kcpVersion", *m.KCPVersion)
	}
	return o.putIf(m.Source != "", "source", m.Source).putIf(m.SHA256 != "", "sha256", m.SHA256)
}

func optionsJSON(o PlanOptions) *jsonObject {
	caps := (&jsonObject{}).
		put("role", o.Role).
		put("paymentMethods", o.PaymentMethods).
		put("credentials", o.Credentials).
		putIf(o.AttestationProvider != "", "attestationProvider", o.AttestationProvider)
	out := (&jsonObject{}).put("capabilities", caps).put("maxUnits", o.MaxUnits).put("strict", o.Strict)
	if b := o.Budget; b != nil {
		out.put("budget", (&jsonObject{}).
			put("amount", b.Amount).
			putIf(b.Currency != "", "currency", b.Currency).
			putIf(b.Spent != 0, "spent", b.Spent))
	}
	out.putIf(o.ContextBudget != nil, "contextBudget", o.ContextBudget)
	out.putIf(o.GrantCeiling != "", "grantCeiling", o.GrantCeiling)
	if s := o.Spend; s != nil {
		out.put("spend", (&jsonObject{}).
			putIf(s.Amount != nil, "amount", s.Amount).
			putIf(s.Vendor != "", "vendor", s.Vendor).
			putIf(s.Currency != "", "currency", s.Currency))
	}
	if a := o.Action; a != nil {
		out.put("action", (&jsonObject{}).
			putIf(a.Tool != "", "tool", a.Tool).
			putIf(a.Path != "", "path", a.Path).
			putIf(a.Capability != "", "capability", a.Capability))
	}
	return out
}

func selectedJSON(s SelectedUnit) *jsonObject {
	pay := (&jsonObject{}).
		put("method", s.Payment.Method).
		putIf(s.Payment.Cost != nil, "cost", derefString(s.Payment.Cost)).
		putIf(s.Payment.PricePerRequest != nil, "pricePerRequest", s.Payment.PricePerRequest).
		putIf(s.Payment.Currency != nil, "currency", derefString(s.Payment.Currency)).
		put("affordable", s.Payment.Affordable)
	o := (&jsonObject{}).
		put("id", s.ID).
		put("path", s.Path).
		put("intent", s.Intent).
		put("score", s.Score).
		put("loadEligible", s.LoadEligible).
		put("reasons", s.Reasons).
		put("payment", pay).
		put("requiresAttestation", s.RequiresAttestation)
	if as := s.ActionScope; as != nil {
		scope := (&jsonObject{}).put("tools", as.Tools).put("paths", as.Paths).put("capabilities", as.Capabilities)
		if sp := as.Spend; sp != nil {
			scope.put("spend", spendScopeJSON(sp))
		}
		if d := as.Deny; d != nil {
			scope.put("deny", (&jsonObject{}).put("tools", d.Tools).put("paths", d.Paths).put("capabilities", d.Capabilities))
		}
		o.put("action_scope", scope)
	}
	governanceJSON(o, s.Governance)
	return o
}

func spendScopeJSON(sp *SpendScope) *jsonObject {
	return (&jsonObject{}).
		putIf(sp.MaxSpend != nil, "max_spend", sp.MaxSpend).
		put("allowed_vendors", sp.AllowedVendors).
		putIf(sp.Currency != "", "currency", sp.Currency)
}

func governanceJSON(o *jsonObject, g *Governance) {
	if g == nil {
		return
	}
	if a := g.Authority; a != nil {
		o.put("authority", (&jsonObject{}).put("ceiling", a.Ceiling).put("boundBy", a.BoundBy))
	}
	if s := g.Spend; s != nil {
		o.put("spend", (&jsonObject{}).
			put("step", s.Step).
			put("within", s.Within).
			putIf(s.Detail != "", "detail", s.Detail).
			put("ceiling", spendScopeJSON(s.Ceiling)))
	}
	if len(g.GrantRequests) > 0 {
		list := make([]any, len(g.GrantRequests))
		for i, r := range g.GrantRequests {
			list[i] = (&jsonObject{}).put("step", r.Step).put("escalation", r.Escalation).
				putIf(r.Authority != "", "authority", r.Authority)
		}
		o.put("grantRequests", list)
	}
	if len(g.ProhibitedAttempts) > 0 {
		list := make([]any, len(g.ProhibitedAttempts))
		for i, a := range g.ProhibitedAttempts {
			list[i] = (&jsonObject{}).put("step", a.Step).put("token", a.Token).
				put("dimension", a.Dimension).put("deniedBy", a.DeniedBy)
		}
		o.put("prohibitedAttempts", list)
	}
}

func budgetJSON(b BudgetSummary) *jsonObject {
	o := (&jsonObject{}).put("rateTier", b.RateTier)
	if r := b.RequestsPerMinute; r != nil {
		if r.Unlimited {
			o.put("requestsPerMinute", "unlimited")
		} else {
			o.put("requestsPerMinute", r.N)
		}
	}
	costs := make([]any, len(b.PerRequestCosts))
	for i, c := range b.PerRequestCosts {
		costs[i] = (&jsonObject{}).put("id", c.ID).put("cost", c.Cost).
			putIf(c.PricePerRequest != nil, "pricePerRequest", c.PricePerRequest)
	}
	o.put("perRequestCosts", costs)
	o.putIf(b.Ceiling != nil, "ceiling", b.Ceiling)
	o.putIf(b.ProjectedSpend != nil, "projectedSpend", b.ProjectedSpend)
	o.putIf(b.Remaining != nil, "remaining", b.Remaining)
	o.putIf(b.Ceiling != nil, "currency", b.Currency)
	o.putIf(b.AlreadyCommitted != nil, "alreadyCommitted", b.AlreadyCommitted)
	return o.put("note", b.Note)
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
