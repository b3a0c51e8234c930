Feature: Clearing old tool results
  loop.compaction.tool_clear_over turns on the cheap part of compaction (the
  README's session 与 loop.compaction paragraph lists tool_clear_over/keep
  as the clearing of old tool results): a tool result longer than that
  many characters, outside the latest tool_clear_keep messages, reaches the
  model replaced by a short placeholder, with no summary asked for, while
  the recent results stay whole. The placeholder's wording is the
  gateway's own; the checks look only for the results' receipts.

  @AK-COMPACT-03
  Scenario: Old long tool results are cleared, the latest kept, and no summary is asked for
    Given the gateway runs with the configuration:
      """
      {"approval": "auto", "compaction": {"tool_clear_over": 20, "tool_clear_keep": 2}}
      """
    And the model follows script main:
      """
      {"summary": "SUMMARY-qz3: nothing", "replies": [{"tool": "lookup", "args": {"account": "a1", "n": 1}},
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
      | /result/requests/1/text | {"$contains": "lookup-receipt-1"} |
      | /result/requests/3/text | {"$not_contains": "lookup-receipt-1"} |
      | /result/requests/3/text | {"$not_contains": "lookup-receipt-2"} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-3"} |
      | /result/orphans         | {"$each": 0} |

  @AK-COMPACT-03
  Scenario: Tool results no longer than tool_clear_over stay whole
    Given the gateway runs with the configuration:
      """
      {"approval": "auto", "compaction": {"tool_clear_over": 4000, "tool_clear_keep": 2}}
      """
    And the model follows script main:
      """
      {"summary": "SUMMARY-qz3: nothing", "replies": [{"tool": "lookup", "args": {"account": "a1", "n": 1}},
       {"tool": "lookup", "args": {"account": "a2", "n": 2}},
       {"tool": "lookup", "args": {"account": "a3", "n": 3}},
       {"text": "done: {{tools}}"}]}
      """
    When a message "check three accounts" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "done"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                 | value |
      | /result/summaries       | {"$len": 0} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-1"} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-2"} |
      | /result/requests/3/text | {"$contains": "lookup-receipt-3"} |
