package kungfuref

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Roles of a thread member (§6.2).
const (
	RoleObserver = "observer"
	RoleSpeaker  = "speaker"
	RoleGovernor = "governor"
)

// Thread limits (L4): cheap, repeatable structure is bounded.
const (
	maxAsk          = 50
	maxNoteRunes    = 1000
	failedJoinLimit = 20
	failedJoinSpan  = 15 * time.Minute
	// Deadlines an assignment gets when its creator names none (§6.4 MAY).
	defaultDeliverySecs = 86400
	defaultJudgmentSecs = 86400
)

// The thread fact kinds; their effects are derived in applyThread.
const (
	FactThreadCreated       FactKind = "thread.created"
	FactAdmissionIssued     FactKind = "thread.admission_issued"
	FactAdmissionVoided     FactKind = "thread.admission_voided"
	FactMemberJoined        FactKind = "thread.member_joined"
	FactMemberLeft          FactKind = "thread.member_left"
	FactMemberRemoved       FactKind = "thread.member_removed"
	FactRoleChanged         FactKind = "thread.role_changed"
	FactThreadClosed        FactKind = "thread.closed"
	FactEntryPosted         FactKind = "thread.entry_posted"
	FactResponseHandled     FactKind = "thread.response_handled"
	FactEntryRetracted      FactKind = "thread.entry_retracted"
	FactAssignmentTaken     FactKind = "thread.assignment_taken"
	FactAssignmentDelivered FactKind = "thread.assignment_delivered"
	FactAssignmentJudged    FactKind = "thread.assignment_judged"
	FactAssignmentDropped   FactKind = "thread.assignment_dropped"
	FactAssignmentVoided    FactKind = "thread.assignment_voided"
	FactAssignmentTimedOut  FactKind = "thread.assignment_timed_out"
	FactAssignmentUnjudged  FactKind = "thread.assignment_undecided"
)

// threadState is the derived state of every thread (§6).
type threadState struct {
	byID        map[string]*thread
	grants      map[string]*grant // by secret hash
	assignments map[string]*assignment
	failedJoins map[string][]time.Time // per agent; not a fact, an application limit
	// Indexes derived with the state, so that no action or read scans every
	// thread: the threads each agent is a member of, and the assignments
	// not yet in a terminal state (compacted as they end).
	memberOf map[string]map[string]bool
	open     []string
}

type thread struct {
	id, subject string
	closed      bool
	members     map[string]*membership // live memberships by agent
	grant       *grant                 // the live admission grant, if any
	entries     []*entry               // entry n is entries[n-1]
	assignments []string
	former      map[string]bool // agents whose membership ended; read only by a planted fault
}

type membership struct {
	agent, role, admission string
	joinedAt               time.Time
}

type grant struct {
	id, thread, role, hash string
	issuedAt               time.Time
	live                   bool
}

type entry struct {
	seq       int
	author    string
	pin       pin
	replyTo   int
	replyIn   string // the thread of the replied-to entry when it is another; only a planted fault records one
	ask       []string
	hasAsk    bool
	at        time.Time
	factSeq   int64
	responses []*response // one per responder, fixed at posting
	assign    string
	task      *taskRef // the Task the entry references, if any (§7.5)
}

type response struct {
	responder string
	ended     bool
	endedBy   string // reply, handle, retract, take, leave, remove, deactivate, demote, close
	note      string
}

type pin struct {
	Memory  string `json:"memory"`
	Version int    `json:"version"`
}

// taskRef is an entry's reference to a Task (§7.5): the Task and the
// contract version current when the entry was posted. It changes nothing in
// the Task; it lets current members read that contract version in the thread.
type taskRef struct {
	Task    string `json:"task"`
	Version int    `json:"version"`
}

type assignment struct {
	id, thread         string
	entry              int
	creator, addressee string
	criteria           string
	outputSchema       any
	deliverySecs       int
	judgmentSecs       int
	references         string
	state              string // open, taken, delivered, adopted, rejected, undecided, dropped, timed_out, voided
	createdAt          time.Time
	takenAt            time.Time
	deliveredAt        time.Time
	// The instants the two deadlines run from: the take and the delivery
	// (§6.4); only planted faults choose others.
	deliveryFrom, judgmentFrom time.Time
	takeSeq, deliverSq         int64
	payload                    any
	memories                   []pin
	verdict, reason            string
	forfeited                  bool // the creator's right to judge ended with its membership
}

func (a *assignment) terminal() bool {
	switch a.state {
	case "open", "taken", "delivered":
		return false
	}
	return true
}

func (ts *threadState) init() {
	if ts.byID == nil {
		ts.byID = map[string]*thread{}
		ts.grants = map[string]*grant{}
		ts.assignments = map[string]*assignment{}
		ts.failedJoins = map[string][]time.Time{}
		ts.memberOf = map[string]map[string]bool{}
	}
}

