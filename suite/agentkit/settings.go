package agentkit

// Settings are what a check may vary in the generated configuration.
type Settings struct {
	Approval string `json:"approval"` // interactive, auto or deny
	Suspend  bool   `json:"suspend"`
	Budget   int    `json:"budget"` // max model calls per turn; 0 for none
	// Collide adds a second source, billing, that also offers deduct.
	Collide bool `json:"collide"`
	// MaxRisk is catalog.max_risk ("" leaves the default, mutating).
	MaxRisk string `json:"max_risk"`
	// Rules are the assistant's approval rules, in order.
	Rules []ApprovalRule `json:"rules"`
	// Window is the assistant's session.window (0: no session memory).
	Window int `json:"window"`
	// Skills mounts namespaces/reports.yaml on the assistant: a skill,
	// report, whose result always goes with the answer as a deliverable.
	Skills bool `json:"skills"`
	// MCP are MCP tool sources the assistant includes besides ops.
	MCP []MCPSource `json:"mcp,omitempty"`
	// MCPKey names the check to the stub MCP server (the executor sets it),
	// so what a gateway sent to its MCP servers is read per check.
	MCPKey string `json:"mcp_key,omitempty"`

	// Sources are further sources (http or exec) written after ops and the
	// MCP sources, in order. In their config a string "$TOOLS/x" is the
	// stub tool x and "$NOWHERE/x" a URL where nothing listens.
	Sources []Source `json:"sources,omitempty"`
	// Include, when given (an empty list too), replaces the assistant's
	// include patterns; Exclude are its exclude patterns.
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Source is one further source of the generated configuration, its config
// written as given.
type Source struct {
	Name     string         `json:"name"`
	Type     string         `json:"type"`
	Required bool           `json:"required,omitempty"`
	Priority int            `json:"priority,omitempty"`
	Config   map[string]any `json:"config"`
}

// ApprovalRule is one approval rule: a capability ref pattern, argument
// patterns and the action (allow, ask or deny).
type ApprovalRule struct {
	Ref    string            `json:"ref"`
	Args   map[string]string `json:"args,omitempty"`
	Action string            `json:"action"`
}

// DefaultSettings: interactive approval with the suspend store on.
func DefaultSettings() Settings { return Settings{Approval: "interactive", Suspend: true} }

// MCPSource is one MCP tool source of the generated configuration, served
// by sifu's stub MCP server (its tools: find, charge, wipe and secret).
type MCPSource struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio, sse or http (streamable HTTP)
	// Tools is the source's allow-list (empty: every tool of the server).
	Tools         []string          `json:"tools,omitempty"`
	Risk          string            `json:"risk,omitempty"`
	RiskOverrides map[string]string `json:"risk_overrides,omitempty"`
	Required      bool              `json:"required,omitempty"`
	// Down makes the server refuse to start: the stdio command exits at
	// once, the SSE and HTTP endpoints answer 503.
	Down bool `json:"down,omitempty"`
	// Absent points the source at a loopback port where nothing listens
	// (sse and http only).
	Absent bool `json:"absent,omitempty"`
	// Priority is the source's priority (0 when unset).
	Priority int `json:"priority,omitempty"`
	// Version is the source's version: its tools become
	// cap://tool/<source>/<name>@<version>.
	Version string `json:"version,omitempty"`
}
