@thread @task
Feature: References between threads and Tasks (§2, §7.5)
  An entry may reference a Task its poster may read; the thread's current
  members then read that Task's contract layer in the thread, at the version
  current when the entry was posted. The reference changes nothing in the
  Task: it obliges nobody, engages nobody, names nobody and opens no
  engagement, delivery or judgment to the members. Atoms never turn into one
  another: taking work out of a thread means creating a new Task, which
  leaves the assignment, its thread and every existing object as they were.

  Background:
    Given agents alice, bob, carol, dave and erin
    When alice performs "thread.create" with:
      """
      {"subject": "work that may leave the thread"}
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
    And carol performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then it succeeds

  @KF-7.5-01
  Scenario: Members read a referenced open Task's contract in the thread, at the version current when the entry was posted
    When dave performs "task.create" with:
      """
      {"title": "Translate the glossary", "requirements": "every term, in French"}
      """
    And remember /result/task as o
    And bob creates memory note with content "this Task fits our work"
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${note}", "task": "${o}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer              | value  |
      | /result/entry        | 1      |
      | /result/task         | "${o}" |
      | /result/task_version | 1      |
    When dave performs "task.revise" with:
      """
      {"task": "${o}", "requirements": "every term, in French and German"}
      """
    Then /result/version is 2
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it succeeds
    And the answer matches:
      | pointer                             | value                    |
      | /result/memory                      | "${note}"                |
      | /result/task/task                   | "${o}"                   |
      | /result/task/version                | 1                        |
      | /result/task/contract/title         | "Translate the glossary" |
      | /result/task/contract/requirements  | "every term, in French"  |
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                                        | value                   |
      | /result/timeline                               | {"$len": 1}             |
      | /result/timeline/0/task/task                   | "${o}"                  |
      | /result/timeline/0/task/version                | 1                       |
      | /result/timeline/0/task/contract/requirements  | "every term, in French" |
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}", "role": "observer"}
      """
    Then remember /result/secret as s2
    When erin performs "thread.join" with:
      """
      {"secret": "${s2}"}
      """
    And erin reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                            | value                   |
      | /result/task/version               | 1                       |
      | /result/task/contract/requirements | "every term, in French" |
    When the implementation restarts
    And erin reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                            | value                   |
      | /result/task/task                  | "${o}"                  |
      | /result/task/version               | 1                       |
      | /result/task/contract/requirements | "every term, in French" |
    When carol reads "task" with:
      """
      {"task": "${o}"}
      """
    Then the answer matches:
      | pointer                       | value                              |
      | /result/current_version       | 2                                  |
      | /result/contract/requirements | "every term, in French and German" |

  @KF-7.5-01 @KF-9-09 @KF-12-07 @KF-L2-01
  Scenario: Only a Task the poster may read can be referenced; then every member reads its contract through the entry, named or not
    When erin performs "task.create" with:
      """
      {"title": "Audit for bob", "requirements": "audit the ledger", "audience": "restricted", "named": ["${bob}"]}
      """
    And remember /result/task as r
    And carol creates memory look with content "have a look at this"
    And carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${look}", "task": "no-such-task-0"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And remember the answer as missing
    When carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${look}", "task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${r}" and "no-such-task-0"
    And /rejection/message matches {"$not_contains": "Audit"}
    When carol performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${look}", "task": 7}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then /result/timeline matches {"$len": 0}
    When bob creates memory mine with content "erin offered me this"
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${mine}", "task": "${r}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer              | value  |
      | /result/entry        | 1      |
      | /result/task         | "${r}" |
      | /result/task_version | 1      |
    When alice reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then it succeeds
    And the answer matches:
      | pointer                            | value              |
      | /result/task/task                  | "${r}"             |
      | /result/task/version               | 1                  |
      | /result/task/contract/title        | "Audit for bob"    |
      | /result/task/contract/requirements | "audit the ledger" |
      | /result/task/named                 | absent             |
    When carol reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                                | value           |
      | /result/timeline                       | {"$len": 1}     |
      | /result/timeline/0/task/contract/title | "Audit for bob" |
    When carol reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-7.5-02 @KF-2-09 @KF-7.2-01 @KF-9-09 @KF-9-11 @KF-12-07
  Scenario: Referencing a restricted Task obliges nobody, names nobody and opens neither the Task nor its engagements to the members
    When alice performs "task.create" with:
      """
      {"title": "Review for carol", "requirements": "review the draft", "audience": "restricted", "named": ["${carol}"]}
      """
    And remember /result/task as r
    And alice creates memory m with content "carol, this one is for you"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "task": "${r}"}
      """
    Then it succeeds
    And /result/responders matches {"$len": 0}
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                                | value              |
      | /result/obligations                    | {"$len": 0}        |
      | /result/timeline/0/task/contract/title | "Review for carol" |
    When bob reads "task" with:
      """
      {"task": "no-such-task-0"}
      """
    Then remember the answer as missing
    When bob reads "task" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${r}" and "no-such-task-0"
    When bob performs "task.take" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "opportunities"
    Then /result/items matches {"$len": 0}
    When alice reads "task" with:
      """
      {"task": "${r}"}
      """
    Then the answer matches:
      | pointer                 | value          |
      | /result/named           | ["${carol}"]   |
      | /result/current_version | 1              |
      | /result/adopted_count   | 0              |
    When alice reads "engagements" with:
      """
      {"task": "${r}"}
      """
    Then /result/items matches {"$len": 0}
    When carol performs "task.take" with:
      """
      {"task": "${r}", "deliver": {"payload": "carol's private review"}}
      """
    Then it succeeds
    And remember /result/engagement as e
    When bob reads "engagement" with:
      """
      {"engagement": "no-such-engagement-0"}
      """
    Then remember the answer as missing_engagement
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing_engagement apart from "${e}" and "no-such-engagement-0"
    When bob reads "engagements" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it succeeds
    When bob reads "adoptions" with:
      """
      {"task": "${r}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                     | value              |
      | /result/task/contract/title | "Review for carol" |
      | /result/task/engagements    | absent             |
      | /result/task/adopted_count  | absent             |
    When bob reads "turn"
    Then /result/items matches {"$len": 0}

  @KF-7.5-02 @KF-9-11 @KF-8-09
  Scenario: Referencing an open Task shows the members none of its engagements, deliveries or judgments
    When dave performs "task.create" with:
      """
      {"title": "Open bounty", "requirements": "find the bug"}
      """
    And remember /result/task as o
    And erin performs "task.take" with:
      """
      {"task": "${o}", "deliver": {"payload": "erin's fix"}}
      """
    And remember /result/engagement as e
    And dave performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    And bob creates memory tip with content "someone already fixed it"
    And bob performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${tip}", "task": "${o}"}
      """
    Then it succeeds
    When alice reads "engagements" with:
      """
      {"task": "${o}"}
      """
    Then it succeeds
    And /result/items matches {"$len": 0}
    When alice reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "adoptions" with:
      """
      {"task": "${o}"}
      """
    Then it succeeds
    And /result/items matches {"$len": 0}
    When carol reads "entry" with:
      """
      {"thread": "${t}", "entry": 1}
      """
    Then the answer matches:
      | pointer                     | value         |
      | /result/task/contract/title | "Open bounty" |
      | /result/task/engagements    | absent        |
    When alice reads "turn"
    Then /result/items matches {"$len": 0}
    When carol reads "turn"
    Then /result/items matches {"$len": 0}
    When dave reads "engagements" with:
      """
      {"task": "${o}"}
      """
    Then the answer matches:
      | pointer                 | value       |
      | /result/items           | {"$len": 1} |
      | /result/items/0/state   | "adopted"   |

  @KF-2-10 @KF-7.5-03 @KF-2-09 @KF-1-04
  Scenario: Moving an assignment's work out of the thread means a new Task; the assignment, its thread and their visibility stay as they were
    When alice creates memory brief with content "findings for the thread only"
    And alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${brief}", "assign": {"to": "${bob}", "criteria": "Summarise the findings in 200 words"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}"}
      """
    Then it succeeds
    When alice performs "assignment.to_task" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "assignment.publish" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "unknown_action" and next step "stop"
    When alice performs "task.create" with:
      """
      {"title": "Summarise the findings", "requirements": "Summarise the findings in 200 words", "from_assignment": "${a}"}
      """
    Then it is rejected with reason "invalid_params" and next step "retry"
    When alice reads "tasks"
    Then /result/items is []
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer           | value                                 |
      | /result/state     | "taken"                               |
      | /result/addressee | "${bob}"                              |
      | /result/criteria  | "Summarise the findings in 200 words" |
    When alice performs "task.create" with:
      """
      {"title": "Summarise the findings", "requirements": "Summarise the findings in 200 words"}
      """
    Then it succeeds
    And the answer matches:
      | pointer         | value           |
      | /result/task    | {"$ne": "${a}"} |
      | /result/version | 1               |
    And remember /result/task as nt
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer           | value                                 |
      | /result/state     | "taken"                               |
      | /result/thread    | "${t}"                                |
      | /result/criteria  | "Summarise the findings in 200 words" |
    When bob reads "turn"
    Then the answer matches:
      | pointer                    | value       |
      | /result/items              | {"$len": 1} |
      | /result/items/0/kind       | "deliver"   |
      | /result/items/0/assignment | "${a}"      |
      | /result/items/0/task       | absent      |
    When alice reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                              | value       |
      | /result/timeline                     | {"$len": 1} |
      | /result/timeline/0/assignment/state  | "taken"     |
      | /result/obligations                  | {"$len": 0} |
    When dave reads "assignment" with:
      """
      {"assignment": "no-such-assignment-0"}
      """
    Then remember the answer as missing
    When dave reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${a}" and "no-such-assignment-0"
    When dave reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads memory brief
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads "task" with:
      """
      {"task": "${nt}"}
      """
    Then the answer matches:
      | pointer                       | value                                 |
      | /result/author                | "${alice}"                            |
      | /result/contract/requirements | "Summarise the findings in 200 words" |
    When dave performs "task.take" with:
      """
      {"task": "${nt}", "deliver": {"payload": "dave's summary"}}
      """
    Then it succeeds
    And remember /result/engagement as e
    When alice performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then /result/state is "adopted"
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then /result/state is "taken"
    When bob performs "assignment.deliver" with:
      """
      {"assignment": "${a}", "payload": "bob's summary"}
      """
    Then it succeeds
    When alice performs "assignment.judge" with:
      """
      {"assignment": "${a}", "verdict": "reject", "reason": "too long"}
      """
    Then /result/state is "rejected"
    When dave reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                  | value            |
      | /result/state            | "adopted"        |
      | /result/delivery/payload | "dave's summary" |
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${brief}", "task": "${nt}"}
      """
    Then it succeeds
    When dave reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads "entry" with:
      """
      {"thread": "${t}", "entry": 2}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "engagements" with:
      """
      {"task": "${nt}"}
      """
    Then /result/items matches {"$len": 0}
    When dave reads "turn"
    Then /result/items matches {"$len": 0}
