package kungfuref

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"time"
)

// The fact kinds of the Task profile (§7).
const (
	FactTaskCreated   FactKind = "task.created"   // a Task and its contract version 1
	FactTaskRevised   FactKind = "task.revised"   // a new contract version
	FactTaskEngaged   FactKind = "task.engaged"   // a confirmed engagement (§7.3)
	FactTaskDelivered FactKind = "task.delivered" // the engagement's one delivery
	FactTaskDropped   FactKind = "task.dropped"   // the engaged agent gave up before delivering
	FactTaskJudged    FactKind = "task.judged"    // the judge adopted or rejected the delivery
	FactTaskTimedOut  FactKind = "task.timed_out" // the delivery deadline passed first
	FactTaskLapsed    FactKind = "task.lapsed"    // the judgment deadline passed: the default outcome
	// FactTaskCancelled is written only by the planted deactivation-cancels fault.
	FactTaskCancelled FactKind = "task.cancelled"
)

// The engagement states (§7.3). All but confirmed and delivered are terminal.
const (
	engConfirmed = "confirmed"
	engDelivered = "delivered"
	engAdopted   = "adopted"
	engRejected  = "rejected"
	engUndecided = "undecided"
	engDropped   = "dropped"
	engTimedOut  = "timed_out"
)

// Bounds of Task parameters.
const (
	defaultDeliveryDue = 3600  // seconds from engagement
	defaultJudgmentDue = 86400 // seconds from delivery
	taskMaxDue         = 30 * 86400
	taskMaxTitle       = 200
	taskMaxPins        = 20
	taskMaxNamed       = 50
	taskMaxReason      = 2000
)

// pin is one pinned version of one Memory.
type taskPin struct {
	Memory  string `json:"memory"`
	Version int    `json:"version"`
}

// contract is one immutable version of a Task's contract (§7.1).
type taskContract struct {
	Title          string         `json:"title"`
	Requirements   string         `json:"requirements"`
	Inputs         []taskPin      `json:"inputs"`
	OutputSchema   map[string]any `json:"output_schema,omitempty"`
	DeliveryDue    int            `json:"delivery_due"`
	JudgmentDue    int            `json:"judgment_due"`
	DefaultOutcome string         `json:"default_outcome"`
	MaxAdoptions   int            `json:"max_adoptions,omitempty"` // 0: no limit
	// AdoptedReaders declares who reads adopted deliveries (§9): "parties"
	// (author, judge, the engaged agent) or "audience" (whoever may read the
	// contract layer).
	AdoptedReaders string `json:"adopted_readers"`
}

type taskCreatedData struct {
	Audience string       `json:"audience"`
	Named    []string     `json:"named,omitempty"`
	Judge    string       `json:"judge"`
	Contract taskContract `json:"contract"`
}

type taskRevisedData struct {
	Version  int          `json:"version"`
	Contract taskContract `json:"contract"`
}

type taskEngagedData struct {
	Task            string    `json:"task"`
	ContractVersion int       `json:"contract_version"`
	Inputs          []taskPin `json:"inputs"`
	DeliveryDue     time.Time `json:"delivery_due"`
}

type taskDeliveredData struct {
	Payload     json.RawMessage `json:"payload,omitempty"`
	Memories    []taskPin       `json:"memories"`
	JudgmentDue time.Time       `json:"judgment_due"`
}

type taskJudgedData struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

type taskLapsedData struct {
	Outcome string `json:"outcome"`
}

// task is the derived state of one Task.
type task struct {
	id        string
	author    string
	audience  string
	named     []string
	judge     string
	versions  []taskContract
	versionAt []time.Time
	createdAt time.Time
	engs      []string // engagement ids in the order they were confirmed
	adopted   int
	rejected  int // read only by the planted cap-counts-rejections fault
}

func (t *task) current() int { return len(t.versions) }

func (t *task) names(agentID string) bool {
	for _, n := range t.named {
		if n == agentID {
			return true
		}
	}
	return false
}

type taskEvent struct {
	event string
	at    time.Time
	by    string
}

// engagement is the derived state of one engagement (§7.3).
type taskEngagement struct {
	id          string
	task        string
	agent       string
	version     int
	inputs      []taskPin
	state       string
	seq         int64 // the fact that confirmed it: the deliver duty arose there
	at          time.Time
	deliveryDue time.Time
	// delivery
	deliverySeq int64 // the judge duty arose there
	deliveredAt time.Time
	payload     json.RawMessage
	memories    []taskPin
	judgmentDue time.Time
	// judgment
	verdict string
	reason  string
	history []taskEvent
}

func (e *taskEngagement) open() bool { return e.state == engConfirmed || e.state == engDelivered }

// taskState is the derived state of every Task (§7).
type taskState struct {
	tasks    map[string]*task
	order    []string
	authored map[string][]string // Task ids by author, in creation order
	engs     map[string]*taskEngagement
	engOrder []string
	// open indexes the engagements not yet terminal, compacted as they end,
	// so deadlines and turns never scan every engagement ever made.
	open []string
}

var taskActions = map[string]handler{
	"task.create":  (*Service).createTask,
	"task.revise":  (*Service).reviseTask,
	"task.take":    (*Service).takeTask,
	"task.deliver": (*Service).deliverTask,
	"task.drop":    (*Service).dropTask,
	"task.judge":   (*Service).judgeTask,
}

var taskViews = map[string]view{
	"task":        (*Service).readTask,
	"tasks":       (*Service).listTasks,
	"engagement":  (*Service).readEngagement,
	"engagements": (*Service).listEngagements,
	"adoptions":   (*Service).listAdoptions,
}

func taskStamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// taskNotFound is the one answer for a Task the caller may not see, whether
// or not it exists (§12 minimal disclosure).
func taskNotFound(id string) *Rejection {
	return rejection(ReasonNotFound, "stop", fmt.Sprintf("no task %q is visible to you", id))
}

// engagementNotFound is the one answer for an engagement the caller may not see.
func engagementNotFound(id string) *Rejection {
	return rejection(ReasonNotFound, "stop", fmt.Sprintf("no engagement %q is visible to you", id))
}

