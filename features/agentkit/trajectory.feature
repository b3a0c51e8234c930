Feature: The trajectory log
  With observability.trajectory_path set, the gateway writes its run as a
  trajectory, one JSON record a line (README: prompt versions are marked
  along the trajectory; replay and assertions on the JSONL trajectory are
  on the roadmap, its format settled). sifu has the gateway write it under
  its working directory and reads it after the turn. The record's fields
  are what agent-kit 7a3845b was seen to write, and the rule says so.

  @AK-TRACE-01
  Scenario: A turn that calls a tool leaves a start and an end record of the tool call, and every record has its time, component, phase, agent and session
    Given the gateway runs with:
      """
      {"approval": "auto", "trajectory": true}
      """
    And the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "lookup-receipt-1"
    When the trajectory the gateway wrote is read
    Then the answer matches:
      | pointer            | value |
      | /result/exists             | true |
      | /result/not_json           | 0 |
      | /result/named              | {"$contains": "lookup:start"} |
      | /result/named              | {"$contains": "lookup:end"} |
      | /result/records/*/phase    | {"$each": {"$one_of": ["start", "end", "error"]}} |
      | /result/without            | {"ts": 0, "component": 0, "phase": 0, "agent": 0, "session": 0} |
      | /result/records/*/ts       | {"$each": {"$type": "string"}} |
      | /result/records/*/component | {"$each": {"$type": "string"}} |
      | /result/records/*/agent    | {"$each": "assistant"} |
      | /result/records/*/session  | {"$each": {"$regex": "-s1$"}} |
