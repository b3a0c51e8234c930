@task @matrix
Feature: Task and Memory rules hold for every role (§5, §7, §9)
  The Task rules name their parties: the author, a designated judge, the
  engaged agent, another agent engaged on the same Task, and a stranger.
  The Memory rules name the author and everybody else. Each rule here is
  checked for every one of them, one row per check; a refused request must
  change nothing.

  Background:
    Given agents alice, jay, bob, cara and sid
    When alice creates memory brief with content "the brief"
    And alice performs "task.create" with:
      """
      {"title": "Summarise", "requirements": "one paragraph", "inputs": [{"memory": "${brief}"}], "judge": "${jay}"}
      """
    Then remember /result/task as t
    When bob performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as e
    When cara performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then remember /result/engagement as ec
    When bob performs "task.deliver" with:
      """
      {"engagement": "${e}", "payload": "bob's work"}
      """
    Then it succeeds

  @KF-9-11 @KF-9-10 @KF-8-12
  Scenario Outline: The engagement, its bound inputs and its delivery are read by <role>
    When <who> reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                   | value        |
      | /result/roles             | ["<party>"]  |
      | /result/inputs/0/content  | "the brief"  |
      | /result/delivery/payload  | "bob's work" |

    @role:author
    Examples: the author
      | role       | who   | party   |
      | the author | alice | author  |

    @role:judge
    Examples: the designated judge
      | role                 | who | party |
      | the designated judge | jay | judge |

    @role:engaged
    Examples: the engaged agent
      | role              | who | party   |
      | the engaged agent | bob | engaged |

  @KF-9-11 @KF-12-07 @KF-9-16
  Scenario Outline: The engagement is hidden from <role>, exactly as a missing one
    When <who> reads "engagement" with:
      """
      {"engagement": "eng-0"}
      """
    Then remember the answer as missing
    When <who> reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    And the answer is indistinguishable from missing apart from "${e}" and "eng-0"

    @role:other-engaged
    Examples: another agent engaged on the Task
      | role                                | who  |
      | another agent engaged on the Task   | cara |

    @role:stranger
    Examples: a stranger
      | role       | who |
      | a stranger | sid |

  @KF-9-11 @KF-7.3-05 @KF-8-13
  Scenario Outline: The engagement listing shows <role> exactly the engagements it is party to
    When <who> reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/agent matches {"$set": <agents>}

    @role:author
    Examples: the author
      | role       | who   | agents                   |
      | the author | alice | ["${bob}", "${cara}"]    |

    @role:judge
    Examples: the designated judge
      | role                 | who | agents                |
      | the designated judge | jay | ["${bob}", "${cara}"] |

    @role:engaged
    Examples: engaged agents
      | role                  | who  | agents       |
      | one engaged agent     | bob  | ["${bob}"]   |
      | the other engaged one | cara | ["${cara}"]  |

    @role:stranger
    Examples: a stranger
      | role       | who | agents |
      | a stranger | sid | []     |

  @KF-7-01 @KF-8-05 @KF-L2-03 @role:judge
  Scenario Outline: Judging the delivery is refused to <role>; only the designated judge judges
    When <who> performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When jay reads "engagement" with:
      """
      {"engagement": "${e}"}
      """
    Then the answer matches:
      | pointer         | value       |
      | /result/state   | "delivered" |
      | /result/verdict | absent      |
    When jay performs "task.judge" with:
      """
      {"engagement": "${e}", "verdict": "adopt"}
      """
    Then it succeeds

    @role:author
    Examples: the author, who named another judge
      | role       | who   | reason    |
      | the author | alice | forbidden |

    @role:engaged
    Examples: the engaged agent
      | role              | who | reason    |
      | the engaged agent | bob | forbidden |

    @role:other-engaged
    Examples: another engaged agent
      | role                  | who  | reason    |
      | another engaged agent | cara | not_found |

    @role:stranger
    Examples: a stranger
      | role       | who | reason    |
      | a stranger | sid | not_found |

  @KF-7.3-13 @KF-7.3-06 @KF-L4-01 @KF-L2-03 @role:engaged
  Scenario Outline: Dropping cara's engagement is refused to <role>; only cara ends it
    When <who> performs "task.drop" with:
      """
      {"engagement": "${ec}"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When cara reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then /result/state is "confirmed"
    When cara performs "task.drop" with:
      """
      {"engagement": "${ec}"}
      """
    Then it succeeds

    @role:author
    Examples: the author
      | role       | who   | reason    |
      | the author | alice | forbidden |

    @role:judge
    Examples: the judge
      | role      | who | reason    |
      | the judge | jay | forbidden |

    @role:other-engaged
    Examples: another engaged agent
      | role                  | who | reason    |
      | another engaged agent | bob | not_found |

    @role:stranger
    Examples: a stranger
      | role       | who | reason    |
      | a stranger | sid | not_found |

  @KF-7.3-06 @KF-7.3-08 @KF-L2-03
  Scenario Outline: Delivering on cara's engagement is refused to <role>
    When <who> performs "task.deliver" with:
      """
      {"engagement": "${ec}", "payload": "someone else's work"}
      """
    Then it is rejected with reason "<reason>" and next step "stop"
    When cara reads "engagement" with:
      """
      {"engagement": "${ec}"}
      """
    Then the answer matches:
      | pointer          | value       |
      | /result/state    | "confirmed" |
      | /result/delivery | absent      |

    @role:author
    Examples: the author
      | role       | who   | reason    |
      | the author | alice | forbidden |

    @role:judge
    Examples: the judge
      | role      | who | reason    |
      | the judge | jay | forbidden |

    @role:other-engaged
    Examples: another engaged agent
      | role                  | who | reason    |
      | another engaged agent | bob | not_found |

    @role:stranger
    Examples: a stranger
      | role       | who | reason    |
      | a stranger | sid | not_found |

  @KF-7.2-03 @KF-7.3-02 @KF-L2-03
  Scenario Outline: Taking the Task is refused to <role>, and no engagement arises
    When <who> performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When alice reads "engagements" with:
      """
      {"task": "${t}"}
      """
    Then /result/items/*/agent matches {"$set": ["${bob}", "${cara}"]}
    When sid performs "task.take" with:
      """
      {"task": "${t}"}
      """
    Then it succeeds

    @role:author
    Examples: the author
      | role       | who   |
      | its author | alice |

    @role:judge
    Examples: the judge
      | role      | who |
      | its judge | jay |

  @KF-5-04 @KF-2-02 @KF-L2-03 @role:author
  Scenario Outline: <action> of another agent's readable Memory by <who> is refused, and the Memory stays as it was
    When alice creates memory pub with content "public words"
    And alice publishes memory pub
    And alice creates memory priv with content "private words"
    When bob reads memory pub
    Then remember the answer as before
    When <who> performs "<action>" with:
      """
      {"memory": "${pub}"<extra>}
      """
    Then it is rejected with reason "forbidden" and next step "stop"
    When bob reads memory pub
    Then the answer is indistinguishable from before
    When <who> performs "<action>" with:
      """
      {"memory": "${priv}"<extra>}
      """
    Then it is rejected with reason "not_found" and next step "stop"
    When alice reads memory priv
    Then the answer matches:
      | pointer             | value           |
      | /result/content     | "private words" |
      | /result/visibility  | "private"       |
      | /result/state       | "valid"         |
      | /result/version     | 1               |
    When alice performs "<action>" with:
      """
      {"memory": "${priv}"<extra>}
      """
    Then it succeeds

    @role:non-author
    Examples: an agent engaged on the author's Task
      | action          | who | extra                        |
      | memory.update   | bob | , "content": "other words"   |
      | memory.publish  | bob |                              |
      | memory.withdraw | bob |                              |

    @role:judge @role:non-author
    Examples: the judge of the author's Task
      | action          | who | extra                        |
      | memory.update   | jay | , "content": "other words"   |
      | memory.publish  | jay |                              |
      | memory.withdraw | jay |                              |

    @role:stranger @role:non-author
    Examples: a stranger
      | action          | who | extra                        |
      | memory.update   | sid | , "content": "other words"   |
      | memory.publish  | sid |                              |
      | memory.withdraw | sid |                              |
