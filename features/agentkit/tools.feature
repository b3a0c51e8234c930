Feature: HTTP tools
  An http source's tool accepts exactly the arguments it declares and puts
  each where it is declared (path, query or body); an endpoint's error
  answer reaches the model as a result; a tool's risk defaults by its
  method, and tools above catalog.max_risk are not offered. The stub's
  endpoints record every call: method, the path below /tools/<name>, the
  query and the body.

  @AK-TOOL-01
  Scenario: An argument the tool does not declare is refused to the model, and the endpoint is not called
    Given the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1", "colour": "red", "Account": "a2"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "invalid arguments: undeclared parameter(s) Account, colour; this tool only accepts its declared parameters"
    And the tool lookup was called 0 times under script main

  @AK-TOOL-02
  Scenario: A missing required argument is refused to the model, and the endpoint is not called
    Given the model follows script main:
      """
      [{"tool": "statement", "args": {"month": "2026-11"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "my statement" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "invalid arguments: missing required parameter(s) account"
    And the tool statement was called 0 times under script main

  @AK-TOOL-03
  Scenario Outline: An endpoint answering <status> is a result the model sees, "HTTP <status>: " and the body, and the turn goes on
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}], "tools": {"lookup": "<mode>"}}
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: HTTP <status>: "
    And /result/json/answer matches {"$contains": "<body>"}
    And the tool lookup was called 1 time under script main

    Examples:
      | status | mode | body                                   |
      | 404    | 404  | sifu stub: scripted status 404 for lookup |
      | 429    | 429  | sifu stub: scripted status 429 for lookup |
      | 500    | fail | sifu stub: scripted tool failure        |
      | 503    | 503  | sifu stub: scripted status 503 for lookup |

  @AK-TOOL-04
  Scenario: A path parameter fills the URL, the others go to the query of a GET
    Given the model follows script main:
      """
      [{"tool": "statement", "args": {"account": "a 1/ü", "month": "2026-11"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "my statement" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "statement-receipt-1"
    When the calls of tool statement under script main are read
    Then the answer matches:
      | pointer             | value       |
      | /result/count       | 1           |
      | /result/last/method | "GET"       |
      | /result/last/path   | "a 1/ü"     |
      | /result/last/query/month | "2026-11" |
      | /result/last/body   | {}          |

  @AK-TOOL-04
  Scenario: The arguments of a POST tool go to a JSON body, with their JSON types
    Given the gateway runs with approval "auto"
    And the model follows script main:
      """
      [{"tool": "deduct", "args": {"amount": 2.5, "account": "a1"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "pay 2.5" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "deduct-receipt-1"
    When the calls of tool deduct under script main are read
    Then the answer matches:
      | pointer               | value  |
      | /result/last/method   | "POST" |
      | /result/last/body/amount  | 2.5 |
      | /result/last/body/account | "a1" |
      | /result/last/query    | {}     |

  @AK-TOOL-05 @AK-SUSPEND-06
  Scenario: A POST tool that declares no risk is mutating: it asks for approval
    Given the model follows script main:
      """
      [{"tool": "deduct", "args": {"amount": 1}}, {"text": "done: {{tools}}"}]
      """
    When a message "pay 1" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Deduct credits from an account" with arguments {"amount": 1} under script main
    And the tool deduct was called 0 times under script main

  @AK-TOOL-05
  Scenario: A GET tool that declares no risk, and a POST tool declared readonly, run without approval
    Given the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1"}}, {"tool": "audit", "args": {"entry": "looked at a1"}}, {"text": "done: {{tools}}"}]
      """
    When a message "look and note" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "lookup-receipt-1"
    And /result/json/answer matches {"$contains": "audit-receipt-1"}
    And the tool lookup was called 1 time under script main
    And the tool audit was called 1 time under script main

  @AK-TOOL-06
  Scenario: A dangerous tool is not offered while catalog.max_risk is the default, mutating
    Given the model follows script main:
      """
      [{"text": "ok"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "ok"
    And the model was offered the tools deduct, lookup and audit under script main
    And the model was not offered a tool named purge under script main

  @AK-TOOL-06
  Scenario: With catalog.max_risk dangerous the dangerous tool is offered, and asks for approval
    Given the gateway runs with catalog.max_risk "dangerous"
    And the model follows script main:
      """
      [{"tool": "purge", "args": {"account": "a9"}}, {"text": "done: {{tools}}"}]
      """
    When a message "purge a9" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Delete an account" with arguments {"account": "a9"} under script main
    And the model was offered the tools purge and deduct under script main
    And the tool purge was called 0 times under script main

  @AK-TOOL-06
  Scenario: With catalog.max_risk readonly no mutating tool is offered
    Given the gateway runs with catalog.max_risk "readonly"
    And the model follows script main:
      """
      [{"text": "ok"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "ok"
    And the model was offered the tools lookup and audit under script main
    And the model was not offered a tool named deduct under script main

  @AK-TOOL-07
  Scenario: A tool's max_resp_len cuts what the model sees to that many characters, never inside one
    Given the model follows script main:
      """
      {"replies": [{"tool": "memo"}, {"text": "memo: {{tools}}"}], "tools": {"memo": "body:今日备忘:检查账户余额并核对转账"}}
      """
    When a message "the memo" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "memo: 今日备忘:检查账户余额并...(truncated)"
    And the tool memo was called 1 time under script main

  @AK-TOOL-08
  Scenario: The third identical call with an identical result is not executed: the model gets the last result back
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}}, {"tool": "lookup", "args": {"account": "a1"}}, {"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}],
       "tools": {"lookup": "same"}}
      """
    When a message "look three times" under script main is sent to assistant on session s1
    Then /result/json/status is "done"
    And the tool lookup was called 2 times under script main
    And the tool results the model saw under script main match {"$len": 3}
    And the tool results the model saw under script main match {"$each": {"$contains": "lookup-receipt"}}

  @AK-TOOL-08
  Scenario: Identical calls whose results differ are polling: every one runs
    Given the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1"}}, {"tool": "lookup", "args": {"account": "a1"}}, {"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "poll three times" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "lookup-receipt-3"
    And the tool lookup was called 3 times under script main

  @AK-TOOL-03
  Scenario Outline: The boundary of an error answer: <status> is a result "HTTP <status>: " and the body
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}], "tools": {"lookup": "<status>"}}
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw: HTTP <status>: "
    And /result/json/answer matches {"$contains": "sifu stub: scripted status <status> for lookup"}
    And the tool lookup was called 1 time under script main

    Examples:
      | status |
      | 400    |
      | 401    |
      | 403    |
      | 502    |

  @AK-TOOL-03
  Scenario: An answer of 399, just below 400, is the body as it is, without an HTTP prefix
    Given the model follows script main:
      """
      {"replies": [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}], "tools": {"lookup": "399"}}
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "sifu stub: scripted status 399 for lookup"
    And /result/json/answer matches {"$regex": "^saw: \\{\"error\""}
    And /result/json/answer matches {"$not_contains": "HTTP 399"}

  @AK-TOOL-04
  Scenario Outline: A path parameter with <what> is escaped into one path segment
    Given the model follows script main:
      """
      [{"tool": "statement", "args": {"account": "<value>"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "my statement" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "statement-receipt-1"
    When the calls of tool statement under script main are read
    Then the answer matches:
      | pointer                 | value |
      | /result/count           | 1 |
      | /result/last/path       | "<value>" |
      | /result/last/raw_path   | {"$regex": "^[!-~]+$"} |
      | /result/last/raw_path   | {"$regex": "^[^/?#]+$"} |
      | /result/last/query/ref  | "${script_main}" |

    Examples:
      | what              | value        |
      | a space           | a b          |
      | a slash           | a/b          |
      | a question mark   | a?b=1        |
      | a percent sign    | 100%25x%     |
      | a hash            | a#b          |
      | non-ASCII letters | 账户ü         |

  @AK-TOOL-05
  Scenario Outline: A <method> tool without a risk is mutating: it asks for approval before it runs
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "verbs", "type": "http", "config": {"tools": [{"name": "act", "description": "Act with <method>", "method": "<method>", "url": "$TOOLS/act", "params": {"ref": {"type": "string"}}}]}}],
       "include": ["cap://tool/verbs/*"]}
      """
    And the model follows script main:
      """
      [{"tool": "act"}, {"text": "done: {{tools}}"}]
      """
    When a message "act" under script main is sent to assistant on session s1
    Then the gateway waits for approval of "Act with <method>" with arguments {} under script main
    And the tool act was called 0 times under script main

    Examples:
      | method |
      | HEAD   |
      | POST   |
      | PUT    |
      | PATCH  |
      | DELETE |

  @AK-TOOL-05
  Scenario Outline: A GET tool without a risk, declared <as>, is readonly: it runs without approval
    Given the gateway runs with the configuration:
      """
      {"sources": [{"name": "verbs", "type": "http", "config": {"tools": [{"name": "act", "description": "Act with GET", <method>"url": "$TOOLS/act", "params": {"ref": {"type": "string"}}}]}}],
       "include": ["cap://tool/verbs/*"]}
      """
    And the model follows script main:
      """
      [{"tool": "act"}, {"text": "done: {{tools}}"}]
      """
    When a message "act" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "act-receipt-1"
    And the tool act was called 1 time under script main

    Examples:
      | as                 | method           |
      | method GET         | "method": "GET", |
      | with no method     |                  |

  @AK-TOOL-07
  Scenario Outline: A result of <n> characters against max_resp_len 12 is <how>
    Given the model follows script main:
      """
      {"replies": [{"tool": "memo"}, {"text": "memo: [{{tools}}]"}], "tools": {"memo": "body:<body>"}}
      """
    When a message "the memo" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "memo: [<seen>]"

    Examples:
      | n  | how           | body            | seen                        |
      | 11 | kept whole    | 今日备忘:检查账户余额     | 今日备忘:检查账户余额                 |
      | 12 | kept whole    | 今日备忘:检查账户余额并    | 今日备忘:检查账户余额并                |
      | 13 | cut and marked | 今日备忘:检查账户余额并核   | 今日备忘:检查账户余额并...(truncated)   |
