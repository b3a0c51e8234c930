Feature: The gateway's HTTP surface
  Health, messages on the JSON path, generated sessions, the user field and
  run errors (notes §4.1, §4.2). Every message carries the marker of a
  script, so the stub model knows what to answer and records what it got.

  @AK-HTTP-01
  Scenario: GET /healthz answers 200 with an empty body
    When GET /healthz is requested
    Then the answer matches:
      | pointer          | value |
      | /result/status   | 200   |
      | /result/body_len | 0     |

  @AK-HTTP-02
  Scenario: A message with a session is answered with status done, the same session and the model's answer
    Given the model follows script main:
      """
      [{"text": "Paris is the capital of France."}]
      """
    When a message "What is the capital of France?" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "Paris is the capital of France."
    And /result/content_type matches {"$regex": "^application/json"}
    And /result/json matches {"$len": 3}
    And the answer echoes the session
    And the model was called 1 time under script main

  @AK-HTTP-03
  Scenario: A message without a session gets a generated http-<timestamp>-<8hex> session echoed back
    Given the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant without a session
    Then the turn is done with an answer containing "hello"
    And /result/json/session matches {"$regex": "^http-[0-9]{8}T[0-9]{6}-[0-9a-f]{8}$"}

  @AK-HTTP-06
  Scenario: A user field of exactly 128 bytes is accepted
    Given the model follows script main:
      """
      [{"text": "fine"}]
      """
    When a message "hi" under script main is sent to assistant on session s1 as user "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"
    Then the turn is done with an answer containing "fine"

  @AK-HTTP-06
  Scenario: The user limit counts bytes: 128 bytes of multi-byte characters (44 characters) are accepted
    Given the model follows script main:
      """
      [{"text": "fine"}]
      """
    When a message "hi" under script main is sent to assistant on session s1 as user "uu好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好好"
    Then the turn is done with an answer containing "fine"

  @AK-HTTP-08
  Scenario: A turn whose model call fails answers 500 text/plain
    Given the model follows script main:
      """
      [{"status": 503}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then /result/status is 500
    And /result/content_type matches {"$regex": "^text/plain"}
    And /result/text matches {"$ne": ""}

  @AK-HTTP-09
  Scenario: The model is offered the agent's tools and ask_user
    Given the model follows script main:
      """
      [{"text": "ok"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "ok"
    And the model was offered the tools deduct, lookup and ask_user under script main

  @AK-HTTP-09
  Scenario: A readonly tool runs without approval and its result reaches the model
    Given the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "balance: {{tools}}"}]
      """
    When a message "what is my balance?" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "lookup-receipt-1"
    And the tool lookup was called 1 time under script main

  @AK-HTTP-10
  Scenario: Tools whose short names collide are offered as domain_name
    Given the gateway runs with two sources that both offer deduct
    And the model follows script main:
      """
      [{"text": "ok"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "ok"
    And the model was offered the tools ops_deduct, billing_deduct and lookup under script main
    And the model was not offered a tool named deduct under script main
