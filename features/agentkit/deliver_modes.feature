Feature: Deliver modes other than always
  A skill's deliver mode says what becomes of its result (the README's
  交付语义 paragraph): with none the result is evidence for the model
  only; attach keeps it and sends it with the answer when the answer cites
  its #id; direct, when fetching it is the turn's last action, makes the
  raw result the answer, and otherwise acts as attach. The reports
  namespace's skill report fetches a document from the stub; the stub
  model's {{tools}} repeats the tool results it was given, the citation the
  gateway wrote into them included.

  @AK-DELIVER-01
  Scenario: An attach skill's result goes with an answer that cites it
    Given the gateway runs with the configuration:
      """
      {"skills": true, "deliver": "attach"}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"text": "Your report: {{tools}}"}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "Your report: "
    And the answer matches:
      | pointer                             | value                                        |
      | /result/json/deliverables           | {"$len": 1}                                  |
      | /result/json/deliverables/0/content | "# Quarterly report\\nAll accounts balanced" |
      | /result/json/deliverables/0/source  | "cap://skill/reports/report"                 |

  @AK-DELIVER-01
  Scenario: An attach skill's result the answer does not cite stays behind
    Given the gateway runs with the configuration:
      """
      {"skills": true, "deliver": "attach"}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"text": "The report is ready."}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "The report is ready."
    And /result/json/deliverables is absent

  @AK-DELIVER-01
  Scenario: A skill without deliver is evidence: even a cited result does not go with the answer
    Given the gateway runs with the configuration:
      """
      {"skills": true, "deliver": "none"}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"text": "See #d1 and #d01: {{tools}}"}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "All accounts balanced"
    And /result/json/deliverables is absent

  @AK-DELIVER-02
  Scenario: A direct skill that is the turn's last call makes its raw result the answer
    Given the gateway runs with the configuration:
      """
      {"skills": true, "deliver": "direct"}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"text": "Here it is, in my words."}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then /result/json/status is "done"
    And /result/json/answer is "# Quarterly report\nAll accounts balanced"

  @AK-DELIVER-02
  Scenario: A direct skill followed by another call acts as attach: the model's answer stands
    Given the gateway runs with the configuration:
      """
      {"skills": true, "deliver": "direct"}
      """
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"tool": "lookup", "args": {"account": "a1"}}, {"text": "Here it is, in my words: {{tools}}"}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "Here it is, in my words: "
    And the answer matches:
      | pointer                             | value                                        |
      | /result/json/deliverables           | {"$len": 1}                                  |
      | /result/json/deliverables/0/content | "# Quarterly report\\nAll accounts balanced" |
