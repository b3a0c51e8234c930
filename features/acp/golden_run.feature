Feature: The recorded two-participant run
  The notes' recorded v1 run (§10), step by step: server owns the proposal,
  reader reviews, both accept, server passes readiness and completes.

  @golden @ACP-INIT-01 @ACP-INIT-03 @ACP-INIT-04 @ACP-EVT-01 @ACP-EVT-02 @ACP-TRANS-01 @ACP-TRANS-03
  @ACP-TRANS-04 @ACP-TRANS-05 @ACP-TRANS-06 @ACP-TRANS-07 @ACP-TRANS-08 @ACP-TRANS-10 @ACP-TRANS-11
  @ACP-DOC-01 @ACP-DOC-02 @ACP-DOC-03 @ACP-DOC-04 @ACP-DOC-05 @ACP-VAL-01 @ACP-VAL-11 @ACP-CLI-03 @ACP-CLI-06
  Scenario: server and reader go from init to completed
    Given an ACP collaboration of server and reader
    When the folder is initialised again
    Then it is rejected
    And stderr says "collaboration folder already contains protocol.json; use --resume to acknowledge it"
    And the folder is unchanged
    When the folder is initialised again with --resume
    Then it succeeds
    And stdout says "Collaboration folder already exists: $FOLDER"
    And the folder is unchanged
    When the folder is validated
    Then the validation reports exactly:
      """
      ACP validation passed
      """
    When reader appends proposal_submitted replying to 1
    Then the rejection says "error: seq 2: proposal submission is reserved for server; got reader"
    When server appends proposal_submitted
    Then the rejection says "error: reply_to is required after initialized"
    When server appends proposal_submitted replying to 1 with doc proposal.md
    Then it succeeds
    And stdout says "appended seq 2: proposal_submitted"
    And the phase is reviewing waiting for reader
    When server appends proposal_revised replying to 2
    Then the rejection says "error: seq 3: proposal_revised is not allowed from phase reviewing"
    When reader appends review_submitted replying to 2
    Then it succeeds
    And stdout says "appended seq 3: review_submitted"
    When the folder is validated
    Then the validation fails with "seq 3: review_submitted requires matching review.md heading"
    When reader writes a review for seq 3
    And the folder is validated
    Then the validation passes
    And the phase is revising waiting for server
    When server appends proposal_revised replying to 3
    Then it succeeds
    And the phase is decision_review waiting for server
    When reader appends decision_accepted replying to 4
    Then the rejection says "error: seq 5: decision_accepted requires question_classified after the latest proposal or decision; seq 5: decision acceptance is reserved for no participant; got reader; seq 5: unresolved readiness questions must be classified before decision_accepted"
    When server appends question_classified replying to 4
    Then it succeeds
    And the phase is decision_review waiting for reader and server
    When reader appends decision_accepted replying to 5
    Then the rejection says "error: seq 6: unresolved readiness questions must be classified before decision_accepted"
    When readiness.md is:
      """
      # Readiness

      ## Open Question Classification

      - [resolved] The feed format is JSON lines.
      - [deferred_nonblocking] Compression.
      """
    And the folder is validated
    Then the validation passes with the warning "deferred_nonblocking readiness items should include a reason"
    And the exit code is 1
    When reader appends decision_accepted replying to 5
    Then the rejection says "error: seq 6: deferred_nonblocking readiness items require a reason before decision_accepted"
    When readiness.md has every question classified
    And reader appends decision_accepted replying to 5
    Then it succeeds
    When reader appends decision_accepted replying to 6
    Then the rejection says "error: seq 7: decision acceptance is reserved for server; got reader"
    When server appends decision_accepted replying to 6
    Then it succeeds
    And the phase is readiness_check waiting for server
    When server appends readiness_passed replying to 7
    Then the rejection says "error: readiness.md must check 'Ready to implement' first"
    When reader appends readiness_passed replying to 7
    Then the rejection says "error: seq 8: readiness pass is reserved for server; got reader"
    When readiness.md is:
      """
      # Readiness

      ## Open Question Classification

      - [resolved] The feed format is JSON lines.
      - [deferred_nonblocking] Compression. Reason: not needed at this volume.

      ## Completion Gates

      - [ ] Accepted decisions are explicit
      - [ ] Readiness passes

      ## Final Design Document Checklist

      - [x] Ready to implement
      """
    And server appends readiness_passed replying to 7
    Then it succeeds
    And the phase is readiness_check waiting for server
    When server appends completed replying to 8 with doc readiness.md
    Then the rejection says "error: seq 9: completed must reference conclusion.md"
    When server appends completed replying to 8 with doc conclusion.md
    Then the rejection says "error: completion gates must be checked first: Accepted decisions are explicit, Readiness passes"
    When readiness.md is ready
    And server appends completed replying to 8 with doc conclusion.md
    Then the rejection says "error: conclusion.md outcome cannot be completed while blocked; conclusion.md must not contain unresolved placeholders before completed"
    When conclusion.md concludes proceed
    And server appends completed replying to 8 with doc conclusion.md
    Then it succeeds
    And stdout says "appended seq 9: completed"
    And the phase is completed waiting for nobody
    And the event seqs are [1, 2, 3, 4, 5, 6, 7, 8, 9]
    When the folder is validated
    Then the validation passes
    When reader waits for a turn for 1 second
    Then it succeeds
    And stdout says "ready: phase is completed"
    And the next action is "stop; collaboration is complete."

  @golden @ACP-COMPAT-Q3
  Scenario: the recorded run's last step, a late block, as upstream takes it
    Given an ACP collaboration in phase completed
    When reader appends blocked replying to 9 in compat mode
    Then it succeeds
    And stdout says "appended seq 10: blocked"
    When the folder is validated in compat mode
    Then the validation passes

  @golden @ACP-STRICT-BLOCKED-AFTER-COMPLETED
  Scenario: the recorded run's last step, a late block, refused by sifu's strict reading
    Given an ACP collaboration in phase completed
    When reader appends blocked replying to 9
    Then the rejection says "error: seq 10: blocked is not allowed from phase completed"
    And the folder is unchanged
    And the phase is completed waiting for nobody
