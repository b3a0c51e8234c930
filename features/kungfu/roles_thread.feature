@thread @matrix
Feature: Thread rules hold for every role (§6.1–§6.4, §9)
  A rule that names a role must hold for each role, not only for the one a
  first check happens to use. Each rule here is checked for every kind of
  caller or target: the thread's creator and a second governor, speakers,
  an observer, a member who left, a member who was removed, and a stranger.
  Each row is a check of its own, and a refused request must change nothing.

  Background:
    Given agents alice, gina, sam, sue, olga, fred, remy and xavier
    When alice performs "thread.create" with:
      """
      {"subject": "roles"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s_speaker
    When sam performs "thread.join" with:
      """
      {"secret": "${s_speaker}"}
      """
    And sue performs "thread.join" with:
      """
      {"secret": "${s_speaker}"}
      """
    And fred performs "thread.join" with:
      """
      {"secret": "${s_speaker}"}
      """
    And remy performs "thread.join" with:
      """
      {"secret": "${s_speaker}"}
      """
    Then it succeeds
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "governor"}
      """
    Then remember /result/secret as s_governor
    When gina performs "thread.join" with:
      """
      {"secret": "${s_governor}"}
      """
    Then it succeeds
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as s_observer
    When olga performs "thread.join" with:
      """
      {"secret": "${s_observer}"}
      """
    Then it succeeds
    When fred performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When alice performs "thread.remove" with:
      """
      {"thread": "${t}", "member": "${remy}"}
      """
    Then it succeeds
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then it succeeds
    When alice creates memory m with content "alice's note"
    And gina creates memory mg with content "gina's note"
    And sam creates memory ms with content "sam's note"
    And sue creates memory mu with content "sue's note"
    And olga creates memory mo with content "olga's note"
    And fred creates memory mf with content "fred's note"
    And remy creates memory mr with content "remy's note"
    And xavier creates memory mx with content "xavier's note"

  @KF-6.1-09 @KF-6.2-02 @KF-6.2-05 @KF-6.5-01
  Scenario Outline: Every governor may <action>
    When <who> performs "<action>" with:
      """
      <params>
      """
    Then it succeeds
    When <reader> reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then <check>

    @role:governor
    Examples: the creator
      | who   | action                | params                                                     | reader | check                                                  |
      | alice | thread.admit          | {"thread": "${t}", "role": "observer"}                     | alice  | /result/admission/role is "observer"                   |
      | alice | thread.void_admission | {"thread": "${t}"}                                         | alice  | /result/admission/live is false                        |
      | alice | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | sue    | it is rejected with reason "not_found" and next step "stop" |
      | alice | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | sue    | /result/role is "observer"                             |
      | alice | thread.close          | {"thread": "${t}"}                                         | sue    | /result/state is "closed"                              |

    @role:governor @id:every-governor-may-<action>-2
    Examples: a governor admitted later
      | who  | action                | params                                                     | reader | check                                                  |
      | gina | thread.admit          | {"thread": "${t}", "role": "observer"}                     | gina   | /result/admission/role is "observer"                   |
      | gina | thread.void_admission | {"thread": "${t}"}                                         | gina   | /result/admission/live is false                        |
      | gina | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | sue    | it is rejected with reason "not_found" and next step "stop" |
      | gina | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | sue    | /result/role is "observer"                             |
      | gina | thread.close          | {"thread": "${t}"}                                         | sue    | /result/state is "closed"                              |

  @KF-6.1-09 @KF-6.2-03 @KF-6.5-01 @KF-9-04 @KF-L2-03
  Scenario Outline: <action> by <role> is refused and changes nothing
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then remember the answer as before
    When <who> performs "<action>" with:
      """
      <params>
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer is indistinguishable from before

    @role:speaker
    Examples: a speaker
      | role    | who | action                | params                                                     | reason    |
      | a speaker | sam | thread.admit          | {"thread": "${t}", "role": "observer"}                     | forbidden |
      | a speaker | sam | thread.void_admission | {"thread": "${t}"}                                         | forbidden |
      | a speaker | sam | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | forbidden |
      | a speaker | sam | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | forbidden |
      | a speaker | sam | thread.close          | {"thread": "${t}"}                                         | forbidden |

    @role:observer
    Examples: an observer
      | role     | who  | action                | params                                                     | reason    |
      | an observer | olga | thread.admit          | {"thread": "${t}", "role": "observer"}                     | forbidden |
      | an observer | olga | thread.void_admission | {"thread": "${t}"}                                         | forbidden |
      | an observer | olga | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | forbidden |
      | an observer | olga | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | forbidden |
      | an observer | olga | thread.close          | {"thread": "${t}"}                                         | forbidden |

    @role:former-member
    Examples: a member who left
      | role          | who  | action                | params                                                     | reason    |
      | a member who left | fred | thread.admit          | {"thread": "${t}", "role": "observer"}                     | not_found |
      | a member who left | fred | thread.void_admission | {"thread": "${t}"}                                         | not_found |
      | a member who left | fred | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | not_found |
      | a member who left | fred | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | not_found |
      | a member who left | fred | thread.close          | {"thread": "${t}"}                                         | not_found |

    @role:removed-member
    Examples: a member who was removed
      | role           | who  | action       | params                                 | reason    |
      | a member who was removed | remy | thread.admit | {"thread": "${t}", "role": "observer"} | not_found |
      | a member who was removed | remy | thread.close | {"thread": "${t}"}                     | not_found |

    @role:stranger
    Examples: a stranger
      | role     | who    | action                | params                                                     | reason    |
      | a stranger | xavier | thread.admit          | {"thread": "${t}", "role": "observer"}                     | not_found |
      | a stranger | xavier | thread.void_admission | {"thread": "${t}"}                                         | not_found |
      | a stranger | xavier | thread.remove         | {"thread": "${t}", "member": "${sue}"}                     | not_found |
      | a stranger | xavier | thread.set_role       | {"thread": "${t}", "member": "${sue}", "role": "observer"} | not_found |
      | a stranger | xavier | thread.close          | {"thread": "${t}"}                                         | not_found |

  @KF-6.3-01 @KF-6.2-01 @KF-6.2-03
  Scenario Outline: A <role> (<who>) posts an entry
    When <who> performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${<memory>}"}
      """
    Then it succeeds
    And /result/entry is 1
    When olga reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/*/author is ["${<who>}"]

    @role:governor
    Examples: governors
      | role     | who   | memory |
      | governor | alice | m      |
      | governor | gina  | mg     |

    @role:speaker
    Examples: a speaker
      | role    | who | memory |
      | speaker | sam | ms     |

  @KF-6.3-01 @KF-6.2-03 @KF-9-14 @KF-L2-03
  Scenario Outline: Posting as <role> is refused, and nothing is posted
    When <who> performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${<memory>}"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline is []

    @role:observer
    Examples: an observer
      | role     | who  | memory | reason    |
      | an observer | olga | mo     | forbidden |

    @role:former-member
    Examples: a member who left
      | role          | who  | memory | reason    |
      | a member who left | fred | mf     | not_found |

    @role:removed-member
    Examples: a member who was removed
      | role           | who  | memory | reason    |
      | a member who was removed | remy | mr     | not_found |

    @role:stranger
    Examples: a stranger
      | role     | who    | memory | reason    |
      | a stranger | xavier | mx     | not_found |

  @KF-6.3-04 @KF-6.3-06
  Scenario Outline: An entry may ask a <role>, who then owes the response
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${<target>}"]}
      """
    Then it succeeds
    And /result/responders is ["${<target>}"]
    When <target> reads "turn"
    Then the answer matches:
      | pointer               | value     |
      | /result/items/*/kind  | ["respond"] |
      | /result/items/0/entry | 1         |

    @role:governor
    Examples: a governor
      | role     | target |
      | governor | gina   |

    @role:speaker
    Examples: a speaker
      | role    | target |
      | speaker | sam    |

  @KF-6.3-04 @KF-L2-03
  Scenario Outline: An entry cannot ask <role>, and nothing is posted
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${<target>}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline is []
    When <target> reads "turn"
    Then /result/items is []

    @role:author
    Examples: its own author
      | role           | target |
      | its own author | alice  |

    @role:observer
    Examples: an observer
      | role         | target |
      | an observer  | olga   |

    @role:former-member
    Examples: a member who left
      | role              | target |
      | a member who left | fred   |

    @role:removed-member
    Examples: a member who was removed
      | role                     | target |
      | a member who was removed | remy   |

    @role:stranger
    Examples: a stranger
      | role       | target |
      | a stranger | xavier |

  @KF-6.4-01 @KF-6.2-09 @KF-6.4-12 @KF-8-06
  Scenario Outline: An assignment may be addressed to <role>, for whom it is an opportunity
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${<target>}", "criteria": "a summary"}}
      """
    Then it succeeds
    And remember /result/assignment as a
    When <target> reads "opportunities"
    Then /result/items/*/assignment is ["${a}"]
    When <target> performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds

    @role:governor
    Examples: a governor
      | role         | target |
      | a governor   | gina   |

    @role:speaker
    Examples: a speaker
      | role      | target |
      | a speaker | sam    |

    @role:self
    Examples: the poster itself
      | role              | target |
      | the poster itself | alice  |

  @KF-6.4-01 @KF-2-07 @KF-L2-01 @KF-L2-03
  Scenario Outline: An assignment cannot be addressed to <role>, and no entry is posted
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${<target>}", "criteria": "a summary"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline is []
    When <target> reads "opportunities"
    Then /result/items is []

    @role:observer
    Examples: an observer
      | role        | target |
      | an observer | olga   |

    @role:former-member
    Examples: a member who left
      | role              | target |
      | a member who left | fred   |

    @role:removed-member
    Examples: a member who was removed
      | role                     | target |
      | a member who was removed | remy   |

    @role:stranger
    Examples: a stranger
      | role       | target |
      | a stranger | xavier |

  @KF-6.2-10 @KF-6.2-11 @KF-6.2-05 @KF-8-03
  Scenario Outline: A role change from <from> to <to> ends the member's pending responses only when it leaves the member unable to speak
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${<who>}", "criteria": "keep working"}}
      """
    Then remember /result/assignment as a
    When <who> performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${<who>}"]}
      """
    Then it succeeds
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${<who>}", "role": "<to>"}
      """
    Then it succeeds
    When <who> reads "turn"
    Then /result/items/*/kind is <duties>
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then /result/responses is <response>
    When <who> performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "done"}
      """
    Then it succeeds

    @role-change:governor-to-speaker
    Examples: a governor stepping down to speaker keeps its responses
      | who  | from     | to      | duties                 | response                                          |
      | gina | governor | speaker | ["deliver", "respond"] | [{"responder": "${gina}", "state": "pending"}]     |

    @role-change:governor-to-observer
    Examples: a governor demoted to observer owes no response
      | who  | from     | to       | duties      | response                                                              |
      | gina | governor | observer | ["deliver"] | [{"responder": "${gina}", "state": "ended", "ended_by": "demote"}]     |

    @role-change:speaker-to-governor
    Examples: a speaker promoted to governor keeps its responses
      | who | from    | to       | duties                 | response                                     |
      | sam | speaker | governor | ["deliver", "respond"] | [{"responder": "${sam}", "state": "pending"}] |

    @role-change:speaker-to-observer
    Examples: a speaker demoted to observer owes no response
      | who | from    | to       | duties      | response                                                         |
      | sam | speaker | observer | ["deliver"] | [{"responder": "${sam}", "state": "ended", "ended_by": "demote"}] |

  @KF-6.3-16 @KF-9-07
  Scenario Outline: A handle note is read by <reader> only if it is the entry's author or the responder
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "ask": ["${sue}"]}
      """
    And sue performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1, "note": "seen it, nothing to add"}
      """
    Then it succeeds
    When <who> reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                       | value     |
      | /result/responses/0/state     | "ended"   |
      | /result/responses/0/ended_by  | "handle"  |
      | /result/responses/0/note      | <note>    |
    When <who> reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/0/responses/0/note is <note>

    @role:author
    Examples: the entry's author
      | reader           | who | note                      |
      | the entry author | sam | "seen it, nothing to add" |

    @role:responder
    Examples: the responder
      | reader        | who | note                      |
      | the responder | sue | "seen it, nothing to add" |

    @role:governor
    Examples: governors
      | reader                   | who   | note   |
      | the creator, a governor  | alice | absent |
      | another governor         | gina  | absent |

    @role:observer
    Examples: an observer
      | reader      | who  | note   |
      | an observer | olga | absent |

  @KF-6.3-17 @KF-6.3-18 @role:author
  Scenario Outline: Only the entry's author retracts: <role> is refused and every response stays owed
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "ask": ["${sue}", "${gina}"]}
      """
    Then it succeeds
    When <who> performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sue reads "turn"
    Then /result/items/*/kind is ["respond"]
    When sam performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it succeeds
    And /result/retracted is 2

    @role:governor @role:non-author
    Examples: governors who are not the author
      | role                       | who   | reason    |
      | the creator, a governor    | alice | forbidden |
      | another governor           | gina  | forbidden |

    @role:speaker @role:non-author
    Examples: a speaker who is not the author
      | role                 | who | reason    |
      | a responder, speaker | sue | forbidden |

    @role:observer @role:non-author
    Examples: an observer
      | role        | who  | reason    |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role              | who  | reason    |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role       | who    | reason    |
      | a stranger | xavier | not_found |

  @KF-9-04 @KF-9-01 @KF-8-12
  Scenario Outline: A current member who is <role> reads the thread, its entries and its assignments
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${sam}", "criteria": "a summary"}}
      """
    Then remember /result/assignment as a
    When <who> reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                  | value    |
      | /result/role             | "<role>" |
      | /result/timeline/*/entry | [1]      |
    When <who> reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/pinned/content is "alice's note"
    When <who> reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/criteria is "a summary"

    @role:governor
    Examples: a governor
      | role     | who  |
      | governor | gina |

    @role:speaker
    Examples: a speaker
      | role    | who |
      | speaker | sue |

    @role:observer
    Examples: an observer
      | role     | who  |
      | observer | olga |

  @KF-9-04 @KF-9-14 @KF-6.2-12 @KF-12-07 @KF-9-16
  Scenario Outline: A <role> reads nothing of the thread and cannot tell it from a missing one
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "assign": {"to": "${sam}", "criteria": "a summary"}}
      """
    Then remember /result/assignment as a
    When <who> reads "thread" with:
      """
      {"thread": "thr-0"}
      """
    Then remember the answer as no_thread
    When <who> reads "entry" with:
      """
      {"thread": "thr-0", "entry": 1}
      """
    Then remember the answer as no_entry
    When <who> reads "assignment" with:
      """
      {"assignment": "asg-0"}
      """
    Then remember the answer as no_assignment
    When <who> reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from no_thread apart from "${t}" and "thr-0"
    When <who> reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer is indistinguishable from no_entry apart from "${t}" and "thr-0"
    When <who> reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer is indistinguishable from no_assignment apart from "${a}" and "asg-0"
    When <who> reads "threads"
    Then /result/items/*/thread matches {"$not_contains": "${t}"}

    @role:former-member
    Examples: a member who left
      | role              | who  |
      | member who left   | fred |

    @role:removed-member
    Examples: a member who was removed
      | role                   | who  |
      | member who was removed | remy |

    @role:stranger
    Examples: a stranger
      | role     | who    |
      | stranger | xavier |

  @KF-9-01 @KF-6.5-07
  Scenario Outline: After closing, a <role> still reads the thread and may only leave
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When <who> reads "thread" with:
      """
      {"thread": "${t}", "expand": [1]}
      """
    Then the answer matches:
      | pointer                    | value             |
      | /result/state              | "closed"          |
      | /result/role               | "<role>"          |
      | /result/expanded/0/content | "alice's note"    |
      | /result/actions            | ["thread.leave"]  |
    When <who> performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds

    @role:governor
    Examples: a governor
      | role     | who   |
      | governor | alice |

    @role:speaker
    Examples: a speaker
      | role    | who |
      | speaker | sam |

    @role:observer
    Examples: an observer
      | role     | who  |
      | observer | olga |

  @KF-6.4-05 @KF-6.4-12 @KF-6.2-08 @KF-L2-03
  Scenario Outline: Taking an assignment of sam's addressed to sue is refused to <role>, and it stays open
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "assign": {"to": "${sue}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When <who> performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sam reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "open"

    @role:creator
    Examples: its creator
      | role | who | reason |
      | its creator | sam | forbidden |

    @role:governor
    Examples: a governor who is not party to it
      | role | who | reason |
      | the creator of the thread, a governor | alice | forbidden |

    @role:observer
    Examples: an observer
      | role | who | reason |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role | who | reason |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role | who | reason |
      | a stranger | xavier | not_found |

  @KF-6.4-07 @KF-6.2-08 @KF-L2-03
  Scenario Outline: Delivering an assignment of sam's addressed to sue is refused to <role>, and it stays taken
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "assign": {"to": "${sue}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When sue performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When <who> performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "not mine to give"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sam reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "taken"

    @role:creator
    Examples: its creator
      | role | who | reason |
      | its creator | sam | forbidden |

    @role:governor
    Examples: a governor who is not party to it
      | role | who | reason |
      | the creator of the thread, a governor | alice | forbidden |

    @role:observer
    Examples: an observer
      | role | who | reason |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role | who | reason |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role | who | reason |
      | a stranger | xavier | not_found |

  @KF-6.4-10 @KF-L4-01 @KF-L2-03
  Scenario Outline: Dropping an assignment of sam's addressed to sue is refused to <role>, and it stays taken
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "assign": {"to": "${sue}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When sue performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When <who> performs "assignment.drop" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sam reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "taken"

    @role:creator
    Examples: its creator
      | role | who | reason |
      | its creator | sam | forbidden |

    @role:governor
    Examples: a governor who is not party to it
      | role | who | reason |
      | the creator of the thread, a governor | alice | forbidden |

    @role:observer
    Examples: an observer
      | role | who | reason |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role | who | reason |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role | who | reason |
      | a stranger | xavier | not_found |

  @KF-6.4-08 @KF-8-05 @KF-L2-03
  Scenario Outline: Judging an assignment of sam's addressed to sue is refused to <role>, and it stays delivered
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "assign": {"to": "${sue}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When sue performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When sue performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "reviewed"}
      """
    Then it succeeds
    When <who> performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "adopt"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sam reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "delivered"

    @role:addressee
    Examples: its addressee
      | role | who | reason |
      | its addressee | sue | forbidden |

    @role:governor
    Examples: a governor who is not party to it
      | role | who | reason |
      | the creator of the thread, a governor | alice | forbidden |

    @role:observer
    Examples: an observer
      | role | who | reason |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role | who | reason |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role | who | reason |
      | a stranger | xavier | not_found |

  @KF-6.4-11 @KF-L2-03
  Scenario Outline: Voiding an assignment of sam's addressed to sue is refused to <role>, and it stays open
    When sam performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${ms}", "assign": {"to": "${sue}", "criteria": "a review"}}
      """
    Then remember /result/assignment as a
    When <who> performs "assignment.void" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When sam reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "open"

    @role:addressee
    Examples: its addressee
      | role | who | reason |
      | its addressee | sue | forbidden |

    @role:governor
    Examples: a governor who is not party to it
      | role | who | reason |
      | the creator of the thread, a governor | alice | forbidden |

    @role:observer
    Examples: an observer
      | role | who | reason |
      | an observer | olga | forbidden |

    @role:former-member
    Examples: a member who left
      | role | who | reason |
      | a member who left | fred | not_found |

    @role:stranger
    Examples: a stranger
      | role | who | reason |
      | a stranger | xavier | not_found |
