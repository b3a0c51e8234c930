Feature: Turn ownership among three participants
  The proposal owner submits, every other participant reviews once, the
  owner revises and classifies, everyone accepts, the owner closes.

  @ACP-TRANS-03 @ACP-TRANS-05 @ACP-TRANS-06 @ACP-TRANS-11
  Scenario: reviews and acceptances shrink waitingFor one participant at a time
    Given an ACP collaboration of ana, carl and bea in phase reviewing
    Then the phase is reviewing waiting for bea and carl
    When carl appends review_submitted replying to 2
    Then it succeeds
    And the phase is reviewing waiting for bea
    When carl appends review_submitted replying to 2
    Then the rejection says "error: seq 4: review submission is reserved for bea; got carl"
    When bea appends review_submitted replying to 2
    Then the phase is revising waiting for ana
    And the proposal owner is ana
    When ana appends proposal_revised replying to 4
    And readiness.md has every question classified
    And ana appends question_classified replying to 5
    Then the phase is decision_review waiting for ana, bea and carl
    When bea appends decision_accepted replying to 6
    Then the phase is decision_review waiting for ana and carl
    When ana appends decision_accepted replying to 7
    And carl appends decision_accepted replying to 8
    Then the phase is readiness_check waiting for ana

  @ACP-TRANS-09 @ACP-CLI-03
  Scenario: a reviewer blocks and every waiter is released
    Given an ACP collaboration in phase reviewing
    When reader appends blocked replying to 2
    Then the phase is blocked waiting for nobody
    When server waits for a turn for 30 seconds
    Then it succeeds
    And stdout says "ready: phase is blocked"
    And the next action is "resolve the blocker or start a new collaboration round."
    When server appends proposal_submitted replying to 3
    Then the rejection says "error: seq 4: proposal_submitted is not allowed from phase blocked"
    And the folder is unchanged

  @ACP-CLI-04 @ACP-CLI-01
  Scenario: the owner waits in vain while the review is pending
    Given an ACP collaboration in phase reviewing
    When server waits for a turn for 0.5 seconds
    Then the exit code is 1
    And stdout says "waiting: waiting for reader after seq 2"
    And stderr says "timeout: "
    When server asks for the next action
    Then the next action is "wait for the listed reviewer(s); do not edit proposal.md, decisions.md, readiness.md, or protocol.json unless blocking the collaboration."
