@task
Feature: Task deadlines and what survives the author (§3 L4, §4, §7.1, §7.3)
  The delivery clock runs from the engagement and the judgment clock from the
  delivery. A passed deadline ends the engagement — timed out, or the
  contract's result for no judgment — and wins over any later action.
  Revising the contract or deactivating the author cancels nothing.

  Background:
    Given agents alice, bob and carol

  @KF-7.3-07 @KF-7.1-09 @KF-L4-03 @KF-8-04 @KF-7.3-14
  Scenario: The delivery deadline runs from the engagement and, once passed, ends it timed out
    When alice performs "task.create" with:
      """
      {"title": "Ten minutes", "requirements": "r", "delivery_due": 600}
      """
    And remember /result/task as t
    And the clock advances by 100s
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And the clock advances by 599s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer        | value                              |
      | /result/state  | "confirmed"                        |
      | /result/actions | {"$contains": "task.deliver"}     |
    When bob reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When the clock advances by 2s
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "just too late"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "task.drop" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                 | value                    |
      | /result/state           | "timed_out"              |
      | /result/delivery        | absent                   |
      | /result/history/*/event | ["engaged", "timed_out"] |
      | /result/actions         | []                       |
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/0/state is "timed_out"

  @KF-7.3-11 @KF-7.1-04 @KF-7.1-09 @KF-L4-03 @KF-8-05
  Scenario: Without a judgment, the engagement ends undecided at the judgment deadline, counted from the delivery
    When alice performs "task.create" with:
      """
      {"title": "Judge within five minutes", "requirements": "r", "judgment_due": 300}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as e
    And the clock advances by 1000s
    And bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "the work"}
      """
    Then it succeeds
    And remember /result/judgment_due as jdue
    When the clock advances by 299s
    And alice reads "turn"
    Then the answer matches:
      | pointer                    | value     |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "judge"   |
      | /result/items/0/engagement | "${e}"    |
      | /result/items/0/due        | "${jdue}" |
    When the clock advances by 2s
    And alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": "late reject"}
      """
    Then it is rejected with reason "invalid_state"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                   | value                                   |
      | /result/state             | "undecided"                             |
      | /result/verdict           | absent                                  |
      | /result/judgment_due      | "${jdue}"                               |
      | /result/history/*/event   | ["engaged", "delivered", "undecided"]   |
      | /result/history/2/by      | "deadline"                              |
      | /result/delivery/payload  | "the work"                              |
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 0
    # Undecided is never held against the engaged agent: it may engage again.
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/engagement matches {"$ne": "${e}"}

  @KF-7.1-04 @KF-7.3-11 @KF-7.4-02
  Scenario: A contract whose default is adopted adopts at the deadline, only while under its adoption limit
    Given an agent dave
    When alice performs "task.create" with:
      """
      {"title": "Silence means yes", "requirements": "r", "default_outcome": "adopted", "judgment_due": 100, "max_adoptions": 1}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob first"}}
      """
    And remember /result/engagement as eb
    And the clock advances by 10s
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol second"}}
      """
    And remember /result/engagement as ec
    And the clock advances by 10s
    And dave performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "dave third"}}
      """
    And remember /result/engagement as ed
    And alice performs "task.judge" with:
      """
      {"engagement": "${ed}", "verdict": "reject", "reason": "not this one"}
      """
    And the clock advances by 200s
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer              | value      |
      | /result/state        | "adopted"  |
      | /result/verdict      | absent     |
      | /result/history/2/by | "deadline" |
    When carol reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then /result/state is "undecided"
    When dave reads "engagement" with:
      """
      {"engagement": "${ed}"}
      """
    Then /result/state is "rejected"
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 1

  @KF-4-06 @KF-7.3-12 @KF-7.1-04
  Scenario: A deactivated judge's pending judgments run to their contract deadlines
    When alice performs "task.create" with:
      """
      {"title": "Judged by a leaver", "requirements": "r", "default_outcome": "adopted", "judgment_due": 500}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "finished"}}
      """
    And remember /result/engagement as e
    And alice is deactivated
    And the clock advances by 499s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When alice reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "reject", "reason": "on my way out"}
      """
    Then it is rejected with reason "inactive" and next step "stop"
    When the clock advances by 2s
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer              | value      |
      | /result/state        | "adopted"  |
      | /result/verdict      | absent     |
      | /result/history/2/by | "deadline" |

  @KF-7.3-12 @KF-7.1-07
  Scenario: Revising the contract and deactivating the author cancel no engagement
    When alice performs "task.create" with:
      """
      {"title": "Long-lived", "requirements": "r", "judgment_due": 600}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as ec
    And alice performs "task.revise" with:
      """
      {"task": "${t}", "requirements": "stricter requirements"}
      """
    Then it succeeds
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value       |
      | /result/state            | "confirmed" |
      | /result/contract_version | 1           |
    When alice is deactivated
    And the clock advances by 60s
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer       | value       |
      | /result/state | "confirmed" |
    When bob reads "turn"
    Then /result/items/*/engagement matches {"$set": ["${eb}"]}
    When bob performs "task.deliver" with:
      """
      {"engagement": "${eb}", "payload": "delivered after the author left"}
      """
    Then it succeeds
    When carol performs "task.drop" with:
      """
      {"engagement": "${ec}"}
      """
    Then it succeeds
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value                              |
      | /result/state            | "delivered"                        |
      | /result/delivery/payload | "delivered after the author left"  |
    When the clock advances by 601s
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then /result/state is "undecided"
    When carol reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then /result/state is "dropped"
