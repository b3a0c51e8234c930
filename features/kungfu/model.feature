@full
Feature: The model's parts, each observable and each belonging to its atom (§2)
  Memory versions, thread memberships, entries and assignments, Task
  engagements, and deliveries are the parts of the model. Each can be
  observed from outside as an object of its own, reached through the atom
  it belongs to, with the identity and facts that make it that part.

  @KF-2-05 @KF-2-01 @KF-2-06 @KF-2-08
  Scenario: Every part of the model is observable, and belongs to its atom
    Given agents alice, bob and carol
    # A Memory and its versions.
    When alice creates memory m with content "first"
    And alice updates memory m with content "second"
    And alice reads memory m at version 1
    Then the answer matches:
      | pointer                 | value   |
      | /result/version         | 1       |
      | /result/current_version | 2       |
      | /result/content         | "first" |
    # A thread, a membership, an entry and an assignment.
    When alice performs "thread.create" with:
      """
      {"subject": "parts"}
      """
    Then remember /result/thread as t
    When alice performs "thread.admit" with:
      """
      {"thread": "${t}"}
      """
    Then remember /result/admission as adm
    And remember /result/secret as s
    When bob performs "thread.join" with:
      """
      {"secret": "${s}"}
      """
    Then remember /result/joined_at as joined
    When alice performs "thread.post" with:
      """
      {"thread": "${t}", "memory": "${m}", "version": 1, "assign": {"to": "${bob}", "criteria": "read it"}}
      """
    Then remember /result/assignment as a
    When bob performs "assignment.take" with:
      """
      {"assignment": "${a}", "deliver": {"payload": "read"}}
      """
    Then it succeeds
    When bob reads "thread" with:
      """
      {"thread": "${t}"}
      """
    Then the answer matches:
      | pointer                        | value                                                                   |
      | /result/members/1              | {"agent": "${bob}", "role": "speaker", "joined_at": "${joined}", "admission": "${adm}"} |
      | /result/timeline/0/entry       | 1                                                                       |
      | /result/timeline/0/memory      | "${m}"                                                                  |
      | /result/timeline/0/version     | 1                                                                       |
      | /result/timeline/0/assignment  | {"assignment": "${a}", "state": "delivered"}                            |
    When bob reads "assignment" with:
      """
      {"assignment": "${a}"}
      """
    Then the answer matches:
      | pointer                   | value    |
      | /result/thread            | "${t}"   |
      | /result/entry             | 1        |
      | /result/delivery/payload  | "read"   |
    # A Task, an engagement bound to one contract version, and its delivery.
    When alice performs "task.create" with:
      """
      {"title": "Parts", "requirements": "r", "inputs": [{"memory": "${m}"}]}
      """
    Then remember /result/task as task
    When carol performs "task.take" with:
      """
      {"task": "${task}", "deliver": {"payload": "delivered"}}
      """
    Then remember /result/engagement as e
    When carol reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer                  | value                                                    |
      | /result/task             | "${task}"                                                |
      | /result/contract_version | 1                                                        |
      | /result/inputs           | [{"memory": "${m}", "version": 2, "content": "second"}] |
      | /result/delivery/payload | "delivered"                                              |
    # Identifiers of one kind are never those of another.
    When carol reads "task" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When bob reads "thread" with:
      """
      {"thread": "${a}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "engagement" with:
      """
      {"engagement": "${task}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
