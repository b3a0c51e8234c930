Feature: Approvals and effects that never run twice
  A mutating tool behind interactive approval asks the fixed question; the
  approve words run it, anything else denies and the refusal reaches the
  model. An approved effect is journalled: every replay of its turn, across
  restarts, returns the recorded result, and an in-flight marker is never
  executed again (notes §4.6, §6). The stub's /deduct counts the calls.

  Background:
    Given the model follows script pay:
      """
      [{"tool": "deduct", "args": {"amount": 5}}, {"tool": "ask_user", "args": {"question": "Continue?"}}, {"text": "finished: {{tools}}"}]
      """

  @AK-SUSPEND-06
  Scenario: A gated mutating call asks the exact approval question and does not run yet
    When a message "pay 5" under script pay is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 5} under script pay
    And the tool deduct was called 0 times under script pay

  @AK-SUSPEND-07 @AK-SUSPEND-09
  Scenario: "yes" runs the tool, and the replay that finishes the turn does not run it again
    When a message "pay 5" under script pay is sent to assistant on session s1
    And a message "yes" is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 1 time under script pay
    When a message "sure, continue" is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And /result/json/answer matches {"$contains": "sure, continue"}
    And the tool deduct was called 1 time under script pay

  @AK-SUSPEND-07
  Scenario Outline: "<reply>" approves
    When a message "pay 5" under script pay is sent to assistant on session s1
    And a message "<reply>" is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 1 time under script pay

    Examples:
      | reply   |
      | y       |
      | YES     |
      |  ok     |
      | Approve |
      | \\tyes\\n           |
      | \\u3000同意\\u3000 |
      | \\u00a0批准          |
      | 好\\r\\n            |

    # A reply of Chinese characters alone leaves the title no ASCII word to
    # tell the rows apart: each row names its check ID.
    @id:<id>
    Examples: in Chinese
      | reply | id         |
      | 同意    | approves   |
      | 是     | approves-2 |
      | 批准    | approves-3 |
      | 好     | approves-4 |

  @AK-SUSPEND-08
  Scenario Outline: "<reply>" denies, and the refusal reaches the model
    When a message "pay 5" under script pay is sent to assistant on session s1
    And a message "<reply>" is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 0 times under script pay
    And the last tool results the model saw under script pay contain "操作未执行:用户拒绝了 deduct 的本次调用"

    Examples:
      | reply     |
      | no        |
      | yeah      |
      | 同意吗       |
      | yes please |
      | yes\\u200b |
      | 同\\u3000意 |

  @AK-SUSPEND-09 @AK-SUSPEND-04
  Scenario: An approved effect runs exactly once across replays and a restart
    Given the model follows script twice:
      """
      [{"tool": "deduct", "args": {"amount": 9}}, {"tool": "ask_user", "args": {"question": "First?"}}, {"tool": "ask_user", "args": {"question": "Second?"}}, {"text": "finished: {{tools}}"}]
      """
    When a message "pay 9" under script twice is sent to assistant on session s1
    And a message "ok" is sent to assistant on session s1
    Then the gateway waits with the question "First?"
    And the tool deduct was called 1 time under script twice
    When the gateway process is killed and started again
    And a message "one" is sent to assistant on session s1
    Then the gateway waits with the question "Second?"
    And the tool deduct was called 1 time under script twice
    When a message "two" is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And the tool deduct was called 1 time under script twice

  @AK-SUSPEND-04 @AK-SUSPEND-07
  Scenario: A pending approval is answered after the gateway process is killed and started again
    When a message "pay 5" under script pay is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 5} under script pay
    When the gateway process is killed and started again
    And a message "approve" is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 1 time under script pay

  @AK-SUSPEND-10
  Scenario: An effect whose call got no answer is left in flight and never run again
    Given the model follows script flaky:
      """
      {"replies": [{"tool": "deduct", "args": {"amount": 7}}, {"tool": "ask_user", "args": {"question": "Check it?"}}, {"text": "finished: {{tools}}"}],
       "tools": {"deduct": "drop"}}
      """
    When a message "pay 7" under script flaky is sent to assistant on session s1
    And a message "yes" is sent to assistant on session s1
    Then the gateway waits with the question "Check it?"
    And the tool deduct was called 1 time under script flaky
    When a message "checked" is sent to assistant on session s1
    Then /result/json/status is "done"
    And the tool deduct was called 1 time under script flaky

  @AK-SUSPEND-11
  Scenario: Approval mode auto runs the mutating tool without asking
    Given the gateway runs with approval "auto"
    When a message "pay 5" under script pay is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 1 time under script pay

  @AK-SUSPEND-11
  Scenario: Approval mode deny never runs the mutating tool
    Given the gateway runs with approval "deny"
    When a message "pay 5" under script pay is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool deduct was called 0 times under script pay

  @AK-SUSPEND-12
  Scenario: A budget of 2 model calls ends a longer turn with 500 after 2 calls
    Given the gateway runs with a budget of 2 model calls
    And the model follows script long:
      """
      [{"tool": "lookup", "args": {"n": 1}}, {"tool": "lookup", "args": {"n": 2}}, {"tool": "lookup", "args": {"n": 3}}, {"text": "never"}]
      """
    When a message "look three times" under script long is sent to assistant on session s1
    Then /result/status is 500
    And the model was called 2 times under script long

  @AK-SUSPEND-14 @AK-SUSPEND-09
  Scenario: Two mutating calls in one message are asked one at a time, each once, and each runs exactly once
    Given the model follows script both:
      """
      [{"calls": [{"tool": "deduct", "args": {"amount": 1, "account": "a1"}}, {"tool": "deduct", "args": {"amount": 2, "account": "a2"}}]},
       {"tool": "ask_user", "args": {"question": "All good?"}}, {"text": "finished: {{tools}}"}]
      """
    When a message "pay both" under script both is sent to assistant on session s1
    Then /result/json/status is "waiting"
    And /result/json/question matches {"$one_of": ["Approval required for an operation:\nDeduct credits from an account\nArguments: {\"account\":\"a1\",\"amount\":1,\"ref\":\"${script_both}\"}\nReply \"yes\" to proceed, anything else to cancel.", "Approval required for an operation:\nDeduct credits from an account\nArguments: {\"account\":\"a2\",\"amount\":2,\"ref\":\"${script_both}\"}\nReply \"yes\" to proceed, anything else to cancel."]}
    And remember /result/json/question as first
    And the tool deduct was called 0 times under script both
    When a message "yes" is sent to assistant on session s1
    Then /result/json/status is "waiting"
    And /result/json/question matches {"$one_of": ["Approval required for an operation:\nDeduct credits from an account\nArguments: {\"account\":\"a1\",\"amount\":1,\"ref\":\"${script_both}\"}\nReply \"yes\" to proceed, anything else to cancel.", "Approval required for an operation:\nDeduct credits from an account\nArguments: {\"account\":\"a2\",\"amount\":2,\"ref\":\"${script_both}\"}\nReply \"yes\" to proceed, anything else to cancel."]}
    And /result/json/question matches {"$ne": "${first}"}
    And the tool deduct was called 1 time under script both
    When a message "yes" is sent to assistant on session s1
    Then the gateway waits with the question "All good?"
    And the tool deduct was called 2 times under script both
    When a message "fine" is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And /result/json/answer matches {"$contains": "deduct-receipt-2"}
    And the tool deduct was called 2 times under script both
    When the calls of tool deduct under script both are read
    Then /result/calls/*/body/account matches {"$set": ["a1", "a2"]}

  @AK-SUSPEND-14 @AK-SUSPEND-09
  Scenario: Two mutating calls one after the other each run exactly once, after their own approval
    Given the model follows script seq:
      """
      [{"tool": "deduct", "args": {"amount": 1, "account": "a1"}}, {"tool": "deduct", "args": {"amount": 1, "account": "a2"}}, {"text": "finished: {{tools}}"}]
      """
    When a message "pay twice" under script seq is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 1, "account": "a1"} under script seq
    When a message "yes" is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 1, "account": "a2"} under script seq
    And the tool deduct was called 1 time under script seq
    When a message "yes" is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And /result/json/answer matches {"$contains": "deduct-receipt-2"}
    And the tool deduct was called 2 times under script seq

  @AK-SUSPEND-06 @AK-SUSPEND-09
  Scenario: The approval question shows the arguments exactly as the model wrote them, and the approved call runs once
    Given the model follows script raw:
      """
      [{"tool": "deduct", "raw_args": "{ \"amount\" : 5.50,\n  \"account\": \"ü-1 \\u00e9\", \"ref\":\"{{ref}}\" }"}, {"tool": "ask_user", "args": {"question": "Anything else?"}}, {"text": "finished: {{tools}}"}]
      """
    When a message "pay 5.50" under script raw is sent to assistant on session s1
    Then /result/json/status is "waiting"
    And /result/json/question is "Approval required for an operation:\nDeduct credits from an account\nArguments: { \"amount\" : 5.50,\n  \"account\": \"ü-1 \\u00e9\", \"ref\":\"${script_raw}\" }\nReply \"yes\" to proceed, anything else to cancel."
    When a message "yes" is sent to assistant on session s1
    Then the gateway waits with the question "Anything else?"
    And the tool deduct was called 1 time under script raw
    When a message "no" is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    And the tool deduct was called 1 time under script raw
    When the calls of tool deduct under script raw are read
    Then /result/last/body/amount is 5.5
    And /result/last/body/account is "ü-1 é"
