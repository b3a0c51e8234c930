@thread
Feature: Closing a thread, and deactivating its members (§6.5, §4)
  Closing is terminal. In the same fact every pending response ends, every
  undelivered assignment is voided and the admission dies; delivered work
  stays judgeable, members stay and may read and leave. Deactivating an agent
  ends all its memberships with every §6.2 effect, and closes an open thread
  it leaves without a governor.

  Background:
    Given agents alice, bob, carol and dave
    When alice performs "thread.create" with:
      """
      {"subject": "closing"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
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
    When alice creates memory m with content "agenda"
    And bob creates memory b with content "minutes"

  @KF-6.5-03 @KF-6.5-04 @KF-6.5-05 @KF-8-03 @KF-8-04
  Scenario: Closing ends pending responses and voids undelivered work, but delivered work stays judgeable
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}", "${carol}"]}
      """
    And alice performs "thread.post" with:
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
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "delivered", "judgment_due": 3600}}
      """
    Then remember /result/assignment as delivered
    When bob performs "assignment.take" with:
      """
      {"assignment": "${taken}"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${delivered}", "deliver": {"payload": "final"}}
      """
    And bob reads "turn"
    Then /result/items/*/kind is ["respond", "deliver"]
    When alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And /result/state is "closed"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                      | value              |
      | /result/responses/*/state    | ["ended", "ended"] |
      | /result/responses/*/ended_by | ["close", "close"] |
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/*/assignment/state is ["voided", "voided", "delivered"]
    When alice reads "turn"
    Then /result/items/*/assignment is ["${delivered}"]
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${delivered}", "verdict": "adopt"}
      """
    Then it succeeds
    When bob reads "assignment" with:
      """
      {"assignment": "${delivered}"}
      """
    Then /result/state is "adopted"

  @KF-6.5-05
  Scenario: A delivered assignment of a closed thread keeps its judgment deadline
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "delivered", "judgment_due": 3600}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "final"}}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    And the clock advances by 3601s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "undecided"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"

  @KF-6.5-02 @KF-6.5-07 @KF-9-01 @KF-6.2-04
  Scenario: A closed thread stays closed and read-only; members stay, read and may leave
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "thread.reopen" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${bob}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "thread" with:
      """
      {"thread": "${t}", "expand": [1]}
      """
    Then the answer matches:
      | pointer                 | value                               |
      | /result/state           | "closed"                            |
      | /result/role            | "speaker"                           |
      | /result/members/*/agent | ["${alice}", "${bob}", "${carol}"]  |
      | /result/timeline/*/entry | [1]                                |
      | /result/expanded/0/content | "agenda"                         |
    And /result/actions matches {"$not_contains": "thread.post"}
    And /result/actions matches {"$contains": "thread.leave"}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/actions matches {"$not_contains": "thread.close"}
    And /result/actions matches {"$not_contains": "thread.admit"}
    When bob reads "threads"
    Then the answer matches:
      | pointer                | value      |
      | /result/items/*/thread | ["${t}"]   |
      | /result/items/*/state  | ["closed"] |
    When alice performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value        |
      | /result/state           | "closed"     |
      | /result/members/*/agent | ["${carol}"] |
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-6.5-08 @KF-6.3-03
  Scenario: Unfinished work continues in a new thread that pins the same Memories; replies do not cross threads
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    And alice performs "thread.create" with:
      """
      {"subject": "closing, continued"}
      """
    Then remember /result/thread as t2
    When alice performs "thread.post" with:
      """
      {"thread": "${t2}", "memory": "${m}"}
      """
    Then it succeeds
    And /result/entry is 1
    When alice performs "thread.post" with:
      """
      {"thread": "${t2}", "memory": "${m}", "reply_to": 2}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t2}", "expand": [1]}
      """
    Then the answer matches:
      | pointer                    | value    |
      | /result/timeline/*/entry   | [1]      |
      | /result/expanded/0/memory  | "${m}"   |
      | /result/expanded/0/content | "agenda" |
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 2}

  @KF-4-05 @KF-6.2-12 @KF-6.2-13 @KF-6.2-14 @KF-6.2-15
  Scenario: Deactivation ends every membership with all its effects, in every thread
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "taken by bob"}}
      """
    Then remember /result/assignment as taken_by_bob
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${carol}", "criteria": "created by bob"}}
      """
    Then remember /result/assignment as created_by_bob
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${carol}", "criteria": "delivered to bob", "judgment_due": 600}}
      """
    Then remember /result/assignment as delivered_to_bob
    When bob performs "assignment.take" with:
      """
      {"assignment": "${taken_by_bob}"}
      """
    And carol performs "assignment.take" with:
      """
      {"assignment": "${delivered_to_bob}", "deliver": {"payload": "for bob"}}
      """
    And bob performs "thread.create" with:
      """
      {"subject": "bob's side thread"}
      """
    Then remember /result/thread as side
    When bob performs "thread.admit" with:
      """
      {"thread": "${side}", "role": "governor"}
      """
    Then remember /result/secret as side_secret
    When dave performs "thread.join" with:
      """
      {"secret": "${side_secret}"}
      """
    And bob is deactivated
    And bob reads "turn"
    Then it succeeds
    And /result/items matches {"$len": 0}
    When bob reads "threads"
    Then /result/items matches {"$len": 0}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                          | value                          |
      | /result/state                    | "open"                         |
      | /result/members/*/agent          | ["${alice}", "${carol}"]       |
      | /result/timeline/0/responses/0/ended_by | "deactivate"            |
      | /result/timeline/*/author        | ["${alice}", "${alice}", "${bob}", "${bob}"] |
      | /result/timeline/*/assignment/state | ["voided", "voided", "delivered"] |
    When carol reads "assignment" with:
      """
      {"assignment": "${delivered_to_bob}"}
      """
    Then the answer matches:
      | pointer                  | value       |
      | /result/judge_right      | false       |
      | /result/creator          | "${bob}"    |
      | /result/delivery/payload | "for bob"   |
    When dave reads "thread" with:
      """
      {"thread": "${side}"}
      """
    Then the answer matches:
      | pointer                 | value       |
      | /result/state           | "open"      |
      | /result/members/*/agent | ["${dave}"] |
    When the clock advances by 601s
    And carol reads "assignment" with:
      """
      {"assignment": "${delivered_to_bob}"}
      """
    Then /result/state is "undecided"

  @KF-4-07 @KF-6.5-03 @KF-6.5-04 @KF-6.5-06
  Scenario: Deactivating the only governor closes the thread with every closing effect
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "ask": ["${carol}"], "assign": {"to": "${carol}", "criteria": "bob's request"}}
      """
    Then remember /result/assignment as a
    When carol reads "turn"
    Then /result/items/*/kind is ["respond"]
    When alice is deactivated
    And bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                  |
      | /result/state           | "closed"               |
      | /result/members/*/agent | ["${bob}", "${carol}"] |
      | /result/admission/live  | false                  |
      | /result/timeline/0/assignment/state | "voided"   |
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/0/ended_by is "close"
    When dave performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When the implementation restarts
    And carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/state is "closed"

  @KF-4-07
  Scenario: Deactivating one of two governors leaves the thread open
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    And alice is deactivated
    And bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                  |
      | /result/state           | "open"                 |
      | /result/members/*/agent | ["${bob}", "${carol}"] |
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then it succeeds
