Feature: The session's rolling summary
  With loop.compaction and a session window, a session whose history grows
  past max_messages is summarised (the README's session 与 loop.compaction
  paragraph): later turns see the summary, the session's first user
  message and the latest messages, and not the older ones. Here every turn
  adds two messages (the input and the answer), so after the fourth turn
  the session holds eight, past max_messages 7; with keep_recent 2 the
  summary covers the first three turns. The numbers keep each turn's own
  call under max_messages (the summary, the first message, a window of 4
  and the input), so no summary is made within a turn (compaction.feature
  checks that). A gateway may summarise after it has answered: the check
  waits until the model has been asked for the summary (a call offering no
  tools, recorded under the script of the first message it carries), sends
  a fifth turn, and looks at the sixth: agent-kit 7a3845b stores the
  summary a moment after that call is answered, so the fifth turn may
  start before it is there.

  @AK-COMPACT-02
  Scenario Outline: After the session grows past max_messages, later turns see its summary, its first message and the latest turns, not the summarised ones (session store: <store>)
    Given the gateway runs with the configuration:
      """
      {"window": 4, "compaction": {"max_messages": 7, "keep_recent": 2}, "session_store": "<store>"}
      """
    And the model follows script t1:
      """
      {"summary": "ROLLING-qr1: Ada likes a7", "replies": [{"text": "noted one qa1"}]}
      """
    And the model follows script t2:
      """
      [{"text": "noted two qa2"}]
      """
    And the model follows script t3:
      """
      [{"text": "noted three qa3"}]
      """
    And the model follows script t4:
      """
      [{"text": "noted four qa4"}]
      """
    And the model follows script t5:
      """
      [{"text": "noted five qa5"}]
      """
    And the model follows script t6:
      """
      [{"text": "six"}]
      """
    When a message "first: Ada likes a7" under script t1 is sent to assistant on session s1
    And a message "second thing qb2" under script t2 is sent to assistant on session s1
    And a message "third thing qb3" under script t3 is sent to assistant on session s1
    And a message "fourth thing qb4" under script t4 is sent to assistant on session s1
    Then the turn is done with an answer containing "noted four qa4"
    And the gateway has had the model summarise under script t1
    When a message "fifth thing qb5" under script t5 is sent to assistant on session s1
    Then the turn is done with an answer containing "noted five qa5"
    When a message "sixth thing" under script t6 is sent to assistant on session s1
    Then the turn is done with an answer containing "six"
    And the model saw "ROLLING-qr1: Ada likes a7" under script t6
    And the model saw "first: Ada likes a7" under script t6
    And the model saw "fourth thing qb4" under script t6
    And the model saw "noted five qa5" under script t6
    And the model did not see "second thing qb2" under script t6
    And the model did not see "noted three qa3" under script t6
    When the model's requests under script t1 are read
    Then the answer matches:
      | pointer                   | value |
      | /result/summaries/0/text  | {"$contains": "second thing qb2"} |
      | /result/summaries/0/text  | {"$contains": "noted three qa3"} |

    Examples:
      | store |
      | none  |
      | named |