var threadActions = map[string]handler{
	"thread.create":         (*Service).createThread,
	"thread.admit":          (*Service).admit,
	"thread.void_admission": (*Service).voidAdmission,
	"thread.join":           (*Service).join,
	"thread.leave":          (*Service).leave,
	"thread.remove":         (*Service).removeMember,
	"thread.set_role":       (*Service).setRole,
	"thread.close":          (*Service).closeThread,
	"thread.post":           (*Service).post,
	"thread.handle":         (*Service).handle,
	"thread.retract":        (*Service).retract,
	"assignment.take":       (*Service).takeAssignment,
	"assignment.deliver":    (*Service).deliverAssignment,
	"assignment.judge":      (*Service).judgeAssignment,
	"assignment.drop":       (*Service).dropAssignment,
	"assignment.void":       (*Service).voidAssignment,
}

var threadViews = map[string]view{
	"thread":     (*Service).readThread,
	"threads":    (*Service).listThreads,
	"entry":      (*Service).readEntry,
	"assignment": (*Service).readAssignment,
}

// threadData is the payload of thread facts.
type threadData struct {
	Subject    string      `json:"subject,omitempty"`
	Admission  string      `json:"admission,omitempty"`
	Role       string      `json:"role,omitempty"`
	Hash       string      `json:"hash,omitempty"`
	Member     string      `json:"member,omitempty"`
	Entry      int         `json:"entry,omitempty"`
	Pin        *pin        `json:"pin,omitempty"`
	Task       *taskRef    `json:"task,omitempty"`
	ReplyTo    int         `json:"reply_to,omitempty"`
	ReplyIn    string      `json:"reply_in,omitempty"` // written only by the planted cross-thread-reply fault
	Ask        []string    `json:"ask,omitempty"`
	HasAsk     bool        `json:"has_ask,omitempty"`
	Responders []string    `json:"responders,omitempty"`
	Note       string      `json:"note,omitempty"`
	Assignment string      `json:"assignment,omitempty"`
	Assign     *assignData `json:"assign,omitempty"`
	Payload    any         `json:"payload,omitempty"`
	Memories   []pin       `json:"memories,omitempty"`
	Verdict    string      `json:"verdict,omitempty"`
	Reason     string      `json:"reason,omitempty"`
}

type assignData struct {
	ID           string `json:"id"`
	To           string `json:"to"`
	Criteria     string `json:"criteria"`
	OutputSchema any    `json:"output_schema,omitempty"`
	DeliverySecs int    `json:"delivery_secs"`
	JudgmentSecs int    `json:"judgment_secs"`
	References   string `json:"references,omitempty"`
}

func threadFact(kind FactKind, agent, threadID string, d threadData) Fact {
	return Fact{Kind: kind, Agent: agent, Object: threadID, Data: mustJSON(d)}
}

// --- lookups -------------------------------------------------------------

func threadNotFound(id string) *Rejection {
	return rejection(ReasonNotFound, "stop", fmt.Sprintf("no thread %q is visible to you", id))
}

// memberThread finds a thread the caller is a current member of. A thread
// the caller is not in is indistinguishable from a missing one (§9, §12).
func (s *Service) memberThread(agentID string, params map[string]any) (*thread, *membership, *Rejection) {
	id, ok := stringParam(params, "thread")
	if !ok {
		return nil, nil, rejection(ReasonInvalidParams, "retry", "thread (the thread id) is required")
	}
	t, ok := s.threads.byID[id]
	if !ok {
		return nil, nil, threadNotFound(id)
	}
	m, ok := t.members[agentID]
	if !ok {
		return nil, nil, threadNotFound(id)
	}
	return t, m, nil
}

// governedThread finds an open thread the caller governs.
func (s *Service) governedThread(req Request) (*thread, *Rejection) {
	t, m, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil {
		return nil, rej
	}
	if t.closed {
		return nil, rejection(ReasonInvalidState, "stop", "the thread is closed; it is read-only")
	}
	if !s.governs(m) {
		return nil, rejection(ReasonForbidden, "stop", "only a governor of the thread may do this")
	}
	return t, nil
}

// governs says whether a member holds the governor's powers (§6.2).
func (s *Service) governs(m *membership) bool {
	if s.faults[FaultObserverGoverns] {
		return m.role != RoleSpeaker // planted: only speakers are kept from governing
	}
	return m.role == RoleGovernor
}

func (s *Service) governors(t *thread) int {
	n := 0
	for _, m := range t.members {
		if m.role == RoleGovernor {
			n++
		}
	}
	return n
}

func maySpeak(role string) bool { return role == RoleSpeaker || role == RoleGovernor }

func validRole(r string) bool { return r == RoleObserver || r == RoleSpeaker || r == RoleGovernor }

// --- creation and admission (§6.1) ---------------------------------------

func (s *Service) createThread(req Request) ([]Fact, map[string]any, *Rejection) {
	subject, _ := req.Params["subject"].(string)
	if len([]rune(subject)) > 200 {
		return nil, nil, rejection(ReasonInvalidParams, "retry", "subject is at most 200 characters")
	}
	id := fmt.Sprintf("thr-%d", s.seq+1)
	return []Fact{threadFact(FactThreadCreated, req.Agent, id, threadData{Subject: subject})},
		map[string]any{"thread": id, "role": RoleGovernor, "state": "open"}, nil
}

