Feature: The todo plan
  The main loop of every agent has a plan it keeps outside the model: the
  tools todo_write (the whole list, each item a content and a status:
  pending, in_progress or completed) and todo_read. The harness checks
  each write and shows the plan to the model on every round. The wording
  the gateway gives the plan is its own; the checks look for the items'
  contents only.

  @AK-TODO-01
  Scenario: An agent is offered todo_write and todo_read without configuring them
    Given the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools todo_write, todo_read and deduct under script main

  @AK-TODO-02
  Scenario: A valid plan is kept: todo_read gives back its items
    Given the model follows script main:
      """
      [{"tool": "todo_write", "args": {"todos": [{"content": "reconcile ledger qx7", "status": "completed"}, {"content": "mail summary qx8", "status": "completed"}]}, "again": [{"text": "plan: checked again"}]},
       {"tool": "todo_read", "args": {}},
       {"text": "plan: {{tools}}"}]
      """
    When a message "plan it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "plan:"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                | value |
      | /result/tool_results/1 | {"$contains": "reconcile ledger qx7"} |
      | /result/tool_results/1 | {"$contains": "mail summary qx8"} |

  @AK-TODO-02
  Scenario Outline: A plan that breaks the rules (<how>) is refused: the turn goes on and the plan is not kept
    Given the model follows script main:
      """
      [{"tool": "todo_write", "args": {"todos": <todos>}},
       {"tool": "todo_read", "args": {}},
       {"text": "plan: {{tools}}"}]
      """
    When a message "plan it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "plan:"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                | value |
      | /result/tool_results   | {"$len": 2} |
      | /result/tool_results/1 | {"$not_contains": "qx9"} |

    Examples:
      | how                   | todos |
      | two items in progress | [{"content": "first qx9", "status": "in_progress"}, {"content": "second qx9", "status": "in_progress"}] |
      | an unknown status     | [{"content": "first qx9", "status": "started"}] |
      | an empty content      | [{"content": "first qx9", "status": "pending"}, {"content": " ", "status": "pending"}] |
      | a repeated item       | [{"content": "first qx9", "status": "pending"}, {"content": "first qx9", "status": "pending"}] |

  @AK-TODO-03
  Scenario: The plan is shown to the model in the next turn of the session, and not in another session
    Given the model follows script first:
      """
      [{"tool": "todo_write", "args": {"todos": [{"content": "reconcile ledger qx7", "status": "completed"}]}, "again": [{"text": "planned"}]}, {"text": "planned"}]
      """
    And the model follows script second:
      """
      [{"text": "next"}]
      """
    And the model follows script other:
      """
      [{"text": "elsewhere"}]
      """
    When a message "plan it" under script first is sent to assistant on session s1
    Then the turn is done with an answer containing "planned"
    When a message "go on" under script second is sent to assistant on session s1
    Then the turn is done with an answer containing "next"
    And the model saw "reconcile ledger qx7" under script second
    When a message "hello" under script other is sent to assistant on session s2
    Then the turn is done with an answer containing "elsewhere"
    And the model did not see "reconcile ledger qx7" under script other
