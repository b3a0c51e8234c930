Feature: Catalogue governance
  Every source's capabilities go through one catalogue before an agent
  picks from it: a capability is its kind/domain/name (the domain is the
  source's name, the version is not part of it), two sources supplying one
  at equal priority are a conflict, a higher priority shadows a lower one,
  and an agent selects with include and exclude patterns. The checks add
  sources of their own beside ops ($TOOLS/x is sifu's stub tool x; every
  http tool declares ref, the script's key the stub model adds to each
  call). Where the README is silent, what agent-kit 7a3845b was seen to do
  decides, and the rule says so.

  @AK-CAT-01 @startup
  Scenario: Two sources supplying one tool at equal priority fail start-up, naming the tool and both sources
    When the gateway is started with the configuration:
      """
      {"sources": [
        {"name": "shop", "type": "http", "config": {"tools": [{"name": "find", "url": "$TOOLS/shop_a", "params": {"ref": {"type": "string"}}}]}},
        {"name": "shop", "type": "http", "config": {"tools": [{"name": "find", "url": "$TOOLS/shop_b", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/shop/*"]}
      """
    Then the gateway did not start, and its output names "catalog: capability cap://tool/shop/find supplied by both \"shop\" and \"shop\" with equal priority"

  @AK-CAT-01 @startup
  Scenario: A source named local that offers current_time at the default priority conflicts with the built-in local tool
    When the gateway is started with the configuration:
      """
      {"sources": [
        {"name": "local", "type": "http", "config": {"tools": [{"name": "current_time", "url": "$TOOLS/clock", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/local/*"]}
      """
    Then the gateway did not start, and its output names "cap://tool/local/current_time supplied by both \"local\" and \"local\" with equal priority"

  @AK-CAT-01 @startup
  Scenario: Versions do not tell capabilities apart: two sources of one name at versions 1 and 2 and equal priority conflict
    When the gateway is started with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "http", "version": "1"}, {"name": "kb", "transport": "http", "version": "2"}],
       "include": ["cap://tool/kb/*"]}
      """
    Then the gateway did not start, and its output names "supplied by both \"kb\" and \"kb\" with equal priority"

  @AK-CAT-02 @AK-CAT-05
  Scenario: Of two versions of one capability the higher priority's is the one offered
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "http", "version": "1", "priority": 1}, {"name": "kb", "transport": "http", "version": "2"}],
       "include": ["cap://tool/kb/*@1"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools find and charge under script main

  @AK-CAT-08
  Scenario: An agent with no include pattern is offered no source's tool, the built-in ones neither
    Given the gateway runs with the configuration:
      """
      {"include": []}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool ask_user under script main
    And the model was not offered a tool named lookup under script main
    And the model was not offered a tool named deduct under script main
    And the model was not offered a tool named current_time under script main

  @AK-CAT-04 @startup
  Scenario: An include pattern with a wildcard kind fails start-up, naming the pattern
    When the gateway is started with the configuration:
      """
      {"include": ["cap://*/ops/*"]}
      """
    Then the gateway did not start, and its output names "cap://*/ops/*"

  @AK-CAT-01 @AK-CAT-02
  Scenario: Distinct tools of two sources of one name do not conflict: both are offered
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "shop", "type": "http", "config": {"tools": [{"name": "find", "url": "$TOOLS/shop_a", "params": {"ref": {"type": "string"}}}]}},
        {"name": "shop", "type": "http", "config": {"tools": [{"name": "browse", "url": "$TOOLS/shop_b", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/shop/*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools find and browse under script main

  @AK-CAT-02
  Scenario Outline: The higher priority shadows the lower (<order>): one tool is offered, and its call reaches the higher source only
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "shop", "type": "http", "priority": <first>, "config": {"tools": [{"name": "find", "description": "Find in the first", "url": "$TOOLS/shop_first", "params": {"ref": {"type": "string"}}}]}},
        {"name": "shop", "type": "http", "priority": <second>, "config": {"tools": [{"name": "find", "description": "Find in the second", "url": "$TOOLS/shop_second", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/shop/*"]}
      """
    And the model follows script main:
      """
      [{"tool": "find"}, {"text": "saw: {{tools}}"}]
      """
    When a message "find it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "shop_<winner>-receipt-1"
    And the tool shop_<winner> was called 1 time under script main
    And the tool shop_<loser> was called 0 times under script main
    When the model's requests under script main are read
    Then /result/requests/0/tools matches {"$each": {"$ne": "shop_find"}}

    Examples:
      | order                | first | second | winner | loser  |
      | the second is higher | 0     | 1      | second | first  |
      | the first is higher  | 2     | 1      | first  | second |

  @AK-CAT-02 @AK-LOCAL-01
  Scenario: A source named local at a higher priority shadows the built-in current_time
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "local", "type": "http", "priority": 1, "config": {"tools": [{"name": "current_time", "url": "$TOOLS/clock", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/local/*"]}
      """
    And the model follows script main:
      """
      [{"tool": "current_time"}, {"text": "saw: {{tools}}"}]
      """
    When a message "what time is it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "clock-receipt-1"
    And the tool clock was called 1 time under script main

  @AK-CAT-03
  Scenario: An exclude pattern wins over the include that selects the tool
    Given the gateway runs with the configuration:
      """
      {"include": ["cap://tool/ops/*"], "exclude": ["cap://tool/ops/look*", "cap://tool/ops/memo"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools deduct, statement and audit under script main
    And the model was not offered a tool named lookup under script main
    And the model was not offered a tool named memo under script main

  @AK-CAT-03
  Scenario: An exclude pattern also removes a skill of a mounted namespace
    Given the gateway runs with the configuration:
      """
      {"skills": true, "exclude": ["cap://skill/reports/rep*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools lookup and deduct under script main
    And the model was not offered a tool named report under script main

  @AK-CAT-04
  Scenario: cap://tool/*/* selects the tools of every source, the built-in local tool among them
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "shop", "type": "http", "config": {"tools": [{"name": "browse", "url": "$TOOLS/browse", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/*/*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools lookup, deduct, browse and current_time under script main

  @AK-CAT-04
  Scenario: A name prefix* selects by prefix, an exact name only itself, and a leading * is no wildcard
    Given the gateway runs with the configuration:
      """
      {"include": ["cap://tool/ops/de*", "cap://tool/o*/memo", "cap://tool/ops/*kup"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools deduct and memo under script main
    And the model was not offered a tool named lookup under script main
    And the model was not offered a tool named statement under script main
    And the model was not offered a tool named audit under script main

  @AK-CAT-04
  Scenario: The kind is exact: cap://skill/*/* selects no tool
    Given the gateway runs with the configuration:
      """
      {"include": ["cap://skill/*/*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was not offered a tool named lookup under script main
    And the model was not offered a tool named deduct under script main
    And the model was not offered a tool named current_time under script main

  @AK-CAT-05
  Scenario Outline: A pattern with <which> selects the tools of an MCP source of version 2
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "http", "version": "2"}], "include": ["<pattern>"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools find and charge under script main

    Examples:
      | which            | pattern           |
      | the same version | cap://tool/kb/*@2 |
      | version *        | cap://tool/kb/*@* |
      | no version       | cap://tool/kb/*   |

  @AK-CAT-05
  Scenario: A pattern of another version selects none of them, and a versioned pattern no tool without a version
    Given the gateway runs with the configuration:
      """
      {"mcp": [{"name": "kb", "transport": "http", "version": "2"}], "include": ["cap://tool/kb/*@1", "cap://tool/ops/lookup@2", "cap://tool/ops/deduct"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool deduct under script main
    And the model was not offered a tool named find under script main
    And the model was not offered a tool named charge under script main
    And the model was not offered a tool named lookup under script main

  @AK-CAT-06
  Scenario: When domain_name still collides, the other tool becomes kind_domain_name
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "a.b", "type": "http", "config": {"tools": [{"name": "c", "url": "$TOOLS/c_dot", "params": {"ref": {"type": "string"}}}]}},
        {"name": "a_b", "type": "http", "config": {"tools": [{"name": "c", "url": "$TOOLS/c_underscore", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/a.b/*", "cap://tool/a_b/*"]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tools a_b_c and tool_a_b_c under script main
    And the model was not offered a tool named c under script main
    When the model's requests under script main are read
    Then /result/requests/0/tools matches {"$each": {"$regex": "^[A-Za-z0-9_-]+$"}}

  @AK-CAT-07
  Scenario Outline: A <kind> http source with nothing listening starts, offers its tool, and a call that cannot connect is a result
    Given the gateway runs with the configuration:
      """
      {"sources": [
        {"name": "far", "type": "http", "required": <required>, "config": {"tools": [{"name": "reach", "url": "$NOWHERE/unreachable", "params": {"ref": {"type": "string"}}}]}}
      ], "include": ["cap://tool/ops/*", "cap://tool/far/*"]}
      """
    And the model follows script main:
      """
      [{"tool": "reach"}, {"text": "saw: {{tools}}"}]
      """
    When a message "reach it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: "
    And the model was offered the tools reach and lookup under script main
    And the model was called 2 times under script main
    And the last tool results the model saw under script main contain "/unreachable"

    Examples:
      | kind     | required |
      | required | true     |
      | optional | false    |