func newSecret() (secret, hash string) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kungfu: no randomness for an admission secret: " + err.Error())
	}
	secret = "kfs_" + hex.EncodeToString(b[:])
	return secret, hashSecret(secret)
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func (s *Service) admit(req Request) ([]Fact, map[string]any, *Rejection) {
	t, rej := s.governedThread(req)
	if rej != nil {
		return nil, nil, rej
	}
	role := RoleSpeaker
	if r, ok := req.Params["role"].(string); ok && r != "" {
		if !validRole(r) {
			return nil, nil, rejection(ReasonInvalidParams, "retry", "role must be observer, speaker or governor")
		}
		role = r
	}
	secret, hash := newSecret()
	id := fmt.Sprintf("adm-%d", s.seq+1)
	var facts []Fact
	if t.grant != nil && !s.faults[FaultReissueKeepsOldGrant] { // at most one live grant: issuing voids the old one
		facts = append(facts, threadFact(FactAdmissionVoided, req.Agent, t.id, threadData{Admission: t.grant.id}))
	}
	facts = append(facts, threadFact(FactAdmissionIssued, req.Agent, t.id, threadData{Admission: id, Role: role, Hash: hash}))
	receipt := map[string]any{"thread": t.id, "admission": id, "role": role, "secret": secret,
		"secret_fingerprint": hash[:12]}
	if s.faults[FaultSecretReplayed] {
		receipt["admission_secret"] = secret // planted: a copy the stored receipt keeps
	}
	return facts, receipt, nil
}

func (s *Service) voidAdmission(req Request) ([]Fact, map[string]any, *Rejection) {
	t, rej := s.governedThread(req)
	if rej != nil {
		return nil, nil, rej
	}
	if t.grant == nil {
		return nil, nil, rejection(ReasonInvalidState, "done", "the thread has no live admission")
	}
	receipt := map[string]any{"thread": t.id, "admission": t.grant.id, "state": "voided"}
	if s.faults[FaultVoidKeepsGrant] {
		return nil, receipt, nil // planted: the answer says voided, the grant stays live
	}
	return []Fact{threadFact(FactAdmissionVoided, req.Agent, t.id, threadData{Admission: t.grant.id})}, receipt, nil
}

// recentFailedJoins counts an agent's failed joins within the window.
func (s *Service) recentFailedJoins(agentID string, now time.Time) int {
	n := 0
	for _, t := range s.threads.failedJoins[agentID] {
		if now.Sub(t) < failedJoinSpan {
			n++
		}
	}
	return n
}

// noteFailedJoin is the rejection hook of thread.join: a join refused for
// its secret counts toward the failed-join limit (§12 SHOULD). It is an
// application limit, not a fact.
func (s *Service) noteFailedJoin(req Request, rej *Rejection) {
	if rej.Reason != ReasonNotFound {
		return
	}
	now := s.clock.Now()
	kept := []time.Time{now}
	for _, t := range s.threads.failedJoins[req.Agent] {
		if now.Sub(t) < failedJoinSpan {
			kept = append(kept, t)
		}
	}
	s.threads.failedJoins[req.Agent] = kept
}

func (s *Service) join(req Request) ([]Fact, map[string]any, *Rejection) {
	secret, _ := req.Params["secret"].(string)
	if s.recentFailedJoins(req.Agent, s.clock.Now()) >= failedJoinLimit {
		return nil, nil, rejection(ReasonRateLimited, "wait", "too many failed joins; wait before trying again")
	}
	g, ok := s.threads.grants[hashSecret(secret)]
	if secret == "" || !ok || !g.live {
		return nil, nil, rejection(ReasonNotFound, "stop", "no live admission matches this secret")
	}
	t := s.threads.byID[g.thread]
	if m, ok := t.members[req.Agent]; ok { // the L2 no-new-effect rejoin
		return nil, joinReceipt(t, m), nil
	}
	if t.closed {
		return nil, nil, rejection(ReasonInvalidState, "stop", "the thread is closed")
	}
	if max := s.limits.MembersPerThread; max > 0 && len(t.members) >= max {
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("the thread already has %d members", max))
	}
	m := &membership{agent: req.Agent, role: g.role, admission: g.id, joinedAt: s.clock.Now()}
	return []Fact{threadFact(FactMemberJoined, req.Agent, t.id, threadData{Admission: g.id, Role: g.role})}, joinReceipt(t, m), nil
}

func joinReceipt(t *thread, m *membership) map[string]any {
	return map[string]any{"thread": t.id, "role": m.role, "admission": m.admission,
		"joined_at": m.joinedAt.UTC().Format(time.RFC3339Nano)}
}

// --- members and roles (§6.2) ---------------------------------------------

func (s *Service) leave(req Request) ([]Fact, map[string]any, *Rejection) {
	t, m, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if !t.closed && m.role == RoleGovernor && s.governors(t) == 1 && !s.faults[FaultLastGovernorLeaves] {
		return nil, nil, rejection(ReasonInvalidState, "retry", "an open thread needs a governor: hand over the role or close the thread first")
	}
	return []Fact{threadFact(FactMemberLeft, req.Agent, t.id, threadData{})}, map[string]any{"thread": t.id, "state": "left"}, nil
}

