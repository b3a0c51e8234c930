@task
Feature: Task contracts, revisions and audience (§7, §7.1, §7.2, §9)
  A Task is a contract offered outside any thread: what to produce, with
  which inputs, by when, what happens without a judgment, and who judges.
  Every contract version is immutable; a revision is a new version that binds
  only later engagements. The audience is fixed at creation.

  Background:
    Given agents alice, bob and carol

  @KF-7.1-01 @KF-7-01 @KF-2-04 @KF-9-08
  Scenario: A new Task states its whole contract, with the defaults filled in, and anyone reads it
    When alice creates memory brief with content "the brief"
    And alice performs "task.create" with:
      """
      {"title": "Summarise the brief", "requirements": "One paragraph, plain English.",
       "inputs": [{"memory": "${brief}"}], "output_schema": {"type": "string"}}
      """
    Then it succeeds
    And the answer matches:
      | pointer          | value      |
      | /result/version  | 1          |
      | /result/audience | "open"     |
      | /result/judge    | "${alice}" |
      | /result/author   | "${alice}" |
    And remember /result/task as t
    When bob reads "task" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                           | value                                 |
      | /result/task                      | "${t}"                                |
      | /result/author                    | "${alice}"                            |
      | /result/judge                     | "${alice}"                            |
      | /result/audience                  | "open"                                |
      | /result/version                   | 1                                     |
      | /result/current_version           | 1                                     |
      | /result/contract/title            | "Summarise the brief"                 |
      | /result/contract/requirements     | "One paragraph, plain English."       |
      | /result/contract/inputs           | [{"memory": "${brief}", "version": 1}] |
      | /result/contract/output_schema    | {"type": "string"}                    |
      | /result/contract/delivery_due     | {"$type": "number"}                   |
      | /result/contract/judgment_due     | {"$type": "number"}                   |
      | /result/contract/default_outcome  | "undecided"                           |
      | /result/contract/max_adoptions    | absent                                |
      | /result/named                     | absent                                |
      | /result/adopted_count             | absent                                |
    And /result/contract/inputs/0/content is absent
    When bob reads memory brief
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-7.1-01 @KF-7.1-04
  Scenario: A contract missing an element, or with a result for no judgment other than adopted or undecided, is refused and records nothing
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "No requirements"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"requirements": "no title"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "", "requirements": "empty title"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Numbers", "requirements": 42}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "No time", "requirements": "r", "delivery_due": 0}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Past", "requirements": "r", "judgment_due": -5}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Fraction", "requirements": "r", "delivery_due": 1.5}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Bad default", "requirements": "r", "default_outcome": "rejected"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Bad default", "requirements": "r", "default_outcome": "dropped"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    # None of the refused requests was recorded under the key: a valid one now
    # runs as a first request instead of conflicting with an earlier one.
    When alice performs "task.create" with key "c1" with:
      """
      {"title": "Complete", "requirements": "r", "default_outcome": "adopted", "delivery_due": 120, "judgment_due": 600}
      """
    Then it succeeds
    And /result/version is 1
    And remember /result/task as t
    When carol reads "task" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer                          | value      |
      | /result/contract/title           | "Complete" |
      | /result/contract/default_outcome | "adopted"  |
      | /result/contract/delivery_due    | 120        |
      | /result/contract/judgment_due    | 600        |
      | /result/contract/inputs          | []         |
      | /result/current_version          | 1          |

  @KF-7-02 @KF-7.1-01 @KF-L2-03
  Scenario: A designated judge must be an agent
    When alice performs "task.create" with key "j1" with:
      """
      {"title": "Webhook judge", "requirements": "r", "judge": "https://judge.example/hook"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "j1" with:
      """
      {"title": "Nobody judges", "requirements": "r", "judge": "no-such-agent-0"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with key "j1" with:
      """
      {"title": "Numeric judge", "requirements": "r", "judge": 7}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    When alice performs "task.create" with key "j1" with:
      """
      {"title": "Carol judges", "requirements": "r", "judge": "${carol}"}
      """
    Then it succeeds
    And /result/judge is "${carol}"
    And remember /result/task as t
    When bob reads "task" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer        | value      |
      | /result/judge  | "${carol}" |
      | /result/author | "${alice}" |

  @KF-7.1-02
  Scenario: Required inputs are pinned versions of the author's own valid Memories
    When bob creates memory bobs with content "bob's public notes"
    And bob publishes memory bobs
    And bob creates memory bobs_private with content "bob's private notes"
    And alice creates memory gone with content "withdrawn brief"
    And alice withdraws memory gone
    And alice creates memory brief with content "brief v1"
    And alice updates memory brief with content "brief v2"
    And alice performs "task.create" with:
      """
      {"title": "Borrowed", "requirements": "r", "inputs": [{"memory": "${bobs}"}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Private borrow", "requirements": "r", "inputs": [{"memory": "${bobs_private}"}]}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "task.create" with:
      """
      {"title": "Withdrawn", "requirements": "r", "inputs": [{"memory": "${gone}"}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Future", "requirements": "r", "inputs": [{"memory": "${brief}", "version": 3}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Twice", "requirements": "r", "inputs": [{"memory": "${brief}"}, {"memory": "${brief}", "version": 1}]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    When alice performs "task.create" with:
      """
      {"title": "Pinned old", "requirements": "r", "inputs": [{"memory": "${brief}", "version": 1}]}
      """
    Then it succeeds
    And remember /result/task as old
    When alice performs "task.create" with:
      """
      {"title": "Pinned current", "requirements": "r", "inputs": [{"memory": "${brief}"}]}
      """
    Then it succeeds
    And remember /result/task as cur
    When carol reads "task" with:
      """
      {"task": "${old}"}
      """
    Then /result/contract/inputs is [{"memory": "${brief}", "version": 1}]
    When carol reads "task" with:
      """
      {"task": "${cur}"}
      """
    Then /result/contract/inputs is [{"memory": "${brief}", "version": 2}]

  @KF-7.1-02 @KF-9-10 @KF-7.3-01 @KF-7.3-02
  Scenario: An engagement keeps its bound input version readable after the author updates and withdraws the Memory
    When alice creates memory brief with content "brief as bound"
    And alice performs "task.create" with:
      """
      {"title": "Use the brief", "requirements": "r", "inputs": [{"memory": "${brief}"}]}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/inputs is [{"memory": "${brief}", "version": 1}]
    And remember /result/engagement as e
    When alice updates memory brief with content "brief rewritten"
    And alice withdraws memory brief
    And bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value            |
      | /result/inputs           | {"$len": 1}      |
      | /result/inputs/0/memory  | "${brief}"       |
      | /result/inputs/0/version | 1                |
      | /result/inputs/0/content | "brief as bound" |
      | /result/state            | "confirmed"      |
    When alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then /result/inputs/0/content is "brief as bound"
    # The binding grants no read right beyond the engagement.
    When bob reads memory brief
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads memory brief at version 1
    Then it is rejected with reason "not_found" and next step "stop"
    # A withdrawn Memory takes no new binding, and the refused take leaves nothing.
    When carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected
    When carol reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items matches {"$len": 0}
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/agent matches {"$set": ["${bob}"]}

  @KF-7.1-06 @KF-7.1-07 @KF-9-08 @KF-2-08
  Scenario: A revision is a new contract version; earlier versions stay as they were and keep binding their engagements
    When alice performs "task.create" with:
      """
      {"title": "First wording", "requirements": "first requirements", "delivery_due": 600}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as eb
    And carol reads "task" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/contract as v1_contract
    And remember /result/version_at as v1_at
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "title": "Second wording", "requirements": "second requirements", "delivery_due": 7200}
      """
    Then it succeeds
    And the answer matches:
      | pointer         | value  |
      | /result/task    | "${t}" |
      | /result/version | 2      |
    When carol reads "task" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer                       | value                 |
      | /result/version               | 2                     |
      | /result/current_version       | 2                     |
      | /result/contract/title        | "Second wording"      |
      | /result/contract/requirements | "second requirements" |
      | /result/contract/delivery_due | 7200                  |
    When carol reads "task" with:
      """
      {"task": "${t}", "version": 1}
      """
    Then the answer matches:
      | pointer                       | value                |
      | /result/version               | 1                    |
      | /result/current_version       | 2                    |
      | /result/contract/title        | "First wording"      |
      | /result/contract/requirements | "first requirements" |
      | /result/contract/delivery_due | 600                  |
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then /result/contract_version is 1
    When bob reads "task" with:
      """
      {"task": "${t}", "version": 1}
      """
    Then /result/contract/title is "First wording"
    When carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then /result/contract_version is 2
    And remember /result/engagement as ec
    When carol reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then /result/contract_version is 2
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/contract_version matches {"$set": [1, 2]}
    # No action edits a contract version in place.
    When alice performs "task.update" with:
      """
      {"task": "${t}", "version": 1, "title": "Rewritten history"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.edit" with:
      """
      {"task": "${t}", "title": "Rewritten history"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When bob performs "task.revise" with:
      """
      {"task": "${t}", "title": "Bob's wording"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice performs "task.revise" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When carol reads "task" with:
      """
      {"task": "${t}", "version": 1}
      """
    Then the answer matches:
      | pointer                 | value            |
      | /result/contract        | "${v1_contract}" |
      | /result/version_at      | "${v1_at}"       |
      | /result/current_version | 2                |
    When carol reads "task" with:
      """
      {"task": "${t}", "version": 3}
      """
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-7.1-08 @KF-7.1-07 @KF-7.1-04
  Scenario: An engagement is judged against the version it bound, and recorded verdicts never change
    When alice performs "task.create" with:
      """
      {"title": "Adopt unless told", "requirements": "r", "default_outcome": "adopted", "judgment_due": 100}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob's work"}}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "carol's work"}}
      """
    And remember /result/engagement as ec
    And alice performs "task.judge" with:
      """
      {"engagement": "${ec}", "verdict": "reject", "reason": "off topic"}
      """
    Then it succeeds
    When alice reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then remember the answer as carol_judged
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "default_outcome": "undecided", "judgment_due": 100000}
      """
    Then it succeeds
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value       |
      | /result/contract_version | 1           |
      | /result/state            | "delivered" |
    When the clock advances by 101s
    And bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value     |
      | /result/state            | "adopted" |
      | /result/contract_version | 1         |
    When alice reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then the answer is indistinguishable from carol_judged
    And the answer matches:
      | pointer                 | value       |
      | /result/state           | "rejected"  |
      | /result/verdict/reason  | "off topic" |

  @KF-7.2-01 @KF-7.2-02
  Scenario: The audience is fixed at creation and no revision changes it
    When alice performs "task.create" with:
      """
      {"title": "Open to all", "requirements": "r"}
      """
    And remember /result/task as t
    And alice performs "task.revise" with:
      """
      {"task": "${t}", "audience": "restricted", "named": ["${bob}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "revise"
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "named": ["${bob}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "revise"
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "audience": "open", "title": "Same audience, new title"}
      """
    Then it is rejected with reason "invalid_params" and next step "revise"
    When carol reads "task" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value         |
      | /result/audience        | "open"        |
      | /result/current_version | 1             |
      | /result/contract/title  | "Open to all" |
    When alice performs "task.create" with:
      """
      {"title": "For bob", "requirements": "r", "audience": "restricted", "named": ["${bob}"]}
      """
    And remember /result/task as r
    And alice performs "task.revise" with:
      """
      {"task": "${r}", "named": ["${bob}", "${carol}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "revise"
    When alice performs "task.revise" with:
      """
      {"task": "${r}", "audience": "open"}
      """
    Then it is rejected with reason "invalid_params" and next step "revise"
    When carol reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "task" with:
      """
      {"task": "${r}"}
      """
    Then the answer matches:
      | pointer                 | value        |
      | /result/audience        | "restricted" |
      | /result/named           | ["${bob}"]   |
      | /result/current_version | 1            |

  @KF-7.2-01 @KF-L2-03
  Scenario: A restricted audience names 1 to 50 existing agents other than the author
    When alice performs "task.create" with:
      """
      {"title": "Nobody named", "requirements": "r", "audience": "restricted"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Empty list", "requirements": "r", "audience": "restricted", "named": []}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Self", "requirements": "r", "audience": "restricted", "named": ["${alice}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Ghost", "requirements": "r", "audience": "restricted", "named": ["no-such-agent-0"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Open but named", "requirements": "r", "named": ["${bob}"]}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Other audience", "requirements": "r", "audience": "friends"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    When alice performs "task.create" with:
      """
      {"title": "Bob and carol", "requirements": "r", "audience": "restricted", "named": ["${bob}", "${carol}"]}
      """
    Then it succeeds
    And the answer matches:
      | pointer          | value                   |
      | /result/audience | "restricted"            |
      | /result/named    | ["${bob}", "${carol}"]  |

  @KF-7.2-01 @KF-9-09 @KF-7.1-05
  Scenario: A restricted Task exists only for its author, its named agents and its judge
    Given an agent dave
    When alice performs "task.create" with:
      """
      {"title": "Only bob", "requirements": "r", "audience": "restricted", "named": ["${bob}"], "judge": "${carol}"}
      """
    And remember /result/task as r
    And dave reads "task" with:
      """
      {"task": "no-such-task-0"}
      """
    Then remember the answer as missing_read
    When dave performs "task.take" with:
      """
      {"task": "no-such-task-0"}
      """
    Then remember the answer as missing_take
    When dave reads "engagements" with:
      """
      {"task": "no-such-task-0"}
      """
    Then remember the answer as missing_list
    When dave reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_read apart from "${r}" and "no-such-task-0"
    When dave performs "task.take" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_take apart from "${r}" and "no-such-task-0"
    When dave reads "engagements" with:
      """
      {"task": "${r}"}
      """
    Then the answer is indistinguishable from missing_list apart from "${r}" and "no-such-task-0"
    When bob reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                | value        |
      | /result/audience       | "restricted" |
      | /result/contract/title | "Only bob"   |
    When carol reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it succeeds
    And /result/named is ["${bob}"]
    When bob performs "task.take" with:
      """
      {"task": "${r}"}
      """
    Then it succeeds
    When alice reads "engagements" with:
      """
      {"task": "${r}"}
      """
    Then /result/items/*/agent matches {"$set": ["${bob}"]}

  @KF-7.1-05
  Scenario: A contract may cap its adoptions with a whole number of at least one
    When alice performs "task.create" with:
      """
      {"title": "Zero", "requirements": "r", "max_adoptions": 0}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Negative", "requirements": "r", "max_adoptions": -1}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Fraction", "requirements": "r", "max_adoptions": 1.5}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice performs "task.create" with:
      """
      {"title": "Words", "requirements": "r", "max_adoptions": "two"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    When alice performs "task.create" with:
      """
      {"title": "Two winners", "requirements": "r", "max_adoptions": 2}
      """
    Then it succeeds
    And remember /result/task as t
    When bob reads "task" with:
      """
      {"task": "${t}"}
      """
    Then /result/contract/max_adoptions is 2

  @KF-8-13 @KF-8-17 @KF-9-09 @KF-12-07 @KF-7.2-01
  Scenario: An author lists the Tasks it offered, a bounded page at a time, and sees nobody else's
    When alice performs "task.create" with:
      """
      {"title": "First", "requirements": "r"}
      """
    Then remember /result/task as first
    When alice performs "task.create" with:
      """
      {"title": "Second", "requirements": "r", "audience": "restricted", "named": ["${bob}"], "judge": "${carol}"}
      """
    Then remember /result/task as second
    When bob performs "task.create" with:
      """
      {"title": "Bob's own", "requirements": "r", "audience": "restricted", "named": ["${alice}"]}
      """
    Then remember /result/task as bobs
    When alice performs "task.create" with:
      """
      {"title": "Third", "requirements": "r"}
      """
    Then remember /result/task as third
    When alice performs "task.revise" with:
      """
      {"task": "${first}", "title": "First, revised"}
      """
    Then it succeeds
    When alice reads "tasks" with:
      """
      {"limit": 2}
      """
    Then the answer matches:
      | pointer                  | value                      |
      | /result/items/*/task     | ["${first}", "${second}"]  |
      | /result/items/0/title    | "First, revised"           |
      | /result/items/0/version  | 2                          |
      | /result/items/0/audience | "open"                     |
      | /result/items/0/judge    | "${alice}"                 |
      | /result/items/1/audience | "restricted"               |
      | /result/items/1/judge    | "${carol}"                 |
      | /result/next_cursor      | {"$ne": ""}                |
    And remember /result/next_cursor as page2
    When alice reads "tasks" with:
      """
      {"limit": 2, "cursor": "${page2}"}
      """
    Then the answer matches:
      | pointer              | value        |
      | /result/items/*/task | ["${third}"] |
      | /result/next_cursor  | ""           |
    When bob reads "tasks"
    Then /result/items/*/task is ["${bobs}"]
    When carol reads "tasks"
    Then /result/items is []
    When alice reads "tasks" with:
      """
      {"limit": 1000}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks" with:
      """
      {"author": "${bob}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
