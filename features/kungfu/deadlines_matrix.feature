@matrix
Feature: Each deadline runs from its own instant, and the clock moves between the steps (§3 L4, §6.2, §6.4, §7.1, §7.3, §8)
  A delivery deadline runs from the take (an assignment) or the engagement
  (a Task); a judgment deadline runs from the delivery. When every step
  happens at one virtual instant, every anchor gives the same time and a
  deadline that runs from the wrong one cannot be told apart. Here the clock
  moves between posting, taking, delivering and leaving, the delivery and
  judgment deadlines differ, and each row checks the duty's due time in the
  turn and the moment the deadline passes, one second before and after.

  Background:
    Given agents alice, bob and carol
    When alice performs "thread.create" with:
      """
      {"subject": "deadlines that differ"}
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
    When alice creates memory m with content "the work"

  @thread @KF-6.4-04 @KF-6.4-17 @KF-8-04 @KF-L4-02
  Scenario Outline: A delivery deadline of <due>s runs from the take, <wait>s after the post
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "c", "delivery_due": <due>, "judgment_due": <other>}}
      """
    Then remember /result/assignment as a
    When the clock advances by <wait>s
    And bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then remember /result/delivery_due as ddue
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value      |
      | /result/items/*/kind       | ["deliver"] |
      | /result/items/0/assignment | "${a}"     |
      | /result/items/0/due        | "${ddue}"  |
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/delivery_due is "${ddue}"
    When the clock advances by <before>s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "taken"
    When the clock advances by 2s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "timed_out"
    When bob reads "turn"
    Then /result/items is []

    @deadline:moved-before-take @deadline:delivery
    Examples: the take comes before the deadline counted from the post would pass
      | due | other | wait | before |
      | 600 | 900   | 500  | 599    |

    @deadline:moved-before-take @deadline:delivery
    Examples: the take comes after the deadline counted from the post would have passed
      | due | other | wait | before |
      | 900 | 600   | 1000 | 899    |

  @thread @KF-6.4-04 @KF-6.4-16 @KF-8-05 @KF-L4-02
  Scenario Outline: A judgment deadline of <jdue>s runs from the delivery, <wait>s after the take, not from the take
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "c", "delivery_due": <ddue>, "judgment_due": <jdue>}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then remember /result/delivery_due as delivery_due
    When the clock advances by <wait>s
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "done"}
      """
    Then remember /result/judgment_due as judgment_due
    When alice reads "turn"
    Then the answer matches:
      | pointer                    | value               |
      | /result/items/*/kind       | ["judge"]           |
      | /result/items/0/due        | "${judgment_due}"   |
    And /result/items/0/due matches {"$ne": "${delivery_due}"}
    When bob reads "turn"
    Then /result/items is []
    When the clock advances by <before>s
    And alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer               | value             |
      | /result/state         | "delivered"       |
      | /result/judgment_due  | "${judgment_due}" |
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject", "reason": "<reason>"}
      """
    Then <judged>
    When the clock advances by 2s
    And bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "<after>"

    @deadline:moved-before-delivery @deadline:judgment @deadline:distinct
    Examples: judged one second before the deadline counted from the delivery
      | ddue | jdue | wait | before | reason       | judged      | after    |
      | 600  | 900  | 500  | 899    | not good yet | it succeeds | rejected |

    @deadline:moved-before-delivery @deadline:judgment @deadline:distinct
    Examples: left unjudged until the deadline counted from the delivery passes
      | ddue | jdue | wait | before | reason | judged                                                      | after     |
      | 900  | 600  | 700  | 599    |        | it is rejected with reason "invalid_params" and next step "retry" | undecided |

  @thread @KF-L4-02 @KF-8-04 @KF-8-05 @KF-8-08
  Scenario: Two duties with different deadlines carry different due times in one turn
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "first", "delivery_due": 600, "judgment_due": 1200}}
      """
    Then remember /result/assignment as a1
    When carol creates memory c with content "carol's work"
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}", "assign": {"to": "${alice}", "criteria": "second", "delivery_due": 1800, "judgment_due": 600}}
      """
    Then remember /result/assignment as a2
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a1}"}
      """
    And the clock advances by 100s
    And bob performs "assignment.deliver" with:
      """
      {"assignment": "${a1}", "payload": "first done"}
      """
    Then remember /result/judgment_due as j1
    When the clock advances by 100s
    And alice performs "assignment.take" with:
      """
      {"assignment": "${a2}"}
      """
    Then remember /result/delivery_due as d2
    When alice reads "turn"
    Then the answer matches:
      | pointer                    | value               |
      | /result/items/*/kind       | ["judge", "deliver"] |
      | /result/items/*/assignment | ["${a1}", "${a2}"]  |
      | /result/items/0/due        | "${j1}"             |
      | /result/items/1/due        | "${d2}"             |
      | /result/items/*/due        | {"$distinct": true} |
    When the clock advances by 1001s
    And alice reads "turn"
    Then /result/items/*/assignment is ["${a1}", "${a2}"]
    When the clock advances by 100s
    And alice reads "turn"
    Then /result/items/*/assignment is ["${a2}"]
    When the clock advances by 800s
    And alice reads "turn"
    Then /result/items is []

  @thread @KF-6.2-15 @KF-6.4-16 @KF-6.2-12
  Scenario Outline: A creator who leaves <when> forfeits its judgment, and the delivery ends undecided only at its own deadline
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "governor"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "c", "judgment_due": 600}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "done"}}
      """
    Then remember /result/judgment_due as due
    When the clock advances by <wait>s
    And alice performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer              | value       |
      | /result/state        | "delivered" |
      | /result/judge_right  | false       |
      | /result/judgment_due | "${due}"    |
    When the clock advances by <before>s
    And carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "delivered"
    When the clock advances by 2s
    And carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "undecided" |
      | /result/verdict | absent      |

    @deadline:moved-before-leave @deadline:judgment
    Examples: at once
      | when               | wait | before |
      | right after it     | 0    | 599    |

    @deadline:moved-before-leave @deadline:judgment
    Examples: well after the delivery
      | when               | wait | before |
      | 400s after it      | 400  | 199    |

  @task @KF-7.1-09 @KF-7.3-07 @KF-7.3-01 @KF-L4-02
  Scenario Outline: A Task's delivery deadline of <due>s runs from the engagement, <wait>s after the contract was offered
    When alice performs "task.create" with:
      """
      {"title": "Later", "requirements": "r", "delivery_due": <due>, "judgment_due": 900}
      """
    Then remember /result/task as task
    When the clock advances by <wait>s
    And bob performs "task.take" with:
      """
      {"task": "${task}"}
      """
    Then remember /result/engagement as e
    And remember /result/delivery_due as ddue
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items/*/kind       | ["deliver"] |
      | /result/items/0/engagement | "${e}"      |
      | /result/items/0/due        | "${ddue}"   |
    When the clock advances by <before>s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer               | value       |
      | /result/state         | "confirmed" |
      | /result/delivery_due  | "${ddue}"   |
    When the clock advances by 2s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then /result/state is "timed_out"

    @deadline:moved-before-take @deadline:delivery
    Examples: engaged before the deadline counted from the offer would pass
      | due | wait | before |
      | 600 | 300  | 599    |

    @deadline:moved-before-take @deadline:delivery
    Examples: engaged after the deadline counted from the offer would have passed
      | due | wait | before |
      | 600 | 900  | 599    |

  @task @KF-7.1-09 @KF-7.3-11 @KF-8-05 @KF-L4-02
  Scenario Outline: A Task's judgment deadline of <jdue>s runs from the delivery, <wait>s after the engagement
    When alice performs "task.create" with:
      """
      {"title": "Judge later", "requirements": "r", "delivery_due": 3600, "judgment_due": <jdue>}
      """
    Then remember /result/task as task
    When bob performs "task.take" with:
      """
      {"task": "${task}"}
      """
    Then remember /result/engagement as e
    And remember /result/delivery_due as ddue
    When the clock advances by <wait>s
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "late but in time"}
      """
    Then remember /result/judgment_due as jdue
    When alice reads "turn"
    Then the answer matches:
      | pointer              | value              |
      | /result/items/*/kind | ["judge"]          |
      | /result/items/0/due  | "${jdue}"          |
    And /result/items/0/due matches {"$ne": "${ddue}"}
    When the clock advances by <before>s
    And alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then /result/state is "delivered"
    When the clock advances by 2s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer              | value       |
      | /result/state        | "undecided" |
      | /result/history/2/by | "deadline"  |

    @deadline:moved-before-delivery @deadline:judgment @deadline:distinct
    Examples: delivered before the deadline counted from the engagement would pass
      | jdue | wait | before |
      | 600  | 400  | 599    |

    @deadline:moved-before-delivery @deadline:judgment @deadline:distinct
    Examples: delivered after the deadline counted from the engagement would have passed
      | jdue | wait | before |
      | 600  | 900  | 599    |
