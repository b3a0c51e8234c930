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
