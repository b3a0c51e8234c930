@core
Feature: Recovery after a restart (§3 L1, §10.2)
  State follows from recorded facts alone. After the implementation restarts,
  every read answers as before, every receipt replays unchanged, and an agent
  that remembers nothing but who it is finds its own work again.

  Background:
    Given agents alice and bob

  @KF-L1-01 @KF-L1-04 @KF-10.2-05
  Scenario: Every read answers the same after a restart
    When alice creates memory m with content "v1"
    And alice updates memory m with content "v2"
    And alice publishes memory m
    And alice creates memory secret with content "private"
    And alice creates memory gone with content "short-lived"
    And alice updates memory gone with content "short-lived v2"
    And alice withdraws memory gone
    And alice reads memory m
    Then remember the answer as m_current
    When alice reads memory m at version 1
    Then remember the answer as m_v1
    When bob reads memory m
    Then remember the answer as m_seen_by_bob
    When alice reads memory gone
    Then remember the answer as gone_current
    When alice reads memory gone at version 1
    Then remember the answer as gone_v1
    When alice reads memory secret
    Then remember the answer as secret_current
    When bob reads memory secret
    Then remember the answer as secret_seen_by_bob
    When alice lists own memories
    Then remember the answer as own_listing
    When the clock advances by 10s
    And the implementation restarts
    And alice reads memory m
    Then the answer is indistinguishable from m_current
    And /result/current_version is 2
    When alice reads memory m at version 1
    Then the answer is indistinguishable from m_v1
    When bob reads memory m
    Then the answer is indistinguishable from m_seen_by_bob
    When alice reads memory gone
    Then the answer is indistinguishable from gone_current
    And /result/state is "withdrawn"
    When alice reads memory gone at version 1
    Then the answer is indistinguishable from gone_v1
    When alice reads memory secret
    Then the answer is indistinguishable from secret_current
    When bob reads memory secret
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from secret_seen_by_bob
    When alice lists own memories
    Then the answer is indistinguishable from own_listing

  @KF-L1-04 @KF-10.2-05 @KF-L3-02 @KF-L3-03
  Scenario: Receipts and idempotency records survive a restart
    When alice creates memory m with content "v1" with key "create-1"
    Then remember the answer as created
    When alice updates memory m with content "v2" with key "update-1"
    Then remember the answer as updated
    When alice publishes memory m with key "publish-1"
    Then remember the answer as published
    When the clock advances by 10s
    And the implementation restarts
    And alice creates memory same with content "v1" with key "create-1"
    Then the answer is indistinguishable from created
    When alice updates memory m with content "v2" with key "update-1"
    Then the answer is indistinguishable from updated
    When alice publishes memory m with key "publish-1"
    Then the answer is indistinguishable from published
    When alice performs "memory.create" with key "create-1" with:
      """
      {"content": "something else"}
      """
    Then it is rejected with reason "idempotency_conflict" and next step "retry"
    When alice updates memory m with content "v3" with key "update-1"
    Then it is rejected with reason "idempotency_conflict" and next step "retry"
    When alice reads memory m
    Then the answer matches:
      | pointer                 | value    |
      | /result/current_version | 2        |
      | /result/visibility      | "public" |
    When alice lists own memories
    Then /result/items/*/memory matches {"$set": ["${m}"]}

  @KF-10.2-05 @KF-L1-04 @KF-4-01
  Scenario: After a restart an agent finds its own work from the listing alone
    When alice creates memory notes with content "notes v1"
    And alice updates memory notes with content "notes v2"
    And alice publishes memory notes
    And alice creates memory plan with content "plan v1"
    And alice creates memory scrap with content "scrap"
    And alice withdraws memory scrap
    And bob is deactivated
    And the implementation restarts
    And alice lists own memories
    Then the answer matches:
      | pointer                    | value                             |
      | /result/items              | {"$len": 2}                       |
      | /result/items/*/memory     | {"$set": ["${notes}", "${plan}"]} |
      | /result/items/*/version    | {"$set": [2, 1]}                  |
      | /result/items/*/visibility | {"$set": ["public", "private"]}   |
      | /result/items/*/state      | {"$set": ["valid", "valid"]}      |
    And remember /result/items/0/memory as first
    And remember /result/items/1/memory as second
    When alice reads "memory" with:
      """
      {"memory": "${first}"}
      """
    Then it succeeds
    And /result/content matches {"$one_of": ["notes v2", "plan v1"]}
    When alice reads "memory" with:
      """
      {"memory": "${second}"}
      """
    Then it succeeds
    And /result/content matches {"$one_of": ["notes v2", "plan v1"]}
    When alice reads memory notes at version 1
    Then /result/content is "notes v1"
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "memory.create" with:
      """
      {"content": "deactivated before the restart"}
      """
    Then it is rejected with reason "inactive" and next step "stop"
    When bob reads "agent"
    Then /result/state is "deactivated"
