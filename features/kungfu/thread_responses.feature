@thread
Feature: Entries and responses (§6.3)
  An entry pins one version of one valid Memory and gets the next sequence
  number of its thread. Who owes it a response is decided once, at posting,
  by four rules; a response ends by reply, handle, retraction, or the
  responder's membership or right to speak ending — never by reading.

  Background:
    Given agents alice, bob, carol and dave
    When alice performs "thread.create" with:
      """
      {"subject": "talk"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s
    When bob performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it succeeds
    When alice creates memory m with content "alice's note"
    And bob creates memory b with content "bob's note"
    And carol creates memory c with content "carol's note"
    And dave creates memory d with content "dave's note"

  @KF-6.3-02 @KF-2-03 @KF-2-06 @KF-5-07
  Scenario: Entries are numbered per thread and each pins one version of one Memory
    When alice updates memory m with content "alice's note, v2"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer         | value    |
      | /result/entry   | 1        |
      | /result/memory  | "${m}"   |
      | /result/version | 2        |
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then /result/entry is 2
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "version": 1}
      """
    Then /result/entry is 3
    And /result/version is 1
    When alice performs "thread.create" with:
      """
      {"subject": "another"}
      """
    Then remember /result/thread as other
    When alice performs "thread.post" with:
      """
      {"thread": "${other}", "memory": "${m}"}
      """
    Then /result/entry is 1
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value                            |
      | /result/timeline/*/entry    | [1, 2, 3]                        |
      | /result/timeline/*/author   | ["${alice}", "${bob}", "${alice}"] |
      | /result/timeline/*/memory   | ["${m}", "${b}", "${m}"]         |
      | /result/timeline/*/version  | [2, 1, 1]                        |
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 3}
      """
    Then the answer matches:
      | pointer                 | value                 |
      | /result/entry           | 3                     |
      | /result/author          | "${alice}"            |
      | /result/pinned/memory   | "${m}"                |
      | /result/pinned/version  | 1                     |
      | /result/pinned/content  | "alice's note"        |
    When alice performs "thread.post" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "version": 9}
      """
    Then it is rejected with reason "not_found"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 3}

  @KF-6.3-01
  Scenario: Only an active member who may speak, in an open thread, may post
    When carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as obs
    When carol performs "thread.join" with:
      """
      {"secret": "${obs}"}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob is deactivated
    And alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s2
    When dave performs "thread.join" with:
      """
      {"secret": "${s2}"}
      """
    And dave is deactivated
    And dave performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${d}"}
      """
    Then it is rejected with reason "inactive" and next step "stop"
    When alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 0}

  @KF-6.3-08 @KF-6.3-11 @KF-8-03
  Scenario: Rule 3: with exactly two members who may speak, the other one owes a response
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as obs
    When carol performs "thread.join" with:
      """
      {"secret": "${obs}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is ["${bob}"]
    When bob reads "turn"
    Then the answer matches:
      | pointer                | value       |
      | /result/items          | {"$len": 1} |
      | /result/items/0/kind   | "respond"   |
      | /result/items/0/thread | "${t}"      |
      | /result/items/0/entry  | 1           |
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then /result/responders is ["${alice}"]
    When alice reads "turn"
    Then /result/items/*/entry is [2]

  @KF-6.3-09
  Scenario: Rule 4: with three members who may speak, no ask and no reply, nobody owes a response
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is []
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses matches {"$len": 0}

  @KF-6.3-06 @KF-6.3-04
  Scenario: Rule 1: an ask names exactly who owes a response, and an empty ask names nobody
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${carol}"]}
      """
    Then /result/responders is ["${carol}"]
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items/*/entry is [1]
    When carol performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": []}
      """
    Then it succeeds
    And /result/responders is []
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then the answer matches:
      | pointer           | value |
      | /result/ask       | []    |
      | /result/responses | []    |

  @KF-6.3-04 @KF-6.3-01
  Scenario: An ask may name only members who may speak, never the author
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as obs
    When carol performs "thread.join" with:
      """
      {"secret": "${obs}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${alice}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${carol}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${dave}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}", "${dave}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 0}

  @KF-6.3-07 @KF-6.3-03 @KF-6.3-13
  Scenario: Rule 2: a reply is owed by the replied-to author, or by nobody once that author cannot speak
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}"}
      """
    Then /result/responders is []
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": 1}
      """
    Then /result/responders is ["${carol}"]
    When carol reads "turn"
    Then /result/items/*/entry is [2]
    When alice performs "thread.set_role" with:
      """
      {"thread": "${t}", "member": "${carol}", "role": "observer"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 1}
      """
    Then it succeeds
    And /result/responders is []
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 9}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 0}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value      |
      | /result/timeline            | {"$len": 3} |
      | /result/timeline/1/reply_to | 1          |
      | /result/timeline/2/reply_to | 1          |

  @KF-6.3-07
  Scenario: Rule 2 does not fall through to rule 3 when the replied-to author has left
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}"}
      """
    And carol performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 1}
      """
    Then it succeeds
    And /result/responders is []
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 2}
      """
    Then /result/responders is ["${alice}"]

  @KF-6.3-10
  Scenario: Responders are fixed at posting: a later arrival owes nothing for earlier entries
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is ["${bob}"]
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And dave performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    And carol reads "turn"
    Then /result/items matches {"$len": 0}
    When dave reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "turn"
    Then /result/items/*/entry is [1, 2]
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/*/responder is ["${bob}"]
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/obligations matches {"$len": 0}

  @KF-6.3-12 @KF-6.3-13 @KF-8-03
  Scenario: A reply ends the replier's own pending response, and whom it asks is decided afresh
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is ["${bob}"]
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": 1}
      """
    Then /result/responders is ["${alice}"]
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "turn"
    Then /result/items/*/entry is [2]
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                      | value   |
      | /result/responses/0/responder | "${bob}" |
      | /result/responses/0/state    | "ended" |
      | /result/responses/0/ended_by | "reply" |

  @KF-6.3-14
  Scenario: Replying without a pending response is allowed
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}"]}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}", "reply_to": 1}
      """
    Then it succeeds
    And /result/responders is ["${alice}"]
    When bob reads "turn"
    Then /result/items/*/entry is [1]
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/*/state is ["pending"]

  @KF-6.3-15 @KF-8-03 @KF-L4-01
  Scenario: A responder handles a pending response alone, without posting
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1, "note": "seen, nothing to add"}
      """
    Then it succeeds
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                             | value                   |
      | /result/timeline                    | {"$len": 1}             |
      | /result/timeline/0/responses/0/state    | "ended"             |
      | /result/timeline/0/responses/0/ended_by | "handle"            |
      | /result/timeline/0/responses/0/note     | "seen, nothing to add" |
      | /result/obligations                 | []                      |
    When bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 2, "note": "two\nlines"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob reads "turn"
    Then /result/items/*/entry is [2]

  @KF-6.3-16 @KF-9-07
  Scenario: A handle note is readable only by the entry's author and the responder
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}", "${carol}"]}
      """
    And bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1, "note": "bob's private aside"}
      """
    Then it succeeds
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/0/note is "bob's private aside"
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/0/note is "bob's private aside"
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                       | value    |
      | /result/responses/0/state     | "ended"  |
      | /result/responses/0/ended_by  | "handle" |
      | /result/responses/0/note      | absent   |
      | /result/responses/*/*         | {"$not_contains": "bob's private aside"} |
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/0/responses/0/note is absent
    And /result/timeline/0/responses/*/* matches {"$not_contains": "bob's private aside"}
    When carol performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1, "note": "carol's aside"}
      """
    And bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/1/note is absent
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/0/responses/*/note is ["bob's private aside", "carol's aside"]

  @KF-6.3-17 @KF-6.3-18 @KF-8-03
  Scenario: The author retracts an entry, ending its pending responses but not those already given
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And dave performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "ask": ["${bob}", "${carol}", "${dave}"]}
      """
    And bob performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": 1, "note": "done"}
      """
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${c}", "reply_to": 1}
      """
    And bob performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it succeeds
    When dave reads "turn"
    Then /result/items matches {"$len": 0}
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                       | value                           |
      | /result/responses/*/responder | ["${bob}", "${carol}", "${dave}"] |
      | /result/responses/*/state     | ["ended", "ended", "ended"]     |
      | /result/responses/*/ended_by  | ["handle", "reply", "retract"]  |
      | /result/responses/0/note      | "done"                          |
    When alice performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "invalid_state" and next step "done"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline/*/entry is [1, 2]

  @KF-6.3-17
  Scenario: A former member cannot retract its entry
    When carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "ask": ["${carol}"]}
      """
    And bob performs "thread.leave" with:
      """
      {"thread": "${t}"}
      """
    And bob performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol reads "turn"
    Then /result/items/*/entry is [1]
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then /result/responses/0/state is "pending"

  @KF-6.3-19
  Scenario: Reading never ends a response
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And bob reads "thread" with:
      """
      {"thread": "${t}", "expand": [1]}
      """
    And bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    And bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    And bob reads memory m
    And bob reads "threads"
    And bob reads "turn"
    And bob reads "turn"
    Then /result/items/*/entry is [1]
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                   | value     |
      | /result/responses/0/state | "pending" |
      | /result/read_by           | absent    |

  @KF-6.3-05 @KF-8-01
  Scenario: Entries cannot be edited or deleted, and obligations cannot be dismissed
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    And alice performs "thread.edit" with:
      """
      {"thread": "${t}", "entry": 1, "memory": "${m}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "thread.delete" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "turn.dismiss" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "obligation.create" with:
      """
      {"holder": "${bob}", "thread": "${t}", "entry": 1}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice updates memory m with content "alice's note, corrected"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": 1}
      """
    Then /result/entry is 2
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                    | value  |
      | /result/timeline/*/entry   | [1, 2] |
      | /result/timeline/*/version | [1, 2] |
    When bob reads "turn"
    Then /result/items/*/entry is [1, 2]
