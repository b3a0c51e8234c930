package kcpref

import (
	"encoding/json"
	"strings"
)

// PlanSchemaVersion is the schemaVersion of the machine-readable plan.
const PlanSchemaVersion = 1

// Envelope is what the CLI adds around a plan in `plan --json`.
type Envelope struct {
	// Signature is the manifest's signature verdict (VerifySignature); nil
	// leaves it out, as a planner that did not verify does.
	Signature *SignatureResult
	// CorrelationID is echoed when non-empty (--correlation-id).
	CorrelationID string
}

// PlanJSON renders a plan as `kcp-agent plan --json` prints it: the
// library plan (PlanObjectJSON) with the manifest's sha256 appended to
// its manifest block and the signature verdict after it, then
// schemaVersion 1, kind "plan" and a correlationId when one is given;
// two-space indentation, JavaScript number formatting, and a trailing
// newline. Field order, optional fields and every note text are
// kcp-agent 0.27.0's.
func PlanJSON(p AgentPlan, e Envelope) []byte {
	root := planObject(p, true)
	if e.Signature != nil {
		root.put("signature", signatureJSON(*e.Signature))
	}
	root.put("schemaVersion", PlanSchemaVersion)
	root.put("kind", "plan")
	root.putIf(e.CorrelationID != "", "correlationId", e.CorrelationID)
	return render(root)
}

// PlanObjectJSON renders a plan as kcp-agent's plan() returns it, through
// JSON.stringify(plan, null, 2): what the library gives a caller, without
// the sha256, signature and envelope the command line adds.
func PlanObjectJSON(p AgentPlan) []byte { return render(planObject(p, false)) }

// PlanObject is PlanObjectJSON on one line (JSON.stringify(plan)), as
// the runner protocol carries it.
func PlanObject(p AgentPlan) json.RawMessage {
	var b strings.Builder
	jsonWrite(&b, planObject(p, false), "", 0)
	return json.RawMessage(b.String())
}

func render(root *jsonObject) []byte {
	var b strings.Builder
	jsonWrite(&b, root, "  ", 0)
	b.WriteByte('\n')
	return []byte(b.String())
}

func planObject(p AgentPlan, withSHA bool) *jsonObject {
	root := &jsonObject{}
	root.put("task", p.Task)
	root.put("manifest", manifestJSON(p.Manifest, withSHA))
	root.put("trust", (&jsonObject{}).
		put("requiresAttestation", p.Trust.RequiresAttestation).
		put("agentCanAttest", p.Trust.AgentCanAttest).
		put("note", p.Trust.Note))
	if p.Environment != nil {
		root.put("environment", *p.Environment)
	}
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
	if s := p.Serving; s != nil {
		root.put("serving", (&jsonObject{}).
			put("status", s.Status).
			put("detail", s.Detail).
			putIf(s.RetrievalURL != "", "retrievalUrl", s.RetrievalURL).
			putIf(s.Declared != nil, "declared", s.Declared))
	}
	return root
}

func signatureJSON(s SignatureResult) *jsonObject {
	o := (&jsonObject{}).put("status", s.Status).put("detail", s.Detail)
	if s.KeyID != nil {
		o.put("keyId", *s.KeyID)
	}
	return o
}

func manifestJSON(m PlanManifest, withSHA bool) *jsonObject {
	o := (&jsonObject{}).put("project", m.Project).put("version", m.Version)
	if m.KCPVersion != nil {
		o.put("kcpVersion", *m.KCPVersion)
	}
	return o.putIf(m.Source != "", "source", m.Source).putIf(withSHA && m.SHA256 != "", "sha256", m.SHA256)
}

