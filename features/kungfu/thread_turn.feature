@thread
Feature: The turn, working sets and recovery (§8)
  An agent's turn lists its open obligations — respond, deliver, judge — in
  the order they arose, each with one holder, one object and a next step.
  The working set of a thread is bounded: digests first, content on demand.
  A fresh session recovers everything from the turn and working sets alone.

  Background:
    Given agents alice, bob and carol
    When alice performs "thread.create" with:
      """
      {"subject": "turn"}
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
    Then it succeeds
    When alice creates memory m with content "question"
    And bob creates memory b with content "answer"

  @KF-8-09 @KF-8-06
  Scenario: An open thread creates no obligation by being open
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And carol reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/obligations matches {"$len": 0}
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${carol}", "criteria": "later"}}
      """
    Then remember /result/assignment as a
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "opportunities"
    Then the answer matches:
      | pointer                    | value    |
      | /result/items/*/assignment | ["${a}"] |
      | /result/items/*/thread     | ["${t}"] |

  @KF-8-02 @KF-8-08 @KF-8-15 @KF-1.1-04 @KF-10.2-02 @KF-L4-02
  Scenario: The turn holds only respond, deliver and judge items, each for one object, oldest first, each with its next step
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "an answer"}}
      """
    Then remember /result/assignment as a1
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "assign": {"to": "${alice}", "criteria": "a check"}}
      """
    Then remember /result/assignment as a2
    When alice performs "assignment.take" with:
      """
      {"assignment": "${a2}", "deliver": {"payload": "checked"}}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${a1}"}
      """
    And bob reads "turn"
    Then the answer matches:
      | pointer                    | value                            |
      | /result/items/*/kind       | ["judge", "respond", "deliver"]  |
      | /result/items/*/next_step  | ["judge", "respond", "deliver"]  |
      | /result/items/*/thread     | ["${t}", "${t}", "${t}"]         |
      | /result/items/0/assignment | "${a2}"                          |
      | /result/items/0/entry      | absent                           |
      | /result/items/1/entry      | 3                                |
      | /result/items/1/assignment | absent                           |
      | /result/items/2/assignment | "${a1}"                          |
      | /result/items/0/due        | present                          |
      | /result/items/2/due        | present                          |
      | /result/items/*/since      | {"$len": 3}                      |
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/obligations/*/kind is ["judge", "respond", "deliver"]

  @KF-8-10 @KF-8-11 @KF-8-08
  Scenario: Walking every page of the turn returns every obligation exactly once
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob reads "turn" with:
      """
      {"limit": 2}
      """
    Then /result/items/*/entry is [1, 2]
    And /result/next_cursor matches {"$ne": ""}
    And remember /result/next_cursor as page2
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    And bob reads "turn" with:
      """
      {"limit": 2, "cursor": "${page2}"}
      """
    Then /result/items/*/entry is [3, 4]
    And remember /result/next_cursor as page3
    When bob reads "turn" with:
      """
      {"limit": 2, "cursor": "${page3}"}
      """
    Then /result/items/*/entry is [5, 6]
    And /result/next_cursor is ""
    When bob reads "turn"
    Then /result/items/*/entry is [2, 3, 4, 5, 6]
    When bob reads "turn" with:
      """
      {"limit": 1000}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"

  @KF-8-12 @KF-8-13
  Scenario: The working set has identity, state, role, a bounded digest, the caller's obligations and actions; content comes on demand
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 1}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": 2}
      """
    And bob reads "thread" with:
      """
      {"thread": "${t}", "limit": 2}
      """
    Then the answer matches:
      | pointer                   | value       |
      | /result/thread            | "${t}"      |
      | /result/state             | "open"      |
      | /result/role              | "speaker"   |
      | /result/members           | {"$len": 2} |
      | /result/timeline/*/entry  | [1, 2]      |
      | /result/timeline/*/content | []         |
      | /result/expanded          | []          |
      | /result/obligations/*/entry | [3]       |
      | /result/actions           | {"$contains": "thread.post"} |
    And remember /result/next_cursor as more
    When bob reads "thread" with:
      """
      {"thread": "${t}", "limit": 2, "cursor": "${more}", "expand": [2]}
      """
    Then the answer matches:
      | pointer                     | value     |
      | /result/timeline/*/entry    | [3]       |
      | /result/next_cursor         | ""        |
      | /result/expanded/*/entry    | [2]       |
      | /result/expanded/0/content  | "answer"  |
      | /result/expanded/0/readable | true      |
    When bob reads "thread" with:
      """
      {"thread": "${t}", "limit": 500}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.create" with:
      """
      {"subject": "second"}
      """
    Then remember /result/thread as t2
    When alice reads "threads" with:
      """
      {"limit": 1}
      """
    Then /result/items/*/thread is ["${t}"]
    And remember /result/next_cursor as more_threads
    When alice reads "threads" with:
      """
      {"limit": 1, "cursor": "${more_threads}"}
      """
    Then /result/items/*/thread is ["${t2}"]
    When alice reads "threads" with:
      """
      {"limit": 1000}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "thread" with:
      """
      {"thread": "${t}", "expand": [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"

  @KF-8-16
  Scenario: Action hints never replace the turn
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "a report"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "the report"}}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    And alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/actions matches {"$not_contains": "assignment.judge"}
    When alice reads "turn"
    Then the answer matches:
      | pointer                    | value     |
      | /result/items/*/kind       | ["judge"] |
      | /result/items/0/assignment | "${a}"    |

  @KF-8-17 @KF-8-18 @KF-8-20
  Scenario: A fresh session, after a restart, finds every obligation from the turn and acts on the returned references only
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "a reply"}}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And the implementation restarts
    And bob reads "turn"
    Then the answer matches:
      | pointer              | value                  |
      | /result/items/*/kind | ["respond", "respond"] |
    And remember /result/items/1/thread as found_thread
    And remember /result/items/1/entry as found_entry
    When bob reads "thread" with:
      """
      {"thread": "${found_thread}", "expand": ["${found_entry}"]}
      """
    Then the answer matches:
      | pointer                    | value      |
      | /result/expanded/0/content | "question" |
      | /result/obligations        | {"$len": 2} |
    And remember /result/timeline/0/assignment/assignment as found_assignment
    When bob reads "opportunities"
    Then /result/items/*/assignment is ["${found_assignment}"]
    When bob performs "assignment.take" with:
      """
      {"assignment": "${found_assignment}"}
      """
    Then it succeeds
    When bob performs "thread.handle" with:
      """
      {"thread": "${found_thread}", "entry": "${found_entry}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value                   |
      | /result/items/*/kind       | ["deliver"]             |
      | /result/items/0/assignment | "${found_assignment}"   |

  @KF-8-01 @KF-L4-01 @KF-10.2-02
  Scenario: Every obligation ends by an exit its holder takes alone, and no action writes or dismisses one
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "to deliver"}}
      """
    Then remember /result/assignment as a1
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "to judge"}}
      """
    Then remember /result/assignment as a2
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a1}"}
      """
    And bob performs "assignment.take" with:
      """
      {"assignment": "${a2}", "deliver": {"payload": "judge me"}}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "turn.complete" with:
      """
      {"thread": "${t}", "entry": 3}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "obligation.dismiss" with:
      """
      {"assignment": "${a2}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob reads "turn"
    Then /result/items/*/kind is ["deliver", "respond"]
    When alice reads "turn"
    Then /result/items/*/kind is ["judge"]
    When bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 3}
      """
    Then it succeeds
    When bob performs "assignment.drop" with:
      """
      {"assignment": "${a1}"}
      """
    Then it succeeds
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a2}", "verdict": "reject", "reason": "not needed"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