func (s *Service) targetMember(t *thread, req Request) (*membership, *Rejection) {
	who, ok := stringParam(req.Params, "member")
	if !ok {
		return nil, rejection(ReasonInvalidParams, "retry", "member (an agent id) is required")
	}
	m, ok := t.members[who]
	if !ok {
		return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("%q is not a member of the thread", who))
	}
	return m, nil
}

func (s *Service) removeMember(req Request) ([]Fact, map[string]any, *Rejection) {
	t, rej := s.governedThread(req)
	if rej != nil {
		return nil, nil, rej
	}
	m, rej := s.targetMember(t, req)
	if rej != nil {
		return nil, nil, rej
	}
	if m.role == RoleGovernor && s.governors(t) == 1 {
		return nil, nil, rejection(ReasonInvalidState, "retry", "an open thread needs a governor: appoint another first")
	}
	return []Fact{threadFact(FactMemberRemoved, req.Agent, t.id, threadData{Member: m.agent})},
		map[string]any{"thread": t.id, "member": m.agent, "state": "removed"}, nil
}

func (s *Service) setRole(req Request) ([]Fact, map[string]any, *Rejection) {
	t, rej := s.governedThread(req)
	if rej != nil {
		return nil, nil, rej
	}
	m, rej := s.targetMember(t, req)
	if rej != nil {
		return nil, nil, rej
	}
	role, _ := req.Params["role"].(string)
	if !validRole(role) {
		return nil, nil, rejection(ReasonInvalidParams, "retry", "role must be observer, speaker or governor")
	}
	if role == m.role {
		return nil, nil, rejection(ReasonInvalidState, "done", "the member already has that role")
	}
	if m.role == RoleGovernor && s.governors(t) == 1 {
		return nil, nil, rejection(ReasonInvalidState, "retry", "an open thread needs a governor: appoint another first")
	}
	return []Fact{threadFact(FactRoleChanged, req.Agent, t.id, threadData{Member: m.agent, Role: role})},
		map[string]any{"thread": t.id, "member": m.agent, "role": role}, nil
}

func (s *Service) closeThread(req Request) ([]Fact, map[string]any, *Rejection) {
	t, m, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if !s.governs(m) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only a governor of the thread may close it")
	}
	if t.closed {
		return nil, nil, rejection(ReasonInvalidState, "done", "the thread is already closed")
	}
	return []Fact{threadFact(FactThreadClosed, req.Agent, t.id, threadData{})}, map[string]any{"thread": t.id, "state": "closed"}, nil
}

// --- entries and responses (§6.3) ---------------------------------------

// pinFor resolves a Memory reference an agent wants to pin: a valid Memory
// it may read, at a version it may read (§5, §9).
func (s *Service) pinFor(agentID string, raw any) (pin, *Rejection) {
	obj, _ := raw.(map[string]any)
	if obj == nil {
		return pin{}, rejection(ReasonInvalidParams, "retry", "a memory reference is an object {memory, version?}")
	}
	id, ok := stringParam(obj, "memory")
	if !ok {
		return pin{}, rejection(ReasonInvalidParams, "retry", "memory (the Memory id) is required")
	}
	m, ok := s.memories[id]
	if !ok || !s.canRead(agentID, m) {
		return pin{}, notFound(id)
	}
	if m.withdrawn && !s.faults[FaultWithdrawnPinnable] {
		return pin{}, rejection(ReasonInvalidState, "stop", "the Memory is withdrawn and can no longer be referenced")
	}
	v, given, err := intParam(obj, "version")
	if err != nil {
		return pin{}, rejection(ReasonInvalidParams, "retry", err.Error())
	}
	if !given {
		v = m.current()
	}
	if v < 1 || v > m.current() || m.author != agentID && v != m.current() {
		return pin{}, notFound(id)
	}
	return pin{Memory: id, Version: v}, nil
}

// taskRefFor resolves the Task an entry references (§7.5): a Task whose
// contract layer the poster may read (§9), pinned at its current contract
// version. Any other Task is indistinguishable from a missing one (§12).
func (s *Service) taskRefFor(agentID string, raw any) (*taskRef, *Rejection) {
	id, ok := raw.(string)
	if !ok || id == "" {
		return nil, rejection(ReasonInvalidParams, "retry", "task (the id of a Task the entry references) must be a non-empty string")
	}
	t, ok := s.tasks.tasks[id]
	if !ok || !s.canSeeTask(agentID, t) {
		return nil, taskNotFound(id)
	}
	return &taskRef{Task: id, Version: t.current()}, nil
}