func taskInvalid(format string, args ...any) *Rejection {
	return rejection(ReasonInvalidParams, "retry", fmt.Sprintf(format, args...))
}

// canSeeTask: the contract layer of an open Task is readable by anyone; a
// restricted one by its author, the named agents and the judge (§9).
func (s *Service) canSeeTask(agentID string, t *task) bool {
	if t.audience == "open" || s.faults[FaultRestrictedLeak] {
		return true
	}
	if s.faults[FaultTaskRefGrantsAccess] && s.referencedTo(agentID, t.id) {
		return true // planted: a reference in a thread admits its members
	}
	return agentID == t.author || agentID == t.judge || t.names(agentID)
}

// isParty: an engagement, its delivery and judgment are readable by the
// Task's author, the engaged agent and the judge (§9).
func (s *Service) taskParty(agentID string, t *task, e *taskEngagement) bool {
	if s.faults[FaultEngagementLeak] && s.canSeeTask(agentID, t) {
		return true
	}
	if s.faults[FaultTaskRefGrantsAccess] && s.referencedTo(agentID, t.id) {
		return true // planted: a reference in a thread shows its members the engagements
	}
	if s.faults[FaultPeersReadEngagements] && s.engagedOn(agentID, t) {
		return true // planted: every agent engaged on the Task counts as a party
	}
	return agentID == t.author || agentID == e.agent || agentID == t.judge
}

// boundVersion is the contract version an engagement is judged against.
func (s *Service) boundVersion(t *task, e *taskEngagement) int {
	if s.faults[FaultRevisionRebinds] {
		return t.current()
	}
	return e.version
}

func (s *Service) visibleTask(agentID string, p map[string]any) (*task, *Rejection) {
	id, ok := stringParam(p, "task")
	if !ok {
		return nil, taskInvalid("task (the Task id) is required")
	}
	t, ok := s.tasks.tasks[id]
	if !ok || !s.canSeeTask(agentID, t) {
		return nil, taskNotFound(id)
	}
	return t, nil
}

func (s *Service) visibleEngagement(agentID string, p map[string]any) (*taskEngagement, *task, *Rejection) {
	id, ok := stringParam(p, "engagement")
	if !ok {
		return nil, nil, taskInvalid("engagement (the engagement id) is required")
	}
	e, ok := s.tasks.engs[id]
	if !ok {
		return nil, nil, engagementNotFound(id)
	}
	t := s.tasks.tasks[e.task]
	if !s.taskParty(agentID, t, e) {
		return nil, nil, engagementNotFound(id)
	}
	return e, t, nil
}

// onlyParams rejects parameters an action does not know.
func taskOnlyParams(p map[string]any, known ...string) *Rejection {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
outer:
	for _, k := range names {
		for _, n := range known {
			if k == n {
				continue outer
			}
		}
		return taskInvalid("unknown parameter %q", k)
	}
	return nil
}

func taskGiven(p map[string]any, name string) bool {
	v, ok := p[name]
	return ok && v != nil
}

// pins reads a list of {memory, version?}: pinned versions of the caller's
// own valid Memories; a missing version pins the current one.
func (s *Service) taskPins(agentID string, p map[string]any, name, what string) ([]taskPin, *Rejection) {
	raw, ok := p[name]
	if !ok || raw == nil {
		return []taskPin{}, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, taskInvalid("%s must be a list of {memory, version}", name)
	}
	if len(list) > taskMaxPins {
		return nil, taskInvalid("%s may name at most %d Memories", name, taskMaxPins)
	}
	out := []taskPin{}
	seen := map[string]bool{}
	for i, el := range list {
		obj, ok := el.(map[string]any)
		if !ok {
			return nil, taskInvalid("%s[%d] must be an object {memory, version}", name, i)
		}
		if rej := taskOnlyParams(obj, "memory", "version"); rej != nil {
			return nil, rej
		}
		id, ok := stringParam(obj, "memory")
		if !ok {
			return nil, taskInvalid("%s[%d].memory (a Memory id) is required", name, i)
		}
		m, ok := s.memories[id]
		if !ok || !s.canRead(agentID, m) {
			return nil, notFound(id)
		}
		if m.author != agentID {
			return nil, taskInvalid("%s can only pin your own Memories; %q is another agent's", what, id)
		}
		if m.withdrawn {
			return nil, taskInvalid("memory %q is withdrawn; a withdrawn Memory takes no new references", id)
		}
		if seen[id] {
			return nil, taskInvalid("%s names memory %q twice", name, id)
		}
		seen[id] = true
		v, has, err := intParam(obj, "version")
		if err != nil {
			return nil, taskInvalid("%s[%d].%s", name, i, err.Error())
		}
		if !has {
			v = m.current()
		}
		if v < 1 || v > m.current() {
			return nil, taskInvalid("memory %q has no version %d", id, v)
		}
		out = append(out, taskPin{Memory: id, Version: v})
	}
	return out, nil
}

func taskSeconds(p map[string]any, name string, def int) (int, *Rejection) {
	v, has, err := intParam(p, name)
	if err != nil {
		return 0, taskInvalid("%s", err.Error())
	}
	if !has {
		return def, nil
	}
	if v < 1 || v > taskMaxDue {
		return 0, taskInvalid("%s must be a whole number of seconds from 1 to %d", name, taskMaxDue)
	}
	return v, nil
}

