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