func (s *Service) post(req Request) ([]Fact, map[string]any, *Rejection) {
	t, m, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil && s.faults[FaultFormerMemberPosts] {
		if ft, ok := s.threads.byID[fmt.Sprint(req.Params["thread"])]; ok && ft.former[req.Agent] {
			t, m, rej = ft, &membership{agent: req.Agent, role: RoleSpeaker}, nil // planted
		}
	}
	if rej != nil {
		return nil, nil, rej
	}
	if t.closed {
		return nil, nil, rejection(ReasonInvalidState, "stop", "the thread is closed; it is read-only")
	}
	if !maySpeak(m.role) {
		return nil, nil, rejection(ReasonForbidden, "stop", "observers may not post")
	}
	p, rej := s.pinFor(req.Agent, map[string]any{"memory": req.Params["memory"], "version": req.Params["version"]})
	if rej != nil {
		return nil, nil, rej
	}
	d := threadData{Entry: len(t.entries) + 1, Pin: &p}
	if raw, ok := req.Params["task"]; ok && raw != nil {
		ref, rej := s.taskRefFor(req.Agent, raw)
		if rej != nil {
			return nil, nil, rej // nothing is posted (L2)
		}
		d.Task = ref
	}
	if raw, given := req.Params["reply_to"]; given && raw != nil {
		e, in, rej := s.replyTarget(t, req.Agent, raw)
		if rej != nil {
			return nil, nil, rej
		}
		d.ReplyTo = e.seq
		if in != t {
			d.ReplyIn = in.id
		}
	}
	if raw, ok := req.Params["ask"]; ok && raw != nil {
		ask, rej := s.askList(t, req.Agent, raw)
		if rej != nil {
			return nil, nil, rej
		}
		d.Ask, d.HasAsk = ask, true
	}
	d.Responders = s.responders(t, req.Agent, d)
	receipt := map[string]any{"thread": t.id, "entry": d.Entry, "memory": p.Memory, "version": p.Version, "responders": stringsAny(d.Responders)}
	if d.Task != nil {
		receipt["task"], receipt["task_version"] = d.Task.Task, d.Task.Version
	}
	if raw, ok := req.Params["assign"]; ok && raw != nil {
		a, rej := s.assignFrom(t, req.Agent, raw)
		if rej != nil {
			return nil, nil, rej
		}
		d.Assign = a
		receipt["assignment"] = a.ID
	}
	return []Fact{threadFact(FactEntryPosted, req.Agent, t.id, d)}, receipt, nil
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (s *Service) askList(t *thread, author string, raw any) ([]string, *Rejection) {
	list, ok := raw.([]any)
	if !ok || len(list) > maxAsk {
		return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("ask is a list of at most %d member ids", maxAsk))
	}
	var ask []string
	for _, e := range list {
		id, _ := e.(string)
		m, ok := t.members[id]
		switch {
		case id == author:
			return nil, rejection(ReasonInvalidParams, "retry", "an entry cannot ask its own author")
		case s.faults[FaultAskFormerMember] && !ok && t.former[id]:
			// planted: a member who left still counts as one who may speak
		case !ok || !maySpeak(m.role):
			return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("%q is not a member who may speak", id))
		case slices.Contains(ask, id):
			return nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("%q is asked twice", id))
		}
		ask = append(ask, id)
	}
	return ask, nil
}

// responders applies the four responder rules of §6.3, once, at posting.
func (s *Service) responders(t *thread, author string, d threadData) []string {
	if d.HasAsk {
		return append([]string{}, d.Ask...)
	}
	if d.ReplyTo > 0 {
		target := s.repliedTo(t, d).author
		if target != author {
			if m, ok := t.members[target]; ok && maySpeak(m.role) {
				return []string{target}
			}
			return nil // no fall-through when the replied-to author can no longer speak
		}
	}
	var speakers []string
	for id, m := range t.members {
		if maySpeak(m.role) {
			speakers = append(speakers, id)
		}
	}
	if len(speakers) == 2 {
		for _, id := range speakers {
			if id != author {
				return []string{id}
			}
		}
	}
	return nil
}

// An entry reference names an entry (§6.3): a whole number is an entry of
// the thread the action or view is about; an object {thread, entry} names
// a thread and an entry of it. Every reference must stay in the thread of
// the action, since a reply, a handle or a retraction never crosses threads
// (§6.3, §6.5). A reference to any other thread gets one answer, whether
// that thread is missing, unreadable or one the caller belongs to, so the
// answer discloses nothing (§12).
func entryRefParts(raw any) (threadID string, n int, ok bool) {
	switch v := raw.(type) {
	case float64:
		if v != float64(int(v)) {
			return "", 0, false
		}
		return "", int(v), true
	case int:
		return "", v, true
	case map[string]any:
		if len(v) != 2 {
			return "", 0, false
		}
		id, okID := v["thread"].(string)
		num, given, err := intParam(v, "entry")
		if !okID || id == "" || !given || err != nil {
			return "", 0, false
		}
		return id, num, true
	}
	return "", 0, false
}

func badEntryRef(name string) *Rejection {
	return rejection(ReasonInvalidParams, "retry",
		name+" must be an entry of this thread: its number, or {thread, entry} naming this thread")
}

// entryRef resolves an entry reference within thread t.
func (s *Service) entryRef(t *thread, raw any, name string) (*entry, *Rejection) {
	id, n, ok := entryRefParts(raw)
	if !ok {
		return nil, badEntryRef(name)
	}
	in := t
	if id != "" && id != t.id {
		other, exists := s.threads.byID[id]
		if !s.faults[FaultCrossThreadEntry] || !exists {
			return nil, badEntryRef(name)
		}
		in = other // planted: the named thread's entry, whoever the caller is there
	}
	if n < 1 || n > len(in.entries) {
		return nil, badEntryRef(name)
	}
	return in.entries[n-1], nil
}

