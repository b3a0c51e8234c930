Feature: Durable suspend and resume of questions
  With a suspend store, ask_user makes the JSON path answer {status:
  "waiting", question}; the next message on the same session is the answer
  and the original input is replayed (notes §4.6). sifu's generated config
  always sets suspend.dir.

  Background:
    Given the model follows script ask:
      """
      [{"tool": "ask_user", "args": {"question": "Which account?"}}, {"text": "done with {{tools}}"}]
      """

  @AK-SUSPEND-01
  Scenario: ask_user turns the answer into status waiting with the question
    When a message "move my money" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    And the answer echoes the session
    And /result/json matches {"$len": 3}

  @AK-SUSPEND-02
  Scenario: The next message on the same session answers the question and the turn finishes
    When a message "move my money" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    When a message "account a2" is sent to assistant on session s1
    Then the turn is done with an answer containing "account a2"
    And the answer echoes the session

  @AK-SUSPEND-03
  Scenario: A message on another session does not resume the pending turn
    Given the model follows script other:
      """
      [{"text": "a separate turn"}]
      """
    When a message "move my money" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    When a message "account a2" under script other is sent to assistant on session s2
    Then /result/json/answer is "a separate turn"
    And /result/json/status is "done"
    When a message "account a3" is sent to assistant on session s1
    Then the turn is done with an answer containing "account a3"

  @AK-SUSPEND-04
  Scenario: A pending question is answered after the gateway process is killed and started again
    When a message "move my money" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    When the gateway process is killed and started again
    And a message "account a2" is sent to assistant on session s1
    Then the turn is done with an answer containing "account a2"

  @AK-SUSPEND-05
  Scenario: After a resumed turn is done the next message starts a fresh turn
    When a message "move my money" under script ask is sent to assistant on session s1
    And a message "account a2" is sent to assistant on session s1
    Then the turn is done with an answer containing "account a2"
    When a message "move it again" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"

  @AK-SUSPEND-13
  Scenario: A replay that asks a different question asks it, instead of reusing the old answer
    Given the model follows script drift:
      """
      [{"tool": "ask_user", "args": {"question": "Which account?"},
        "again": [{"tool": "ask_user", "args": {"question": "Which currency?"}}]},
       {"text": "done with {{tools}}"}]
      """
    When a message "move my money" under script drift is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    When a message "account a2" is sent to assistant on session s1
    Then the gateway waits with the question "Which currency?"
    When a message "euro" is sent to assistant on session s1
    Then the turn is done with an answer containing "euro"

  @AK-SUSPEND-03 @AK-SUSPEND-02
  Scenario: Sessions that differ only in non-ASCII characters are kept apart, and echoed as sent
    Given the model follows script other:
      """
      [{"text": "a separate turn"}]
      """
    When a message "move my money" under script ask is sent to assistant on session "客户/α 1"
    Then the gateway waits with the question "Which account?"
    And the answer echoes the session
    When a message "account a2" under script other is sent to assistant on session "客户/β 1"
    Then /result/json/answer is "a separate turn"
    And the answer echoes the session
    When a message "账户 a3" is sent to assistant on session "客户/α 1"
    Then the turn is done with an answer containing "账户 a3"
    And the answer echoes the session

  @AK-SUSPEND-15
  Scenario: A pending turn whose record is corrupt does not brick the session: the next message is a new turn, and so is the one after
    Given the model follows script other:
      """
      [{"text": "a separate turn"}]
      """
    And the model follows script later:
      """
      [{"text": "still answering"}]
      """
    When a message "move my money" under script ask is sent to assistant on session s1
    Then the gateway waits with the question "Which account?"
    When every file of the gateway's suspend store is corrupted
    And a message "account a2" under script other is sent to assistant on session s1
    Then /result/status is 200
    And /result/json/status is "done"
    And /result/json/answer is "a separate turn"
    When a message "and now?" under script later is sent to assistant on session s1
    Then the turn is done with an answer containing "still answering"
