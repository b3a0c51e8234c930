Feature: Initialising a collaboration folder

  @ACP-INIT-01 @ACP-INIT-02 @ACP-INIT-06
  Scenario: a fresh folder has the files, the first event and a valid state
    Given an empty folder
    When the folder is initialised by server and reader with objective "Agree on the feed" and gates "Decisions are explicit" and "Readiness passes"
    Then it succeeds
    And stdout says "state seq: 1"
    And the phase is drafting waiting for server
    And the proposal owner is server
    And /result/protocol/version is absent
    And /result/events/0 matches {"$present": true}
    And the event seqs are [1]
    When the folder is validated
    Then the validation passes
    When reader asks for the next action
    Then the next action is "wait for the proposal owner to submit the proposal."

  @ACP-INIT-05
  Scenario: a blank objective writes nothing
    Given an empty folder
    When the folder is initialised by server and reader with objective " " and gate "g"
    Then it is rejected
    And stderr says "--objective must not be blank"
    And the folder is unchanged
    And /result/protocol is absent
