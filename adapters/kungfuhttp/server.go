// Package kungfuhttp carries the sifu Kungfu binding over HTTP: a server that
// exposes any kungfu.Target (such as the bundled reference), and a client
// that is a kungfu.Target for any server speaking the binding.
//
// Routes (JSON bodies, see docs/binding.md):
//
//	GET  /kungfu/v1/hello
//	POST /kungfu/v1/act      Authorization: Bearer <agent credential>
//	POST /kungfu/v1/read     Authorization: Bearer <agent credential>
//	POST /kungfu/v1/control  Authorization: Bearer <control token>, when the server has one
package kungfuhttp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/sifu-dev/sifu/suite/kungfu"
)

// MaxBody is the largest request body the server reads.
const MaxBody = 1 << 20

// ServerOptions configure a binding server.
type ServerOptions struct {
	// ControlToken, when set, must be presented as the bearer credential of
	// control requests.
	ControlToken string
	// CredentialKey signs agent credentials; keep it stable across restarts
	// so that credentials issued before a restart stay valid.
	CredentialKey []byte
}

type server struct {
	target kungfu.Target
	opts   ServerOptions
	valid  sync.Map // credentials already verified → agent id; a credential's signature never changes
}

// NewHandler serves a target over the binding's HTTP transport.
func NewHandler(t kungfu.Target, opts ServerOptions) http.Handler {
	s := &server{target: t, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kungfu/v1/hello", s.hello)
	mux.HandleFunc("POST /kungfu/v1/act", s.act)
	mux.HandleFunc("POST /kungfu/v1/read", s.read)
	mux.HandleFunc("POST /kungfu/v1/control", s.control)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeRejection(w, http.StatusNotFound, "unknown_action", "stop",
			fmt.Sprintf("no route %s %s; the binding has GET /kungfu/v1/hello and POST /kungfu/v1/{act,read,control}", r.Method, r.URL.Path))
	})
	return mux
}

// statusFor maps a rejection reason to an HTTP status. The body is always a
// binding response; the status is a convenience for people and proxies.
func statusFor(reason string) int {
	switch reason {
	case "not_found", "unknown_action":
		return http.StatusNotFound
	case "forbidden", "inactive":
		return http.StatusForbidden
	case "invalid_state", "idempotency_conflict":
		return http.StatusConflict
	case "invalid_params":
		return http.StatusUnprocessableEntity
	case "rate_limited":
		return http.StatusTooManyRequests
	case "unauthenticated":
		return http.StatusUnauthorized
	}
	return http.StatusBadRequest
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeRejection(w http.ResponseWriter, status int, reason, next, msg string) {
	writeJSON(w, status, kungfu.Response{Rejection: &kungfu.Rejection{Reason: reason, NextStep: next, Message: msg}})
}

func writeResponse(w http.ResponseWriter, resp kungfu.Response, err error) {
	if err != nil {
		writeRejection(w, http.StatusServiceUnavailable, "unavailable", "retry", "the implementation could not answer: "+err.Error())
		return
	}
	if resp.OK {
		if resp.Result == nil {
			resp.Result = map[string]any{}
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	status := http.StatusBadRequest
	if resp.Rejection != nil {
		status = statusFor(resp.Rejection.Reason)
	}
	writeJSON(w, status, resp)
}

// decode reads a JSON body of at most MaxBody bytes into v, answering the
// client itself when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRejection(w, http.StatusRequestEntityTooLarge, "invalid_params", "retry", fmt.Sprintf("the body exceeds %d bytes", MaxBody))
			return false
		}
		writeRejection(w, http.StatusBadRequest, "invalid_params", "retry", "the body could not be read: "+err.Error())
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeRejection(w, http.StatusBadRequest, "invalid_params", "retry", "the body is not a binding request: "+err.Error())
		return false
	}
	return true
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if !strings.HasPrefix(h, "Bearer ") {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
}

// credential signs an agent id; agent returns the id a credential signs.
func (s *server) credential(agent string) string {
	mac := hmac.New(sha256.New, s.opts.CredentialKey)
	mac.Write([]byte(agent))
	return "kfa." + agent + "." + hex.EncodeToString(mac.Sum(nil))[:32]
}

func (s *server) agent(r *http.Request) (string, bool) {
	cred := bearer(r)
	if agent, ok := s.valid.Load(cred); ok {
		return agent.(string), true
	}
	parts := strings.Split(cred, ".")
	if len(parts) != 3 || parts[0] != "kfa" {
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(s.credential(parts[1])), []byte(cred)) != 1 {
		return "", false
	}
	s.valid.Store(cred, parts[1])
	return parts[1], true
}

func (s *server) hello(w http.ResponseWriter, r *http.Request) {
	h, err := s.target.Hello(r.Context())
	if err != nil {
		writeRejection(w, http.StatusServiceUnavailable, "unavailable", "retry", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, h)
}

type actBody struct {
	Action string         `json:"action"`
	Key    string         `json:"idempotency_key,omitempty"`
	Params map[string]any `json:"params,omitempty"`
}

type readBody struct {
	View   string         `json:"view"`
	Params map[string]any `json:"params,omitempty"`
}

type controlBody struct {
	Control string         `json:"control"`
	Params  map[string]any `json:"params,omitempty"`
}

func (s *server) authenticated(w http.ResponseWriter, r *http.Request) (string, bool) {
	agent, ok := s.agent(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="kungfu"`)
		writeRejection(w, http.StatusUnauthorized, "unauthenticated", "stop", "send the agent's credential as Authorization: Bearer <credential>")
	}
	return agent, ok
}

func (s *server) act(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.authenticated(w, r)
	if !ok {
		return
	}
	var b actBody
	if !decode(w, r, &b) {
		return
	}
	if b.Action == "" {
		writeRejection(w, http.StatusBadRequest, "invalid_params", "retry", "action is required")
		return
	}
	resp, err := s.target.Act(r.Context(), kungfu.Action{Agent: agent, Name: b.Action, Key: b.Key, Params: b.Params})
	writeResponse(w, resp, err)
}

func (s *server) read(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.authenticated(w, r)
	if !ok {
		return
	}
	var b readBody
	if !decode(w, r, &b) {
		return
	}
	if b.View == "" {
		writeRejection(w, http.StatusBadRequest, "invalid_params", "retry", "view is required")
		return
	}
	resp, err := s.target.Read(r.Context(), kungfu.Read{Agent: agent, View: b.View, Params: b.Params})
	writeResponse(w, resp, err)
}

func (s *server) control(w http.ResponseWriter, r *http.Request) {
	if s.opts.ControlToken != "" && subtle.ConstantTimeCompare([]byte(bearer(r)), []byte(s.opts.ControlToken)) != 1 {
		writeRejection(w, http.StatusUnauthorized, "unauthenticated", "stop", "control requests need the control token as Authorization: Bearer <token>")
		return
	}
	var b controlBody
	if !decode(w, r, &b) {
		return
	}
	if b.Control == "" {
		writeRejection(w, http.StatusBadRequest, "invalid_params", "retry", "control is required")
		return
	}
	resp, err := s.target.Control(r.Context(), kungfu.Control{Name: b.Control, Params: b.Params})
	if err == nil && resp.OK && b.Control == kungfu.ControlProvision {
		if id, _ := resp.Result["agent"].(string); id != "" {
			resp.Result["credential"] = s.credential(id)
		}
	}
	writeResponse(w, resp, err)
}
