Feature: Control of a session
  interrupt and steer are accepted with 202 and an empty body, are
  idempotent, and do nothing when no turn runs (notes §4.3). The 400 texts
  are vectors (vectors/agentkit/http/errors.json).

  @AK-CTL-01
  Scenario: interrupt is accepted with 202, twice, on an idle session
    When POST /agents/assistant/control is requested with JSON:
      """
      {"session": "s1", "action": "interrupt"}
      """
    Then /result/status is 202
    And /result/body_len is 0
    When POST /agents/assistant/control is requested with JSON:
      """
      {"session": "s1", "action": "interrupt"}
      """
    Then /result/status is 202
    And /result/body_len is 0

  @AK-CTL-01
  Scenario: steer with a message is accepted with 202, twice, on an idle session
    When POST /agents/assistant/control is requested with JSON:
      """
      {"session": "s1", "action": "steer", "message": "prefer account a2"}
      """
    Then /result/status is 202
    And /result/body_len is 0
    When POST /agents/assistant/control is requested with JSON:
      """
      {"session": "s1", "action": "steer", "message": "prefer account a2"}
      """
    Then /result/status is 202

  @AK-CTL-01
  Scenario: An idle interrupt does not disturb the session's next turn
    Given the model follows script main:
      """
      [{"text": "still here"}]
      """
    When POST /agents/assistant/control is requested with JSON:
      """
      {"session": "s1", "action": "interrupt"}
      """
    And a message "hello" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "still here"

  @AK-CTL-03
  Scenario: An interrupt ends the running turn with the fixed interrupted answer
    Given the model follows script slow:
      """
      [{"hold": true, "text": "this answer comes too late"}]
      """
    When a message "work on it" under script slow is sent to assistant on session s1 and interrupted while the model thinks
    Then the answer matches:
      | pointer                               | value  |
      | /result/outcomes/0/result/status      | 200    |
      | /result/outcomes/0/result/json/status | "done" |
      | /result/outcomes/1/result/status      | 202    |
    And /result/outcomes/0/result/json/answer matches {"$contains": "已按你的要求中断当前任务"}

  @AK-CTL-03
  Scenario: A steer note reaches the model with the next tool result
    Given the model follows script slow:
      """
      [{"hold": true, "tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script slow is sent to assistant on session s1 and steered with "prefer account a2" while the model thinks
    Then /result/outcomes/1/result/status is 202
    And /result/outcomes/0/result/json/answer matches {"$contains": "prefer account a2"}
    And the last tool results the model saw under script slow contain "prefer account a2"
