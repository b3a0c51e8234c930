Feature: Store slots
  An agent's session module keeps its history in the store its store slot
  names (the README's 分布式存储 paragraph): a named instance declared
  under stores: and referred to as cap://store/session/<name>, or the bare
  shorthand store: file with its store_config. A file store outlives the
  gateway process, so a session's turns still reach the model after a
  restart.

  @AK-STORE-01
  Scenario Outline: With a session store of type file (<form>), a session's turns reach the model after a restart
    Given the gateway runs with the configuration:
      """
      {"window": 20, "session_store": "<form>"}
      """
    And the model follows script first:
      """
      [{"text": "noted: Ada prefers account a7"}]
      """
    And the model follows script second:
      """
      [{"text": "you prefer a7"}]
      """
    When a message "remember that Ada prefers account a7" under script first is sent to assistant on session s1
    Then the turn is done with an answer containing "noted"
    When the gateway process is killed and started again
    And a message "which account do I prefer?" under script second is sent to assistant on session s1
    Then the turn is done with an answer containing "you prefer a7"
    And the model saw "remember that Ada prefers account a7" under script second
    And the model saw "noted: Ada prefers account a7" under script second

    Examples:
      | form  |
      | named |
      | bare  |

  @AK-STORE-01
  Scenario: A file session store still keeps sessions apart after a restart
    Given the gateway runs with the configuration:
      """
      {"window": 20, "session_store": "named"}
      """
    And the model follows script first:
      """
      [{"text": "noted: Ada prefers account a7"}]
      """
    And the model follows script second:
      """
      [{"text": "I do not know"}]
      """
    When a message "remember that Ada prefers account a7" under script first is sent to assistant on session s1
    And the gateway process is killed and started again
    And a message "which account do I prefer?" under script second is sent to assistant on session s2
    Then the turn is done with an answer containing "I do not know"
    And the model did not see "Ada prefers account a7" under script second
