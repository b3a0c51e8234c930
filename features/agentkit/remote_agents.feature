Feature: Remote agents as tool sources
  A source of type a2a brings the agents of another deployment into the
  catalogue as cap://agent/<source>/<name>, over the same two endpoints a
  gateway serves itself (GET /a2a/agents, POST /a2a/agents/{name}/tasks).
  sifu serves the remote deployment itself (its agents: researcher and
  writer) and records what the gateway sent it. Where the README says
  nothing of a behaviour, what agent-kit 7a3845b was seen to do decides, and
  the rule says so.

  @AK-REMOTE-01
  Scenario: At start-up the gateway lists the remote agents and offers each to the model under its name
    Given the gateway runs with:
      """
      {"approval": "auto", "a2a": [{"name": "team"}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools researcher, writer and deduct under script main
    And the remote agents of source team received 0 tasks
    When the requests the remote agents of source team received are read
    Then the answer matches:
      | pointer                | value |
      | /result/gets/0/method  | "GET" |
      | /result/gets/0/path    | {"$regex": "/a2a/agents$"} |

  @AK-REMOTE-02
  Scenario: A call of a remote agent posts the model's task to it, and the model receives the remote result
    Given the gateway runs with:
      """
      {"approval": "auto", "a2a": [{"name": "team"}]}
      """
    And the model follows script main:
      """
      [{"tool": "researcher", "args": {"task": "compare the 2 offers ü/?%"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "research it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "researcher-a2a-receipt-1"
    And the last tool results the model saw under script main contain "researcher-a2a-receipt-1"
    When the requests the remote agents of source team received are read
    Then the answer matches:
      | pointer                | value |
      | /result/posts          | {"$len": 1} |
      | /result/posts/0/path   | {"$regex": "/a2a/agents/researcher/tasks$"} |
      | /result/posts/0/body   | {"task": "compare the 2 offers ü/?%"} |

  @AK-REMOTE-03
  Scenario: A remote agent is mutating by default: under interactive approval its call waits for approval and runs once on yes
    Given the gateway runs with:
      """
      {"a2a": [{"name": "team"}]}
      """
    And the model follows script main:
      """
      [{"tool": "writer", "args": {"task": "draft"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "write it" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Writes a short draft on a topic" with arguments {"task": "draft"} under script main
    And the remote agents of source team received 0 tasks
    When a message "yes" is sent to assistant on session s1
    Then the turn is done with an answer containing "writer-a2a-receipt-1"
    And the remote agents of source team received 1 task

  @AK-REMOTE-03
  Scenario: A remote agent source with risk readonly runs its agents without asking
    Given the gateway runs with:
      """
      {"a2a": [{"name": "team", "risk": "readonly"}]}
      """
    And the model follows script main:
      """
      [{"tool": "writer", "args": {"task": "draft"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "write it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "writer-a2a-receipt-1"
    And the remote agents of source team received 1 task

  @AK-REMOTE-04
  Scenario: The agents allow-list offers only the listed remote agents
    Given the gateway runs with:
      """
      {"approval": "auto", "a2a": [{"name": "team", "agents": ["writer"]}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool writer under script main
    And the model was not offered a tool named researcher under script main

  @AK-REMOTE-05
  Scenario: A remote agent's error answer reaches the model as a tool result naming the error, and the turn goes on
    Given the gateway runs with:
      """
      {"approval": "auto", "a2a": [{"name": "team", "answer": "error"}]}
      """
    And the model follows script main:
      """
      [{"tool": "researcher", "args": {"task": "t"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "research it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "scripted failure of remote agent researcher"
    And the remote agents of source team received 1 task

  @AK-REMOTE-06
  Scenario: The headers a remote agent source declares go with its listing and with every task
    Given the gateway runs with:
      """
      {"approval": "auto", "a2a": [{"name": "team", "headers": {"X-Sifu-Team": "blue"}}]}
      """
    And the model follows script main:
      """
      [{"tool": "researcher", "args": {"task": "t"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "research it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "researcher-a2a-receipt-1"
    When the requests the remote agents of source team received are read
    Then the answer matches:
      | pointer                             | value |
      | /result/gets/0/headers/X-Sifu-Team  | "blue" |
      | /result/posts/0/headers/X-Sifu-Team | "blue" |
