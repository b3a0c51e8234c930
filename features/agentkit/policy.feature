Feature: Approval rules at run time
  An agent's approval rules decide, call by call, whether a mutating tool
  runs without asking (allow), is refused without asking (deny) or asks:
  the first rule whose ref and argument patterns all match wins, an
  argument pattern is an exact value, a prefix* or *, a missing argument
  matches nothing, and no matching rule means ask (notes §6). Arguments are
  compared by their value, however the model wrote them.

  @AK-POLICY-01
  Scenario: An allow rule runs the call without asking; a call it does not match asks
    Given the gateway runs with the approval rules:
      | ref                   | args              | action |
      | cap://tool/ops/deduct | {"account": "a1"} | allow  |
    And the model follows script a1:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a1"}}, {"text": "done: {{tools}}"}]
      """
    And the model follows script a2:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a2"}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay a1" under script a1 is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And the tool deduct was called 1 time under script a1
    When a message "pay a2" under script a2 is sent to assistant on session s2
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 1, "account": "a2"} under script a2
    And the tool deduct was called 0 times under script a2

  @AK-POLICY-01
  Scenario: A deny rule refuses the call without asking: the model is told, the tool does not run
    Given the gateway runs with the approval rules:
      | ref                   | args                    | action |
      | cap://tool/ops/deduct | {"account": "blocked*"} | deny   |
    And the model follows script main:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "blocked-7"}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay blocked-7" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct"
    And /result/json/answer matches {"$not_contains": "receipt"}
    And the tool deduct was called 0 times under script main

  @AK-POLICY-02
  Scenario: The first matching rule wins, whatever the rules after it say
    Given the gateway runs with the approval rules:
      | ref                   | args              | action |
      | cap://tool/ops/deduct | {"account": "a1"} | deny   |
      | cap://tool/ops/*      |                   | allow  |
      | cap://tool/ops/deduct | {"account": "a2"} | deny   |
    And the model follows script a1:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a1"}}, {"text": "done: {{tools}}"}]
      """
    And the model follows script a2:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a2"}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay a1" under script a1 is sent to assistant on session s1
    Then /result/json/status is "done"
    And the tool deduct was called 0 times under script a1
    When a message "pay a2" under script a2 is sent to assistant on session s2
    Then the turn is done with an answer containing "deduct-receipt-1"
    And the tool deduct was called 1 time under script a2

  @AK-POLICY-02
  Scenario: An argument that is missing matches no pattern, not even *: the call asks
    Given the gateway runs with the approval rules:
      | ref                   | args             | action |
      | cap://tool/ops/deduct | {"account": "*"} | allow  |
    And the model follows script main:
      """
      [{"tool": "deduct", "args": {"amount": 3}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay 3" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 3} under script main

  @AK-POLICY-02
  Scenario Outline: A number the model writes as <written> matches the pattern "<pattern>" by its value
    Given the gateway runs with the approval rules:
      | ref                   | args                   | action |
      | cap://tool/ops/deduct | {"amount": "<pattern>"} | allow  |
    And the model follows script main:
      """
      [{"tool": "deduct", "raw_args": "{ \"ref\" : \"{{ref}}\",\n  \"amount\": <written> }"}, {"text": "done: {{tools}}"}]
      """
    When a message "pay" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And the tool deduct was called 1 time under script main

    Examples:
      | written | pattern |
      | 5.0     | 5       |
      | 1e2     | 100     |
      | 1000    | 100*    |
