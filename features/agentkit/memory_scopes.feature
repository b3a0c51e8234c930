Feature: Long-term memory: seed, other scopes and recall
  Beyond the end user's own scope (memory.feature), the README's 长期记忆分作用域
  paragraph has the shared pool and the session scope: memory.seed fills
  the shared pool at start-up, which every search reads; an agent whose
  memory.scope.write is shared writes there; one whose write scope is
  session (and reads the session scope) keeps what it saves to the
  session. With memory.recall.top_k the memories matching a message reach
  the model without a search (the L4 layer of the prompt), under the same
  scopes.

  @AK-MEMORY-03
  Scenario: Seeded memories are in the shared pool: found for any user, and for a message with no user
    Given the gateway runs with the configuration:
      """
      {"memory": true, "memory_seed": [{"key": "office hours", "value": "the desk opens at nine qs3"}]}
      """
    And the model follows script bob:
      """
      [{"tool": "memory_search", "args": {"query": "office hours"}}, {"text": "found: {{tools}}"}]
      """
    And the model follows script anon:
      """
      [{"tool": "memory_search", "args": {"query": "office hours"}}, {"text": "found: {{tools}}"}]
      """
    When a message "when does the desk open?" under script bob is sent to assistant on session s1 as user "bob"
    Then the turn is done with an answer containing "qs3"
    When a message "when does the desk open?" under script anon is sent to assistant on session s2
    Then the turn is done with an answer containing "qs3"

  @AK-MEMORY-04
  Scenario: With scope.write shared, a save (with or without a user) is found by another user
    Given the gateway runs with the configuration:
      """
      {"memory": true, "memory_write": "shared"}
      """
    And the model follows script save:
      """
      [{"tool": "memory_save", "args": {"key": "release train", "value": "ships on thursday qs4"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script anonsave:
      """
      [{"tool": "memory_save", "args": {"key": "freeze window", "value": "frozen on friday qs5"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script other:
      """
      [{"tool": "memory_search", "args": {"query": "release train freeze window"}}, {"text": "found: {{tools}}"}]
      """
    When a message "remember the train" under script save is sent to assistant on session s1 as user "ada"
    Then the turn is done with an answer containing "kept: saved"
    When a message "remember the freeze" under script anonsave is sent to assistant on session s2
    Then the turn is done with an answer containing "kept: saved"
    When a message "when does it ship?" under script other is sent to assistant on session s3 as user "bob"
    Then the turn is done with an answer containing "qs4"
    And /result/json/answer matches {"$contains": "qs5"}

  @AK-MEMORY-05
  Scenario: With scope.write and read session, a save is found in its session by any user, and not in another session
    Given the gateway runs with the configuration:
      """
      {"memory": true, "memory_write": "session", "memory_read": ["session"]}
      """
    And the model follows script save:
      """
      [{"tool": "memory_save", "args": {"key": "draft title", "value": "the draft is called qs6"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script same:
      """
      [{"tool": "memory_search", "args": {"query": "draft title"}}, {"text": "found: {{tools}}"}]
      """
    And the model follows script other:
      """
      [{"tool": "memory_search", "args": {"query": "draft title"}}, {"text": "found: {{tools}}"}]
      """
    When a message "remember the draft" under script save is sent to assistant on session s1 as user "ada"
    Then the turn is done with an answer containing "kept: saved"
    When a message "what is the draft called?" under script same is sent to assistant on session s1 as user "bob"
    Then the turn is done with an answer containing "qs6"
    When a message "what is the draft called?" under script other is sent to assistant on session s2 as user "ada"
    Then /result/json/status is "done"
    And /result/json/answer matches {"$not_contains": "qs6"}

  @AK-MEMORY-06
  Scenario: With recall.top_k, the user's own and the shared memories that match the message reach the model without a search, another user's never
    Given the gateway runs with the configuration:
      """
      {"memory": true, "memory_recall": 3, "memory_seed": [{"key": "preferred currency", "value": "the shop bills in euro qs8"}]}
      """
    And the model follows script save:
      """
      [{"tool": "memory_save", "args": {"key": "preferred account", "value": "Ada pays from qs7"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script same:
      """
      [{"text": "ok"}]
      """
    And the model follows script other:
      """
      [{"text": "ok"}]
      """
    When a message "remember my account" under script save is sent to assistant on session s1 as user "ada"
    Then the turn is done with an answer containing "kept: saved"
    When a message "which preferred account and currency?" under script same is sent to assistant on session s2 as user "ada"
    Then the turn is done with an answer containing "ok"
    And the model saw "Ada pays from qs7" under script same
    And the model saw "the shop bills in euro qs8" under script same
    When a message "which preferred account and currency?" under script other is sent to assistant on session s3 as user "bob"
    Then the turn is done with an answer containing "ok"
    And the model did not see "qs7" under script other
    And the model saw "the shop bills in euro qs8" under script other
