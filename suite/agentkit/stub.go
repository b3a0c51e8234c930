package agentkit

import "context"

// Stub is the model and tool server a gateway under test talks to, as a
// check drives it: a check installs the script its conversation follows,
// and reads what the model and the tools received. One stub serves many
// checks at once; a conversation names its script with Marker(key).
// adapters/agentkithttp serves one over HTTP.
type Stub interface {
	// SetScript installs the script for conversations marked with key.
	SetScript(key string, sc Script)
	// Requests are the model calls received for key, oldest first.
	Requests(key string) []ModelRequest
	// ToolCallRecords are the calls of tool for key, oldest first.
	ToolCallRecords(key, tool string) []ToolCall
	// ToolCalls is how often tool was called for key.
	ToolCalls(key, tool string) int
	// WaitHeld blocks until a model call of key is being held, or ctx ends.
	WaitHeld(ctx context.Context, key string) error
	// Release lets the held model calls of key answer.
	Release(key string)
	// WaitSummary blocks until a summary call of key (Script.Summary) has
	// been answered, or ctx ends.
	WaitSummary(ctx context.Context, key string) error
	// MCPRequests are the requests the stub MCP server of source received
	// for the check named key (Settings.MCPKey), oldest first. Its tool
	// calls are also tool calls (ToolCallRecords, method "MCP", the
	// arguments as the body), keyed by their ref argument.
	MCPRequests(key, source string) []MCPRequest
	// SupplyRequests are the requests the stub A2A agents of source, or
	// (source "prompts") the stub prompt platform, received for the check
	// named key, oldest first.
	SupplyRequests(key, source string) []SupplyRequest
}

// SupplyRequest is one request to a stub remote agent or prompt platform.
type SupplyRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Query is the query string's parameters (first values).
	Query map[string]string `json:"query"`
	// Headers are the request's header fields that a configuration may
	// set (Authorization and X-* ones), by canonical name.
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body,omitempty"`
}

// MCPRequest is one request or notification the stub MCP server received.
type MCPRequest struct {
	Method string `json:"method"`
	// Tool and Args are a tools/call's name and arguments, as sent.
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Marker is the text that ties a conversation to the script under key.
func Marker(key string) string { return "[sifu:" + key + "]" }

// Reply is one scripted model answer. Exactly one of Text (a final answer),
// Tool (a tool call) or Status (an HTTP error) is meant to be set.
type Reply struct {
	// Text is the answer; "{{marker}}" in it is replaced by the script's
	// marker (so a request that quotes the answer back, such as a repair
	// of a structured answer, is a call of the same script), and
	// "{{tools}}" by the tool results
	// the gateway sent in this turn, joined by " | ".
	Text string `json:"text,omitempty"`
	// Chunks, when streaming, splits Text into these pieces (default: words).
	Chunks []string `json:"chunks,omitempty"`
	// Break, when streaming, drops the connection after the chunks: no
	// finish frame and no [DONE] (a mid-stream failure).
	Break bool `json:"break,omitempty"`
	// Tool and Args make a tool call. Tools other than ask_user get a "ref"
	// argument naming the script, so tool calls are counted per check.
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
	// RawArgs, instead of Args, is the arguments text sent as it is (JSON
	// that need not be canonical: spacing, key order, number forms);
	// "{{ref}}" in it becomes the script's key.
	RawArgs string `json:"raw_args,omitempty"`
	// Calls makes several tool calls in one message (each with Tool and
	// Args or RawArgs), as models calling tools in parallel do.
	Calls []Reply `json:"calls,omitempty"`
	// Status answers the model call with this HTTP error.
	Status int `json:"status,omitempty"`
	// Again replaces this reply when its position is served again (a
	// replay): the second serving answers Again[0], the third Again[1], and
	// so on, the last one repeating. It lets a replayed turn diverge.
	Again []Reply `json:"again,omitempty"`
	// Hold keeps the model call open until the check releases it (see
	// Release) or the gateway gives up on it (an interrupt); a held call
	// the gateway abandons gets no answer.
	Hold bool `json:"hold,omitempty"`
	// HoldFor (a duration such as "1s") ends the hold by itself after that
	// long, and the call answers: long enough for a gateway that runs two
	// turns of one session at once to show it.
	HoldFor string `json:"hold_for,omitempty"`
}

// Script is what the model answers in one conversation: reply i answers the
// model call that follows i assistant messages of the current turn.
type Script struct {
	Replies []Reply `json:"replies"`
	// Tools sets how a tool endpoint answers calls of this script: "ok"
	// (default: a receipt numbered by the call), "same" (the same answer
	// every time), "fail" (HTTP 500), a status code such as "404", "body:"
	// followed by the text to answer with, or "drop" (the connection is
	// closed without an answer, after the call is counted). An MCP tool
	// takes "fail" (a JSON-RPC error), "iserror" (a result with isError
	// set) and "slow:<duration>" (the answer comes that much later).
	Tools map[string]string `json:"tools,omitempty"`
	// Summary, when set, answers with this text the model calls of the
	// script that offer no tools: a gateway summarising older messages
	// (compaction). They are recorded as summary requests, apart from the
	// turn's calls, and take no reply of Replies.
	Summary string `json:"summary,omitempty"`
	// InOrder serves reply i to the script's i-th model call (summary
	// calls aside), whatever the request holds: under compaction the older
	// messages of a turn leave the request, so they cannot tell where the
	// turn is.
	InOrder bool `json:"in_order,omitempty"`
}

// ToolCall is one call of a tool endpoint as the stub received it.
type ToolCall struct {
	Method string `json:"method"`
	Path   string `json:"path"` // below /tools/<name>, "" for none
	// RawPath is Path as it was sent, percent escapes kept.
	RawPath string         `json:"raw_path"`
	Query   map[string]any `json:"query"`
	Body    map[string]any `json:"body"`
}

// ModelRequest is one model call as the stub received it.
type ModelRequest struct {
	Stream   bool             `json:"stream"`
	Tools    []string         `json:"tools"`
	Messages []map[string]any `json:"messages"`
	// During are the scripts whose model calls were being held when this
	// call arrived.
	During []string `json:"during"`
	// Summary says the call offered no tools and was answered with the
	// script's Summary.
	Summary bool `json:"summary,omitempty"`
}
