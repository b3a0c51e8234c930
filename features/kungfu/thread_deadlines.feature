@thread
Feature: Assignment deadlines (§3 L4, §6.4)
  The delivery deadline runs from taking and the judgment deadline from the
  accepted delivery. When one passes, the assignment ends timed out or
  undecided, and the deadline wins over any action that comes after it.
  A response needs no deadline: it never ends by time.

  Background:
    Given agents alice and bob
    When alice performs "thread.create" with:
      """
      {"subject": "deadlines"}
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
    When alice creates memory m with content "the task"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "quick work", "delivery_due": 600, "judgment_due": 900}}
      """
    Then it succeeds
    And remember /result/assignment as a

  @KF-6.4-04 @KF-6.4-17 @KF-8-04 @KF-L4-02
  Scenario: The delivery deadline runs from taking; passing it ends the assignment timed out
    When the clock advances by 3600s
    And bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items/0/due is present
    And remember /result/items/0/due as due
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/delivery_due is "${due}"
    When the clock advances by 599s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "taken"
    When the clock advances by 2s
    And alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "timed_out"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "too late"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.void" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When the implementation restarts
    And alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer          | value       |
      | /result/state    | "timed_out" |
      | /result/delivery | absent      |

  @KF-6.4-04 @KF-6.4-16 @KF-8-05 @KF-L4-02
  Scenario: The judgment deadline runs from the delivery; passing it ends the assignment undecided, not against the taker
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    And the clock advances by 500s
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "on time"}
      """
    Then it succeeds
    When alice reads "turn"
    Then the answer matches:
      | pointer              | value     |
      | /result/items/*/kind | ["judge"] |
      | /result/items/0/due  | present   |
    When the clock advances by 899s
    And alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "delivered"
    When the clock advances by 2s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                  | value       |
      | /result/state            | "undecided" |
      | /result/verdict          | absent      |
      | /result/delivery/payload | "on time"   |
    When alice reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-6.4-18 @KF-L4-03
  Scenario: A judgment arriving after its deadline is rejected and the deadline's outcome stands
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "done"}}
      """
    And the clock advances by 901s
    And alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject", "reason": "late anyway"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "undecided" |
      | /result/verdict | absent      |

  @KF-L4-03 @KF-6.4-17
  Scenario: A delivery arriving after its deadline is rejected and the assignment stays timed out
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    And the clock advances by 601s
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "just after"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "assignment.drop" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer          | value       |
      | /result/state    | "timed_out" |
      | /result/delivery | absent      |

  @KF-6.2-15 @KF-6.4-16
  Scenario: A creator who leaves forfeits its right to judge; the delivery ends undecided at its deadline
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "finished"}}
      """
    And alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${bob}", "role": "governor"}
      """
    And alice performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer             | value       |
      | /result/state       | "delivered" |
      | /result/judge_right | false       |
    When the clock advances by 901s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "undecided" |
      | /result/verdict | absent      |

  @KF-L4-04 @KF-8-03
  Scenario: A response needs no deadline and never ends by time
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is ["${bob}"]
    When the clock advances by 8760h
    And bob reads "turn"
    Then the answer matches:
      | pointer               | value       |
      | /result/items/*/kind  | ["respond", "respond"] |
      | /result/items/*/entry | [1, 2]                 |
    When bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then it succeeds
