Feature: Streaming answers over SSE
  With Accept containing text/event-stream the answer streams as delta
  frames and always ends with [DONE]; a model that fails mid-stream never
  shows as an error event (notes §4.2). Checks judge the frames, never when
  they arrived: a gateway may hold the final answer back until the model's
  stream ends.

  @AK-SSE-01 @AK-SSE-02 @AK-SSE-03
  Scenario: The answer arrives as delta frames terminated by data: [DONE]
    Given the model follows script main:
      """
      [{"text": "one two three", "chunks": ["one ", "", "two ", "three"]}]
      """
    When a streamed message "count" under script main is sent to assistant on session s1
    Then the answer matches:
      | pointer                   | value                 |
      | /result/status            | 200                   |
      | /result/cache_control     | "no-cache"            |
      | /result/sse/deltas        | ["one ", "two ", "three"] |
      | /result/sse/joined        | "one two three"       |
      | /result/sse/empty_deltas  | 0                     |
      | /result/sse/other         | []                    |
      | /result/sse/done_last     | true                  |
      | /result/sse/done_count    | 1                     |
    And /result/content_type matches {"$regex": "^text/event-stream"}
    And /result/sse/ends_with_blank_line is true

  @AK-SSE-03
  Scenario: A streamed answer after a tool call still ends with [DONE]
    Given the model follows script main:
      """
      [{"tool": "lookup", "args": {"account": "a1"}}, {"text": "looked it up"}]
      """
    When a streamed message "look it up" under script main is sent to assistant on session s1
    Then /result/sse/joined is "looked it up"
    And /result/sse/done_last is true
    And the tool lookup was called 1 time under script main

  @AK-SSE-04 @AK-SSE-03
  Scenario: A model stream cut mid-way is never an error event: a 500 before any frame, or the deltas stop and [DONE] follows
    A gateway may read the model's stream to its end before it answers
    (agent-kit does, and answers 500 text/plain with no frame), or stream as
    it reads and end the stream cleanly; nothing else is allowed.
    Given the model follows script main:
      """
      [{"text": "partial answer", "chunks": ["partial "], "break": true}]
      """
    When a streamed message "fail halfway" under script main is sent to assistant on session s1
    Then /result matches {"$any_of": [{"/status": 500, "/content_type": {"$regex": "^text/plain"}, "/sse": {"$absent": true}, "/text": {"$not_contains": "data:"}}, {"/status": 200, "/content_type": {"$regex": "^text/event-stream"}, "/sse/other": [], "/sse/joined": {"$one_of": ["", "partial "]}, "/sse/empty_deltas": 0, "/sse/done_last": true, "/sse/done_count": 1}]}

  @AK-SSE-05
  Scenario: A question over SSE does not suspend the stream
    Given the model follows script main:
      """
      [{"tool": "ask_user", "args": {"question": "Which account?"}}, {"text": "went on without an answer"}]
      """
    When a streamed message "ask me" under script main is sent to assistant on session s1
    Then /result/status is 200
    And /result/sse/joined is "went on without an answer"
    And /result/sse/done_last is true
    And the model was called 2 times under script main

  @AK-SSE-04 @AK-SSE-03
  Scenario Outline: A streamed turn whose first model call fails (<status>) is never an error event: a 500 before any frame, or an empty stream ending [DONE]
    Given the model follows script main:
      """
      [{"status": <status>}]
      """
    When a streamed message "fail at once" under script main is sent to assistant on session s1
    Then /result matches {"$any_of": [{"/status": 500, "/content_type": {"$regex": "^text/plain"}, "/sse": {"$absent": true}, "/text": {"$not_contains": "data:"}}, {"/status": 200, "/content_type": {"$regex": "^text/event-stream"}, "/sse/other": [], "/sse/joined": "", "/sse/done_last": true, "/sse/done_count": 1}]}
    And the model was called <calls> times under script main

    Examples:
      | status | calls |
      | 400    | 1     |
      | 500    | 3     |