// buildContract reads the contract parameters over a base: the defaults for
// a new Task, the current version for a revision.
func (s *Service) buildContract(agentID string, p map[string]any, base taskContract) (taskContract, *Rejection) {
	c := base
	c.Inputs = append([]taskPin{}, base.Inputs...)
	if taskGiven(p, "title") || base.Title == "" {
		t, ok := stringParam(p, "title")
		if !ok {
			return c, taskInvalid("title (a non-empty string) is required")
		}
		if len([]rune(t)) > taskMaxTitle {
			return c, taskInvalid("title may have at most %d characters", taskMaxTitle)
		}
		c.Title = t
	}
	if taskGiven(p, "requirements") || base.Requirements == "" {
		r, ok := stringParam(p, "requirements")
		if !ok {
			return c, taskInvalid("requirements (a non-empty string: what the output must satisfy) are required")
		}
		if s.limits.MaxContentBytes > 0 && len(r) > s.limits.MaxContentBytes {
			return c, taskInvalid("requirements are %d bytes; at most %d are allowed", len(r), s.limits.MaxContentBytes)
		}
		c.Requirements = r
	}
	if taskGiven(p, "inputs") {
		in, rej := s.taskPins(agentID, p, "inputs", "required inputs")
		if rej != nil {
			return c, rej
		}
		c.Inputs = in
	}
	if taskGiven(p, "output_schema") {
		o, ok := p["output_schema"].(map[string]any)
		if !ok {
			return c, taskInvalid("output_schema must be a JSON object")
		}
		if raw, _ := json.Marshal(o); s.limits.MaxContentBytes > 0 && len(raw) > s.limits.MaxContentBytes {
			return c, taskInvalid("output_schema is %d bytes; at most %d are allowed", len(raw), s.limits.MaxContentBytes)
		}
		c.OutputSchema = cloneMap(o)
	}
	var rej *Rejection
	if c.DeliveryDue, rej = taskSeconds(p, "delivery_due", c.DeliveryDue); rej != nil {
		return c, rej
	}
	if c.JudgmentDue, rej = taskSeconds(p, "judgment_due", c.JudgmentDue); rej != nil {
		return c, rej
	}
	if taskGiven(p, "default_outcome") {
		d, _ := p["default_outcome"].(string)
		if d != engAdopted && d != engUndecided {
			return c, taskInvalid(`default_outcome (the result when no judgment is made) must be "adopted" or "undecided"`)
		}
		c.DefaultOutcome = d
	}
	if taskGiven(p, "max_adoptions") {
		n, _, err := intParam(p, "max_adoptions")
		if err != nil || n < 1 {
			return c, taskInvalid("max_adoptions must be a whole number of at least 1")
		}
		c.MaxAdoptions = n
	}
	if taskGiven(p, "adopted_readers") {
		r, _ := p["adopted_readers"].(string)
		if r != "parties" && r != "audience" {
			return c, taskInvalid(`adopted_readers must be "parties" or "audience"`)
		}
		c.AdoptedReaders = r
	}
	return c, nil
}

var taskContractParams = []string{"title", "requirements", "inputs", "output_schema", "delivery_due",
	"judgment_due", "default_outcome", "max_adoptions", "adopted_readers"}

func (s *Service) createTask(req Request) ([]Fact, map[string]any, *Rejection) {
	p := req.Params
	known := append([]string{"judge", "audience", "named"}, taskContractParams...)
	if s.faults[FaultConversionExists] {
		known = append(known, "from_assignment") // planted: a Task can be made out of an assignment
	}
	if rej := taskOnlyParams(p, known...); rej != nil {
		return nil, nil, rej
	}
	var converted []Fact
	if s.faults[FaultConversionExists] && taskGiven(p, "from_assignment") {
		a, th, rej := s.memberAssignment(req.Agent, map[string]any{"assignment": p["from_assignment"]})
		if rej != nil {
			return nil, nil, rej
		}
		// planted: the assignment moves out of its thread into the new Task
		converted = append(converted, threadFact(FactAssignmentVoided, req.Agent, th.id, threadData{Assignment: a.id}))
	}
	c, rej := s.buildContract(req.Agent, p, taskContract{
		DeliveryDue: defaultDeliveryDue, JudgmentDue: defaultJudgmentDue,
		DefaultOutcome: engUndecided, AdoptedReaders: "parties",
	})
	if rej != nil {
		return nil, nil, rej
	}
	id := fmt.Sprintf("task-%d", s.seq+1+int64(len(converted)))
	// leaves is what the planted rejected-create-records fault records when
	// the checks below refuse the request: the Task as if they had passed.
	leaves := func(rej *Rejection) ([]Fact, map[string]any, *Rejection) {
		if !s.faults[FaultRejectedCreateRecords] {
			return nil, nil, rej
		}
		return append(converted, Fact{Kind: FactTaskCreated, Agent: req.Agent, Object: id,
			Data: mustJSON(taskCreatedData{Audience: "open", Judge: req.Agent, Contract: c})}), nil, rej
	}
	judge := req.Agent
	if taskGiven(p, "judge") {
		j, ok := stringParam(p, "judge")
		a, exists := s.agents[j]
		if !ok || !exists {
			return leaves(taskInvalid("judge must be the id of an agent (§7: a designated judge is an agent)"))
		}
		if !a.active {
			return leaves(taskInvalid("judge %q is deactivated and could never judge", j))
		}
		judge = j
	}
	audience := "open"
	if taskGiven(p, "audience") {
		audience, _ = p["audience"].(string)
		if audience != "open" && audience != "restricted" {
			return leaves(taskInvalid(`audience must be "open" or "restricted"`))
		}
	}
	var named []string
	switch {
	case audience == "open" && taskGiven(p, "named"):
		return leaves(taskInvalid(`named applies only to a restricted audience; an open Task is offered to every agent`))
	case audience == "restricted":
		list, ok := p["named"].([]any)
		if !ok || len(list) < 1 || len(list) > taskMaxNamed {
			return leaves(taskInvalid("a restricted Task names 1 to %d agents in named", taskMaxNamed))
		}
		seen := map[string]bool{}
		for _, el := range list {
			id, _ := el.(string)
			if _, exists := s.agents[id]; !exists {
				return leaves(taskInvalid("named must list agent ids; %q is not an agent", id))
			}
			if id == req.Agent {
				return leaves(taskInvalid("the author cannot name itself: an author never takes its own Task"))
			}
			if seen[id] {
				return leaves(taskInvalid("named lists %q twice", id))
			}
			seen[id] = true
			named = append(named, id)
		}
	}
	facts := append(converted, Fact{Kind: FactTaskCreated, Agent: req.Agent, Object: id,
		Data: mustJSON(taskCreatedData{Audience: audience, Named: named, Judge: judge, Contract: c})})
	receipt := map[string]any{"task": id, "author": req.Agent, "version": 1, "audience": audience, "judge": judge}
	if named != nil {
		receipt["named"] = named
	}
	return facts, receipt, nil
}

