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
	Supply
	Runtime
	Keeping
}

// Keeping are the settings of what an agent keeps over a conversation:
// loop.compaction, the long-term memory's scopes, seed and recall, and
// the todo module's store slot.
type Keeping struct {
	// Compaction is the assistant's loop.compaction (nil: none).
	Compaction *CompactionSettings `json:"compaction,omitempty"`
	// MemoryRead is memory.scope.read (empty: the default, user and
	// shared).
	MemoryRead []string `json:"memory_read,omitempty"`
	// MemorySeed are memory.seed's entries, put in the shared pool at
	// start-up.
	MemorySeed []MemorySeed `json:"memory_seed,omitempty"`
	// MemoryRecall is memory.recall.top_k (0: no automatic recall).
	MemoryRecall int `json:"memory_recall,omitempty"`
	// TodoStore is the todo module's store slot: "named" declares a file
	// store instance plans (kind todo, dir ./plans) and refers to it as
	// cap://store/todo/plans, "bare" writes store: file with store_config
	// {dir: ./plans}; "" leaves the default.
	TodoStore string `json:"todo_store,omitempty"`
}

// CompactionSettings are a loop.compaction block.
type CompactionSettings struct {
	MaxMessages int `json:"max_messages,omitempty"`
	MaxTokens   int `json:"max_tokens,omitempty"`
	KeepRecent  int `json:"keep_recent,omitempty"`
	// ToolClearOver and ToolClearKeep are the clearing of old tool
	// results: longer than this many characters, outside the latest
	// ToolClearKeep messages.
	ToolClearOver int `json:"tool_clear_over,omitempty"`
	ToolClearKeep int `json:"tool_clear_keep,omitempty"`
}

// MemorySeed is one memory.seed entry.
type MemorySeed struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Runtime are the settings of the tool time limit, remembered approvals
// and deliver modes.
type Runtime struct {
	// ToolTimeout is reliability.tool_timeout of app.yaml, as written
	// ("300ms"; "" leaves the default).
	ToolTimeout string `json:"tool_timeout,omitempty"`
	// Remember is the assistant's approval.remember.
	Remember bool `json:"remember,omitempty"`
	// Deliver is the deliver mode of the reports namespace's skill ("":
	// always; "none" writes no deliver key, so its result is evidence).
	Deliver string `json:"deliver,omitempty"`
	// SessionStore is the assistant's session.store: "named" declares a
	// file store instance sess (kind session, dir ./sessions) and refers
	// to it as cap://store/session/sess, "bare" writes the shorthand
	// store: file with store_config {dir: ./sessions}; "" leaves the
	// default.
	SessionStore string `json:"session_store,omitempty"`
	// Memory turns on the assistant's long-term memory with its tools
	// (memory.expose_tools), over the default store; MemoryWrite is its
	// memory.scope.write ("": the default, user).
	Memory      bool   `json:"memory,omitempty"`
	MemoryWrite string `json:"memory_write,omitempty"`
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

// Supply is what the checks of the remote-agent, vector, prompt and secret
// supply vary in the generated configuration (profile supply).
type Supply struct {
	// A2A are remote agents (type: a2a sources) served by sifu's stub A2A
	// server (its agents: researcher and writer).
	A2A []A2ASource `json:"a2a,omitempty"`
	// Vector are vector sources with their in-memory documents.
	Vector []VectorSource `json:"vector,omitempty"`
	// Prompts are the prompt sources: file prompts written under prompts/
	// (source local) and prompts sifu's stub serves over HTTP (source
	// remote), by name.
	Prompts *PromptSettings `json:"prompts,omitempty"`
	// System is the assistant's prompt.system ("": sifu's literal one).
	System string `json:"system,omitempty"`
	// Env is added to the gateway's environment when it starts.
	Env map[string]string `json:"env,omitempty"`
	// Secrets is the secrets provider of app.yaml ("": none declared).
	Secrets *SecretsSettings `json:"secrets,omitempty"`
	// Comment is written as a comment line of app.yaml.
	Comment string `json:"comment,omitempty"`
	// Structured is the assistant's structured_output: a JSON Schema its
	// final answers must meet, and how often an answer is sent back to be
	// fixed.
	Structured *StructuredSettings `json:"structured,omitempty"`
	// Trajectory turns on the trajectory log, written to TrajectoryFile
	// in the gateway's working directory.
	Trajectory bool `json:"trajectory,omitempty"`
	// DigestOver is the assistant's digest.over: tool results longer than
	// this many characters are digested (0: no digest).
	DigestOver int `json:"digest_over,omitempty"`
}

// TrajectoryFile is where the generated configuration has the gateway
// write its trajectory log, relative to its working directory.
const TrajectoryFile = "trajectory/run.jsonl"

// StructuredSettings are an agent's structured_output.
type StructuredSettings struct {
	Schema     string `json:"schema"`
	MaxRetries int    `json:"max_retries,omitempty"`
}

// A2ASource is a remote agent service of the generated configuration.
type A2ASource struct {
	Name string `json:"name"`
	// Agents is the source's allow-list (empty: every remote agent).
	Agents  []string          `json:"agents,omitempty"`
	Risk    string            `json:"risk,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Answer is how the remote agents answer a task: "" a receipt
	// ({"result"}), "error" a {"error"} body.
	Answer   string `json:"answer,omitempty"`
	Required bool   `json:"required,omitempty"`
}

// VectorSource is a source of type vector over the built-in in-memory
// backend.
type VectorSource struct {
	Name        string   `json:"name"`
	ToolName    string   `json:"tool_name,omitempty"`
	Description string   `json:"description,omitempty"`
	TopK        int      `json:"top_k,omitempty"`
	MaxDocLen   int      `json:"max_doc_len,omitempty"`
	Docs        []string `json:"docs"`
}

// PromptSettings are the prompt sources of app.yaml.
type PromptSettings struct {
	DefaultLabel string `json:"default_label,omitempty"`
	// Files are prompts/<name>.md of the file source local.
	Files map[string]string `json:"files,omitempty"`
	// Served are the prompts sifu's stub serves for the http source
	// remote; "{label}" in a text becomes the label asked for.
	Served map[string]string `json:"served,omitempty"`
	// Inline are the prompts of the inline source inline, written in
	// app.yaml.
	Inline map[string]string `json:"inline,omitempty"`
}

// SecretsSettings are app.yaml's secrets section.
type SecretsSettings struct {
	Provider string `json:"provider"` // env or file
	// File is the secrets file (secrets.yaml, name: value) of provider
	// file.
	File map[string]string `json:"file,omitempty"`
}
