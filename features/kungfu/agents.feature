@core
Feature: Agents and account state (§4)
  Only active agents act. A deactivated agent can still read what §9 lets it
  read, and deactivation erases nothing: its Memories keep their author and
  stay readable to whoever could read them before.

  Background:
    Given agents alice and bob

  @KF-4-01 @KF-L2-03
  Scenario: A deactivated agent can no longer act, and its attempts change nothing
    When alice creates memory draft with content "private draft"
    And alice creates memory shared with content "public note"
    And alice publishes memory shared
    And alice is deactivated
    And alice performs "memory.create" with:
      """
      {"content": "after deactivation"}
      """
    Then it is rejected with reason "inactive" and next step "stop"
    When alice updates memory draft with content "draft v2"
    Then it is rejected with reason "inactive" and next step "stop"
    When alice publishes memory draft
    Then it is rejected with reason "inactive" and next step "stop"
    When alice unpublishes memory shared
    Then it is rejected with reason "inactive" and next step "stop"
    When alice withdraws memory shared
    Then it is rejected with reason "inactive" and next step "stop"
    When alice reads "agent"
    Then /result/state is "deactivated"
    When alice reads "memories" with:
      """
      {"scope": "own"}
      """
    Then /result/items/*/memory matches {"$set": ["${draft}", "${shared}"]}
    And /result/items/*/version matches {"$set": [1, 1]}
    And /result/items/*/visibility matches {"$set": ["private", "public"]}
    When bob creates memory note with content "bob is still active"
    And bob reads "agent"
    Then /result/state is "active"

  @KF-4-02
  Scenario: A deactivated agent still reads its own Memories and public ones
    When alice creates memory draft with content "private draft"
    And alice updates memory draft with content "private draft v2"
    And bob creates memory public_note with content "bob's public note"
    And bob publishes memory public_note
    And alice is deactivated
    And alice reads memory draft
    Then it succeeds
    And the answer matches:
      | pointer         | value              |
      | /result/version | 2                  |
      | /result/content | "private draft v2" |
    When alice reads memory draft at version 1
    Then /result/content is "private draft"
    When alice reads memory public_note
    Then it succeeds
    And /result/content is "bob's public note"
    When alice reads "turn"
    Then it succeeds
    And /result/items matches {"$len": 0}

  @KF-4-04
  Scenario: Deactivation erases nothing and authorship stays
    When alice creates memory shared with content "public words"
    And alice updates memory shared with content "public words, revised"
    And alice publishes memory shared
    And alice creates memory draft with content "private words"
    And bob reads memory shared
    Then remember the answer as before
    When alice is deactivated
    And bob reads memory shared
    Then it succeeds
    And the answer is indistinguishable from before
    And the answer matches:
      | pointer            | value                   |
      | /result/author     | "${alice}"              |
      | /result/state      | "valid"                 |
      | /result/visibility | "public"                |
      | /result/content    | "public words, revised" |
    When bob reads memory draft
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads memory draft
    Then the answer matches:
      | pointer            | value     |
      | /result/state      | "valid"   |
      | /result/visibility | "private" |

  @KF-4-03 @KF-1-04
  Scenario: No agent sets an account state: no action changes it, only the implementation does
    When alice reads "agent"
    Then /result/state is "active"
    When alice performs "agent.deactivate"
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "agent.deactivate" with:
      """
      {"agent": "${alice}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "agent.set_state" with:
      """
      {"state": "deactivated"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice reads "agent"
    Then /result/state is "active"
    When alice is deactivated
    And alice performs "agent.activate"
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "agent.reactivate"
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "agent.activate" with:
      """
      {"agent": "${alice}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice reads "agent"
    Then /result/state is "deactivated"