func (s *Service) reviseTask(req Request) ([]Fact, map[string]any, *Rejection) {
	p := req.Params
	for _, k := range []string{"audience", "named", "judge"} {
		if _, ok := p[k]; ok {
			return nil, nil, rejection(ReasonInvalidParams, "revise",
				fmt.Sprintf("%s is fixed when a Task is created; a different %s needs a new Task", k, k))
		}
	}
	if rej := taskOnlyParams(p, append([]string{"task"}, taskContractParams...)...); rej != nil {
		return nil, nil, rej
	}
	t, rej := s.visibleTask(req.Agent, p)
	if rej != nil {
		return nil, nil, rej
	}
	if t.author != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the author of a Task may revise its contract")
	}
	changes := false
	for _, k := range taskContractParams {
		if taskGiven(p, k) {
			changes = true
		}
	}
	if !changes {
		return nil, nil, taskInvalid("a revision states at least one contract field: %v", taskContractParams)
	}
	c, rej := s.buildContract(req.Agent, p, t.versions[t.current()-1])
	if rej != nil {
		return nil, nil, rej
	}
	v := t.current() + 1
	return []Fact{{Kind: FactTaskRevised, Agent: req.Agent, Object: t.id, Data: mustJSON(taskRevisedData{Version: v, Contract: c})}},
		map[string]any{"task": t.id, "version": v}, nil
}

// delivery is a checked delivery, not yet recorded.
type taskDelivery struct {
	payload  json.RawMessage
	memories []taskPin
}

// parseDelivery checks a delivery's output: a payload and/or pinned versions
// of the deliverer's own valid Memories.
func (s *Service) parseDelivery(agentID string, p map[string]any) (taskDelivery, *Rejection) {
	var d taskDelivery
	if rej := taskOnlyParams(p, "engagement", "payload", "memories"); rej != nil {
		return d, rej
	}
	if taskGiven(p, "payload") {
		raw, err := json.Marshal(p["payload"])
		if err != nil {
			return d, taskInvalid("payload must be JSON")
		}
		if s.limits.MaxContentBytes > 0 && len(raw) > s.limits.MaxContentBytes {
			return d, taskInvalid("payload is %d bytes; at most %d are allowed", len(raw), s.limits.MaxContentBytes)
		}
		d.payload = raw
	}
	mems, rej := s.taskPins(agentID, p, "memories", "a delivery")
	if rej != nil {
		return d, rej
	}
	d.memories = mems
	if d.payload == nil && len(d.memories) == 0 {
		return d, taskInvalid("a delivery carries a payload, memories, or both")
	}
	return d, nil
}

func (s *Service) deliveredFact(agentID string, e *taskEngagement, c taskContract, d taskDelivery) (Fact, map[string]any) {
	from := s.clock.Now().UTC()
	if s.faults[FaultTaskJudgmentDueFromEngagement] {
		from = e.at // planted: from the engagement, not the delivery
	}
	due := from.Add(time.Duration(c.JudgmentDue) * time.Second)
	f := Fact{Kind: FactTaskDelivered, Agent: agentID, Object: e.id,
		Data: mustJSON(taskDeliveredData{Payload: d.payload, Memories: d.memories, JudgmentDue: due})}
	return f, map[string]any{"memories": taskPinList(d.memories), "judgment_due": taskStamp(due)}
}

func taskPinList(ps []taskPin) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, map[string]any{"memory": p.Memory, "version": p.Version})
	}
	return out
}

func takeReceipt(e *taskEngagement) map[string]any {
	return map[string]any{"engagement": e.id, "task": e.task, "agent": e.agent, "contract_version": e.version,
		"inputs": taskPinList(e.inputs), "delivery_due": taskStamp(e.deliveryDue), "state": e.state}
}

func (s *Service) takeTask(req Request) ([]Fact, map[string]any, *Rejection) {
	p := req.Params
	if rej := taskOnlyParams(p, "task", "deliver"); rej != nil {
		return nil, nil, rej
	}
	var deliverParams map[string]any
	if taskGiven(p, "deliver") {
		dp, ok := p["deliver"].(map[string]any)
		if !ok {
			return nil, nil, taskInvalid("deliver must be an object {payload?, memories?}")
		}
		deliverParams = dp
	}
	t, rej := s.visibleTask(req.Agent, p)
	if rej != nil {
		return nil, nil, rej
	}
	if t.author == req.Agent && !s.faults[FaultOwnTaskTake] {
		return nil, nil, rejection(ReasonForbidden, "stop", "the author of a Task cannot take it")
	}
	if t.judge == req.Agent && t.author != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "the judge of a Task cannot take it")
	}
	// The same checks as a separate delivery, before anything is recorded (L2).
	var d taskDelivery
	if deliverParams != nil {
		if _, ok := deliverParams["engagement"]; ok {
			return nil, nil, taskInvalid("deliver names no engagement: it delivers on the engagement this take confirms")
		}
		if d, rej = s.parseDelivery(req.Agent, deliverParams); rej != nil {
			return nil, nil, rej
		}
	}
	var existing *taskEngagement
	if !s.faults[FaultRepeatTakeCreates] {
		for _, id := range t.engs {
			if e := s.tasks.engs[id]; e.agent == req.Agent && e.open() {
				existing = e
			}
		}
	}
	if existing != nil {
		// The one no-new-effect success of the Task profile (L2): the agent
		// already holds an open engagement, which is returned unchanged.
		receipt := takeReceipt(existing)
		if deliverParams == nil {
			return nil, receipt, nil
		}
		if existing.state != engConfirmed {
			return nil, nil, rejection(ReasonInvalidState, "done",
				fmt.Sprintf("engagement %q has delivered already; a delivery cannot be replaced", existing.id))
		}
		f, extra := s.deliveredFact(req.Agent, existing, t.versions[s.boundVersion(t, existing)-1], d)
		for k, v := range extra {
			receipt[k] = v
		}
		receipt["state"] = engDelivered
		return []Fact{f}, receipt, nil
	}
	c := t.versions[t.current()-1]
	for _, in := range c.Inputs {
		if m := s.memories[in.Memory]; m == nil || m.withdrawn {
			return nil, nil, rejection(ReasonInvalidState, "wait",
				fmt.Sprintf("required input %q is withdrawn and can no longer be bound; wait for a revision of the contract", in.Memory))
		}
	}
	now := s.clock.Now().UTC()
	from := now
	if s.faults[FaultTaskDeliveryDueFromVersion] {
		from = t.versionAt[t.current()-1] // planted: from the contract version, not the engagement
	}
	e := &taskEngagement{id: fmt.Sprintf("eng-%d", s.seq+1), task: t.id, agent: req.Agent, version: t.current(),
		inputs: append([]taskPin{}, c.Inputs...), state: engConfirmed, at: now,
		deliveryDue: from.Add(time.Duration(c.DeliveryDue) * time.Second)}
	facts := []Fact{{Kind: FactTaskEngaged, Agent: req.Agent, Object: e.id,
		Data: mustJSON(taskEngagedData{Task: t.id, ContractVersion: e.version, Inputs: e.inputs, DeliveryDue: e.deliveryDue})}}
	receipt := takeReceipt(e)
	if deliverParams != nil {
		f, extra := s.deliveredFact(req.Agent, e, c, d)
		facts = append(facts, f)
		for k, v := range extra {
			receipt[k] = v
		}
		receipt["state"] = engDelivered
	}
	return facts, receipt, nil
}

