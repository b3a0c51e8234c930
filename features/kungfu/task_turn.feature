@task
Feature: Task obligations in the turn, working sets and recovery (§8, §7.6)
  Confirming an engagement makes its agent owe a delivery; accepting a
  delivery makes the judge owe a judgment. Nothing else is owed, nothing can
  write or dismiss a duty, and an agent that remembers only who it is finds
  every duty again from its turn.

  Background:
    Given agents alice, bob and carol

  @KF-8-09 @KF-8-02
  Scenario: An open Task obliges nobody by being open
    When alice performs "task.create" with:
      """
      {"title": "Open offer", "requirements": "r"}
      """
    And remember /result/task as t
    And alice performs "task.create" with:
      """
      {"title": "Offer to bob", "requirements": "r", "audience": "restricted", "named": ["${bob}"], "judge": "${carol}"}
      """
    And bob reads "task" with:
      """
      {"task": "${t}"}
      """
    And alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-8-06 @KF-8-07 @KF-7.2-01
  Scenario: A restricted Task naming an agent is an opportunity it finds without knowing the Task, never a duty
    When alice performs "task.create" with:
      """
      {"title": "Offer to bob", "requirements": "r", "audience": "restricted", "named": ["${bob}"]}
      """
    And remember /result/task as r
    And alice performs "task.create" with:
      """
      {"title": "Open to all", "requirements": "r"}
      """
    And bob reads "opportunities"
    Then it succeeds
    And the answer matches:
      | pointer              | value       |
      | /result/items        | {"$len": 1} |
      | /result/items/0/kind | "task"      |
      | /result/items/0/task | "${r}"      |
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "opportunities"
    Then /result/items matches {"$len": 0}
    When bob performs "task.take" with:
      """
      {"task": "${r}"}
      """
    Then it succeeds
    And remember /result/engagement as e
    When bob reads "opportunities"
    Then /result/items matches {"$len": 0}
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "deliver"   |
      | /result/items/0/engagement | "${e}"      |

  @KF-8-04 @KF-8-05 @KF-8-15 @KF-L4-02 @KF-8-01 @KF-8-02
  Scenario: Deliver and judge duties arise, carry a due time and a next step, and end only by acting
    When alice performs "task.create" with:
      """
      {"title": "Duties", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And remember /result/delivery_due as ddue
    And bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "deliver"   |
      | /result/items/0/next_step  | "deliver"   |
      | /result/items/0/task       | "${t}"      |
      | /result/items/0/engagement | "${e}"      |
      | /result/items/0/due        | "${ddue}"   |
    And remember the answer as bob_turn
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    # Reading changes no duty, and no action writes or dismisses one.
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    And bob performs "turn.dismiss" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "task.obligation.clear" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.obligation.create" with:
      """
      {"agent": "${bob}", "kind": "judge", "engagement": "${e}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob reads "turn"
    Then the answer is indistinguishable from bob_turn
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "result"}
      """
    Then remember /result/judgment_due as jdue
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "judge"     |
      | /result/items/0/next_step  | "judge"     |
      | /result/items/0/task       | "${t}"      |
      | /result/items/0/engagement | "${e}"      |
      | /result/items/0/due        | "${jdue}"   |
    And /result/items/*/kind matches {"$each": {"$one_of": ["respond", "deliver", "judge"]}}
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    And alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-L4-02 @KF-7.3-07
  Scenario: A Task created without deadlines still bounds every duty by a default deadline
    When alice performs "task.create" with:
      """
      {"title": "No deadlines given", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "quick"}}
      """
    And remember /result/engagement as ec
    And bob reads "turn"
    Then /result/items/*/due matches {"$each": {"$type": "string"}}
    When alice reads "turn"
    Then /result/items/*/due matches {"$each": {"$type": "string"}}
    And /result/items matches {"$len": 1}
    When the clock advances by 100000s
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then /result/state is "timed_out"
    When carol reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then /result/state is "undecided"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-8-08 @KF-8-10 @KF-8-11
  Scenario: The turn lists duties once each, oldest first, and a page walk misses none even as new ones arise
    When alice performs "task.create" with:
      """
      {"title": "One", "requirements": "r"}
      """
    And remember /result/task as t1
    And alice performs "task.create" with:
      """
      {"title": "Two", "requirements": "r"}
      """
    And remember /result/task as t2
    And alice performs "task.create" with:
      """
      {"title": "Three", "requirements": "r"}
      """
    And remember /result/task as t3
    And alice performs "task.create" with:
      """
      {"title": "Four", "requirements": "r"}
      """
    And remember /result/task as t4
    And bob performs "task.take" with:
      """
      {"task": "${t2}"}
      """
    And remember /result/engagement as e2
    And bob performs "task.take" with:
      """
      {"task": "${t1}"}
      """
    And remember /result/engagement as e1
    And bob performs "task.take" with:
      """
      {"task": "${t3}"}
      """
    And remember /result/engagement as e3
    And bob performs "task.take" with:
      """
      {"task": "${t1}"}
      """
    And bob reads "turn"
    Then the answer matches:
      | pointer                    | value                        |
      | /result/items/*/engagement | ["${e2}", "${e1}", "${e3}"]  |
      | /result/items/*/task       | ["${t2}", "${t1}", "${t3}"]  |
    When bob reads "turn" with:
      """
      {"limit": 2}
      """
    Then the answer matches:
      | pointer                    | value               |
      | /result/items/*/engagement | ["${e2}", "${e1}"]  |
      | /result/next_cursor        | {"$ne": ""}         |
    And remember /result/next_cursor as cursor
    When bob performs "task.take" with:
      """
      {"task": "${t4}"}
      """
    And remember /result/engagement as e4
    And bob reads "turn" with:
      """
      {"limit": 2, "cursor": "${cursor}"}
      """
    Then the answer matches:
      | pointer                    | value               |
      | /result/items/*/engagement | ["${e3}", "${e4}"]  |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e3}", "payload": "third first"}
      """
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e1}", "payload": "first second"}
      """
    And alice reads "turn"
    Then the answer matches:
      | pointer                    | value               |
      | /result/items/*/engagement | ["${e3}", "${e1}"]  |
      | /result/items/*/kind       | ["judge", "judge"]  |
    When bob reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${e2}", "${e4}"]}

  @KF-8-12 @KF-8-13
  Scenario: An engagement's working set gives its state, the caller's role, a history digest, its duties there and its actions
    When alice performs "task.create" with:
      """
      {"title": "Working set", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                       | value                          |
      | /result/engagement            | "${e}"                         |
      | /result/state                 | "confirmed"                    |
      | /result/roles                 | ["engaged"]                    |
      | /result/history/*/event       | ["engaged"]                    |
      | /result/obligations/*/kind    | ["deliver"]                    |
      | /result/actions               | {"$set": ["task.deliver", "task.drop"]} |
    When alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer             | value                 |
      | /result/roles       | {"$set": ["author", "judge"]} |
      | /result/obligations | []                    |
      | /result/actions     | []                    |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": {"long": "the full delivered content"}}
      """
    And alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                    | value                              |
      | /result/state              | "delivered"                        |
      | /result/history/*/event    | ["engaged", "delivered"]           |
      | /result/obligations/*/kind | ["judge"]                          |
      | /result/actions            | ["task.judge"]                     |
      | /result/delivery/payload   | {"long": "the full delivered content"} |
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer             | value |
      | /result/obligations | []    |
      | /result/actions     | []    |
    # The listing is a bounded digest; full content comes from the engagement.
    When alice reads "engagements" with:
      """
      {"task": "${t}", "limit": 1}
      """
    Then the answer matches:
      | pointer                    | value        |
      | /result/items              | {"$len": 1}  |
      | /result/items/0/engagement | "${e}"       |
      | /result/items/0/state      | "delivered"  |
      | /result/items/0/delivery   | absent       |
      | /result/next_cursor        | {"$ne": ""}  |
    And remember /result/next_cursor as cursor
    When alice reads "engagements" with:
      """
      {"task": "${t}", "limit": 1, "cursor": "${cursor}"}
      """
    Then the answer matches:
      | pointer               | value       |
      | /result/items         | {"$len": 1} |
      | /result/items/0/state | "confirmed" |
      | /result/next_cursor   | ""          |
    When alice reads "engagements" with:
      """
      {"task": "${t}", "limit": 1000}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"

  @KF-8-17 @KF-8-18 @KF-8-20 @KF-8-16
  Scenario: After a restart, agents that remember only who they are recover every duty from the turn
    When alice performs "task.create" with:
      """
      {"title": "Recoverable", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol delivered while the others were away"}}
      """
    And alice performs "task.revise" with:
      """
      {"task": "${t}", "title": "Recoverable, revised"}
      """
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then remember the answer as bob_view
    When alice reads "tasks"
    Then remember the answer as alice_tasks
    When the implementation restarts
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer is indistinguishable from bob_view
    # Alice, the author, finds the Task she offered from her listing alone.
    When alice reads "tasks"
    Then the answer is indistinguishable from alice_tasks
    And the answer matches:
      | pointer                  | value                  |
      | /result/items/*/task     | ["${t}"]               |
      | /result/items/0/title    | "Recoverable, revised" |
      | /result/items/0/version  | 2                      |
    # Bob starts from his turn alone and acts only on the references it returns.
    When bob reads "turn"
    Then the answer matches:
      | pointer                   | value       |
      | /result/items             | {"$len": 1} |
      | /result/items/0/next_step | "deliver"   |
    And remember /result/items/0/engagement as found
    When bob reads "engagement" with:
      """
      {"engagement": "${found}"}
      """
    Then the answer matches:
      | pointer                  | value       |
      | /result/state            | "confirmed" |
      | /result/contract_version | 1           |
    When bob performs "task.deliver" with:
      """
      {"engagement": "${found}", "payload": "bob, after recovering"}
      """
    Then it succeeds
    # Alice finds both deliveries that arrived while she was away.
    When alice reads "turn"
    Then the answer matches:
      | pointer               | value              |
      | /result/items         | {"$len": 2}        |
      | /result/items/*/kind  | ["judge", "judge"] |
    And remember /result/items/0/engagement as first
    And remember /result/items/1/engagement as second
    When alice reads "engagement" with:
      """
      {"engagement": "${first}"}
      """
    Then /result/delivery/payload is "carol delivered while the others were away"
    When alice performs "task.judge" with:
      """
      {"engagement": "${first}", "verdict": "adopt"}
      """
    Then it succeeds
    When alice performs "task.judge" with:
      """
      {"engagement": "${second}", "verdict": "adopt"}
      """
    Then it succeeds
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                   |
      | /result/adopted_count   | 2                       |
      | /result/current_version | 2                       |
      | /result/contract/title  | "Recoverable, revised"  |

  @KF-8-16
  Scenario: The turn keeps a duty even when the engagement offers its holder no action
    When alice performs "task.create" with:
      """
      {"title": "Hints", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And bob is deactivated
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                    | value       |
      | /result/actions            | []          |
      | /result/obligations/*/kind | ["deliver"] |
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/engagement | "${e}"      |
      | /result/items/0/next_step  | "deliver"   |

  @KF-7.6-03 @KF-7.3-05
  Scenario: The rate limit refuses actions but cancels no engagement and adds no duty
    When alice performs "task.create" with:
      """
      {"title": "Busy", "requirements": "r"}
      """
    And remember /result/task as t
    And bob performs "task.take" with key "first" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And bob performs "task.take" 125 times at once with:
      """
      {"task": "${t}"}
      """
    Then /result/rejected_count matches {"$gte": 1}
    And /result/outcomes/*/rejection/reason matches {"$each": "rate_limited"}
    And /result/outcomes/*/result/engagement matches {"$each": "${e}"}
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "while limited"}
      """
    Then it is rejected with reason "rate_limited" and next step "wait"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value       |
      | /result/state           | "confirmed" |
      | /result/history/*/event | ["engaged"] |
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/engagement | "${e}"      |
      | /result/items/0/kind       | "deliver"   |
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When the clock advances by 61s
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "after the window"}
      """
    Then it succeeds
