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

  @AK-SESSION-03
  Scenario: A second message on a session waits for the running turn: the turns do not interleave
    The first turn's model call is held for a second; a gateway that runs
    the second turn at once calls the model while it is held. One that
    serialises them calls it after the first turn ends, with that turn in
    the session's memory.
    Given the gateway runs with session.window 20
    And the model follows script first:
      """
      [{"hold": true, "hold_for": "1s", "text": "first turn done"}]
      """
    And the model follows script second:
      """
      [{"text": "second turn done"}]
      """
    When a message "one" under script first is sent to assistant on session s1, and while the model thinks a message "two" under script second on the same session
    Then the answer matches:
      | pointer                               | value              |
      | /result/outcomes/0/result/json/answer | "first turn done"  |
      | /result/outcomes/1/result/json/answer | "second turn done" |
    And no model call under script second came while a call under script first was held
    And the model saw "first turn done" under script second