func (s *Service) deliverTask(req Request) ([]Fact, map[string]any, *Rejection) {
	if rej := taskOnlyParams(req.Params, "engagement", "payload", "memories"); rej != nil {
		return nil, nil, rej
	}
	e, t, rej := s.visibleEngagement(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if e.agent != req.Agent {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the engaged agent delivers on an engagement")
	}
	switch {
	case e.state == engConfirmed:
	case e.state == engDelivered && s.faults[FaultSecondDelivery]:
	case e.state == engDelivered:
		return nil, nil, rejection(ReasonInvalidState, "done",
			fmt.Sprintf("engagement %q has delivered already; a delivery cannot be replaced or extended", e.id))
	default:
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("engagement %q has ended %s", e.id, e.state))
	}
	d, rej := s.parseDelivery(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	f, receipt := s.deliveredFact(req.Agent, e, t.versions[s.boundVersion(t, e)-1], d)
	receipt["engagement"], receipt["task"], receipt["state"] = e.id, t.id, engDelivered
	return []Fact{f}, receipt, nil
}

func (s *Service) dropTask(req Request) ([]Fact, map[string]any, *Rejection) {
	if rej := taskOnlyParams(req.Params, "engagement"); rej != nil {
		return nil, nil, rej
	}
	e, t, rej := s.visibleEngagement(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if e.agent != req.Agent && !(s.faults[FaultAuthorCancels] && t.author == req.Agent) && !(s.faults[FaultJudgeCancels] && t.judge == req.Agent) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the engaged agent may drop an engagement; nobody can cancel it for them")
	}
	switch e.state {
	case engConfirmed:
	case engDropped:
		return nil, nil, rejection(ReasonInvalidState, "done", fmt.Sprintf("engagement %q is dropped already", e.id))
	case engDelivered:
		return nil, nil, rejection(ReasonInvalidState, "wait",
			fmt.Sprintf("engagement %q has delivered; it can no longer be dropped and awaits judgment", e.id))
	default:
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("engagement %q has ended %s", e.id, e.state))
	}
	return []Fact{{Kind: FactTaskDropped, Agent: req.Agent, Object: e.id}},
		map[string]any{"engagement": e.id, "task": t.id, "state": engDropped}, nil
}

func (s *Service) judgeTask(req Request) ([]Fact, map[string]any, *Rejection) {
	if rej := taskOnlyParams(req.Params, "engagement", "verdict", "reason"); rej != nil {
		return nil, nil, rej
	}
	e, t, rej := s.visibleEngagement(req.Agent, req.Params)
	if rej != nil {
		return nil, nil, rej
	}
	if req.Agent != t.judge && !(s.faults[FaultJudgeByAnyone] && s.taskParty(req.Agent, t, e)) {
		return nil, nil, rejection(ReasonForbidden, "stop", "only the Task's judge may judge its deliveries")
	}
	verdict, _ := req.Params["verdict"].(string)
	if verdict != "adopt" && verdict != "reject" {
		return nil, nil, taskInvalid(`verdict must be "adopt" or "reject"`)
	}
	reason := ""
	if taskGiven(req.Params, "reason") {
		r, ok := req.Params["reason"].(string)
		if !ok {
			return nil, nil, taskInvalid("reason must be a string")
		}
		reason = r
	}
	if len([]rune(reason)) > taskMaxReason {
		return nil, nil, taskInvalid("reason may have at most %d characters", taskMaxReason)
	}
	if verdict == "reject" && reason == "" && !s.faults[FaultRejectWithoutReason] {
		return nil, nil, taskInvalid("a rejection carries a reason the engaged agent can read")
	}
	want := map[string]string{"adopt": engAdopted, "reject": engRejected}[verdict]
	switch e.state {
	case engDelivered:
	case engConfirmed:
		return nil, nil, rejection(ReasonInvalidState, "wait", fmt.Sprintf("engagement %q has not delivered yet", e.id))
	case want:
		return nil, nil, rejection(ReasonInvalidState, "done", fmt.Sprintf("engagement %q is %s already", e.id, e.state))
	default:
		return nil, nil, rejection(ReasonInvalidState, "stop", fmt.Sprintf("engagement %q has ended %s", e.id, e.state))
	}
	if verdict == "adopt" {
		limit := t.versions[s.boundVersion(t, e)-1].MaxAdoptions
		if s.faults[FaultCapFollowsCurrentVersion] {
			limit = t.versions[t.current()-1].MaxAdoptions // planted
		}
		used := t.adopted
		if s.faults[FaultCapCountsRejections] {
			used += t.rejected
		}
		if limit > 0 && used >= limit {
			return nil, nil, rejection(ReasonInvalidState, "stop",
				fmt.Sprintf("the Task has reached its limit of %d adoptions; this delivery can only be rejected or left to its deadline", limit))
		}
		if s.faults[FaultCapRace] {
			// planted: let a competing adoption in between checking the limit and recording
			s.mu.Unlock()
			runtime.Gosched()
			time.Sleep(time.Millisecond)
			s.mu.Lock()
		}
	}
	receipt := map[string]any{"engagement": e.id, "task": t.id, "verdict": verdict, "state": want}
	if reason != "" {
		receipt["reason"] = reason
	}
	return []Fact{{Kind: FactTaskJudged, Agent: req.Agent, Object: e.id, Data: mustJSON(taskJudgedData{Verdict: verdict, Reason: reason})}},
		receipt, nil
}

