@memory
Feature: Memory lifecycle (§5)
  A Memory has exactly one author, evolves through immutable versions, starts
  private, and ends for good when it is withdrawn.

  Background:
    Given agents alice and bob

  @KF-5-02 @KF-5-01
  Scenario: Creating a Memory makes version 1, valid and private
    When alice creates memory m with content "first words"
    Then the answer matches:
      | pointer            | value     |
      | /result/version    | 1         |
      | /result/visibility | "private" |
      | /result/state      | "valid"   |
    When alice reads memory m
    Then it succeeds
    And the answer matches:
      | pointer                 | value         |
      | /result/author          | "${alice}"    |
      | /result/version         | 1             |
      | /result/current_version | 1             |
      | /result/content         | "first words" |

  @KF-5-03 @KF-12-07
  Scenario: A new Memory is private and indistinguishable from a missing one
    When alice creates memory m with content "draft"
    And bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then it is rejected with reason "not_found"
    And remember the answer as missing
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${m}" and "no-such-memory-0"

  @KF-5-01
  Scenario: A Memory moves between private and public and ends withdrawn
    When alice creates memory m with content "notes"
    And alice publishes memory m
    Then it succeeds
    And /result/visibility is "public"
    When alice reads memory m
    Then the answer matches:
      | pointer            | value    |
      | /result/visibility | "public" |
      | /result/state      | "valid"  |
    When alice unpublishes memory m
    Then it succeeds
    And /result/visibility is "private"
    When alice reads memory m
    Then the answer matches:
      | pointer            | value     |
      | /result/visibility | "private" |
      | /result/state      | "valid"   |
    When alice withdraws memory m
    Then it succeeds
    And /result/state is "withdrawn"
    When alice reads memory m
    Then the answer matches:
      | pointer            | value       |
      | /result/visibility | "private"   |
      | /result/state      | "withdrawn" |

  @KF-5-06 @KF-L1-02 @KF-L1-03 @KF-9-03
  Scenario: An update adds a new version and never rewrites an older one
    When alice creates memory m with content "the sky is green"
    And alice updates memory m with content "correction: the sky is blue"
    Then it succeeds
    And /result/version is 2
    When alice reads memory m at version 1
    Then it succeeds
    And the answer matches:
      | pointer                 | value              |
      | /result/version         | 1                  |
      | /result/current_version | 2                  |
      | /result/content         | "the sky is green" |
    When alice reads memory m at version 2
    Then /result/content is "correction: the sky is blue"
    When alice reads memory m
    Then the answer matches:
      | pointer         | value                         |
      | /result/version | 2                             |
      | /result/content | "correction: the sky is blue" |

  @KF-5-08 @visibility:public @visibility:private
  Scenario: Updating a Memory does not change its visibility
    When alice creates memory shared with content "shared v1"
    And alice publishes memory shared
    And alice creates memory kept with content "kept v1"
    And alice updates memory shared with content "shared v2"
    Then it succeeds
    And alice updates memory kept with content "kept v2"
    Then it succeeds
    When alice reads memory shared
    Then the answer matches:
      | pointer            | value    |
      | /result/version    | 2        |
      | /result/visibility | "public" |
    When bob reads memory shared
    Then /result/content is "shared v2"
    When alice reads memory kept
    Then the answer matches:
      | pointer            | value     |
      | /result/version    | 2         |
      | /result/visibility | "private" |
    When bob reads memory kept
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-5-05 @KF-9-03 @KF-L2-03
  Scenario: Withdrawal is terminal and the author still reads every version
    When alice creates memory m with content "first"
    And alice updates memory m with content "second"
    And alice publishes memory m
    And alice withdraws memory m
    Then it succeeds
    When alice updates memory m with content "third"
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice unpublishes memory m
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice publishes memory m
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice reads memory m
    Then it succeeds
    And the answer matches:
      | pointer                 | value       |
      | /result/state           | "withdrawn" |
      | /result/visibility      | "public"    |
      | /result/current_version | 2           |
      | /result/content         | "second"    |
    When alice reads memory m at version 1
    Then it succeeds
    And /result/content is "first"
    When alice reads memory m at version 3
    Then it is rejected with reason "not_found"

  @KF-5-04 @KF-2-02
  Scenario: Only the author may update, publish, unpublish or withdraw a public Memory
    When alice creates memory m with content "mine"
    And alice publishes memory m
    And bob updates memory m with content "bob was here"
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob publishes memory m
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob unpublishes memory m
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob withdraws memory m
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob reads memory m
    Then the answer matches:
      | pointer                 | value      |
      | /result/author          | "${alice}" |
      | /result/current_version | 1          |
      | /result/content         | "mine"     |
      | /result/visibility      | "public"   |
      | /result/state           | "valid"    |
    When bob lists own memories
    Then /result/items matches {"$len": 0}
