@thread
Feature: Members and roles (§6.2)
  Governors hold every thread power, speakers may only speak, observers only
  read. A member may leave at any time, but an open thread always keeps a
  governor. Demotion ends a member's pending responses and nothing else.

  Background:
    Given agents alice, bob, carol and dave
    When alice performs "thread.create" with:
      """
      {"subject": "roles"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s_speaker
    When bob performs "thread.join" with:
      """
      {"secret": "${s_speaker}"}
      """
    Then it succeeds
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as s_observer
    When carol performs "thread.join" with:
      """
      {"secret": "${s_observer}"}
      """
    Then it succeeds
    When alice creates memory m with content "alice says"
    And bob creates memory b with content "bob says"
    And carol creates memory c with content "carol says"

  @KF-6.2-02 @KF-6.2-05 @KF-6.1-09
  Scenario: A governor may admit, change roles, remove members and close
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "speaker"}
      """
    Then it succeeds
    And /result/role is "speaker"
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    Then it succeeds
    When bob performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${carol}"}
      """
    Then it succeeds
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                      |
      | /result/members/*/agent | ["${alice}", "${bob}"]     |
      | /result/members/*/role  | ["governor", "governor"]   |
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When alice performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${dave}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/state is "closed"

  @KF-6.2-03 @KF-6.2-01 @KF-6.3-01 @KF-6.5-01
  Scenario: A speaker may only speak and an observer may only read
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then it succeeds
    When carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "speaker"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${carol}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "governor"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${bob}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                 | value                                   |
      | /result/state           | "open"                                  |
      | /result/role            | "observer"                              |
      | /result/members/*/agent | ["${alice}", "${bob}", "${carol}"]      |
      | /result/members/*/role  | ["governor", "speaker", "observer"]     |
      | /result/timeline/*/author | ["${bob}"]                            |
    And /result/actions matches {"$not_contains": "thread.post"}
    And /result/actions matches {"$not_contains": "thread.close"}

  @KF-6.2-06 @KF-6.2-07 @KF-6.2-04
  Scenario: The last governor of an open thread can neither leave, step down nor be removed until it hands over
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/actions matches {"$not_contains": "thread.leave"}
    When alice performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${alice}", "role": "speaker"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When alice performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${alice}"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                | value                               |
      | /result/members/*/role | ["governor", "speaker", "observer"] |
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    Then it succeeds
    When alice performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                    |
      | /result/state           | "open"                   |
      | /result/members/*/agent | ["${bob}", "${carol}"]   |
      | /result/members/*/role  | ["governor", "observer"] |
    When carol performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-6.2-06
  Scenario: Two governors cannot demote each other below one
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    Then it succeeds
    When bob performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${alice}", "role": "observer"}
      """
    Then it succeeds
    When bob performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "speaker"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When bob performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${bob}"}
      """
    Then it is rejected with reason "invalid_state" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/members/*/role matches {"$set": ["observer", "governor", "observer"]}

  @KF-6.2-05
  Scenario: Setting the role a member already has is a rejection, not a silent success
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "speaker"}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "admin"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/members/*/role is ["governor", "speaker", "observer"]

  @KF-6.2-10 @KF-8-03 @KF-6.2-11
  Scenario: Demotion to observer ends the member's pending responses but not its assignments
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    Then /result/responders is ["${bob}"]
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "a summary"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items/*/kind matches {"$contains": "respond"}
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "observer"}
      """
    Then it succeeds
    When bob reads "turn"
    Then the answer matches:
      | pointer                   | value       |
      | /result/items/*/kind      | ["deliver"] |
      | /result/items/0/assignment | "${a}"     |
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                        | value      |
      | /result/responses/0/responder  | "${bob}"   |
      | /result/responses/0/state      | "ended"    |
      | /result/responses/0/ended_by   | "demote"   |
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "summary from an observer"}
      """
    Then it succeeds
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "speaker"}
      """
    And bob reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-6.2-08 @KF-6.2-09 @KF-6.4-01
  Scenario: Assignment actions need membership, not the right to speak, which counts only at creation
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${dave}", "role": "speaker"}
      """
    Then it is rejected with reason "invalid_params"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${carol}", "criteria": "observer work"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "governor"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${alice}", "criteria": "first"}}
      """
    Then it succeeds
    And remember /result/assignment as a1
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${alice}", "criteria": "second"}}
      """
    Then remember /result/assignment as a2
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "third"}}
      """
    Then remember /result/assignment as a3
    When carol performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${alice}", "role": "observer"}
      """
    Then it succeeds
    When carol performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "observer"}
      """
    Then it succeeds
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "assignment.take" with:
      """
      {"assignment": "${a1}", "deliver": {"payload": "done by an observer"}}
      """
    Then it succeeds
    And /result/state is "delivered"
    When alice performs "assignment.take" with:
      """
      {"assignment": "${a2}"}
      """
    Then it succeeds
    When alice performs "assignment.drop" with:
      """
      {"assignment": "${a2}"}
      """
    Then it succeeds
    When alice performs "assignment.void" with:
      """
      {"assignment": "${a3}"}
      """
    Then it succeeds
    When bob performs "assignment.judge" with:
      """
      {"assignment": "${a1}", "verdict": "adopt"}
      """
    Then it succeeds
    When bob reads "assignment" with:
      """
      {"assignment": "${a1}"}
      """
    Then /result/state is "adopted"
    When bob reads "assignment" with:
      """
      {"assignment": "${a2}"}
      """
    Then /result/state is "dropped"
    When bob reads "assignment" with:
      """
      {"assignment": "${a3}"}
      """
    Then /result/state is "voided"

  @KF-6.2-12 @KF-6.2-13 @KF-6.2-14 @KF-8-03 @KF-8-04
  Scenario: Leaving ends the member's pending responses and voids the undelivered assignments it took or created
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "speaker"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}", "${carol}"]}
      """
    Then /result/responders is ["${bob}", "${carol}"]
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "taken by bob"}}
      """
    Then remember /result/assignment as taken_by_bob
    When bob performs "assignment.take" with:
      """
      {"assignment": "${taken_by_bob}"}
      """
    Then it succeeds
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${carol}", "criteria": "untaken, by bob"}}
      """
    Then remember /result/assignment as bob_untaken
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${carol}", "criteria": "taken, by bob"}}
      """
    Then remember /result/assignment as bob_taken
    When carol performs "assignment.take" with:
      """
      {"assignment": "${bob_taken}"}
      """
    Then it succeeds
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${carol}", "criteria": "delivered, by bob"}}
      """
    Then remember /result/assignment as bob_delivered
    When carol performs "assignment.take" with:
      """
      {"assignment": "${bob_delivered}", "deliver": {"payload": "delivered before bob left"}}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items/*/kind matches {"$set": ["respond", "deliver", "judge"]}
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value                                 |
      | /result/responses/*/responder | ["${bob}", "${carol}"]          |
      | /result/responses/*/state     | ["ended", "pending"]            |
      | /result/responses/0/ended_by  | "leave"                         |
    When carol reads "assignment" with:
      """
      {"assignment": "${taken_by_bob}"}
      """
    Then /result/state is "voided"
    When carol reads "assignment" with:
      """
      {"assignment": "${bob_untaken}"}
      """
    Then /result/state is "voided"
    When carol reads "assignment" with:
      """
      {"assignment": "${bob_taken}"}
      """
    Then /result/state is "voided"
    When carol reads "assignment" with:
      """
      {"assignment": "${bob_delivered}"}
      """
    Then the answer matches:
      | pointer             | value       |
      | /result/state       | "delivered" |
      | /result/judge_right | false       |
    When carol reads "turn"
    Then the answer matches:
      | pointer              | value       |
      | /result/items/*/kind | ["respond"] |
    When carol reads "opportunities"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-6.2-12 @KF-6.2-13 @KF-8-03
  Scenario: Removal has the same effects as leaving
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"], "assign": {"to": "${bob}", "criteria": "work"}}
      """
    Then remember /result/assignment as a
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items/*/kind is ["respond", "deliver"]
    When alice performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${bob}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "voided"
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then the answer matches:
      | pointer                      | value    |
      | /result/responses/0/state    | "ended"  |
      | /result/responses/0/ended_by | "remove" |

  @KF-6.2-16 @KF-6.4-08 @KF-6.2-15
  Scenario: Rejoining is a new membership that revives no response and no right to judge
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "speaker"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "ask": ["${carol}"], "assign": {"to": "${carol}", "criteria": "a draft"}}
      """
    Then remember /result/assignment as a
    When carol performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "the draft"}}
      """
    Then it succeeds
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    And bob reads "turn"
    Then /result/items/*/kind is ["judge", "respond"]
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/members/1/joined_at as first_joined
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When the clock advances by 60s
    And alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as again
    And remember /result/admission as again_admission
    When bob performs "thread.join" with:
      """
      {"secret": "${again}"}
      """
    Then it succeeds
    And /result/admission is "${again_admission}"
    And /result/joined_at matches {"$ne": "${first_joined}"}
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer             | value       |
      | /result/state       | "delivered" |
      | /result/judge_right | false       |
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/obligations matches {"$len": 0}
    And /result/members/*/agent is ["${alice}", "${carol}", "${bob}"]
    And /result/members/2/admission is "${again_admission}"
