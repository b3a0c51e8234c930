Feature: Digest and read_result
  With digest.over set, a tool result longer than that is digested before
  it enters the conversation: the model, given the task, reduces it to its
  points, and the conversation gets the points with a pointer to the raw
  text, which the built-in read_result(id, offset) gives back page by
  page. agent-kit 7a3845b asks for the digest in a request of its own that
  carries the task (the turn's input, and so the script's marker), so the
  digest request is the script's first reply served again (again); it is
  the script's second model request, its task and raw result in its second
  message (after the digester's instructions). Where
  the README says nothing of a behaviour, what agent-kit 7a3845b was seen to
  do decides, and the rule says so.

  Background:
    Given the gateway runs with:
      """
      {"digest_over": 40}
      """

  @AK-DIGEST-01
  Scenario: A tool result longer than digest.over reaches the model as the digest the model made, with a pointer, not as the raw text
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}, "again": [{"text": "POINTS: balance 42"}]}, {"text": "saw: {{tools}}"}],
       "tools": {"lookup": "body:balance 42; history: qx-alpha qx-beta qx-gamma qx-delta qx-epsilon qx-zeta"}}
      """
    When a message "what is the balance?" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "POINTS: balance 42"
    And the model was offered the tool read_result under script main
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                 | value |
      | /result/tool_results    | {"$len": 1} |
      | /result/tool_results/0  | {"$contains": "POINTS: balance 42"} |
      | /result/tool_results/0  | {"$not_contains": "qx-zeta"} |
      | /result/requests/1/messages/1/content | {"$contains": "what is the balance?"} |
      | /result/requests/1/messages/1/content | {"$contains": "qx-zeta"} |

  @AK-DIGEST-02
  Scenario: read_result gives back the raw text of a digested result
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}, "again": [{"text": "POINTS: balance 42"}]}, {"tool": "read_result", "args": {"id": "r1", "offset": 0}}, {"text": "saw: {{tools}}"}],
       "tools": {"lookup": "body:balance 42; history: qx-alpha qx-beta qx-gamma qx-delta qx-epsilon qx-zeta"}}
      """
    When a message "what is the balance?" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "qx-zeta"
    When the model's requests under script main are read
    Then /result/tool_results/1 matches {"$contains": "balance 42; history: qx-alpha qx-beta qx-gamma qx-delta qx-epsilon qx-zeta"}

  @AK-DIGEST-03
  Scenario: A tool result no longer than digest.over reaches the model as it is, and the model is not asked for a digest
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}], "tools": {"lookup": "body:balance 42, short"}}
      """
    When a message "what is the balance?" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: balance 42, short"
    And the model was called 2 times under script main
