Feature: The tool time limit
  reliability.tool_timeout limits one tool call (the README's 可靠性
  paragraph: five minutes by default; a call over the limit comes back to
  the model as a result, and the loop goes on). The stub tools answer late
  on cue ("slow:<duration>"), http and MCP alike.

  @AK-RELY-01
  Scenario Outline: A <kind> tool slower than tool_timeout is cut off: the model gets a result naming it, and the turn goes on
    Given the gateway runs with the configuration:
      """
      {"tool_timeout": "300ms", "mcp": [{"name": "kb", "transport": "http"}]}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "<tool>", "args": <args>}, {"text": "saw: {{tools}}"}], "tools": {"<tool>": "slow:1500ms"}}
      """
    When a message "go" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: "
    And /result/json/answer matches {"$not_contains": "receipt"}
    And the last tool results the model saw under script main contain "<tool>"
    And the tool <tool> was called 1 time under script main
    And the model was called 2 times under script main

    Examples:
      | kind | tool   | args              |
      | http | lookup | {"account": "a1"} |
      | MCP  | find   | {"query": "q"}    |

  @AK-RELY-01
  Scenario Outline: A <kind> tool that answers within tool_timeout is answered as usual
    Given the gateway runs with the configuration:
      """
      {"tool_timeout": "3s", "mcp": [{"name": "kb", "transport": "http"}]}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "<tool>", "args": <args>}, {"text": "saw: {{tools}}"}], "tools": {"<tool>": "slow:100ms"}}
      """
    When a message "go" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "<receipt>"
    And the tool <tool> was called 1 time under script main

    Examples:
      | kind | tool   | args              | receipt            |
      | http | lookup | {"account": "a1"} | lookup-receipt-1   |
      | MCP  | find   | {"query": "q"}    | find-mcp-receipt-1 |
