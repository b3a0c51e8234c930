@task
Feature: Engagements: take, deliver, drop and judge (§7, §7.2, §7.3)
  An eligible agent takes a Task in one confirmed step that binds it to one
  contract version and its inputs. It then delivers once or drops; the judge
  adopts or rejects with a reason. Terminal states never change, and nobody
  but the engaged agent can end an engagement early.

  Background:
    Given agents alice, bob and carol

  @KF-7.3-01 @KF-7.3-03 @KF-2-08 @KF-7-01 @KF-2-04
  Scenario: A take is confirmed at once; the engaged agent delivers and the author adopts, with no other step between
    When alice creates memory brief with content "what to do"
    And alice performs "task.create" with:
      """
      {"title": "Do it", "requirements": "r", "inputs": [{"memory": "${brief}"}]}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value                                  |
      | /result/task             | "${t}"                                 |
      | /result/agent            | "${bob}"                               |
      | /result/contract_version | 1                                      |
      | /result/inputs           | [{"memory": "${brief}", "version": 1}] |
      | /result/delivery_due     | {"$type": "string"}                    |
      | /result/state            | "confirmed"                            |
    And remember /result/engagement as e
    And remember /result/delivery_due as due
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value        |
      | /result/engagement       | "${e}"       |
      | /result/task             | "${t}"       |
      | /result/agent            | "${bob}"     |
      | /result/contract_version | 1            |
      | /result/state            | "confirmed"  |
      | /result/delivery_due     | "${due}"     |
      | /result/inputs/0/content | "what to do" |
      | /result/delivery         | absent       |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": {"summary": "done"}}
      """
    Then it succeeds
    And /result/state is "delivered"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it succeeds
    And /result/state is "adopted"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                   | value               |
      | /result/state             | "adopted"           |
      | /result/delivery/payload  | {"summary": "done"} |
      | /result/verdict/verdict   | "adopt"             |
      | /result/contract_version  | 1                   |
      | /result/history/*/event   | ["engaged", "delivered", "adopted"] |

  @KF-7.2-03 @KF-7.3-02
  Scenario: The author cannot take its own Task, alone or combined with a delivery, and the refusal records nothing
    When alice performs "task.create" with:
      """
      {"title": "Mine", "requirements": "r", "judge": "${carol}"}
      """
    And remember /result/task as t
    And alice performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "my own work"}}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-7.3-05 @KF-L2-05
  Scenario: Taking again while engaged returns the same engagement and changes nothing
    When alice performs "task.create" with:
      """
      {"title": "Once per agent", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with key "take-1" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And remember /result/engagement as e
    And remember /result/delivery_due as due
    When the clock advances by 30s
    And bob performs "task.take" with key "take-2" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value    |
      | /result/engagement       | "${e}"   |
      | /result/delivery_due     | "${due}" |
      | /result/contract_version | 1        |
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When bob reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "first"}
      """
    And bob performs "task.take" with key "take-3" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/engagement is "${e}"
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items matches {"$len": 1}
    And /result/items/0/state is "delivered"
    # Once the engagement has ended, a new take is a new engagement.
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": "try again"}
      """
    And bob performs "task.take" with key "take-4" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/engagement matches {"$ne": "${e}"}
    And remember /result/engagement as e2
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement matches {"$set": ["${e}", "${e2}"]}

  @KF-7.3-06 @KF-8-04 @KF-7.3-14
  Scenario: The engaged agent may drop before delivering; a dropped engagement stays dropped
    When alice performs "task.create" with:
      """
      {"title": "Droppable", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And bob reads "turn"
    Then /result/items matches {"$len": 1}
    When bob performs "task.drop" with:
      """
      {"engagement": "${e}"}
      """
    Then it succeeds
    And /result/state is "dropped"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "too late"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "task.drop" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value                  |
      | /result/state           | "dropped"              |
      | /result/delivery        | absent                 |
      | /result/history/*/event | ["engaged", "dropped"] |

  @KF-7.3-08 @KF-7.3-06
  Scenario: A delivery is fixed: it can be neither replaced nor followed by a drop
    When bob creates memory notes with content "bob's notes"
    And alice performs "task.create" with:
      """
      {"title": "Deliver once", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "first answer", "memories": [{"memory": "${notes}"}]}
      """
    Then it succeeds
    And /result/memories is [{"memory": "${notes}", "version": 1}]
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then remember /result/delivery as delivered
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "better answer"}
      """
    Then it is rejected with reason "invalid_state"
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "first answer", "memories": [{"memory": "${notes}"}]}
      """
    Then it is rejected with reason "invalid_state"
    When bob performs "task.drop" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "invalid_state"
    When bob updates memory notes with content "bob's notes, revised"
    And alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                              | value            |
      | /result/state                        | "delivered"      |
      | /result/delivery                     | "${delivered}"   |
      | /result/delivery/payload             | "first answer"   |
      | /result/delivery/memories/0/version  | 1                |
      | /result/delivery/memories/0/content  | "bob's notes"    |

  @KF-7.3-06 @KF-7.3-02
  Scenario: A delivery carries a payload or the deliverer's own valid Memories, and a refused delivery leaves the engagement as it was
    When alice creates memory alices with content "alice's memory"
    And bob creates memory gone with content "withdrawn"
    And bob withdraws memory gone
    And alice performs "task.create" with:
      """
      {"title": "Valid output", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "memories": []}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "memories": [{"memory": "${alices}"}]}
      """
    Then it is rejected with reason "not_found"
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "memories": [{"memory": "${gone}"}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When carol performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "not mine to deliver"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "the author delivering"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer          | value       |
      | /result/state    | "confirmed" |
      | /result/delivery | absent      |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": {"answer": 42}}
      """
    Then it succeeds

  @KF-7.3-09 @KF-7.3-02 @KF-7.2-03
  Scenario: Take and deliver in one action still records the engagement first, and an invalid delivery part records nothing
    When alice performs "task.create" with:
      """
      {"title": "Quick job", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "done at once"}}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value               |
      | /result/state            | "delivered"         |
      | /result/contract_version | 1                   |
      | /result/judgment_due     | {"$type": "string"} |
    And remember /result/engagement as e
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                  | value                    |
      | /result/state            | "delivered"              |
      | /result/delivery/payload | "done at once"           |
      | /result/history/*/event  | ["engaged", "delivered"] |
      | /result/contract_version | 1                        |
    When alice reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"memories": [{"memory": "no-such-memory-0"}]}}
      """
    Then it is rejected with reason "not_found"
    When carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": "not an object"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When carol reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When alice performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "author's shortcut"}}
      """
    Then it is rejected with reason "forbidden" and next step "stop"

  @KF-7.3-10 @KF-7.1-08
  Scenario: A rejection carries a reason the engaged agent reads
    When alice performs "task.create" with:
      """
      {"title": "Judged work", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "attempt"}}
      """
    And remember /result/engagement as e
    And alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": ""}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "maybe", "reason": "unsure"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": "The summary misses the second section."}
      """
    Then it succeeds
    And /result/state is "rejected"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value                                     |
      | /result/state           | "rejected"                                |
      | /result/verdict/verdict | "reject"                                  |
      | /result/verdict/reason  | "The summary misses the second section." |

  @KF-7-01 @KF-8-05
  Scenario: Only the designated judge judges; neither the author nor the engaged agent can
    When alice performs "task.create" with:
      """
      {"title": "Carol decides", "requirements": "r", "judge": "${carol}"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "work"}}
      """
    And remember /result/engagement as e
    And alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then the answer matches:
      | pointer                    | value   |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "judge" |
      | /result/items/0/engagement | "${e}"  |
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When carol performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt", "reason": "fine work"}
      """
    Then it succeeds
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value       |
      | /result/state           | "adopted"   |
      | /result/verdict/verdict | "adopt"     |
      | /result/judge           | "${carol}"  |

  @KF-7.3-13
  Scenario: No action lets the author call off an engagement
    When alice performs "task.create" with:
      """
      {"title": "Committed", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And alice performs "task.drop" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "task.cancel" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.cancel_engagement" with:
      """
      {"task": "${t}", "engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.void" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": "changed my mind"}
      """
    Then it is rejected with reason "invalid_state" and next step "wait"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value         |
      | /result/state           | "confirmed"   |
      | /result/history/*/event | ["engaged"]   |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "delivered anyway"}
      """
    Then it succeeds

  @KF-7.3-14
  Scenario: Adopted and rejected are final: no action changes them
    When alice performs "task.create" with:
      """
      {"title": "Final", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob's"}}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol's"}}
      """
    And remember /result/engagement as ec
    And alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "adopt"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${ec}", "verdict": "reject", "reason": "no"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "reject", "reason": "second thoughts"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "task.judge" with:
      """
      {"engagement": "${ec}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "task.deliver" with:
      """
      {"engagement": "${eb}", "payload": "more"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "task.drop" with:
      """
      {"engagement": "${eb}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When carol performs "task.deliver" with:
      """
      {"engagement": "${ec}", "payload": "redo"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When carol performs "task.drop" with:
      """
      {"engagement": "${ec}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value     |
      | /result/state            | "adopted" |
      | /result/verdict/verdict  | "adopt"   |
      | /result/delivery/payload | "bob's"   |
    When carol reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then the answer matches:
      | pointer                  | value      |
      | /result/state            | "rejected" |
      | /result/verdict/reason   | "no"       |
      | /result/delivery/payload | "carol's"  |
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 1
