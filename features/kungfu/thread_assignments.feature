@thread
Feature: Assignments (§6.4)
  A member who may speak posts an entry carrying an assignment to exactly one
  member who may speak. Untaken, it binds nobody and never expires; taking
  starts the delivery deadline, delivery starts the judgment deadline, and
  every assignment ends in one final state.

  Background:
    Given agents alice, bob, carol and dave
    When alice performs "thread.create" with:
      """
      {"subject": "work"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s
    When bob performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it succeeds
    When alice creates memory m with content "the brief"
    And bob creates memory b with content "bob's findings"
    And carol creates memory c with content "carol's notes"

  @KF-6.4-01 @KF-6.4-02 @KF-6.4-03 @KF-2-07
  Scenario: An assignment is addressed to exactly one member and fixes its criteria and deadlines
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "three bullet points", "output_schema": {"type": "array"}, "delivery_due": 3600, "judgment_due": 7200}}
      """
    Then it succeeds
    And remember /result/assignment as a
    When carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                       | value                 |
      | /result/assignment            | "${a}"                |
      | /result/thread                | "${t}"                |
      | /result/entry                 | 1                     |
      | /result/creator               | "${alice}"            |
      | /result/addressee             | "${bob}"              |
      | /result/criteria              | "three bullet points" |
      | /result/output_schema         | {"type": "array"}     |
      | /result/delivery_due_seconds  | 3600                  |
      | /result/judgment_due_seconds  | 7200                  |
      | /result/state                 | "open"                |
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "defaults"}}
      """
    Then remember /result/assignment as defaults
    When bob reads "assignment" with:
      """
      {"assignment": "${defaults}"}
      """
    Then /result/judgment_due_seconds matches {"$gte": 60}
    And /result/delivery_due_seconds matches {"$gte": 60}
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": ["${bob}", "${carol}"], "criteria": "two addressees"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"criteria": "nobody"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${dave}", "criteria": "a stranger"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "too soon", "judgment_due": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${alice}", "criteria": "a note to self"}}
      """
    Then it succeeds
    And remember /result/assignment as self
    When alice performs "assignment.take" with:
      """
      {"assignment": "${self}", "deliver": {"payload": "noted"}}
      """
    Then it succeeds
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${self}", "verdict": "adopt"}
      """
    Then it succeeds
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                         | value                    |
      | /result/timeline/*/entry        | [1, 2, 3]                |
      | /result/timeline/*/assignment/assignment | ["${a}", "${defaults}", "${self}"] |

  @KF-6.4-01 @KF-6.3-01
  Scenario: An observer cannot create an assignment, nor be given one, and a rejected assignment leaves no entry
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "observer"}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}", "assign": {"to": "${bob}", "criteria": "from an observer"}}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "ask": ["${alice}"], "assign": {"to": "${carol}", "criteria": "to an observer"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "opportunities"
    Then /result/items matches {"$len": 0}
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 0}

  @KF-6.4-05 @KF-8-04 @KF-6.4-12 @KF-8-06
  Scenario: Only the addressee takes; taking binds it and ends its response to the carrying entry
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"], "assign": {"to": "${bob}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When bob reads "turn"
    Then /result/items/*/kind is ["respond"]
    When bob reads "opportunities"
    Then the answer matches:
      | pointer                    | value  |
      | /result/items/*/assignment | ["${a}"] |
    When carol performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "open"
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    And /result/state is "taken"
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items/*/kind       | ["deliver"] |
      | /result/items/0/assignment | "${a}"      |
      | /result/items/0/due        | present     |
    When bob reads "opportunities"
    Then /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                    | value   |
      | /result/responses/0/state  | "ended" |
      | /result/assignment/state   | "taken" |

  @KF-6.4-12 @KF-6.4-04 @KF-8-06
  Scenario: An untaken assignment binds nobody and never expires
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "whenever", "delivery_due": 60, "judgment_due": 60}}
      """
    Then remember /result/assignment as a
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When the clock advances by 720h
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer               | value  |
      | /result/state         | "open" |
      | /result/delivery_due  | absent |
    When bob reads "opportunities"
    Then /result/items/*/assignment is ["${a}"]
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds

  @KF-6.4-06 @KF-6.4-07 @KF-8-05 @KF-L4-02
  Scenario: Taking and delivering may be one action; the delivery pins the taker's own Memories and awaits judgment
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "findings"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": {"summary": "ok"}, "memories": [{"memory": "${b}"}]}}
      """
    Then it succeeds
    And /result/state is "delivered"
    When carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                             | value              |
      | /result/state                       | "delivered"        |
      | /result/taken_at                    | present            |
      | /result/delivery/payload            | {"summary": "ok"}  |
      | /result/delivery/memories/0/memory  | "${b}"             |
      | /result/delivery/memories/0/version | 1                  |
      | /result/delivery/memories/0/content | "bob's findings"   |
      | /result/judgment_due                | present            |
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then the answer matches:
      | pointer                    | value     |
      | /result/items/*/kind       | ["judge"] |
      | /result/items/0/assignment | "${a}"    |
      | /result/items/0/due        | present   |
      | /result/items/0/next_step  | "judge"   |

  @KF-6.4-07 @KF-5-10
  Scenario: A delivery may pin only the taker's own valid Memories
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "findings"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    And carol publishes memory c
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "memories": [{"memory": "${c}"}]}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "memories": [{"memory": "${m}"}]}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob creates memory gone with content "retracted findings"
    And bob withdraws memory gone
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "memories": [{"memory": "${gone}"}]}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer          | value   |
      | /result/state    | "taken" |
      | /result/delivery | absent  |
    When bob reads "turn"
    Then /result/items/*/kind is ["deliver"]
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "plain findings"}
      """
    Then it succeeds

  @KF-6.4-08 @KF-6.4-09 @KF-8-05 @KF-L4-01
  Scenario: Only the creator judges; a rejection needs a reason the taker can read
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "a plan"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "the plan"}}
      """
    And bob performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "maybe", "reason": "unsure"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject", "reason": "misses the budget"}
      """
    Then it succeeds
    And /result/state is "rejected"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                 | value               |
      | /result/state           | "rejected"          |
      | /result/verdict/verdict | "reject"            |
      | /result/verdict/reason  | "misses the budget" |
    When alice reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-6.4-10 @KF-8-04 @KF-L4-01
  Scenario: The taker drops alone, only before delivering
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "one"}}
      """
    Then remember /result/assignment as a1
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "two"}}
      """
    Then remember /result/assignment as a2
    When bob performs "assignment.drop" with:
      """
      {"assignment": "${a1}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a1}", "payload": "not taken yet"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When bob reads "assignment" with:
      """
      {"assignment": "${a1}"}
      """
    Then /result/state is "open"
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a1}"}
      """
    And carol performs "assignment.drop" with:
      """
      {"assignment": "${a1}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "assignment.drop" with:
      """
      {"assignment": "${a1}"}
      """
    Then it succeeds
    And /result/state is "dropped"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a2}", "deliver": {"payload": "delivered"}}
      """
    And bob performs "assignment.drop" with:
      """
      {"assignment": "${a2}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a2}"}
      """
    Then /result/state is "delivered"
    When alice reads "turn"
    Then /result/items/*/assignment is ["${a2}"]

  @KF-6.4-11 @KF-8-04
  Scenario: The creator voids an undelivered assignment, taken or not, but not a delivered one
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "untaken"}}
      """
    Then remember /result/assignment as untaken
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "taken"}}
      """
    Then remember /result/assignment as taken
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "delivered"}}
      """
    Then remember /result/assignment as delivered
    When bob performs "assignment.take" with:
      """
      {"assignment": "${taken}"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${delivered}", "deliver": {"payload": "done"}}
      """
    And bob performs "assignment.void" with:
      """
      {"assignment": "${taken}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "assignment.void" with:
      """
      {"assignment": "${untaken}"}
      """
    Then it succeeds
    When alice performs "assignment.void" with:
      """
      {"assignment": "${taken}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "opportunities"
    Then /result/items matches {"$len": 0}
    When alice performs "assignment.void" with:
      """
      {"assignment": "${delivered}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/*/assignment/state is ["voided", "voided", "delivered"]

  @KF-6.4-13 @KF-6.4-15 @KF-6.4-14
  Scenario: At most one taking and one delivery; redoing means a new assignment that references the old
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "a draft"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "first draft"}
      """
    Then it succeeds
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "second draft"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.redeliver" with:
      """
      {"assignment": "${a}", "payload": "second draft"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/delivery/payload is "first draft"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject", "reason": "redo the intro"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": 1, "assign": {"to": "${bob}", "criteria": "a draft with a better intro", "references": "${a}"}}
      """
    Then it succeeds
    And remember /result/assignment as redo
    When bob reads "assignment" with:
      """
      {"assignment": "${redo}"}
      """
    Then the answer matches:
      | pointer            | value                          |
      | /result/state      | "open"                         |
      | /result/references | "${a}"                         |
      | /result/assignment | {"$ne": "${a}"}                |
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                  | value         |
      | /result/state            | "rejected"    |
      | /result/delivery/payload | "first draft" |

  @KF-6.4-19
  Scenario: An assignment's content is fixed at creation
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "original criteria"}}
      """
    Then remember /result/assignment as a
    When alice performs "assignment.update" with:
      """
      {"assignment": "${a}", "criteria": "changed criteria"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "assignment.edit" with:
      """
      {"assignment": "${a}", "to": "${carol}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer           | value               |
      | /result/criteria  | "original criteria" |
      | /result/addressee | "${bob}"            |
    When alice performs "assignment.void" with:
      """
      {"assignment": "${a}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${carol}", "criteria": "changed criteria"}}
      """
    Then it succeeds

  @KF-6.4-20
  Scenario: Every final state is irreversible
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "adopted"}}
      """
    Then remember /result/assignment as adopted
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "rejected"}}
      """
    Then remember /result/assignment as rejected
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "dropped"}}
      """
    Then remember /result/assignment as dropped
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "voided"}}
      """
    Then remember /result/assignment as voided
    When bob performs "assignment.take" with:
      """
      {"assignment": "${adopted}", "deliver": {"payload": "good"}}
      """
    And alice performs "assignment.judge" with:
      """
      {"assignment": "${adopted}", "verdict": "adopt"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${rejected}", "deliver": {"payload": "bad"}}
      """
    And alice performs "assignment.judge" with:
      """
      {"assignment": "${rejected}", "verdict": "reject", "reason": "bad"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${dropped}"}
      """
    And bob performs "assignment.drop" with:
      """
      {"assignment": "${dropped}"}
      """
    And alice performs "assignment.void" with:
      """
      {"assignment": "${voided}"}
      """
    Then it succeeds
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${adopted}", "verdict": "reject", "reason": "changed my mind"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${rejected}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.void" with:
      """
      {"assignment": "${adopted}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.take" with:
      """
      {"assignment": "${dropped}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${dropped}", "payload": "late"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.void" with:
      """
      {"assignment": "${dropped}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.take" with:
      """
      {"assignment": "${voided}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.void" with:
      """
      {"assignment": "${voided}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${rejected}", "payload": "again"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/*/assignment/state is ["adopted", "rejected", "dropped", "voided"]
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
