Feature: Session memory
  With session.window above 0 the turns of a session reach the model on the
  next turn, and only on that session; with 0 (the default) a session keeps
  no memory. sifu's generated configuration sets no window unless a check
  asks for one.

  @AK-SESSION-01
  Scenario: With a window, the first turn's input and answer reach the model on the second turn
    Given the gateway runs with session.window 20
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
    When a message "which account do I prefer?" under script second is sent to assistant on session s1
    Then the turn is done with an answer containing "you prefer a7"
    And the model saw "remember that Ada prefers account a7" under script second
    And the model saw "noted: Ada prefers account a7" under script second

  @AK-SESSION-01
  Scenario: With a window, another session's turns never reach the model
    Given the gateway runs with session.window 20
    And the model follows script first:
      """
      [{"text": "noted: Ada prefers account a7"}]
      """
    And the model follows script second:
      """
      [{"text": "I do not know"}]
      """
    When a message "remember that Ada prefers account a7" under script first is sent to assistant on session s1
    And a message "which account do I prefer?" under script second is sent to assistant on session s2
    Then the turn is done with an answer containing "I do not know"
    And the model did not see "Ada prefers account a7" under script second

  @AK-SESSION-02
  Scenario: Without a window a session keeps no memory: the second turn starts blank
    Given the model follows script first:
      """
      [{"text": "noted: Ada prefers account a7"}]
      """
    And the model follows script second:
      """
      [{"text": "I do not know"}]
      """
    When a message "remember that Ada prefers account a7" under script first is sent to assistant on session s1
    And a message "which account do I prefer?" under script second is sent to assistant on session s1
    Then the turn is done with an answer containing "I do not know"
    And the model did not see "Ada prefers account a7" under script second
