Feature: Deliverables
  A skill declared with deliver: always has its result go with the answer
  as it is: the JSON answer of the turn carries deliverables, each {id,
  title, source, content}, where content is the skill's result unchanged,
  title its first markdown heading and source the skill's capability ref;
  the model is told the id it may cite. A turn with no deliverable has no
  deliverables key (AK-HTTP-02). The reports namespace (sifu's template
  namespaces/reports.yaml) has a skill, report, whose one step fetches a
  document from the stub.

  @AK-HTTP-11
  Scenario: A skill that always delivers puts its result, unchanged, beside the answer
    Given the gateway runs with the reports namespace mounted
    And the model follows script main:
      """
      {"replies": [{"tool": "report", "args": {"topic": "q3"}}, {"text": "Here is the quarterly report you asked for."}],
       "tools": {"fetch": "body:# Quarterly report\nAll accounts balanced: 3 of 3 ✓"}}
      """
    When a message "the q3 report" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "Here is the quarterly report you asked for."
    And the answer matches:
      | pointer                            | value                                                |
      | /result/json/deliverables          | {"$len": 1}                                          |
      | /result/json/deliverables/0/content | "# Quarterly report\\nAll accounts balanced: 3 of 3 ✓" |
      | /result/json/deliverables/0/title  | "Quarterly report"                                   |
      | /result/json/deliverables/0/source | "cap://skill/reports/report"                         |
      | /result/json/deliverables/0/id     | {"$regex": "^[A-Za-z0-9_-]+$"}                       |
    And remember /result/json/deliverables/0/id as delivered
    And the model was offered the tools report and deduct under script main
    And the model saw "#${delivered}" under script main
    And the tool fetch was called 1 time under script main