// applyTask folds one Task fact into the derived state. It is the only
// writer of Task state, so replaying the log rebuilds it exactly.
func (s *Service) applyTask(f Fact) error {
	ts := &s.tasks
	if ts.tasks == nil {
		ts.tasks, ts.engs = map[string]*task{}, map[string]*taskEngagement{}
	}
	switch f.Kind {
	case FactTaskCreated:
		var d taskCreatedData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		ts.tasks[f.Object] = &task{id: f.Object, author: f.Agent, audience: d.Audience, named: d.Named, judge: d.Judge,
			versions: []taskContract{d.Contract}, versionAt: []time.Time{f.At}, createdAt: f.At}
		ts.order = append(ts.order, f.Object)
		if ts.authored == nil {
			ts.authored = map[string][]string{}
		}
		ts.authored[f.Agent] = append(ts.authored[f.Agent], f.Object)
		return nil
	case FactTaskRevised:
		var d taskRevisedData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		t, ok := ts.tasks[f.Object]
		if !ok {
			return fmt.Errorf("fact %s names unknown task %q", f.Kind, f.Object)
		}
		t.versions = append(t.versions, d.Contract)
		t.versionAt = append(t.versionAt, f.At)
		return nil
	case FactTaskEngaged:
		var d taskEngagedData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		t, ok := ts.tasks[d.Task]
		if !ok {
			return fmt.Errorf("fact %s names unknown task %q", f.Kind, d.Task)
		}
		ts.engs[f.Object] = &taskEngagement{id: f.Object, task: d.Task, agent: f.Agent, version: d.ContractVersion,
			inputs: d.Inputs, state: engConfirmed, seq: f.Seq, at: f.At, deliveryDue: d.DeliveryDue,
			history: []taskEvent{{event: "engaged", at: f.At}}}
		ts.engOrder = append(ts.engOrder, f.Object)
		ts.open = append(ts.open, f.Object)
		t.engs = append(t.engs, f.Object)
		return nil
	}
	e, ok := ts.engs[f.Object]
	if !ok {
		return fmt.Errorf("fact %s names unknown engagement %q", f.Kind, f.Object)
	}
	t := ts.tasks[e.task]
	switch f.Kind {
	case FactTaskDelivered:
		var d taskDeliveredData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		e.state, e.deliverySeq, e.deliveredAt = engDelivered, f.Seq, f.At
		e.payload, e.memories, e.judgmentDue = d.Payload, d.Memories, d.JudgmentDue
		e.history = append(e.history, taskEvent{event: "delivered", at: f.At})
	case FactTaskDropped:
		e.state = engDropped
		e.history = append(e.history, taskEvent{event: "dropped", at: f.At})
	case FactTaskJudged:
		var d taskJudgedData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		e.verdict, e.reason = d.Verdict, d.Reason
		if d.Verdict == "adopt" {
			e.state = engAdopted
			t.adopted++
		} else {
			e.state = engRejected
			t.rejected++
		}
		e.history = append(e.history, taskEvent{event: e.state, at: f.At, by: "judge"})
	case FactTaskTimedOut:
		e.state = engTimedOut
		e.history = append(e.history, taskEvent{event: engTimedOut, at: f.At, by: "deadline"})
	case FactTaskLapsed:
		var d taskLapsedData
		if err := json.Unmarshal(f.Data, &d); err != nil {
			return err
		}
		e.state = d.Outcome
		if d.Outcome == engAdopted {
			t.adopted++
		}
		e.history = append(e.history, taskEvent{event: d.Outcome, at: f.At, by: "deadline"})
	case FactTaskCancelled:
		e.state = "cancelled"
		e.history = append(e.history, taskEvent{event: "cancelled", at: f.At, by: "author"})
	default:
		return fmt.Errorf("unknown fact kind %q", f.Kind)
	}
	return nil
}

// taskObligations lists the agent's open Deliver and Judge duties (§8).
// openEngagements returns the engagements not yet terminal, in the order
// they were made, dropping ended ones from the index (terminal is final).
func (s *Service) openEngagements() []*taskEngagement {
	kept := s.tasks.open[:0]
	var out []*taskEngagement
	for _, id := range s.tasks.open {
		if e := s.tasks.engs[id]; e.open() {
			kept = append(kept, id)
			out = append(out, e)
		}
	}
	s.tasks.open = kept
	return out
}

func (s *Service) taskObligations(agentID string) []obligation {
	var out []obligation
	for _, e := range s.openEngagements() {
		t := s.tasks.tasks[e.task]
		switch {
		case e.state == engConfirmed && e.agent == agentID:
			out = append(out, obligation{kind: "deliver", seq: e.seq, since: e.at,
				item: map[string]any{"task": t.id, "engagement": e.id, "due": taskStamp(e.deliveryDue)}})
		case e.state == engDelivered && t.judge == agentID:
			out = append(out, obligation{kind: "judge", seq: e.deliverySeq, since: e.deliveredAt,
				item: map[string]any{"task": t.id, "engagement": e.id, "due": taskStamp(e.judgmentDue)}})
		}
	}
	return out
}

