Feature: Remembered approvals
  approval.remember turns on a session's memory of "always allow" and
  "always deny" answers (the README's 审批策略 paragraph). A plain yes or
  no is an answer for this call only, so it is not remembered: over HTTP,
  where a waiting turn is answered with a message, the next call of the
  same tool in the session asks again.

  @AK-POLICY-03
  Scenario Outline: With approval.remember, a plain <answer> to one call is not remembered: the next call of the tool asks again
    Given the gateway runs with the configuration:
      """
      {"remember": true}
      """
    And the model follows script main:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a1"}}, {"tool": "deduct", "args": {"amount": 2, "account": "a1"}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay a1 twice" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 1, "account": "a1"} under script main
    When a message "<answer>" is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 2, "account": "a1"} under script main
    And the tool deduct was called <calls> time under script main

    Examples:
      | answer | calls |
      | yes    | 1     |
      | no     | 0     |
