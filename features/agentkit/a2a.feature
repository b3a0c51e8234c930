Feature: The A2A surface
  GET /a2a/agents lists the configured agents (in map order, so compared as
  a set); POST /a2a/agents/{name}/tasks runs a task in a fresh session and
  reports a failing run as 200 {"error"} (notes §4.4, §4.5).

  @AK-A2A-01
  Scenario: The list holds exactly the configured agents with name and description, in any order
    When GET /a2a/agents is requested
    Then /result/status is 200
    And /result/json matches {"$set": [{"name": "assistant", "description": "General assistant used by sifu's checks"}, {"name": "helper", "description": "Second agent, listed over A2A"}]}

  @AK-A2A-02
  Scenario: A task answers 200 with the result
    Given the model follows script main:
      """
      [{"text": "task finished: 42"}]
      """
    When a task "compute the answer" under script main is sent to assistant over A2A
    Then /result/status is 200
    And /result/json is {"result": "task finished: 42"}

  @AK-A2A-03
  Scenario: A failing task answers 200 with an error, not an HTTP error
    Given the model follows script main:
      """
      [{"status": 500}]
      """
    When a task "this will fail" under script main is sent to assistant over A2A
    Then /result/status is 200
    And /result/json/error matches {"$type": "string"}
    And /result/json/result is absent

  @AK-A2A-05
  Scenario: Every task runs in a fresh session, even with session memory on
    Given the gateway runs with session.window 20
    And the model follows script first:
      """
      [{"text": "first done"}]
      """
    And the model follows script second:
      """
      [{"text": "second done"}]
      """
    When a task "first task" under script first is sent to assistant over A2A
    Then /result/json/result is "first done"
    When a task "second task" under script second is sent to assistant over A2A
    Then /result/json/result is "second done"
    And no request of the model under script second mentions script first

  @AK-A2A-03
  Scenario Outline: A task whose first model call fails with <status> answers 200 with an error
    Given the model follows script main:
      """
      [{"status": <status>}]
      """
    When a task "this will fail" under script main is sent to assistant over A2A
    Then /result/status is 200
    And /result/json/error matches {"$type": "string"}
    And /result/json/result is absent

    Examples:
      | status |
      | 400    |
      | 429    |
