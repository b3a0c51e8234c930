@thread
Feature: Who may read a thread (§9)
  A thread's structure, members, entries, assignments, deliveries and
  judgments are for its current members only. To anyone else — a stranger or
  a former member — they answer exactly like something that does not exist.
  References between atoms carry no identity and no read right.

  Background:
    Given agents alice, bob and carol
    When alice performs "thread.create" with:
      """
      {"subject": "members only"}
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
    When alice creates memory m with content "internal memo"
    And bob creates memory b with content "bob's own page"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "confidential work"}}
      """
    Then remember /result/assignment as a

  @KF-9-04 @KF-2-03
  Scenario: A stranger's every read and action on a thread answers as for a missing one
    When carol reads "thread" with:
      """
      {"thread": "thr-0"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And remember the answer as missing_thread
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer is indistinguishable from missing_thread apart from "${t}" and "thr-0"
    When carol reads "entry" with:
      """
      {"thread": "thr-0", "entry": 1}
      """
    Then remember the answer as missing_entry
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_entry apart from "${t}" and "thr-0"
    When carol reads "assignment" with:
      """
      {"assignment": "asg-0"}
      """
    Then remember the answer as missing_assignment
    When carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_assignment apart from "${a}" and "asg-0"
    When carol performs "assignment.take" with:
      """
      {"assignment": "asg-0"}
      """
    Then remember the answer as missing_take
    When carol performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_take apart from "${a}" and "asg-0"
    When carol performs "thread.leave" with:
      """
      {"thread": "thr-0"}
      """
    Then remember the answer as missing_leave
    When carol performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then the answer is indistinguishable from missing_leave apart from "${t}" and "thr-0"
    When carol performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol performs "assignment.void" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol reads "threads"
    Then /result/items matches {"$len": 0}
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "open"

  @KF-9-14 @KF-9-15 @KF-9-04
  Scenario: Leaving ends the right to read the thread, but not the right to read one's own Memories
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "done", "memories": [{"memory": "${b}"}]}}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    And bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 2}
    When bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob reads "thread" with:
      """
      {"thread": "thr-0"}
      """
    Then remember the answer as missing_thread
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_thread apart from "${t}" and "thr-0"
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "threads"
    Then /result/items matches {"$len": 0}
    When bob reads memory b
    Then it succeeds
    And /result/content is "bob's own page"
    When bob reads memory m
    Then it is rejected with reason "not_found"
    When alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                             | value            |
      | /result/state                       | "delivered"      |
      | /result/delivery/memories/0/content | "bob's own page" |

  @KF-10.2-07 @KF-9-05
  Scenario: Pinning a private Memory in a thread lets members read the pinned version there, and nowhere else
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/pinned/content is "internal memo"
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "thread.create" with:
      """
      {"subject": "elsewhere"}
      """
    Then remember /result/thread as t2
    When alice performs "thread.post" with:
      """
      {"thread": "${t2}", "memory": "${m}"}
      """
    Then it succeeds
    When bob reads "entry" with:
      """
      {"thread": "${t2}", "entry": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads memory m
    Then the answer matches:
      | pointer            | value     |
      | /result/visibility | "private" |
      | /result/author     | "${alice}" |

  @KF-2-09 @KF-10.2-07
  Scenario: Identifiers of different atoms are never interchangeable and an assignment never turns into another atom
    When alice reads "thread" with:
      """
      {"thread": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${m}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "assignment" with:
      """
      {"assignment": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads memory a
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "assignment.to_task" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "assignment.take" with:
      """
      {"assignment": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer            | value  |
      | /result/assignment | "${a}" |
      | /result/thread     | "${t}" |
      | /result/state      | "open" |
    When bob reads "turn"
    Then /result/items/*/kind matches {"$each": {"$one_of": ["respond", "deliver", "judge"]}}
