Feature: exec sources and the built-in local tool
  A source of type exec offers tools that run a script with a runtime (the
  checks use sh, which every host that runs the gateway's start command
  has). The README does not name exec sources, so what agent-kit 7a3845b
  was seen to do decides every rule here. The example gateway also puts a
  tool of its own code into the catalogue, cap://tool/local/current_time.

  @AK-EXEC-01
  Scenario: An exec tool without a risk is dangerous: not offered under the default catalog.max_risk
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"tools": [{"name": "run", "runtime": "sh"}]}}],
       "include": ["cap://tool/ops/*", "cap://tool/shell/*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool lookup under script main
    And the model was not offered a tool named run under script main

  @AK-EXEC-01
  Scenario Outline: An exec tool is offered <when>
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"tools": [{"name": "run", "runtime": "sh"<risk>}]}}],
       "include": ["cap://tool/shell/*"]<max>}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool run under script main

    Examples:
      | when                                  | risk                 | max                        |
      | with catalog.max_risk dangerous       |                      | , "max_risk": "dangerous"  |
      | when it declares risk readonly        | , "risk": "readonly" |                            |

  @AK-EXEC-01 @AK-SUSPEND-06
  Scenario: An admitted dangerous exec tool asks for approval under interactive approval
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"tools": [{"name": "run", "runtime": "sh", "description": "Run a shell script"}]}}],
       "include": ["cap://tool/shell/*"], "max_risk": "dangerous"}
      """
    And the model follows script main:
      """
      [{"tool": "run", "args": {"script": "echo hi"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "run it" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Run a shell script" with arguments {"script": "echo hi"} under script main

  @AK-EXEC-02
  Scenario: An exec tool runs its script with sh, the args as positional parameters, and the model gets stdout and stderr
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"tools": [{"name": "run", "runtime": "sh"}]}}],
       "include": ["cap://tool/shell/*"], "max_risk": "dangerous", "approval": "auto"}
      """
    And the model follows script main:
      """
      [{"tool": "run", "args": {"script": "printf 'out:%s:%s:%s' \"$1\" \"$2\" \"$#\"; printf ' err:%s' \"$0\" >&2", "args": "a1  b2"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "run it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "out:a1:b2:2"
    And the last tool results the model saw under script main contain "err:_"

  @AK-EXEC-03
  Scenario: A script that exits non-zero is a result naming the status, its output kept, and the turn goes on
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"tools": [{"name": "run", "runtime": "sh"}]}}],
       "include": ["cap://tool/shell/*"], "max_risk": "dangerous", "approval": "auto"}
      """
    And the model follows script main:
      """
      [{"tool": "run", "args": {"script": "echo partial-output; exit 3"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "run it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "exit error: exit status 3"
    And the last tool results the model saw under script main contain "partial-output"
    And the model was called 2 times under script main

  @AK-EXEC-03
  Scenario: A script that outlives the source's timeout is stopped, and that too is a result
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "shell", "type": "exec", "config": {"timeout": "300ms", "tools": [{"name": "run", "runtime": "sh"}]}}],
       "include": ["cap://tool/shell/*"], "max_risk": "dangerous", "approval": "auto"}
      """
    And the model follows script main:
      """
      [{"tool": "run", "args": {"script": "echo started; exec sleep 30"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "run it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "exit error: "
    And the last tool results the model saw under script main contain "started"
    And the model was called 2 times under script main

  @AK-LOCAL-01
  Scenario: The built-in current_time is offered when included and answers the time in RFC 3339
    Given the gateway runs with the configuration:
      """
      {"include": ["cap://tool/local/current_time"]}
      """
    And the model follows script main:
      """
      [{"tool": "current_time"}, {"text": "saw: {{tools}}"}]
      """
    When a message "what time is it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: "
    And the model was offered the tool current_time under script main
    And the model was not offered a tool named lookup under script main
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                | value |
      | /result/tool_results   | {"$len": 1} |
      | /result/tool_results/0 | {"$regex": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z\|[+-][0-9]{2}:[0-9]{2})$"} |
