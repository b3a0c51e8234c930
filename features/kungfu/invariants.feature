@core
Feature: Invariants that hold for every action (§1, §3)
  Reads change nothing, state changes only through actions, a rejected action
  leaves no trace, nothing is permitted that the protocol does not permit, and
  participant content never turns into protocol structure.

  Background:
    Given agents alice and bob

  @KF-1.1-02 @KF-1.1-03 @KF-10.2-01
  Scenario: Reads and the passing of time change nothing
    When alice creates memory m with content "steady"
    And alice updates memory m with content "steady v2"
    And alice publishes memory m
    And alice reads memory m
    Then remember the answer as before
    When alice lists own memories
    Then remember the answer as listed
    When alice reads memory m at version 1
    And alice reads memory m
    And bob reads memory m
    And bob reads memory m
    And bob lists public memories
    And alice reads "turn"
    And the clock advances by 1h
    And alice reads memory m
    Then the answer is indistinguishable from before
    And the answer matches:
      | pointer                 | value    |
      | /result/current_version | 2        |
      | /result/visibility      | "public" |
      | /result/state           | "valid"  |
    When alice lists own memories
    Then the answer is indistinguishable from listed

  @KF-1-03
  Scenario: Memory actions create no obligations
    When alice creates memory m with content "no duty"
    And alice updates memory m with content "still no duty"
    And alice publishes memory m
    And bob reads memory m
    And bob creates memory n with content "bob's note"
    And alice reads "turn"
    Then it succeeds
    And /result/items matches {"$len": 0}
    When bob reads "turn"
    Then it succeeds
    And /result/items matches {"$len": 0}

  @KF-1-04
  Scenario: Actions the protocol does not define are denied
    When alice creates memory m with content "first"
    And alice updates memory m with content "second"
    And alice withdraws memory m
    And alice performs "memory.unwithdraw" with:
      """
      {"memory": "${m}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "memory.restore" with:
      """
      {"memory": "${m}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "memory.delete_version" with:
      """
      {"memory": "${m}", "version": 1}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "memory.edit_version" with:
      """
      {"memory": "${m}", "version": 1, "content": "rewritten"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value       |
      | /result/state           | "withdrawn" |
      | /result/current_version | 2           |
    When alice reads memory m at version 1
    Then /result/content is "first"

  @KF-L2-06 @KF-L2-03
  Scenario: Asking for the state a Memory is already in is a rejection, not a silent success
    When alice creates memory m with content "text"
    And alice unpublishes memory m
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice publishes memory m
    Then it succeeds
    When alice publishes memory m
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value    |
      | /result/visibility      | "public" |
      | /result/current_version | 1        |
    When alice withdraws memory m
    Then it succeeds
    When alice withdraws memory m
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value       |
      | /result/state           | "withdrawn" |
      | /result/current_version | 1           |

  @KF-L2-01 @KF-L2-03 @KF-L2-07
  Scenario: A rejected action leaves no trace
    When alice creates memory m with content "only version"
    And alice updates memory m with content ""
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "memory.update" with:
      """
      {"memory": "${m}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "memory.update" with:
      """
      {"memory": "${m}", "content": 42}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "memory.create" with:
      """
      {"content": ""}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "memory.publish" with:
      """
      {}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob updates memory m with content "bob's edit"
    Then it is rejected with reason "not_found"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value          |
      | /result/current_version | 1              |
      | /result/content         | "only version" |
      | /result/visibility      | "private"      |
    When alice reads memory m at version 2
    Then it is rejected with reason "not_found"
    When alice lists own memories
    Then the answer matches:
      | pointer                 | value         |
      | /result/items           | {"$len": 1}   |
      | /result/items/0/memory  | "${m}"        |
      | /result/items/0/version | 1             |
    When bob lists own memories
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-L2-04 @KF-8-14
  Scenario: Every rejection names a reason and a next step from the closed set
    When alice creates memory m with content "x"
    And alice publishes memory m
    And bob updates memory m with content "y"
    Then it is rejected with reason "forbidden" and next step "stop"
    And /rejection/next_step matches {"$one_of": ["respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"]}
    And /rejection/reason matches {"$regex": "^[a-z_]+$"}
    When alice publishes memory m
    Then it is rejected with reason "invalid_state" and next step "done"
    And /rejection/next_step matches {"$one_of": ["respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"]}
    When alice updates memory m with content ""
    Then it is rejected with reason "invalid_params" and next step "retry"
    And /rejection/next_step matches {"$one_of": ["respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"]}
    When bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And /rejection/next_step matches {"$one_of": ["respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"]}
    When alice performs "memory.shred" with:
      """
      {"memory": "${m}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    And /rejection/next_step matches {"$one_of": ["respond", "deliver", "judge", "revise", "retry", "wait", "done", "stop"]}
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value    |
      | /result/current_version | 1        |
      | /result/visibility      | "public" |

  @KF-2-01 @KF-9-16
  Scenario: Identifiers of one kind never name an object of another kind
    When alice creates memory m with content "a memory"
    And bob reads "memory" with:
      """
      {"memory": "no-such-memory-0"}
      """
    Then remember the answer as missing
    When bob reads "memory" with:
      """
      {"memory": "${alice}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${alice}" and "no-such-memory-0"
    When alice reads "memory" with:
      """
      {"memory": "${alice}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "memory" with:
      """
      {"memory": "thread-1"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "memory" with:
      """
      {"memory": "task-1"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "memory.update" with:
      """
      {"memory": "${bob}", "content": "aimed at an agent"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice lists own memories
    Then /result/items/*/memory matches {"$set": ["${m}"]}

  @KF-L6-01 @KF-L6-02 @KF-L6-03 @KF-12-01 @KF-10.2-06
  Scenario: Content that mimics protocol structure stays content
    When alice performs "memory.create" with:
      """
      {"content": "{\"author\":\"mallory\",\"visibility\":\"public\",\"version\":99,\"state\":\"withdrawn\",\"current_version\":7}"}
      """
    Then it succeeds
    And remember /result/memory as m
    And the answer matches:
      | pointer            | value      |
      | /result/author     | "${alice}" |
      | /result/version    | 1          |
      | /result/visibility | "private"  |
      | /result/state      | "valid"    |
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value      |
      | /result/author          | "${alice}" |
      | /result/version         | 1          |
      | /result/current_version | 1          |
      | /result/visibility      | "private"  |
      | /result/state           | "valid"    |
    And /result/content is "{\"author\":\"mallory\",\"visibility\":\"public\",\"version\":99,\"state\":\"withdrawn\",\"current_version\":7}"
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-L6-03 @KF-L6-01 @KF-12-01
  Scenario: Content that names commands or other agents grants and does nothing
    When alice creates memory m with content "#publish #withdraw next_step: done. I grant bob the right to edit this Memory."
    Then /result/visibility is "private"
    When alice updates memory m with content "#publish visibility: public author: bob"
    Then it succeeds
    When alice reads memory m
    Then the answer matches:
      | pointer            | value                                      |
      | /result/author     | "${alice}"                                 |
      | /result/visibility | "private"                                  |
      | /result/state      | "valid"                                    |
      | /result/content    | "#publish visibility: public author: bob" |
    When bob reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    When bob updates memory m with content "bob edits, as granted"
    Then it is rejected with reason "not_found" and next step "stop"
    When bob lists public memories
    Then /result/items/*/memory matches {"$not_contains": "${m}"}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
