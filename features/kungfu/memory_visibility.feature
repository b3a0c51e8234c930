@memory
Feature: Who may read a Memory (§5, §9)
  Anyone may read the current version of a valid public Memory; its author may
  read every version. Nothing else is readable, and nothing tells a stranger
  whether an unreadable Memory exists.

  Background:
    Given agents alice and bob

  @KF-9-02 @KF-5-09
  Scenario: A stranger reads only the current version of a public Memory
    When alice creates memory m with content "draft one"
    And alice updates memory m with content "draft two"
    And alice publishes memory m
    And bob reads memory m
    Then it succeeds
    And the answer matches:
      | pointer                 | value       |
      | /result/author          | "${alice}"  |
      | /result/version         | 2           |
      | /result/current_version | 2           |
      | /result/content         | "draft two" |
    When bob reads memory m at version 1
    Then it is rejected with reason "not_found" and next step "stop"
    And /rejection/message matches {"$not_contains": "draft one"}
    When alice updates memory m with content "draft three"
    And bob reads memory m
    Then the answer matches:
      | pointer         | value         |
      | /result/version | 3             |
      | /result/content | "draft three" |
    When bob reads memory m at version 2
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-9-16 @KF-5-04 @KF-2-02 @KF-12-07
  Scenario: Knowing the id of a private Memory grants nothing and reveals nothing
    When alice creates memory m with content "private plans"
    And bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing_read
    When bob performs "memory.update" with:
      """
      {"memory": "no-such-memory-0", "content": "overwrite"}
      """
    Then remember the answer as missing_update
    When bob performs "memory.publish" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing_publish
    When bob performs "memory.withdraw" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing_withdraw
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_read apart from "${m}" and "no-such-memory-0"
    When bob updates memory m with content "overwrite"
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_update apart from "${m}" and "no-such-memory-0"
    When bob publishes memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_publish apart from "${m}" and "no-such-memory-0"
    When bob withdraws memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_withdraw apart from "${m}" and "no-such-memory-0"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value           |
      | /result/current_version | 1               |
      | /result/content         | "private plans" |
      | /result/visibility      | "private"       |
      | /result/state           | "valid"         |

  @KF-9-18 @KF-12-07
  Scenario: After unpublishing, a former reader never sees newer content
    When alice creates memory m with content "public text"
    And alice publishes memory m
    And bob reads memory m
    Then /result/content is "public text"
    When alice unpublishes memory m
    And alice updates memory m with content "secret text"
    Then /result/version is 2
    When bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${m}" and "no-such-memory-0"
    And /rejection/message matches {"$not_contains": "secret text"}
    When bob reads memory m at version 2
    Then it is rejected with reason "not_found" and next step "stop"
    And /rejection/message matches {"$not_contains": "secret text"}
    When bob reads memory m at version 1
    Then it is rejected with reason "not_found" and next step "stop"
    When bob lists public memories
    Then /result/items/*/memory matches {"$not_contains": "${m}"}

  @KF-5-11
  Scenario: A withdrawn Memory leaves every listing
    When alice creates memory kept with content "still here"
    And alice publishes memory kept
    And alice creates memory gone with content "going away"
    And alice publishes memory gone
    And alice lists own memories
    Then /result/items/*/memory matches {"$set": ["${kept}", "${gone}"]}
    When alice withdraws memory gone
    And alice lists own memories
    Then /result/items/*/memory matches {"$set": ["${kept}"]}
    When bob lists public memories
    Then /result/items/*/memory matches {"$not_contains": "${gone}"}
    When alice reads memory gone
    Then /result/state is "withdrawn"

  @KF-12-07 @KF-9-16
  Scenario: A withdrawn public Memory looks missing to a stranger
    When alice creates memory m with content "once public"
    And alice publishes memory m
    And alice withdraws memory m
    And bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${m}" and "no-such-memory-0"
    And /rejection/message matches {"$not_contains": "once public"}
