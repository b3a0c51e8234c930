Feature: Structured output
  An agent with structured_output has its final answer checked against a
  JSON Schema, and an answer that does not meet it is given back to the
  model to fix, up to max_retries times. agent-kit 7a3845b sends the
  repair as a request of its own that quotes the answer; the scripts put
  their marker ({{marker}}) in the answers they expect to be quoted, so the
  repair is a call of the same script and is answered by its second serving
  (again). Where the README says nothing of a behaviour, what agent-kit
  7a3845b was seen to do decides, and the rule says so.

  Background:
    Given the gateway runs with:
      """
      {"structured": {"schema": "{\"type\": \"object\", \"required\": [\"city\"], \"properties\": {\"city\": {\"type\": \"string\"}}}", "max_retries": 1}}
      """

  @AK-STRUCT-01
  Scenario: An answer that meets the schema is the turn's answer, as its JSON, without asking the model again
    Given the model follows script main:
      """
      [{"text": "Here it is: {\"city\": \"Paris\"}"}]
      """
    When a message "where?" under script main is sent to assistant on session s1
    Then /result/json/answer is "{\"city\": \"Paris\"}"
    And the model was called 1 time under script main

  @AK-STRUCT-02
  Scenario: An answer that does not meet the schema goes back to the model with the answer quoted, and the fixed answer is the turn's answer
    Given the model follows script main:
      """
      [{"text": "Paris, I think {{marker}}", "again": [{"text": "{\"city\": \"Lyon\"}"}]}]
      """
    When a message "where?" under script main is sent to assistant on session s1
    Then /result/json/answer is "{\"city\": \"Lyon\"}"
    And the model was called 2 times under script main
    And the model saw "Paris, I think" under script main

  @AK-STRUCT-03
  Scenario: An answer still not meeting the schema after max_retries fixes fails the turn
    Given the model follows script main:
      """
      [{"text": "Paris, I think {{marker}}", "again": [{"text": "Still Paris {{marker}}"}]}]
      """
    When a message "where?" under script main is sent to assistant on session s1
    Then /result/status is 500
    And the model was called 2 times under script main