func optionsJSON(o PlanOptions) *jsonObject {
	caps := (&jsonObject{}).
		put("role", o.Role).
		put("paymentMethods", o.PaymentMethods).
		put("credentials", o.Credentials)
	if o.AttestationProvider != nil {
		caps.put("attestationProvider", *o.AttestationProvider)
	}
	out := (&jsonObject{}).put("capabilities", caps).put("maxUnits", o.MaxUnits).put("strict", o.Strict)
	if b := o.Budget; b != nil {
		bo := (&jsonObject{}).put("amount", b.Amount)
		if b.Currency != nil {
			bo.put("currency", *b.Currency)
		}
		if b.Spent != nil {
			bo.put("spent", *b.Spent)
		}
		out.put("budget", bo)
	}
	out.putIf(o.ContextBudget != nil, "contextBudget", o.ContextBudget)
	if o.GrantCeiling != nil {
		out.put("grantCeiling", *o.GrantCeiling)
	}
	if s := o.Spend; s != nil {
		so := (&jsonObject{}).putIf(s.Amount != nil, "amount", s.Amount)
		putString(so, "vendor", s.Vendor)
		putString(so, "currency", s.Currency)
		out.put("spend", so)
	}
	if a := o.Action; a != nil {
		ao := &jsonObject{}
		putString(ao, "tool", a.Tool)
		putString(ao, "path", a.Path)
		putString(ao, "capability", a.Capability)
		out.put("action", ao)
	}
	return out
}

func putString(o *jsonObject, key string, s *string) {
	if s != nil {
		o.put(key, *s)
	}
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
		put("reasons", s.Reasons).
		put("payment", pay).
		put("requiresAttestation", s.RequiresAttestation).
		put("loadEligible", s.LoadEligible)
	if as := s.ActionScope; as != nil {
		scope := (&jsonObject{}).put("tools", as.Tools).put("paths", as.Paths).put("capabilities", as.Capabilities)
		if sp := as.Spend; sp != nil {
			so := (&jsonObject{}).putIf(sp.MaxSpend != nil, "max_spend", sp.MaxSpend).put("allowed_vendors", sp.AllowedVendors)
			putString(so, "currency", sp.Currency)
			scope.put("spend", so)
		}
		if d := as.Deny; d != nil {
			scope.put("deny", (&jsonObject{}).put("tools", d.Tools).put("paths", d.Paths).put("capabilities", d.Capabilities))
		}
		o.put("action_scope", scope)
	}
	governanceJSON(o, s.Governance)
	return o
}

func governanceJSON(o *jsonObject, g *Governance) {
	if g == nil {
		return
	}
	if a := g.Authority; a != nil {
		o.put("authority", (&jsonObject{}).put("ceiling", a.Ceiling).put("bindingSource", a.BindingSource))
	}
	if s := g.Spend; s != nil {
		so := (&jsonObject{}).putIf(s.MaxSpend != nil, "maxSpend", s.MaxSpend).
			putIf(s.AllowedVendors != nil, "allowedVendors", s.AllowedVendors)
		putString(so, "currency", s.Currency)
		o.put("spend", so.put("bindingSource", s.BindingSource))
	}
	if len(g.GrantRequests) > 0 {
		list := make([]any, len(g.GrantRequests))
		for i, r := range g.GrantRequests {
			list[i] = (&jsonObject{}).put("step", r.Step).put("triggers", r.Triggers).put("note", r.Note)
		}
		o.put("grantRequests", list)
	}
	if len(g.ProhibitedAttempts) > 0 {
		list := make([]any, len(g.ProhibitedAttempts))
		for i, a := range g.ProhibitedAttempts {
			list[i] = (&jsonObject{}).put("step", a.Step).put("dimension", a.Dimension).put("token", a.Token).
				put("bindingSource", a.BindingSource).put("note", a.Note)
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
		costs[i] = (&jsonObject{}).put("unit", c.Unit).put("cost", c.Cost)
	}
	o.put("perRequestCosts", costs)
	if b.Ceiling != nil {
		o.put("ceiling", b.Ceiling).put("currency", b.Currency)
		o.putIf(b.AlreadyCommitted != nil, "alreadyCommitted", b.AlreadyCommitted)
		o.put("projectedSpend", b.ProjectedSpend).put("remaining", b.Remaining)
	}
	return o.put("note", b.Note)
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
