@task @matrix
Feature: Every contract property binds by version, in both directions (§7.1, §7.3, §7.4, §9)
  A revision is a new contract version that binds only the engagements
  formed after it; an engagement keeps its bound version for everything the
  contract says. Each property a revision can change is checked here on an
  engagement formed before the revision and on one formed after it, for a
  revision that changes it one way and for one that changes it back.

  Background:
    Given agents alice, bob, cara, dan and sid

  @KF-7.1-07 @KF-7.1-09 @KF-7.3-07 @KF-7.3-12
  Scenario Outline: A revision of delivery_due from <v1>s to <v2>s: each engagement times out at its own version's deadline
    When alice performs "task.create" with:
      """
      {"title": "Deliver in time", "requirements": "r", "delivery_due": <v1>}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "delivery_due": <v2>}
      """
    Then /result/version is 2
    When cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    And /result/contract_version is 2
    When the clock advances by <between>s
    And bob reads "engagement" with:
      """
      {"engagement": "${e1}"}
      """
    Then the answer matches:
      | pointer                  | value      |
      | /result/contract_version | 1          |
      | /result/state            | "<first>"  |
    When cara reads "engagement" with:
      """
      {"engagement": "${e2}"}
      """
    Then /result/state is "<second>"
    When the clock advances by <past>s
    And cara reads "engagement" with:
      """
      {"engagement": "${e2}"}
      """
    Then /result/state is "timed_out"
    When bob reads "engagement" with:
      """
      {"engagement": "${e1}"}
      """
    Then /result/state is "timed_out"

    @version:before-revision @version:after-revision @revised:longer
    Examples: revised to a longer deadline
      | v1  | v2   | between | first     | second    | past |
      | 600 | 1200 | 601     | timed_out | confirmed | 600  |

    @version:before-revision @version:after-revision @revised:shorter
    Examples: revised to a shorter deadline
      | v1   | v2  | between | first     | second    | past |
      | 1200 | 600 | 601     | confirmed | timed_out | 600  |

  @KF-7.1-07 @KF-7.1-09 @KF-7.3-11 @KF-7.1-08
  Scenario Outline: A revision of judgment_due from <v1>s to <v2>s: each delivery settles at its own version's deadline
    When alice performs "task.create" with:
      """
      {"title": "Judge in time", "requirements": "r", "judgment_due": <v1>}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "judgment_due": <v2>}
      """
    And cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e1}", "payload": "bob's"}
      """
    And cara performs "task.deliver" with:
      """
      {"engagement": "${e2}", "payload": "cara's"}
      """
    Then it succeeds
    When the clock advances by <between>s
    And alice reads "engagement" with:
      """
      {"engagement": "${e1}"}
      """
    Then /result/state is "<first>"
    When alice reads "engagement" with:
      """
      {"engagement": "${e2}"}
      """
    Then /result/state is "<second>"
    When alice reads "turn"
    Then /result/items/*/engagement is <still_owed>

    @version:before-revision @version:after-revision @revised:longer
    Examples: revised to a longer deadline
      | v1  | v2   | between | first     | second    | still_owed |
      | 600 | 1200 | 601     | undecided | delivered | ["${e2}"]  |

    @version:before-revision @version:after-revision @revised:shorter
    Examples: revised to a shorter deadline
      | v1   | v2  | between | first     | second    | still_owed |
      | 1200 | 600 | 601     | delivered | undecided | ["${e1}"]  |

  @KF-7.1-04 @KF-7.1-07 @KF-7.1-08 @KF-7.3-11
  Scenario Outline: A revision of default_outcome from <v1> to <v2>: each unjudged delivery ends as its own version says
    When alice performs "task.create" with:
      """
      {"title": "Silence", "requirements": "r", "judgment_due": 300, "default_outcome": "<v1>"}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "default_outcome": "<v2>"}
      """
    And cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e1}", "payload": "bob's"}
      """
    And cara performs "task.deliver" with:
      """
      {"engagement": "${e2}", "payload": "cara's"}
      """
    And the clock advances by 301s
    And bob reads "engagement" with:
      """
      {"engagement": "${e1}"}
      """
    Then the answer matches:
      | pointer                 | value        |
      | /result/state           | "<v1>"       |
      | /result/history/2/by    | "deadline"   |
    When cara reads "engagement" with:
      """
      {"engagement": "${e2}"}
      """
    Then /result/state is "<v2>"

    @version:before-revision @version:after-revision @revised:to-adopted
    Examples: revised from undecided to adopted
      | v1        | v2      |
      | undecided | adopted |

    @version:before-revision @version:after-revision @revised:to-undecided
    Examples: revised from adopted to undecided
      | v1      | v2        |
      | adopted | undecided |

  @KF-9-12 @KF-7.1-07 @KF-7.1-08
  Scenario Outline: A revision of adopted_readers from <v1> to <v2>: each adoption is listed to the readers its own version names
    When alice performs "task.create" with:
      """
      {"title": "Who reads", "requirements": "r", "adopted_readers": "<v1>"}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "adopted_readers": "<v2>"}
      """
    And cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e1}", "payload": "bob's"}
      """
    And cara performs "task.deliver" with:
      """
      {"engagement": "${e2}", "payload": "cara's"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${e1}", "verdict": "adopt"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${e2}", "verdict": "adopt"}
      """
    Then it succeeds
    When sid reads "adoptions" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement is <listed>
    When alice reads "adoptions" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/engagement is ["${e1}", "${e2}"]

    @version:before-revision @version:after-revision @revised:widened
    Examples: revised from the parties to the audience
      | v1      | v2       | listed    |
      | parties | audience | ["${e2}"] |

    @version:before-revision @version:after-revision @revised:narrowed
    Examples: revised from the audience to the parties
      | v1       | v2      | listed    |
      | audience | parties | ["${e1}"] |

  @KF-7.1-02 @KF-7.1-07 @KF-9-10 @KF-7.3-01
  Scenario Outline: A revision of the inputs from version <v1> to version <v2> of a Memory: each engagement reads the version its own contract pinned
    When alice creates memory brief with content "brief, first"
    And alice updates memory brief with content "brief, second"
    And alice performs "task.create" with:
      """
      {"title": "Read the brief", "requirements": "r", "inputs": [{"memory": "${brief}", "version": <v1>}]}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    And /result/inputs is [{"memory": "${brief}", "version": <v1>}]
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "inputs": [{"memory": "${brief}", "version": <v2>}]}
      """
    And cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    When bob reads "engagement" with:
      """
      {"engagement": "${e1}"}
      """
    Then /result/inputs is [{"memory": "${brief}", "version": <v1>, "content": "<c1>"}]
    When cara reads "engagement" with:
      """
      {"engagement": "${e2}"}
      """
    Then /result/inputs is [{"memory": "${brief}", "version": <v2>, "content": "<c2>"}]

    @version:before-revision @version:after-revision @revised:newer-input
    Examples: revised to the newer version
      | v1 | v2 | c1           | c2            |
      | 1  | 2  | brief, first | brief, second |

    @version:before-revision @version:after-revision @revised:older-input
    Examples: revised back to the older version
      | v1 | v2 | c1            | c2           |
      | 2  | 1  | brief, second | brief, first |

  @KF-7.4-01 @KF-7.4-02 @KF-7.1-05 @KF-7.1-07 @KF-7.1-08
  Scenario Outline: A revision of max_adoptions from <v1> to <v2>: each adoption is held to its own version's limit
    When alice performs "task.create" with:
      """
      {"title": "Few winners", "requirements": "r", "max_adoptions": <v1>}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e1
    When alice performs "task.revise" with:
      """
      {"task": "${t}", "max_adoptions": <v2>}
      """
    And cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e2
    When dan performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e3
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e1}", "payload": "bob's"}
      """
    And cara performs "task.deliver" with:
      """
      {"engagement": "${e2}", "payload": "cara's"}
      """
    And dan performs "task.deliver" with:
      """
      {"engagement": "${e3}", "payload": "dan's"}
      """
    And alice performs "task.judge" with:
      """
      {"engagement": "${e3}", "verdict": "adopt"}
      """
    Then it succeeds
    When alice performs "task.judge" with:
      """
      {"engagement": "${e1}", "verdict": "adopt"}
      """
    Then <first>
    When alice performs "task.judge" with:
      """
      {"engagement": "${e2}", "verdict": "adopt"}
      """
    Then <second>

    @version:before-revision @version:after-revision @revised:raised
    Examples: revised to a higher limit
      | v1 | v2 | first                                                       | second       |
      | 1  | 2  | it is rejected with reason "invalid_state" and next step "stop" | it succeeds  |

    @version:before-revision @version:after-revision @revised:lowered
    Examples: revised to a lower limit
      | v1 | v2 | first       | second                                                          |
      | 2  | 1  | it succeeds | it is rejected with reason "invalid_state" and next step "stop" |
