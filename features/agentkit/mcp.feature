Feature: MCP tool sources
  A source of type mcp brings an MCP server's tools into the catalogue, over
  stdio, SSE or streamable HTTP. sifu serves the server itself (its tools:
  find, charge, wipe and secret) and records what the gateway sent it: every
  request by method, and each tools/call with its arguments (the stub model
  adds ref, the script's key, to every call, and the calls are counted as
  tool calls of that script). Where the README says nothing of a behaviour,
  what agent-kit 7a3845b was seen to do decides, and the rule says so.

  @AK-MCP-01
  Scenario Outline: Over <transport>, the gateway connects to the MCP server once, lists its tools, and offers them to the model
    Given the gateway runs with an MCP source kb over <transport>
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools find, charge, wipe and secret under script main
    And the model was offered the tools lookup and deduct under script main
    And the gateway connected to the MCP server kb 1 time
    And the MCP server kb received 1 tools/list request

    Examples:
      | transport |
      | stdio     |
      | sse       |
      | http      |

  @AK-MCP-02
  Scenario Outline: Over <transport>, a tools/call carries the model's arguments as they are, undeclared ones included
    Given the gateway runs with an MCP source kb over <transport>
    And the model follows script main:
      """
      [{"tool": "find", "args": {"query": "a 1/ü?%", "extra": 7, "nested": {"k": [1, "two", null]}}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "find-mcp-receipt-1"
    And the tool find was called 1 time under script main
    When the requests the MCP server kb received are read
    Then the answer matches:
      | pointer                  | value |
      | /result/calls/0/tool     | "find" |
      | /result/calls/0/args     | {"query": "a 1/ü?%", "extra": 7, "nested": {"k": [1, "two", null]}, "ref": "${script_main}"} |
      | /result/calls            | {"$len": 1} |

    Examples:
      | transport |
      | stdio     |
      | sse       |
      | http      |

  @AK-MCP-02
  Scenario: A tools/call without the tool's required argument still reaches the MCP server
    Given the gateway runs with an MCP source kb over http
    And the model follows script main:
      """
      [{"tool": "find", "args": {"other": true}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "find-mcp-receipt-1"
    When the requests the MCP server kb received are read
    Then /result/calls/0/args is {"other": true, "ref": "${script_main}"}

  @AK-MCP-03
  Scenario Outline: Over <transport>, the model receives the MCP result object, not bare text
    Given the gateway runs with an MCP source kb over <transport>
    And the model follows script main:
      """
      [{"tool": "find", "args": {"query": "q"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "find-mcp-receipt-1"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer                             | value |
      | /result/tool_results_json           | {"$len": 1} |
      | /result/tool_results_json/0/content | [{"type": "text", "text": "find-mcp-receipt-1"}] |

    Examples:
      | transport |
      | stdio     |
      | sse       |
      | http      |

  @AK-MCP-04
  Scenario Outline: Over <transport>, the tools allow-list offers only the listed tools
    Given the gateway runs with an MCP source kb over <transport> offering only find and charge
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools find and charge under script main
    And the model was not offered a tool named secret under script main
    And the model was not offered a tool named wipe under script main

    Examples:
      | transport |
      | stdio     |
      | sse       |

  @AK-MCP-05
  Scenario: An MCP tool is readonly by default: it runs under interactive approval without a question
    Given the gateway runs with an MCP source kb over sse
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "charge it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "charge-mcp-receipt-1"
    And the tool charge was called 1 time under script main

  @AK-MCP-05
  Scenario: A source's risk "mutating" makes its tools ask for approval
    Given the gateway runs with an MCP source kb over http with risk "mutating"
    And the model follows script main:
      """
      [{"tool": "find", "args": {"query": "q"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Find records matching a query" with arguments {"query": "q"} under script main
    And the tool find was called 0 times under script main

  @AK-MCP-05
  Scenario: risk_overrides gives one tool its own risk, and a dangerous tool is not admitted under the default catalog.max_risk
    Given the gateway runs with an MCP source kb over stdio with risk_overrides {"charge": "mutating", "wipe": "dangerous"}
    And the model follows script main:
      """
      [{"tool": "find", "args": {"query": "q"}}, {"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find and charge" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Charge an account" with arguments {"account": "a1", "amount": 3} under script main
    And the tool find was called 1 time under script main
    And the tool charge was called 0 times under script main
    And the model was not offered a tool named wipe under script main
    And the model was offered the tools find, charge and secret under script main

  @AK-MCP-06
  Scenario Outline: Over <transport>, an approved mutating MCP tool runs once
    Given the gateway runs with an MCP source kb over <transport> with risk_overrides {"charge": "mutating"}
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "charge it" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Charge an account" with arguments {"account": "a1", "amount": 3} under script main
    And the tool charge was called 0 times under script main
    When a message "yes" is sent to assistant on session s1
    Then the turn is done with an answer containing "charge-mcp-receipt-1"
    And the tool charge was called 1 time under script main

    Examples:
      | transport |
      | stdio     |
      | http      |

  @AK-MCP-06
  Scenario: Over sse, a refused mutating MCP tool never runs, and the refusal reaches the model
    Given the gateway runs with an MCP source kb over sse with risk_overrides {"charge": "mutating"}
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"tool": "ask_user", "args": {"question": "Continue?"}}, {"text": "done"}]
      """
    When a message "charge it" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Charge an account" with arguments {"account": "a1", "amount": 3} under script main
    When a message "no" is sent to assistant on session s1
    Then the gateway waits with the question "Continue?"
    And the tool charge was called 0 times under script main
    And the MCP server kb received no tools/call
    And the last tool results the model saw under script main contain "charge"

  @AK-MCP-06
  Scenario: Under approval mode deny a mutating MCP tool never reaches the server
    Given the gateway runs with approval "deny"
    And the gateway runs with an MCP source kb over sse with risk_overrides {"charge": "mutating"}
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "charge it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: "
    And the tool charge was called 0 times under script main
    And the MCP server kb received no tools/call

  @AK-MCP-07
  Scenario Outline: An MCP tool that fails (<how>) is a result the model sees, and the turn goes on
    Given the gateway runs with an MCP source kb over http
    And the model follows script main:
      """
      {"replies": [{"tool": "find", "args": {"query": "q"}}, {"text": "saw: {{tools}}"}], "tools": {"find": "<mode>"}}
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "<message>"
    And the tool find was called 1 time under script main
    And the model was called 2 times under script main

    Examples:
      | how               | mode    | message                               |
      | a JSON-RPC error  | fail    | sifu stub: scripted MCP failure of find |
      | a result isError  | iserror | sifu stub: scripted tool error of find  |

  @AK-MCP-08
  Scenario Outline: An optional MCP source over <transport> that cannot start leaves the gateway up without its tools
    Given the gateway runs with an optional MCP source kb over <transport> that refuses to start
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was not offered a tool named find under script main
    And the model was offered the tools lookup and deduct under script main

    Examples:
      | transport |
      | stdio     |
      | sse       |
      | http      |

  @AK-MCP-09 @startup
  Scenario Outline: A required MCP source over <transport> that cannot start fails start-up, naming the source
    When the gateway is started with a required MCP source kb over <transport> that refuses to start
    Then the gateway did not start, and its output names "kb"

    Examples:
      | transport |
      | stdio     |
      | sse       |
      | http      |

  @AK-MCP-08
  Scenario Outline: An optional MCP source over <transport> with nothing listening at its URL leaves the gateway up without its tools
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "<transport>", "absent": true}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was not offered a tool named find under script main
    And the model was offered the tools lookup and deduct under script main

    Examples:
      | transport |
      | sse       |
      | http      |

  @AK-MCP-09 @startup
  Scenario Outline: A required MCP source over <transport> with nothing listening at its URL fails start-up, naming the source
    When the gateway is started with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "<transport>", "absent": true, "required": true}]}
      """
    Then the gateway did not start, and its output names "kb"

    Examples:
      | transport |
      | sse       |
      | http      |

  @AK-MCP-10
  Scenario Outline: Over <transport>, two MCP sources that offer the same tools are offered as source_name, and each call reaches its own server
    Given the gateway runs with two MCP sources kb and docs over <transport>
    And the model follows script main:
      """
      [{"tool": "docs_find", "args": {"query": "q"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it in the docs" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "find-mcp-receipt-1"
    And the model was offered the tools kb_find, docs_find, kb_charge and docs_charge under script main
    And the model was not offered a tool named find under script main
    And the MCP server kb received no tools/call
    When the requests the MCP server docs received are read
    Then /result/calls/0/tool is "find"

    Examples:
      | transport |
      | sse       |
      | stdio     |

  @AK-MCP-11
  Scenario Outline: Over <transport>, an approved mutating MCP tool reaches the server once across the replays of its turn and a restart
    Given the gateway runs with an MCP source kb over <transport> with risk_overrides {"charge": "mutating"}
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"tool": "ask_user", "args": {"question": "First?"}}, {"tool": "ask_user", "args": {"question": "Second?"}}, {"text": "finished: {{tools}}"}]
      """
    When a message "charge it" under script main is sent to assistant on session s1
    And a message "yes" is sent to assistant on session s1
    Then the gateway waits with the question "First?"
    And the tool charge was called 1 time under script main
    When the gateway process is killed and started again
    And a message "one" is sent to assistant on session s1
    Then the gateway waits with the question "Second?"
    When a message "two" is sent to assistant on session s1
    Then the turn is done with an answer containing "charge-mcp-receipt-1"
    And the tool charge was called 1 time under script main
    And the MCP server kb received 1 tools/call request

    Examples:
      | transport |
      | stdio     |
      | http      |

  @AK-MCP-12
  Scenario: Approval rules decide a mutating MCP tool's calls as an http tool's: allow runs it without asking, an unmatched call asks
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "http", "risk_overrides": {"charge": "mutating"}}],
       "rules": [{"ref": "cap://tool/kb/charge", "args": {"account": "a1"}, "action": "allow"}]}
      """
    And the model follows script a1:
      """
      [{"tool": "charge", "args": {"account": "a1", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    And the model follows script a2:
      """
      [{"tool": "charge", "args": {"account": "a2", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "charge a1" under script a1 is sent to assistant on session s1
    Then the turn is done with an answer containing "charge-mcp-receipt-1"
    And the tool charge was called 1 time under script a1
    When a message "charge a2" under script a2 is sent to assistant on session s2
    Then the gateway waits for approval of "Charge an account" with arguments {"account": "a2", "amount": 3} under script a2
    And the tool charge was called 0 times under script a2

  @AK-MCP-12
  Scenario: A deny rule refuses a mutating MCP tool without asking: the model is told, the server gets no tools/call
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "sse", "risk_overrides": {"charge": "mutating"}}],
       "rules": [{"ref": "cap://tool/kb/*", "args": {"account": "blocked*"}, "action": "deny"}]}
      """
    And the model follows script main:
      """
      [{"tool": "charge", "args": {"account": "blocked-7", "amount": 3}}, {"text": "saw: {{tools}}"}]
      """
    When a message "charge blocked-7" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "charge"
    And /result/json/answer matches {"$not_contains": "receipt"}
    And the tool charge was called 0 times under script main
    And the MCP server kb received no tools/call

  @AK-MCP-13
  Scenario: With catalog.max_risk dangerous a dangerous MCP tool is offered, and asks for approval
    Given the gateway runs with the configuration:
      """
      {"max_risk": "dangerous", "mcp": [{"name": "kb", "transport": "stdio", "risk_overrides": {"wipe": "dangerous"}}]}
      """
    And the model follows script main:
      """
      [{"tool": "wipe", "args": {"account": "a9"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "wipe a9" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Wipe an account" with arguments {"account": "a9"} under script main
    And the model was offered the tools wipe, find and purge under script main
    And the tool wipe was called 0 times under script main
    And the MCP server kb received no tools/call
