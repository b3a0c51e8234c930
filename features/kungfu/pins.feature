@thread
Feature: Pinned Memory versions in threads (§5, §9)
  An entry pins one version of one valid Memory. A pin of the author's own
  Memory stays readable to the thread's members whatever the author later
  does to it; a pin of another agent's Memory shows its content only while
  that Memory is valid and public, and gives nobody a right of its own.
  Versions pinned by a delivery stay readable to current members.

  Background:
    Given agents alice, bob, carol and dave
    When alice performs "thread.create" with:
      """
      {"subject": "pins"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s
    When bob performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it succeeds

  @KF-5-07 @KF-5-14 @KF-5-12 @KF-9-05
  Scenario: A pin of the author's own Memory stays readable at its version after the author updates, unpublishes and withdraws it
    When alice creates memory m with content "own v1"
    And alice publishes memory m
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/version is 1
    When alice updates memory m with content "own v2"
    And bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value    |
      | /result/pinned/memory   | "${m}"   |
      | /result/pinned/version  | 1        |
      | /result/pinned/readable | true     |
      | /result/pinned/content  | "own v1" |
    When alice unpublishes memory m
    And alice withdraws memory m
    Then it succeeds
    When bob reads memory m
    Then it is rejected with reason "not_found"
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value    |
      | /result/version         | 1        |
      | /result/pinned/version  | 1        |
      | /result/pinned/readable | true     |
      | /result/pinned/content  | "own v1" |
    When carol reads "thread" with:
      """
      {"thread": "${t}", "expand": [1]}
      """
    Then the answer matches:
      | pointer                     | value    |
      | /result/timeline/0/version  | 1        |
      | /result/expanded/0/version  | 1        |
      | /result/expanded/0/content  | "own v1" |
    When the implementation restarts
    And carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/pinned/content is "own v1"

  @KF-5-15 @KF-9-05 @KF-5-12 @visibility:public @visibility:private @visibility:public-again @visibility:withdrawn
  Scenario: A pin of another agent's Memory is readable only while that Memory is valid and public, and leaks nothing otherwise
    When alice creates memory m with content "alice's public v1"
    And alice publishes memory m
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it succeeds
    And /result/version is 1
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value               |
      | /result/author          | "${bob}"            |
      | /result/pinned/readable | true                |
      | /result/pinned/content  | "alice's public v1" |
    When alice unpublishes memory m
    And carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value  |
      | /result/pinned/memory   | "${m}" |
      | /result/pinned/version  | 1      |
      | /result/pinned/readable | false  |
      | /result/pinned/content  | absent |
    And /result/pinned/* matches {"$not_contains": "alice's public v1"}
    When bob reads "thread" with:
      """
      {"thread": "${t}", "expand": [1]}
      """
    Then the answer matches:
      | pointer                     | value  |
      | /result/expanded/0/readable | false  |
      | /result/expanded/0/content  | absent |
    And /result/expanded/0/* matches {"$not_contains": "alice's public v1"}
    And /result/timeline/0/* matches {"$not_contains": "alice's public v1"}
    When alice publishes memory m
    And carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value               |
      | /result/pinned/readable | true                |
      | /result/pinned/content  | "alice's public v1" |
    When alice withdraws memory m
    And carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value  |
      | /result/pinned/readable | false  |
      | /result/pinned/content  | absent |
    And /result/pinned/* matches {"$not_contains": "alice's public v1"}
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/pinned/content is absent

  @KF-5-13 @KF-10.2-07 @KF-9-05
  Scenario: Pinning another agent's public Memory creates no relationship and no right once it goes private
    When alice creates memory m with content "alice's words"
    And alice publishes memory m
    And dave performs "thread.create" with:
      """
      {"subject": "dave's thread"}
      """
    Then remember /result/thread as dt
    When dave performs "thread.admit" with:
      """
      {"thread": "${dt}"}
      """
    Then remember /result/secret as ds
    When bob performs "thread.join" with:
      """
      {"secret": "${ds}"}
      """
    And dave performs "thread.post" with:
      """
      {"thread": "${dt}", "memory": "${m}"}
      """
    Then it succeeds
    When alice reads "thread" with:
      """
      {"thread": "${dt}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When alice updates memory m with content "alice's words, v2"
    And alice unpublishes memory m
    And dave reads "entry" with:
      """
      {"thread": "${dt}", "entry": 1}
      """
    Then the answer matches:
      | pointer                 | value  |
      | /result/pinned/readable | false  |
      | /result/pinned/content  | absent |
    When dave reads memory m
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads memory m at version 1
    Then it is rejected with reason "not_found" and next step "stop"
    When dave performs "thread.post" with:
      """
      {"thread": "${dt}", "memory": "${m}", "version": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "entry" with:
      """
      {"thread": "${dt}", "entry": 1}
      """
    Then /result/pinned/content is absent
    And /result/pinned/* matches {"$not_contains": "alice's words, v2"}
    When dave reads "thread" with:
      """
      {"thread": "${dt}"}
      """
    Then /result/timeline matches {"$len": 1}

  @KF-5-10
  Scenario: A withdrawn Memory cannot be newly pinned, by its author or anyone else
    When alice creates memory m with content "soon gone"
    And alice publishes memory m
    And alice withdraws memory m
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "with a withdrawn brief"}}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 0}
    When bob reads "opportunities"
    Then /result/items matches {"$len": 0}

  @KF-5-07 @KF-9-05
  Scenario: Others pin only the current version of a public Memory; its author may pin any version
    When alice creates memory m with content "draft"
    And alice updates memory m with content "final"
    And alice publishes memory m
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "version": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/version is 2
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "version": 1}
      """
    Then /result/version is 1
    When carol reads "thread" with:
      """
      {"thread": "${t}", "expand": [1, 2]}
      """
    Then the answer matches:
      | pointer                     | value              |
      | /result/expanded/*/version  | [2, 1]             |
      | /result/expanded/*/content  | ["final", "draft"] |

  @KF-9-06 @KF-5-12 @KF-5-07
  Scenario: Versions pinned by a delivery stay readable to current members whatever the taker does to its Memory
    When alice creates memory m with content "the brief"
    And bob creates memory b with content "delivered v1"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${bob}", "criteria": "findings"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"memories": [{"memory": "${b}", "version": 1}]}}
      """
    Then it succeeds
    When bob publishes memory b
    And bob updates memory b with content "delivered v2"
    And bob unpublishes memory b
    And bob withdraws memory b
    And carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                              | value          |
      | /result/delivery/memories/0/memory   | "${b}"         |
      | /result/delivery/memories/0/version  | 1              |
      | /result/delivery/memories/0/content  | "delivered v1" |
    When carol reads memory b
    Then it is rejected with reason "not_found"
    When alice reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/delivery/memories/0/content is "delivered v1"
    When carol performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    And carol reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer matches:
      | pointer | value |
      | /result | absent |
