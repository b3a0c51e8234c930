Feature: The todo module's store slot
  The todo module keeps its plans in the store its store slot names (the
  README's 分布式存储 paragraph): a named instance declared under stores:
  with kind todo, referred to as cap://store/todo/<name>, or the bare
  shorthand store: file with its store_config. A file store outlives the
  gateway process, so a session's plan is still shown to the model after a
  restart, and only on that session.

  @AK-STORE-03
  Scenario Outline: With a todo store of type file (<form>), a session's plan reaches the model after a restart
    Given the gateway runs with the configuration:
      """
      {"todo_store": "<form>"}
      """
    And the model follows script first:
      """
      [{"tool": "todo_write", "args": {"todos": [{"content": "reconcile ledger qp3", "status": "completed"}]}, "again": [{"text": "planned"}]}, {"text": "planned"}]
      """
    And the model follows script second:
      """
      [{"text": "next"}]
      """
    And the model follows script other:
      """
      [{"text": "elsewhere"}]
      """
    When a message "plan it" under script first is sent to assistant on session s1
    Then the turn is done with an answer containing "planned"
    When the gateway process is killed and started again
    And a message "go on" under script second is sent to assistant on session s1
    Then the turn is done with an answer containing "next"
    And the model saw "reconcile ledger qp3" under script second
    When a message "hello" under script other is sent to assistant on session s2
    Then the turn is done with an answer containing "elsewhere"
    And the model did not see "reconcile ledger qp3" under script other

    Examples:
      | form  |
      | named |
      | bare  |
