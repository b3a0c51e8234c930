@task
Feature: The adoption limit (§7.1, §7.4)
  A contract may cap its adoptions. Only adoptions count; engagements,
  deliveries and rejections do not. The limit is checked when a delivery is
  adopted, first come first served.

  Background:
    Given agents alice, bob, carol and dave

  @KF-7.4-01 @KF-7.1-05
  Scenario: Rejections do not use up the adoption limit
    When alice performs "task.create" with:
      """
      {"title": "One winner", "requirements": "r", "max_adoptions": 1}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob's try"}}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol's try"}}
      """
    And remember /result/engagement as ec
    And dave performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "dave's try"}}
      """
    And remember /result/engagement as ed
    And alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "reject", "reason": "not good enough"}
      """
    Then it succeeds
    When alice performs "task.judge" with:
      """
      {"engagement": "${ec}", "verdict": "reject", "reason": "not this either"}
      """
    Then it succeeds
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 0
    When alice performs "task.judge" with:
      """
      {"engagement": "${ed}", "verdict": "adopt"}
      """
    Then it succeeds
    And /result/state is "adopted"
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 1

  @KF-7.4-03 @KF-7.4-02 @KF-7.1-05
  Scenario: More engagements and deliveries than the limit are allowed; adoption beyond it is refused
    Given an agent erin
    When alice performs "task.create" with:
      """
      {"title": "One winner", "requirements": "r", "max_adoptions": 1}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob's"}}
      """
    Then it succeeds
    And remember /result/engagement as eb
    When carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol's"}}
      """
    Then it succeeds
    And remember /result/engagement as ec
    When dave performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And remember /result/engagement as ed
    When dave performs "task.deliver" with:
      """
      {"engagement": "${ed}", "payload": "dave's"}
      """
    Then it succeeds
    When alice performs "task.judge" with:
      """
      {"engagement": "${ec}", "verdict": "adopt"}
      """
    Then it succeeds
    When alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "adopt"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "reject", "reason": "the one place is taken"}
      """
    Then it succeeds
    # Taking is still allowed once the limit is reached: engagements never use it up.
    When erin performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/state matches {"$set": ["rejected", "adopted", "delivered", "confirmed"]}
    When alice reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/adopted_count is 1