// taskOpportunities lists restricted Tasks naming the agent on which it holds
// no open engagement: offers that bind no one (§8).
func (s *Service) taskOpportunities(agentID string) []any {
	var out []any
	for _, id := range s.tasks.order {
		t := s.tasks.tasks[id]
		if t.audience != "restricted" || !t.names(agentID) {
			continue
		}
		engaged := false
		for _, eid := range t.engs {
			if e := s.tasks.engs[eid]; e.agent == agentID && e.open() {
				engaged = true
			}
		}
		if !engaged {
			out = append(out, map[string]any{"kind": "task", "task": t.id, "author": t.author,
				"title": t.versions[t.current()-1].Title, "version": t.current()})
		}
	}
	return out
}

// taskDeadlines returns a fact for every Task deadline that has passed by
// now, each at its due time (L4): delivery deadlines end confirmed
// engagements timed out, judgment deadlines apply the contract's default.
func (s *Service) taskDeadlines(now time.Time) []Fact {
	type due struct {
		at time.Time
		e  *taskEngagement
	}
	var dues []due
	var facts []Fact
	for _, e := range s.openEngagements() {
		t := s.tasks.tasks[e.task]
		switch {
		case s.faults[FaultDeactivationCancels] && e.open() && !s.agents[t.author].active:
			facts = append(facts, Fact{Kind: FactTaskCancelled, Agent: t.author, Object: e.id})
		case e.state == engConfirmed && now.After(s.deliveryDue(t, e)) && !s.faults[FaultNoDeliveryTimeout]:
			dues = append(dues, due{s.deliveryDue(t, e), e})
		case e.state == engDelivered && now.After(s.judgmentDue(t, e)):
			dues = append(dues, due{s.judgmentDue(t, e), e})
		}
	}
	sort.SliceStable(dues, func(i, j int) bool { return dues[i].at.Before(dues[j].at) })
	adopted := map[string]int{}
	for _, d := range dues {
		e := d.e
		t := s.tasks.tasks[e.task]
		if e.state == engConfirmed {
			facts = append(facts, Fact{Kind: FactTaskTimedOut, Agent: e.agent, Object: e.id, At: d.at})
			continue
		}
		if _, ok := adopted[t.id]; !ok {
			adopted[t.id] = t.adopted
		}
		c := t.versions[s.boundVersion(t, e)-1]
		if s.faults[FaultDefaultFollowsCurrentVersion] {
			c = t.versions[t.current()-1] // planted
		}
		outcome := engUndecided
		if c.DefaultOutcome == engAdopted && (c.MaxAdoptions == 0 || adopted[t.id] < c.MaxAdoptions) && !s.faults[FaultDefaultIgnored] {
			outcome = engAdopted
			adopted[t.id]++
		}
		facts = append(facts, Fact{Kind: FactTaskLapsed, Agent: t.judge, Object: e.id, At: d.at,
			Data: mustJSON(taskLapsedData{Outcome: outcome})})
	}
	return facts
}

func taskContractView(c taskContract) map[string]any {
	out := map[string]any{
		"title": c.Title, "requirements": c.Requirements, "inputs": taskPinList(c.Inputs),
		"delivery_due": c.DeliveryDue, "judgment_due": c.JudgmentDue, "default_outcome": c.DefaultOutcome,
		"adopted_readers": c.AdoptedReaders,
	}
	if c.OutputSchema != nil {
		out["output_schema"] = cloneMap(c.OutputSchema)
	}
	if c.MaxAdoptions > 0 {
		out["max_adoptions"] = c.MaxAdoptions
	}
	return out
}

// readTask answers the contract layer of a Task at one version (§9).
func (s *Service) readTask(agentID string, params map[string]any) Response {
	t, rej := s.visibleTask(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	v, has, err := intParam(params, "version")
	if err != nil {
		return Response{Rejection: taskInvalid("%s", err.Error())}
	}
	if !has {
		v = t.current()
	}
	if v < 1 || v > t.current() {
		return Response{Rejection: taskNotFound(t.id)}
	}
	res := map[string]any{
		"task": t.id, "author": t.author, "audience": t.audience, "judge": t.judge,
		"version": v, "current_version": t.current(), "created_at": taskStamp(t.createdAt),
		"version_at": taskStamp(t.versionAt[v-1]), "contract": taskContractView(t.versions[v-1]),
	}
	if agentID == t.author || agentID == t.judge {
		res["adopted_count"] = t.adopted
		if t.audience == "restricted" {
			res["named"] = append([]string{}, t.named...)
		}
	}
	return Response{Result: res}
}

func (s *Service) taskPinnedContent(ps []taskPin) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		item := map[string]any{"memory": p.Memory, "version": p.Version}
		if m := s.memories[p.Memory]; m != nil && p.Version >= 1 && p.Version <= m.current() {
			item["content"] = m.versions[p.Version-1]
		}
		out = append(out, item)
	}
	return out
}

func (s *Service) taskDeliveryView(e *taskEngagement) map[string]any {
	d := map[string]any{"memories": s.taskPinnedContent(e.memories), "at": taskStamp(e.deliveredAt)}
	if e.payload != nil {
		var v any
		_ = json.Unmarshal(e.payload, &v)
		d["payload"] = v
	}
	return d
}

