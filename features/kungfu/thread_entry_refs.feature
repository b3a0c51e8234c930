@thread
Feature: Entry references name a thread and an entry, and never cross threads (§6.3, §6.5, §9)
  Every parameter that refers to an entry (reply_to, the entry of a handle,
  a retraction or the entry view, and each expand item) takes either an
  entry number of the thread the action is about or an object {thread,
  entry}. The object form can name another thread, so an implementation
  that let a reference cross threads can be caught: every such reference
  must be refused, with one answer whatever the other thread is, and must
  change nothing here or there.

  Background:
    Given agents alice, bob and carol
    When alice performs "thread.create" with:
      """
      {"subject": "here"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s
    When bob performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it succeeds
    When alice performs "thread.create" with:
      """
      {"subject": "there"}
      """
    Then remember /result/thread as t2
    When alice performs "thread.admit" with:
      """
      {"thread": "${t2}"}
      """
    Then remember /result/secret as s2
    When bob performs "thread.join" with:
      """
      {"secret": "${s2}"}
      """
    Then it succeeds
    When carol performs "thread.create" with:
      """
      {"subject": "elsewhere"}
      """
    Then remember /result/thread as t3
    When alice creates memory m with content "alice's note"
    And bob creates memory b with content "bob's note"
    And carol creates memory c with content "carol's private note"
    When carol performs "thread.post" with:
      """
      {"thread": "${t3}", "memory": "${c}"}
      """
    Then it succeeds
    # Entry 1 here is alice's (bob owes it), entry 1 there is bob's (alice owes it).
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}"}
      """
    Then /result/responders is ["${bob}"]
    When bob performs "thread.post" with:
      """
      {"thread": "${t2}", "memory": "${b}"}
      """
    Then /result/responders is ["${alice}"]

  @KF-6.3-03 @KF-6.5-08 @KF-12-07 @KF-L2-03
  Scenario: A reply naming an entry of another thread is refused, whether the poster is in that thread or not, and posts nothing
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": {"thread": "thr-0", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And remember the answer as missing
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": {"thread": "${t2}", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And the answer is indistinguishable from missing apart from "${t2}" and "thr-0"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": {"thread": "${t3}", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And the answer is indistinguishable from missing apart from "${t3}" and "thr-0"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": {"thread": "${t}", "entry": 2}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "reply_to": {"thread": "${t}", "entry": 1, "note": "x"}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    # Nothing was posted here, and alice's response owed there still stands.
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                           | value     |
      | /result/timeline/*/entry          | [1]       |
      | /result/timeline/0/responses/0/state | "pending" |
    When alice reads "thread" with:
      """
      {"thread": "${t2}"}
      """
    Then the answer matches:
      | pointer                              | value          |
      | /result/timeline/*/entry             | [1]            |
      | /result/timeline/0/responses         | [{"responder": "${alice}", "state": "pending"}] |
    When bob reads "turn"
    Then the answer matches:
      | pointer               | value       |
      | /result/items/*/thread | ["${t}"]   |
      | /result/items/*/entry  | [1]        |
    # The object form naming this thread is the same as the number.
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}", "reply_to": {"thread": "${t}", "entry": 1}}
      """
    Then it succeeds
    And the answer matches:
      | pointer             | value        |
      | /result/entry       | 2            |
      | /result/responders  | ["${alice}"] |
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then /result/reply_to is 1
    When bob reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-6.3-15 @KF-6.3-17 @KF-9-04 @KF-9-16 @KF-12-07 @KF-6.5-08
  Scenario: A handle, a retraction, an entry read and an expansion naming another thread's entry are refused and show nothing of it
    When alice performs "thread.handle" with:
      """
      {"thread": "${t}", "entry": {"thread": "${t2}", "entry": 1}, "note": "seen"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When bob performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": {"thread": "${t2}", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t2}"}
      """
    Then /result/timeline/0/responses is [{"responder": "${alice}", "state": "pending"}]
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": {"thread": "thr-0", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And remember the answer as missing_entry
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": {"thread": "${t3}", "entry": 1}}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And the answer is indistinguishable from missing_entry apart from "${t3}" and "thr-0"
    When alice reads "thread" with:
      """
      {"thread": "${t}", "expand": [{"thread": "thr-0", "entry": 1}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And remember the answer as missing_expand
    When alice reads "thread" with:
      """
      {"thread": "${t}", "expand": [1, {"thread": "${t3}", "entry": 1}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    And the answer is indistinguishable from missing_expand apart from "${t3}" and "thr-0"
    # The object form naming the action's own thread works everywhere.
    When alice reads "thread" with:
      """
      {"thread": "${t}", "expand": [{"thread": "${t}", "entry": 1}]}
      """
    Then the answer matches:
      | pointer                    | value          |
      | /result/expanded/*/entry   | [1]            |
      | /result/expanded/0/content | "alice's note" |
    When alice reads "entry" with:
      """
      {"thread": "${t2}", "entry": {"thread": "${t2}", "entry": 1}}
      """
    Then the answer matches:
      | pointer         | value    |
      | /result/entry   | 1        |
      | /result/author  | "${bob}" |
    When alice performs "thread.handle" with:
      """
      {"thread": "${t2}", "entry": {"thread": "${t2}", "entry": 1}, "note": "seen"}
      """
    Then it succeeds
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": {"thread": "${t}", "entry": 1}}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "thread.retract" with:
      """
      {"thread": "${t}", "entry": {"thread": "${t}", "entry": 1}}
      """
    Then it succeeds
    And /result/retracted is 1
