@core
Feature: Limits on cheap actions (§3 L4)
  Cheap, repeatable actions are bounded. Hitting the bound is a plain
  rejection that tells the agent to wait: it records nothing, owes nothing and
  compensates nothing, and the agent can act again once the window has passed.

  Background:
    Given agents alice and bob

  @KF-L4-05 @KF-12-09 @KF-L4-06 @KF-L2-07
  Scenario: A flood of creates is cut off by a limit that leaves no trace
    # The warm-up spends part of the budget and is then withdrawn, so that the
    # creates that get through fit on one page of the own listing.
    Given alice creates memory warmup with content "warm-up"
    And alice performs "memory.update" 29 times at once with:
      """
      {"memory": "${warmup}", "content": "warm-up again"}
      """
    And alice withdraws memory warmup
    When alice performs "memory.create" 125 times at once with:
      """
      {"content": "flood"}
      """
    Then /result/rejected_count matches {"$gte": 1}
    And /result/ok_count matches {"$gte": 1}
    And /result/outcomes/*/rejection/reason matches {"$contains": "rate_limited"}
    And /result/outcomes/*/rejection/next_step matches {"$contains": "wait"}
    And remember /result/ok_count as created_count
    And remember /result/outcomes/*/result/memory as created
    When alice reads "memories" with:
      """
      {"scope": "own", "limit": 100}
      """
    Then /result/items matches {"$len": "${created_count}"}
    And /result/items/*/memory matches {"$set": "${created}"}
    And remember the answer as listed
    When alice performs "memory.create" with key "late" with:
      """
      {"content": "one more"}
      """
    Then it is rejected with reason "rate_limited" and next step "wait"
    When alice reads "memories" with:
      """
      {"scope": "own", "limit": 100}
      """
    Then the answer is indistinguishable from listed
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When the clock advances by 61s
    And alice performs "memory.create" with key "late" with:
      """
      {"content": "one more"}
      """
    Then it succeeds
    And /result/version is 1
    And remember /result/memory as late
    When alice reads memory late
    Then /result/content is "one more"

