@thread
Feature: Creating threads and admitting members (§6.1, §12)
  Any active agent opens a thread and governs it. Membership arises only
  through the one live admission grant a governor issues; its bearer secret is
  shown once, in the answer that issued it, and dies when a new grant is
  issued, when it is voided and when the thread closes.

  Background:
    Given agents alice, bob and carol
    When alice performs "thread.create" with:
      """
      {"subject": "planning"}
      """
    Then it succeeds
    And remember /result/thread as t

  @KF-6.1-01 @KF-6.2-02 @KF-2-03
  Scenario: A new thread is open and its creator is its only member, as governor
    Then the answer matches:
      | pointer        | value      |
      | /result/role   | "governor" |
      | /result/state  | "open"     |
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                 | value       |
      | /result/thread          | "${t}"      |
      | /result/subject         | "planning"  |
      | /result/state           | "open"      |
      | /result/role            | "governor"  |
      | /result/members         | {"$len": 1} |
      | /result/members/0/agent | "${alice}"  |
      | /result/members/0/role  | "governor"  |
      | /result/admission/live  | false       |
      | /result/timeline        | {"$len": 0} |
    And /result/actions matches {"$contains": "thread.admit"}
    And /result/actions matches {"$contains": "thread.close"}
    When bob performs "thread.create"
    Then it succeeds
    And /result/role is "governor"
    When alice reads "threads"
    Then /result/items/*/thread matches {"$set": ["${t}"]}

  @KF-6.1-02 @KF-9-04
  Scenario: Knowing a thread id lets a stranger neither read, post nor join
    When alice creates memory m with content "members only"
    And bob creates memory b with content "gatecrash"
    And bob reads "thread" with:
      """
      {"thread": "thr-does-not-exist"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And remember the answer as missing
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${t}" and "thr-does-not-exist"
    When bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${b}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob performs "thread.join" with:
      """
      {"secret": "${t}"}
      """
    Then it is rejected
    When bob performs "thread.join" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected
    When bob reads "threads"
    Then /result/items matches {"$len": 0}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/members matches {"$len": 1}
    And /result/timeline matches {"$len": 0}

  @KF-6.1-03 @KF-6.2-17 @KF-6.1-08
  Scenario: An admission grant binds one role, speaker when none is given, and the membership records the admission and when
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And /result/role is "speaker"
    And remember /result/secret as s1
    And remember /result/admission as a1
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer           | value     |
      | /result/thread    | "${t}"    |
      | /result/role      | "speaker" |
      | /result/admission | "${a1}"   |
      | /result/joined_at | present   |
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then /result/role is "observer"
    And remember /result/secret as s2
    And remember /result/admission as a2
    When carol performs "thread.join" with:
      """
      {"secret": "${s2}"}
      """
    Then /result/role is "observer"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value                  |
      | /result/role                | "speaker"              |
      | /result/members/*/agent     | ["${alice}", "${bob}", "${carol}"] |
      | /result/members/*/role      | ["governor", "speaker", "observer"] |
      | /result/members/1/admission | "${a1}"                |
      | /result/members/2/admission | "${a2}"                |
      | /result/members/1/joined_at | present                |
    And /result/members/1/* matches {"$not_contains": "${alice}"}
    And /result/members/2/* matches {"$not_contains": "${alice}"}
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "owner"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"

  @KF-6.1-05 @KF-12-05
  Scenario: Issuing a new admission voids the old one
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as old
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then it succeeds
    And remember /result/secret as new
    And remember /result/admission as a_new
    When bob performs "thread.join" with:
      """
      {"secret": "${old}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found"
    When carol performs "thread.join" with:
      """
      {"secret": "${new}"}
      """
    Then it succeeds
    And /result/role is "observer"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value                      |
      | /result/admission/live      | true                       |
      | /result/admission/admission | "${a_new}"                 |
      | /result/members/*/agent     | ["${alice}", "${carol}"]   |

  @KF-6.1-06
  Scenario: The live admission can be voided without a replacement
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s1
    When alice performs "thread.void_admission" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                | value       |
      | /result/admission/live | false       |
      | /result/members        | {"$len": 1} |
    When alice performs "thread.void_admission" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "done"

  @KF-6.1-09 @KF-6.2-03 @KF-6.2-01
  Scenario: Only governors issue and void admissions
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "speaker"}
      """
    Then remember /result/secret as s1
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as s2
    And remember /result/admission as a2
    When carol performs "thread.join" with:
      """
      {"secret": "${s2}"}
      """
    Then it succeeds
    When bob performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob performs "thread.void_admission" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When carol performs "thread.void_admission" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value   |
      | /result/admission/live      | true    |
      | /result/admission/admission | "${a2}" |
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/actions matches {"$not_contains": "thread.admit"}
    And /result/actions matches {"$contains": "thread.post"}
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/actions matches {"$not_contains": "thread.admit"}
    And /result/actions matches {"$not_contains": "thread.post"}

  @KF-6.1-07 @KF-12-03 @KF-L3-06
  Scenario: The admission secret is shown once, in the answer that issued it
    When alice performs "thread.admit" with key "admit-1" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And /result/secret is present
    And remember /result/secret as s1
    And remember /result/secret_fingerprint as fp
    And remember /result/admission as a1
    When alice performs "thread.admit" with key "admit-1" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                    | value   |
      | /result/secret             | absent  |
      | /result/admission          | "${a1}" |
      | /result/secret_fingerprint | "${fp}" |
    And /result/* matches {"$not_contains": "${s1}"}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/admission/admission is "${a1}"
    And /result/admission/secret is absent
    And /result/admission/* matches {"$not_contains": "${s1}"}
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
    And /result/* matches {"$not_contains": "${s1}"}
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/admission/* matches {"$not_contains": "${s1}"}
    And /result/members/*/* matches {"$not_contains": "${s1}"}
    When the implementation restarts
    And alice performs "thread.admit" with key "admit-1" with:
      """
      {"thread": "${t}"}
      """
    Then /result/secret is absent
    And /result/secret_fingerprint is "${fp}"
    And /result/* matches {"$not_contains": "${s1}"}
    When carol performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds

  @KF-6.1-04
  Scenario: A deactivated agent cannot join
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s1
    When bob is deactivated
    And bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it is rejected with reason "inactive" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/members matches {"$len": 1}
    When carol performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds

  @KF-L2-05
  Scenario: Joining again while a member returns the same membership and adds nothing
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s1
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
    And remember /result/joined_at as joined
    And remember /result/admission as a1
    When the clock advances by 30s
    And bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer           | value       |
      | /result/thread    | "${t}"      |
      | /result/role      | "speaker"   |
      | /result/admission | "${a1}"     |
      | /result/joined_at | "${joined}" |
    When bob performs "thread.join" 5 times at once with:
      """
      {"secret": "${s1}"}
      """
    Then /result/ok_count is 5
    And /result/outcomes/*/result/joined_at matches {"$each": "${joined}"}
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                     | value                    |
      | /result/members/*/agent     | ["${alice}", "${bob}"]   |
      | /result/members/1/joined_at | "${joined}"              |

  @KF-6.5-06 @KF-12-05
  Scenario: Closing the thread voids its admission
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s1
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    And alice performs "thread.close" with:
      """
      {"thread": "${t}"}
      """
    Then it succeeds
    When carol performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                  |
      | /result/admission/live  | false                  |
      | /result/members/*/agent | ["${alice}", "${bob}"] |
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "invalid_state" and next step "stop"

  @KF-12-06
  Scenario: Failed joins are throttled
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/secret as s1
    When bob performs "thread.join" 25 times at once with:
      """
      {"secret": "kfs_00000000000000000000000000000000"}
      """
    Then /result/rejected_count is 25
    And /result/outcomes/*/rejection/reason matches {"$contains": "rate_limited"}
    When bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it is rejected with reason "rate_limited" and next step "wait"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/members matches {"$len": 1}
    When the clock advances by 16m
    And bob performs "thread.join" with:
      """
      {"secret": "${s1}"}
      """
    Then it succeeds
