Feature: Prompts as resources
  A prompt value that starts with cap://prompt is a reference,
  cap://prompt/<source>/<name>@<label>, read from a prompt source; any other
  value is literal text. sifu writes the inline source's prompts into
  app.yaml (source inline), the file source's prompts beside the
  configuration (source local, prompts/<name>.md) and serves an http
  source's prompt platform itself (source remote; a served text's "{label}"
  becomes the label asked for), recording what the gateway asked it. Where
  the README says nothing of a behaviour, what agent-kit 7a3845b was seen
  to do decides, and the rule says so.

  @AK-PROMPT-01
  Scenario: An agent's system prompt given as a reference to a file prompt reaches the model as the file's text
    Given the gateway runs with:
      """
      {"system": "cap://prompt/local/persona", "prompts": {"files": {"persona": "You are Sifu's file persona, steady and brief."}}}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are Sifu's file persona, steady and brief." under script main
    And the model did not see "cap://prompt" under script main

  @AK-PROMPT-01
  Scenario: A reference to an inline prompt reaches the model as the text app.yaml gives it
    Given the gateway runs with:
      """
      {"system": "cap://prompt/inline/persona", "prompts": {"inline": {"persona": "You are Sifu's inline persona, terse."}}}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are Sifu's inline persona, terse." under script main
    And the model did not see "cap://prompt" under script main

  @AK-PROMPT-02
  Scenario: A reference to an http prompt asks the platform for the prompt under the reference's label, and the model gets the text
    Given the gateway runs with:
      """
      {"system": "cap://prompt/remote/persona@staging", "prompts": {"served": {"persona": "You are the served persona, label {label}."}}}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are the served persona, label staging." under script main
    When the requests the prompt platform received are read
    Then the answer matches:
      | pointer                      | value |
      | /result/gets/0/path          | {"$regex": "/prompts/persona$"} |
      | /result/gets/0/query/label   | "staging" |

  @AK-PROMPT-02
  Scenario: A reference without a label asks for prompts.default_label
    Given the gateway runs with:
      """
      {"system": "cap://prompt/remote/persona", "prompts": {"default_label": "production", "served": {"persona": "You are the served persona, label {label}."}}}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are the served persona, label production." under script main
    When the requests the prompt platform received are read
    Then /result/gets/0/query/label is "production"

  @AK-PROMPT-03
  Scenario: A prompt value that does not start with cap://prompt is literal text, even when it mentions a reference
    Given the gateway runs with:
      """
      {"system": "You are plain; never read cap://prompt/local/persona yourself.", "prompts": {"files": {"persona": "You are Sifu's file persona."}}}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are plain; never read cap://prompt/local/persona yourself." under script main
    And the model did not see "file persona" under script main

  @AK-PROMPT-04 @startup
  Scenario: A reference to a prompt the file source does not have fails start-up naming the reference
    When the gateway is started with:
      """
      {"system": "cap://prompt/local/missing", "prompts": {"files": {"persona": "You are Sifu's file persona."}}}
      """
    Then the gateway did not start, and its output names "cap://prompt/local/missing"

  @AK-PROMPT-04 @startup
  Scenario: A reference to a prompt the platform does not serve fails start-up naming the reference
    When the gateway is started with:
      """
      {"system": "cap://prompt/remote/missing@staging", "prompts": {"served": {"persona": "You are the served persona."}}}
      """
    Then the gateway did not start, and its output names "cap://prompt/remote/missing"

  @AK-PROMPT-04 @startup
  Scenario: A reference to an unknown prompt source fails start-up naming the source
    When the gateway is started with:
      """
      {"system": "cap://prompt/nosuch/persona", "prompts": {"files": {"persona": "You are Sifu's file persona."}}}
      """
    Then the gateway did not start, and its output names "nosuch"
