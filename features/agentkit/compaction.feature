Feature: Compaction at run time
  With loop.compaction set, a turn whose messages grow past max_messages is
  compacted before the next model call (the README's session 与
  loop.compaction paragraph): the older messages are summarised by a model
  call, and the loop goes on with the summary, the turn's first user
  message and the keep_recent latest messages. sifu's stub answers a model
  call that offers no tools with the script's summary text, and serves the
  replies in the order the calls come (in_order), since the older messages
  leave the requests. The threshold here counts the turn's own messages (a
  user message, then a call and a result per lookup); the gateway's system
  layers are not among them.

  @AK-COMPACT-01
  Scenario: Past max_messages the older messages are summarised, and the loop goes on with the summary, the first user message and the keep_recent latest
    Given the gateway runs with the configuration:
      """
      {"approval": "auto", "compaction": {"max_messages": 4, "keep_recent": 2}}
      """
    And the model follows script main:
      """
      {"summary": "SUMMARY-qz1: looked up a1", "in_order": true,
       "replies": [{"tool": "lookup", "args": {"account": "a1", "n": 1}},
       {"tool": "lookup", "args": {"account": "a2", "n": 2}},
       {"tool": "lookup", "args": {"account": "a3", "n": 3}},
       {"text": "done: {{tools}}"}]}
      """
    When a message "check three accounts" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "done"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                 | value |
      | /result/count           | 4 |
      | /result/summaries/0/messages | {"$gte": 1} |
      | /result/summaries/0/text | {"$contains": "lookup-receipt-1"} |
      | /result/requests/1/text | {"$contains": "lookup-receipt-1"} |
      | /result/requests/1/text | {"$not_contains": "SUMMARY-qz1"} |
      | /result/requests/2/text | {"$contains": "SUMMARY-qz1"} |
      | /result/requests/2/text | {"$contains": "check three accounts"} |
      | /result/requests/2/text | {"$contains": "lookup-receipt-2"} |
      | /result/requests/2/text | {"$not_contains": "lookup-receipt-1"} |
      | /result/requests/3/text | {"$contains": "SUMMARY-qz1"} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-3"} |
      | /result/requests/3/text | {"$not_contains": "lookup-receipt-2"} |

  @AK-COMPACT-01
  Scenario: Below max_messages no summary is asked for, and every message of the turn reaches the model
    Given the gateway runs with the configuration:
      """
      {"approval": "auto", "compaction": {"max_messages": 10, "keep_recent": 2}}
      """
    And the model follows script main:
      """
      {"summary": "SUMMARY-qz1: looked up a1", "in_order": true,
       "replies": [{"tool": "lookup", "args": {"account": "a1", "n": 1}},
       {"tool": "lookup", "args": {"account": "a2", "n": 2}},
       {"tool": "lookup", "args": {"account": "a3", "n": 3}},
       {"text": "done: {{tools}}"}]}
      """
    When a message "check three accounts" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "done"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                 | value |
      | /result/count           | 4 |
      | /result/summaries       | {"$len": 0} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-1"} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-3"} |
      | /result/requests/3/text | {"$not_contains": "SUMMARY-qz1"} |

  @AK-COMPACT-01
  Scenario: Where keep_recent would cut between a call and its result, the result stays with its call
    With keep_recent 3 the latest three messages start with a tool result;
    the kept part must not hold that result without the call it answers.
    Given the gateway runs with the configuration:
      """
      {"approval": "auto", "compaction": {"max_messages": 4, "keep_recent": 3}}
      """
    And the model follows script main:
      """
      {"summary": "SUMMARY-qz2: looked up some accounts", "in_order": true,
       "replies": [{"tool": "lookup", "args": {"account": "a1", "n": 1}},
       {"tool": "lookup", "args": {"account": "a2", "n": 2}},
       {"tool": "lookup", "args": {"account": "a3", "n": 3}},
       {"text": "done: {{tools}}"}]}
      """
    When a message "check three accounts" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "done"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                      | value |
      | /result/count                | 4 |
      | /result/summaries/0/messages | {"$gte": 1} |
      | /result/requests/3/text      | {"$contains": "SUMMARY-qz2"} |
      | /result/requests/3/text      | {"$contains": "lookup-receipt-3"} |
      | /result/orphans              | {"$each": 0} |
