Feature: Transient model errors are retried
  A model call that fails with a transient error (429, a 5xx, a timeout or
  a dropped connection) is tried again, up to reliability.retry
  max_attempts times in all (3 by default); a deterministic failure such
  as a 400 is not (notes §5; sifu's generated configuration keeps the
  default attempts and only shortens the delays). The stub answers a
  position again with its "again" replies, so a reply that fails once and
  then answers is a transient error.

  @AK-RETRY-01
  Scenario Outline: A model call that fails once with <status> is retried, and the turn answers as if it had not
    Given the model follows script main:
      """
      [{"status": <status>, "again": [{"text": "recovered after <status>"}]}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "recovered after <status>"
    And the model was called 2 times under script main

    Examples:
      | status |
      | 429    |
      | 500    |
      | 502    |
      | 503    |

  @AK-RETRY-01 @AK-SSE-03
  Scenario: A streamed turn whose model call fails once before streaming is retried too
    Given the model follows script main:
      """
      [{"status": 503, "again": [{"text": "streamed after all"}]}]
      """
    When a streamed message "hi" under script main is sent to assistant on session s1
    Then /result/status is 200
    And /result/sse/joined is "streamed after all"
    And /result/sse/done_last is true
    And the model was called 2 times under script main

  @AK-RETRY-01 @AK-HTTP-08
  Scenario: A model that keeps failing is tried max_attempts times, then the turn fails with 500
    Given the model follows script main:
      """
      [{"status": 503}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then /result/status is 500
    And the model was called 3 times under script main

  @AK-RETRY-02
  Scenario: A 400 from the model is not retried: the turn fails at once
    Given the model follows script main:
      """
      [{"status": 400, "again": [{"text": "should never be asked again"}]}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then /result/status is 500
    And /result/content_type matches {"$regex": "^text/plain"}
    And the model was called 1 time under script main
