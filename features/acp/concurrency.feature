Feature: Appends at the same moment
  Two participants appending at once never lose, duplicate or reorder a seq:
  through the exec adapter these are two processes racing for the folder.

  @ACP-EVT-08
  Scenario: both participants accept at the same moment
    Given an ACP collaboration in phase classified
    When server and reader append decision_accepted at once replying to 5
    Then /result/ok_count is 2
    When the folder is validated
    Then the validation passes
    And the event seqs are [1, 2, 3, 4, 5, 6, 7]
    And the phase is readiness_check waiting for server

  @ACP-EVT-08 @ACP-TRANS-10
  Scenario: the owner revises while the reviewer blocks
    Given an ACP collaboration in phase revising
    When server and reader append blocked at once replying to 3
    Then /result/ok_count is 2
    When the folder is validated
    Then the validation passes
    And the event seqs are [1, 2, 3, 4, 5]
