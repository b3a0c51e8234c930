@task
Feature: Who sees a Task's engagements, inputs and adopted work (§9)
  Anyone reads an open Task's contract layer. An engagement — its bound
  inputs, its delivery, its judgment and its ending — is seen only by the
  Task's author, the engaged agent and the judge; to anyone else it does not
  exist. Adopted deliveries are read by whoever the contract declares.

  Background:
    Given agents alice, bob, carol and dave

  @KF-9-11 @KF-9-10
  Scenario: One engaged agent cannot see another's engagement, delivery or judgment
    When alice creates memory brief with content "confidential brief"
    And alice performs "task.create" with:
      """
      {"title": "Competition", "requirements": "r", "inputs": [{"memory": "${brief}"}]}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "bob's secret answer"}}
      """
    And remember /result/engagement as eb
    And carol performs "task.take" with:
      """
      {"task": "${t}"}
      """
    And remember /result/engagement as ec
    And alice performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "reject", "reason": "bob's private feedback"}
      """
    And carol reads "engagement" with:
      """
      {"engagement": "no-such-engagement-0"}
      """
    Then remember the answer as missing
    When carol reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${eb}" and "no-such-engagement-0"
    And /rejection/message matches {"$not_contains": "bob's"}
    When dave reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol performs "task.judge" with:
      """
      {"engagement": "no-such-engagement-0", "verdict": "adopt"}
      """
    Then remember the answer as missing_judge
    When carol performs "task.judge" with:
      """
      {"engagement": "${eb}", "verdict": "adopt"}
      """
    Then the answer is indistinguishable from missing_judge apart from "${eb}" and "no-such-engagement-0"
    When carol performs "task.drop" with:
      """
      {"engagement": "${eb}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When carol reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/items/*/engagement matches {"$set": ["${ec}"]}
    When dave reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds
    And /result/items matches {"$len": 0}
    When dave reads "memory" with:
      """
      {"memory": "${brief}", "version": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then the answer matches:
      | pointer                 | value                          |
      | /result/items/*/engagement | {"$set": ["${eb}", "${ec}"]} |
      | /result/items/*/state   | {"$set": ["rejected", "confirmed"]} |
    When bob reads "engagement" with:
      """
      {"engagement": "${eb}"}
      """
    Then the answer matches:
      | pointer                  | value                    |
      | /result/verdict/reason   | "bob's private feedback" |
      | /result/delivery/payload | "bob's secret answer"    |
      | /result/inputs/0/content | "confidential brief"     |

  @KF-9-10 @KF-9-11 @KF-7-01
  Scenario: A designated judge reads the engagement with its bound inputs; a stranger reads neither
    When alice creates memory brief with content "inputs for the judge"
    And alice performs "task.create" with:
      """
      {"title": "Judged by carol", "requirements": "r", "inputs": [{"memory": "${brief}"}], "judge": "${carol}"}
      """
    And remember /result/task as t
    And bob performs "task.take" with:
      """
      {"task": "${t}", "deliver": {"payload": "for carol"}}
      """
    And remember /result/engagement as e
    And alice updates memory brief with content "inputs, changed later"
    And carol reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                  | value                  |
      | /result/inputs/0/version | 1                      |
      | /result/inputs/0/content | "inputs for the judge" |
      | /result/delivery/payload | "for carol"            |
      | /result/roles            | ["judge"]              |
    When carol reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement matches {"$set": ["${e}"]}
    When carol reads "memory" with:
      """
      {"memory": "${brief}", "version": 1}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"

  @KF-9-12 @KF-9-11
  Scenario: Adopted work is read by the parties, or by the whole audience when the contract says so
    When alice performs "task.create" with:
      """
      {"title": "Private result", "requirements": "r"}
      """
    And remember /result/task as private_task
    And alice performs "task.create" with:
      """
      {"title": "Public result", "requirements": "r", "adopted_readers": "audience"}
      """
    And remember /result/task as public_task
    And carol reads "task" with:
      """
      {"task": "${public_task}"}
      """
    Then /result/contract/adopted_readers is "audience"
    When bob creates memory work with content "bob's pinned work"
    And bob performs "task.take" with:
      """
      {"task": "${private_task}", "deliver": {"payload": "kept among the parties"}}
      """
    And remember /result/engagement as ep
    And bob performs "task.take" with:
      """
      {"task": "${public_task}", "deliver": {"payload": "for everyone", "memories": [{"memory": "${work}"}]}}
      """
    And remember /result/engagement as eq
    And carol performs "task.take" with:
      """
      {"task": "${public_task}", "deliver": {"payload": "rejected work"}}
      """
    And remember /result/engagement as er
    And dave reads "adoptions" with:
      """
      {"task": "${public_task}"}
      """
    Then /result/items matches {"$len": 0}
    When alice performs "task.judge" with:
      """
      {"engagement": "${ep}", "verdict": "adopt"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${eq}", "verdict": "adopt"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${er}", "verdict": "reject", "reason": "no"}
      """
    And dave reads "adoptions" with:
      """
      {"task": "${private_task}"}
      """
    Then it succeeds
    And /result/items matches {"$len": 0}
    When alice reads "adoptions" with:
      """
      {"task": "${private_task}"}
      """
    Then the answer matches:
      | pointer                           | value                    |
      | /result/items                     | {"$len": 1}              |
      | /result/items/0/engagement        | "${ep}"                  |
      | /result/items/0/delivery/payload  | "kept among the parties" |
    When bob reads "adoptions" with:
      """
      {"task": "${private_task}"}
      """
    Then /result/items/0/delivery/payload is "kept among the parties"
    When dave reads "adoptions" with:
      """
      {"task": "${public_task}"}
      """
    Then the answer matches:
      | pointer                                 | value               |
      | /result/items                           | {"$len": 1}         |
      | /result/items/0/delivery/payload        | "for everyone"      |
      | /result/items/0/delivery/memories/0/content | "bob's pinned work" |
    When dave reads "engagement" with:
      """
      {"engagement": "${eq}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When dave reads "memory" with:
      """
      {"memory": "${work}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