// replyTarget resolves reply_to: an entry of the thread posted to. It
// returns the thread the entry belongs to, which only a planted fault lets
// differ.
func (s *Service) replyTarget(t *thread, agentID string, raw any) (*entry, *thread, *Rejection) {
	id, n, ok := entryRefParts(raw)
	if !ok {
		return nil, nil, badEntryRef("reply_to")
	}
	in := t
	if id != "" && id != t.id {
		other, exists := s.threads.byID[id]
		if !exists || !s.faults[FaultCrossThreadReply] {
			return nil, nil, badEntryRef("reply_to")
		}
		if _, member := other.members[agentID]; !member {
			return nil, nil, badEntryRef("reply_to")
		}
		in = other // planted: a reply to an entry of another thread the poster is in
	}
	if n < 1 || n > len(in.entries) {
		return nil, nil, badEntryRef("reply_to")
	}
	return in.entries[n-1], in, nil
}

// repliedTo is the entry a post replies to: in its own thread, unless a
// planted fault recorded another.
func (s *Service) repliedTo(t *thread, d threadData) *entry {
	if d.ReplyIn != "" {
		if other, ok := s.threads.byID[d.ReplyIn]; ok {
			t = other
		}
	}
	return t.entries[d.ReplyTo-1]
}

func (s *Service) threadEntry(t *thread, params map[string]any) (*entry, *Rejection) {
	raw, given := params["entry"]
	if !given || raw == nil {
		return nil, rejection(ReasonInvalidParams, "retry", "entry (an entry of this thread) is required")
	}
	return s.entryRef(t, raw, "entry")
}

// response is the agent's response to the entry, pending or ended.
func (e *entry) response(agentID string) *response {
	for _, r := range e.responses {
		if r.responder == agentID {
			return r
		}
	}
	return nil
}

func (e *entry) pending(agentID string) *response {
	for _, r := range e.responses {
		if r.responder == agentID && !r.ended {
			return r
		}
	}
	return nil
}

