Feature: Long-term memory scopes
  With memory.expose_tools the model gets memory_save and memory_search
  (the README's 长期记忆分作用域 paragraph). What a conversation saves goes
  to the end user's own scope, named by the message's user field; a search
  covers that user's scope and the shared pool, so another user never sees
  it; with no user identity a save fails, and nothing lands in the shared
  pool instead.

  @AK-MEMORY-01
  Scenario: A memory saved for one user is found by that user in another session, and not by another user
    Given the gateway runs with the configuration:
      """
      {"memory": true}
      """
    And the model follows script save:
      """
      [{"tool": "memory_save", "args": {"key": "preferred account", "value": "Ada pays from a7"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script same:
      """
      [{"tool": "memory_search", "args": {"query": "preferred account"}}, {"text": "found: {{tools}}"}]
      """
    And the model follows script other:
      """
      [{"tool": "memory_search", "args": {"query": "preferred account"}}, {"text": "found: {{tools}}"}]
      """
    When a message "remember I pay from a7" under script save is sent to assistant on session s1 as user "ada"
    Then the turn is done with an answer containing "kept: "
    When a message "which account do I pay from?" under script same is sent to assistant on session s2 as user "ada"
    Then the turn is done with an answer containing "Ada pays from a7"
    When a message "which account do I pay from?" under script other is sent to assistant on session s3 as user "bob"
    Then /result/json/status is "done"
    And /result/json/answer matches {"$not_contains": "a7"}

  @AK-MEMORY-02
  Scenario: Without a user identity a save fails, the model is told, and nothing reaches the shared pool
    Given the gateway runs with the configuration:
      """
      {"memory": true}
      """
    And the model follows script save:
      """
      [{"tool": "memory_save", "args": {"key": "preferred account", "value": "someone pays from a7"}}, {"text": "kept: {{tools}}"}]
      """
    And the model follows script other:
      """
      [{"tool": "memory_search", "args": {"query": "preferred account"}}, {"text": "found: {{tools}}"}]
      """
    When a message "remember a7" under script save is sent to assistant on session s1
    Then the turn is done with an answer containing "kept: "
    And /result/json/answer matches {"$ne": "kept: saved"}
    And the model was called 2 times under script save
    When a message "which account?" under script other is sent to assistant on session s2 as user "bob"
    Then /result/json/status is "done"
    And /result/json/answer matches {"$not_contains": "a7"}