// readEngagement answers an engagement's working set to its parties: what it
// binds, its state and history, and the caller's role, duties and actions.
func (s *Service) readEngagement(agentID string, params map[string]any) Response {
	e, t, rej := s.visibleEngagement(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	inputs := e.inputs
	if s.faults[FaultInputsFollowCurrentVersion] {
		inputs = t.versions[t.current()-1].Inputs // planted
	}
	if s.faults[FaultInputDrift] {
		inputs = nil
		for _, in := range e.inputs {
			inputs = append(inputs, taskPin{Memory: in.Memory, Version: s.memories[in.Memory].current()})
		}
	}
	res := map[string]any{
		"engagement": e.id, "task": t.id, "author": t.author, "judge": t.judge, "agent": e.agent,
		"contract_version": s.boundVersion(t, e), "inputs": s.taskPinnedContent(inputs), "state": e.state,
		"engaged_at": taskStamp(e.at), "delivery_due": taskStamp(e.deliveryDue),
	}
	if e.deliverySeq != 0 {
		res["delivery"] = s.taskDeliveryView(e)
		res["judgment_due"] = taskStamp(e.judgmentDue)
	}
	if e.verdict != "" {
		v := map[string]any{"verdict": e.verdict}
		if e.reason != "" {
			v["reason"] = e.reason
		}
		res["verdict"] = v
	}
	roles := []any{}
	if agentID == t.author {
		roles = append(roles, "author")
	}
	if agentID == t.judge {
		roles = append(roles, "judge")
	}
	if agentID == e.agent {
		roles = append(roles, "engaged")
	}
	res["roles"] = roles
	obligations, actions := []any{}, []any{}
	active := s.agents[agentID].active
	if e.state == engConfirmed && agentID == e.agent {
		obligations = append(obligations, map[string]any{"kind": "deliver", "next_step": "deliver", "due": taskStamp(e.deliveryDue)})
		if active {
			actions = append(actions, "task.deliver", "task.drop")
		}
	}
	if e.state == engDelivered && agentID == t.judge {
		obligations = append(obligations, map[string]any{"kind": "judge", "next_step": "judge", "due": taskStamp(e.judgmentDue)})
		if active {
			actions = append(actions, "task.judge")
		}
	}
	res["obligations"], res["actions"] = obligations, actions
	history := []any{}
	for _, h := range e.history {
		item := map[string]any{"event": h.event, "at": taskStamp(h.at)}
		if h.by != "" {
			item["by"] = h.by
		}
		history = append(history, item)
	}
	res["history"] = history
	return Response{Result: res}
}

// listEngagements lists digests of a Task's engagements: all of them to the
// author and the judge, only its own to anyone else (§9).
func (s *Service) listEngagements(agentID string, params map[string]any) Response {
	t, rej := s.visibleTask(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	limit, start, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	pg := newOffsetPager(limit, start)
	for _, id := range t.engs {
		e := s.tasks.engs[id]
		if !s.taskParty(agentID, t, e) {
			continue
		}
		if !pg.offer(func() any {
			return map[string]any{"engagement": e.id, "agent": e.agent, "state": e.state,
				"contract_version": s.boundVersion(t, e), "engaged_at": taskStamp(e.at)}
		}) {
			break
		}
	}
	return Response{Result: map[string]any{"task": t.id, "items": pg.items, "next_cursor": pg.next}}
}

// listAdoptions lists adopted deliveries of a Task to the readers their
// contract version declares: the parties, or the whole audience (§9).
func (s *Service) listAdoptions(agentID string, params map[string]any) Response {
	t, rej := s.visibleTask(agentID, params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	limit, start, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	pg := newOffsetPager(limit, start)
	for _, id := range t.engs {
		e := s.tasks.engs[id]
		if e.state != engAdopted {
			continue
		}
		c := t.versions[s.boundVersion(t, e)-1]
		if s.faults[FaultReadersFollowCurrentVersion] {
			c = t.versions[t.current()-1] // planted
		}
		if c.AdoptedReaders != "audience" && !s.taskParty(agentID, t, e) {
			continue
		}
		if !pg.offer(func() any {
			return map[string]any{"engagement": e.id, "contract_version": s.boundVersion(t, e),
				"delivery": s.taskDeliveryView(e)}
		}) {
			break
		}
	}
	return Response{Result: map[string]any{"task": t.id, "items": pg.items, "next_cursor": pg.next}}
}

// listTasks lists the Tasks the caller authored, oldest first, a bounded
// page at a time (§8): whatever its audience, and whoever judges it. Nobody
// else's Task appears, so the listing shows an author what it offered and
// that a refused task.create left nothing behind (L2), and discloses
// nothing of other Tasks (§9, §12).
func (s *Service) listTasks(agentID string, params map[string]any) Response {
	if rej := taskOnlyParams(params, "limit", "cursor"); rej != nil {
		return Response{Rejection: rej}
	}
	limit, start, rej := pageParams(params)
	if rej != nil {
		return Response{Rejection: rej}
	}
	pg := newOffsetPager(limit, start)
	for _, id := range s.tasks.authored[agentID] {
		t := s.tasks.tasks[id]
		if !pg.offer(func() any {
			return map[string]any{"task": t.id, "title": t.versions[t.current()-1].Title, "audience": t.audience,
				"judge": t.judge, "version": t.current(), "created_at": taskStamp(t.createdAt)}
		}) {
			break
		}
	}
	return Response{Result: map[string]any{"items": pg.items, "next_cursor": pg.next}}
}

// engagedOn says whether the agent has an engagement on the Task. Only the
// planted peers-read-engagements fault asks.
func (s *Service) engagedOn(agentID string, t *task) bool {
	for _, id := range t.engs {
		if s.tasks.engs[id].agent == agentID {
			return true
		}
	}
	return false
}

// deliveryDue and judgmentDue are an engagement's deadlines, fixed when it
// was confirmed and when it delivered, from its bound contract version.
func (s *Service) deliveryDue(t *task, e *taskEngagement) time.Time {
	if s.faults[FaultDuesFollowCurrentVersion] { // planted: from the current version
		return e.at.Add(time.Duration(t.versions[t.current()-1].DeliveryDue) * time.Second)
	}
	return e.deliveryDue
}

func (s *Service) judgmentDue(t *task, e *taskEngagement) time.Time {
	if s.faults[FaultDuesFollowCurrentVersion] { // planted: from the current version
		return e.deliveredAt.Add(time.Duration(t.versions[t.current()-1].JudgmentDue) * time.Second)
	}
	return e.judgmentDue
}