func (s *Service) handle(req Request) ([]Fact, map[string]any, *Rejection) {
	t, _, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	e, rej := s.threadEntry(t, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if e.pending(req.Agent) == nil && !(s.faults[FaultHandleTwice] && e.response(req.Agent) != nil) {
		return nil, nil, rejection(ReasonInvalidState, "done", "you owe no pending response to this entry")
	}
	note, _ := req.Params["note"].(string)
	if len([]rune(note)) > maxNoteRunes || strings.ContainsAny(note, "\r\n") {
		return nil, nil, rejection(ReasonInvalidParams, "retry", fmt.Sprintf("a note is one line of at most %d characters", maxNoteRunes))
	}
	return []Fact{threadFact(FactResponseHandled, req.Agent, t.id, threadData{Entry: e.seq, Note: note})},
		map[string]any{"thread": t.id, "entry": e.seq, "response": "handled"}, nil
}

func (s *Service) retract(req Request) ([]Fact, map[string]any, *Rejection) {
	t, _, rej := s.memberThread(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	e, rej := s.threadEntry(t, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if e.author != req.Agent && !s.governorOverrides(t, req.Agent) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the entry's author may retract it")
	}
	ended := 0
	for _, r := range e.responses {
		if !r.ended {
			ended++
		}
	}
	if ended == 0 {
		return nil, nil, rejection(ReasonInvalidState, "done", "the entry has no pending responses to retract")
	}
	return []Fact{threadFact(FactEntryRetracted, req.Agent, t.id, threadData{Entry: e.seq})},
		map[string]any{"thread": t.id, "entry": e.seq, "retracted": ended}, nil
}

// --- applying facts ---------------------------------------------------------

func (s *Service) applyThread(f Fact) error {
	ts := &s.threads
	ts.init()
	var d threadData
	if len(f.Data) > 0 {
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
	}
	if f.Kind == FactThreadCreated {
		ts.byID[f.Object] = &thread{id: f.Object, subject: d.Subject, former: map[string]bool{},
			members: map[string]*membership{f.Agent: {agent: f.Agent, role: RoleGovernor, joinedAt: f.At}}}
		ts.join(f.Agent, f.Object)
		return nil
	}
	t, ok := ts.byID[f.Object]
	if !ok {
		return fmt.Errorf("fact %s names unknown thread %q", f.Kind, f.Object)
	}
	switch f.Kind {
	case FactAdmissionIssued:
		g := &grant{id: d.Admission, thread: t.id, role: d.Role, hash: d.Hash, issuedAt: f.At, live: true}
		ts.grants[g.hash] = g
		t.grant = g
	case FactAdmissionVoided:
		if t.grant != nil {
			t.grant.live = false
			t.grant = nil
		}
	case FactMemberJoined:
		t.members[f.Agent] = &membership{agent: f.Agent, role: d.Role, admission: d.Admission, joinedAt: f.At}
		ts.join(f.Agent, t.id)
		delete(t.former, f.Agent)
		if s.faults[FaultRespondersWidened] { // planted: the newcomer owes every earlier entry
			for _, e := range t.entries {
				if e.author != f.Agent && e.response(f.Agent) == nil {
					e.responses = append(e.responses, &response{responder: f.Agent})
				}
			}
		}
	case FactMemberLeft:
		s.endMembership(t, f.Agent, "leave")
	case FactMemberRemoved:
		if s.faults[FaultRemovalDemotes] { // planted: a removed member stays on as an observer
			t.members[d.Member].role = RoleObserver
			s.endResponses(t, d.Member, "remove")
			break
		}
		s.endMembership(t, d.Member, "remove")
	case FactRoleChanged:
		m := t.members[d.Member]
		m.role = d.Role
		if d.Role == RoleObserver && !s.faults[FaultDemotionKeepsResponses] || s.faults[FaultRoleChangeEndsResponses] {
			s.endResponses(t, d.Member, "demote") // demotion ends pending responses, not assignments
		}
	case FactThreadClosed:
		s.closeEffects(t)
	case FactEntryPosted:
		e := &entry{seq: d.Entry, author: f.Agent, pin: *d.Pin, replyTo: d.ReplyTo, replyIn: d.ReplyIn, ask: d.Ask, hasAsk: d.HasAsk, at: f.At, factSeq: f.Seq, task: d.Task}
		for _, r := range d.Responders {
			e.responses = append(e.responses, &response{responder: r})
		}
		if d.ReplyTo > 0 && !s.faults[FaultReplyKeepsResponse] { // replying ends the replier's own pending response
			if r := s.repliedTo(t, d).pending(f.Agent); r != nil {
				r.ended, r.endedBy = true, "reply"
			}
		}
		t.entries = append(t.entries, e)
		if a := d.Assign; a != nil {
			e.assign = a.ID
			t.assignments = append(t.assignments, a.ID)
			ts.open = append(ts.open, a.ID)
			ts.assignments[a.ID] = &assignment{id: a.ID, thread: t.id, entry: e.seq, creator: f.Agent, addressee: a.To,
				criteria: a.Criteria, outputSchema: a.OutputSchema, deliverySecs: a.DeliverySecs, judgmentSecs: a.JudgmentSecs,
				references: a.References, state: "open", createdAt: f.At}
		}
	case FactResponseHandled:
		e := t.entries[d.Entry-1]
		if r := e.pending(f.Agent); r != nil {
			r.ended, r.endedBy, r.note = true, "handle", d.Note
		} else if r := e.response(f.Agent); r != nil && s.faults[FaultHandleTwice] {
			r.endedBy, r.note = "handle", d.Note // planted: a second ending rewrites the first
		}
	case FactEntryRetracted:
		for _, r := range t.entries[d.Entry-1].responses {
			if !r.ended {
				r.ended, r.endedBy = true, "retract"
			}
		}
	default:
		return s.applyAssignment(f, t, d)
	}
	return nil
}

// endResponses ends an agent's pending responses in a thread.
func (s *Service) endResponses(t *thread, agentID, how string) {
	for _, e := range t.entries {
		if r := e.pending(agentID); r != nil {
			r.ended, r.endedBy = true, how
		}
	}
}

// endMembership applies every effect of §6.2 of a membership ending.
func (s *Service) endMembership(t *thread, agentID, how string) {
	if _, ok := t.members[agentID]; !ok {
		return
	}
	s.endResponses(t, agentID, how)
	for _, id := range t.assignments {
		a := s.threads.assignments[id]
		switch {
		case s.faults[FaultLeaveKeepsAssignments] && a.state != "delivered":
			// planted: undelivered work outlives the membership
		case a.state == "taken" && a.addressee == agentID:
			a.state = "voided" // taken and not delivered
		case (a.state == "open" || a.state == "taken") && a.creator == agentID:
			a.state = "voided" // created and not yet delivered
		case a.state == "delivered" && a.creator == agentID && s.faults[FaultForfeitEndsNow]:
			a.forfeited, a.state = true, "undecided" // planted: ends at once, not at its deadline
		case a.state == "delivered" && a.creator == agentID:
			a.forfeited = true // ends undecided at its judgment deadline
		}
	}
	delete(t.members, agentID)
	delete(s.threads.memberOf[agentID], t.id)
	t.former[agentID] = true
}

// endMemberships ends every membership of a deactivated agent, and closes
// any open thread it leaves without a governor, in the same fact (§4).
func (s *Service) endMemberships(agentID, how string) {
	s.threads.init()
	for _, t := range s.agentThreads(agentID) {
		s.endMembership(t, agentID, how)
		if !t.closed && s.governors(t) == 0 && !s.faults[FaultOrphanThreadStaysOpen] {
			s.closeEffects(t)
		}
	}
}

// closeEffects applies §6.5: pending responses end, undelivered assignments
// are voided, the admission is voided; memberships remain.
func (s *Service) closeEffects(t *thread) {
	t.closed = true
	for _, e := range t.entries {
		for _, r := range e.responses {
			if !r.ended && !s.faults[FaultCloseKeepsResponses] {
				r.ended, r.endedBy = true, "close"
			}
		}
	}
	for _, id := range t.assignments {
		if a := s.threads.assignments[id]; a.state == "open" || a.state == "taken" {
			a.state = "voided"
		}
	}
	if t.grant != nil {
		t.grant.live = false
		t.grant = nil
	}
}

// --- obligations, opportunities, deadlines ----------------------------------

func (s *Service) threadObligations(agentID string) []obligation {
	var out []obligation
	for _, t := range s.agentThreads(agentID) {
		for _, e := range t.entries {
			if e.pending(agentID) != nil {
				out = append(out, obligation{kind: "respond", seq: e.factSeq, since: e.at,
					item: map[string]any{"thread": t.id, "entry": e.seq, "author": e.author}})
			}
			if e.task != nil && s.faults[FaultTaskRefCreatesObligation] && s.tasks.tasks[e.task.Task].author != agentID {
				// planted: the referenced Task becomes a duty of the thread's members
				out = append(out, obligation{kind: "deliver", seq: e.factSeq, since: e.at,
					item: map[string]any{"thread": t.id, "entry": e.seq, "task": e.task.Task}})
			}
		}
		for _, id := range t.assignments {
			a := s.threads.assignments[id]
			switch {
			case a.state == "taken" && a.addressee == agentID:
				out = append(out, obligation{kind: "deliver", seq: a.takeSeq, since: a.takenAt,
					item: map[string]any{"thread": t.id, "assignment": a.id, "due": stamp(a.deliveryDue())}})
			case a.state == "delivered" && a.creator == agentID && !a.forfeited:
				due := a.judgmentDue()
				if s.faults[FaultJudgeItemShowsDeliveryDue] {
					due = a.deliveryDue() // planted: the judge duty shows the delivery deadline
				}
				out = append(out, obligation{kind: "judge", seq: a.deliverSq, since: a.deliveredAt,
					item: map[string]any{"thread": t.id, "assignment": a.id, "due": stamp(due)}})
			}
		}
	}
	return out
}

func (s *Service) threadOpportunities(agentID string) []any {
	var out []any
	for _, t := range s.agentThreads(agentID) {
		if t.closed {
			continue
		}
		for _, id := range t.assignments {
			if a := s.threads.assignments[id]; a.state == "open" && a.addressee == agentID {
				out = append(out, map[string]any{"kind": "assignment", "thread": t.id, "assignment": a.id, "entry": a.entry})
			}
		}
	}
	return out
}

func (ts *threadState) join(agentID, threadID string) {
	if ts.memberOf[agentID] == nil {
		ts.memberOf[agentID] = map[string]bool{}
	}
	ts.memberOf[agentID][threadID] = true
}

// agentThreads returns the threads an agent is a current member of, oldest
// first.
func (s *Service) agentThreads(agentID string) []*thread {
	ids := make([]string, 0, len(s.threads.memberOf[agentID]))
	for id := range s.threads.memberOf[agentID] {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return idNum(ids[i]) < idNum(ids[j]) })
	out := make([]*thread, len(ids))
	for i, id := range ids {
		out[i] = s.threads.byID[id]
	}
	return out
}

// openAssignments returns the assignments not yet terminal, in creation
// order, dropping the ended ones from the index (terminal is final).
func (s *Service) openAssignments() []*assignment {
	ts := &s.threads
	kept := ts.open[:0]
	var out []*assignment
	for _, id := range ts.open {
		if a := ts.assignments[id]; !a.terminal() {
			kept = append(kept, id)
			out = append(out, a)
		}
	}
	ts.open = kept
	return out
}

// idNum is the sequence number inside an id such as "thr-12".
func idNum(id string) int {
	var n int
	_, _ = fmt.Sscanf(id[strings.LastIndexByte(id, '-')+1:], "%d", &n)
	return n
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func (a *assignment) deliveryDue() time.Time {
	return a.deliveryFrom.Add(time.Duration(a.deliverySecs) * time.Second)
}

func (a *assignment) judgmentDue() time.Time {
	return a.judgmentFrom.Add(time.Duration(a.judgmentSecs) * time.Second)
}

// threadDeadlines returns the deadline facts that have come due (§6.4):
// a delivery deadline times the assignment out; a judgment deadline ends it
// undecided, never held against the taker.
func (s *Service) threadDeadlines(now time.Time) []Fact {
	var out []Fact
	for _, a := range s.openAssignments() {
		switch {
		case a.state == "taken" && !now.Before(a.deliveryDue()) && !s.faults[FaultNoDeadlines]:
			out = append(out, Fact{Kind: FactAssignmentTimedOut, Object: a.thread, At: a.deliveryDue(),
				Data: mustJSON(threadData{Assignment: a.id})})
		case a.state == "delivered" && !now.Before(a.judgmentDue()) && !s.faults[FaultNoDeadlines]:
			out = append(out, Fact{Kind: FactAssignmentUnjudged, Object: a.thread, At: a.judgmentDue(),
				Data: mustJSON(threadData{Assignment: a.id})})
		}
	}
	return out
}

// governorOverrides is the planted governor-overrides fault: a governor
// may retract, void and judge whatever its thread holds.
func (s *Service) governorOverrides(t *thread, agentID string) bool {
	m, ok := t.members[agentID]
	return s.faults[FaultGovernorOverrides] && ok && m.role == RoleGovernor
}
