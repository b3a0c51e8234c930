package kcpref

// TreeNode is one manifest of a --follow walk: where it was read, the refs
// it did not follow (and why), the manifests it did, and its plan; or the
// error that kept it from being read.
type TreeNode struct {
	RefID       string // the ref that led here; "" at the root
	Location    string
	NotFollowed []NotFollowed
	Children    []TreeNode
	Signature   *SignatureResult
	Plan        *AgentPlan
	Error       string // a node that could not be read or parsed, or whose signature was refused
}

// NotFollowed is a federation ref a walk did not fetch.
type NotFollowed struct{ ID, URL, Reason string }

// BeyondMaxDepth is the reason a walk gives for a selected ref one hop too
// far.
func BeyondMaxDepth(depth int) string { return "beyond max depth " + formatJSNumber(float64(depth)) }

// BeyondMaxNodes is the fan-out cap's reason.
func BeyondMaxNodes(nodes int) string {
	return "beyond max nodes " + formatJSNumber(float64(nodes)) + " (fan-out cap)"
}

// AlreadyVisited is a ref back to a manifest the walk has read.
const AlreadyVisited = "already visited (cycle)"

func treeNodeJSON(n TreeNode) *jsonObject {
	o := (&jsonObject{}).putIf(n.RefID != "", "refId", n.RefID).put("location", n.Location)
	notFollowed := make([]any, len(n.NotFollowed))
	for i, f := range n.NotFollowed {
		notFollowed[i] = (&jsonObject{}).put("id", f.ID).put("url", f.URL).put("reason", f.Reason)
	}
	children := make([]any, len(n.Children))
	for i, c := range n.Children {
		children[i] = treeNodeJSON(c)
	}
	o.put("notFollowed", notFollowed).put("children", children)
	if n.Signature != nil {
		o.put("signature", signatureJSON(*n.Signature))
	}
	if n.Error != "" {
		return o.put("error", n.Error) // a signature refused: its verdict, then why
	}
	if n.Plan != nil {
		plan := planObject(*n.Plan, true)
		if n.Signature != nil {
			plan.put("signature", signatureJSON(*n.Signature))
		}
		o.put("plan", plan)
	}
	return o
}

// TreeJSON renders `plan --follow --json`: the root node, then
// schemaVersion 1, kind "tree" and a correlationId when one is given.
func TreeJSON(root TreeNode, e Envelope) []byte {
	o := treeNodeJSON(root)
	o.put("schemaVersion", PlanSchemaVersion).put("kind", "tree")
	o.putIf(e.CorrelationID != "", "correlationId", e.CorrelationID)
	return render(o)
}
