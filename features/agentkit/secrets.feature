Feature: Secrets in the configuration
  A configuration file's ${NAME} placeholders are filled from the
  gateway's environment and its ${secret:NAME} ones from the secrets
  provider app.yaml names (env by default, or file: a YAML file of names and
  values) before the files are read. sifu starts the gateway with the
  variables a check sets and writes the secrets file beside the
  configuration. The README names secrets among the supply and in
  app.yaml; the placeholder forms, the providers and the failures are as
  agent-kit 7a3845b was seen to handle them, and the rules say so. A step's
  ${...} is sifu's own variable, so the checks write a placeholder as $[NAME]
  or $[secret:NAME], and sifu puts ${NAME} or ${secret:NAME} in the
  configuration.

  @AK-SECRET-01
  Scenario: An environment variable's value reaches the remote agents as the header the configuration builds from it
    Given the gateway runs with:
      """
      {"approval": "auto", "env": {"SIFU_TEAM_TOKEN": "tok-7f3a"}, "a2a": [{"name": "team", "headers": {"Authorization": "Bearer $[SIFU_TEAM_TOKEN]"}}]}
      """
    And the model follows script main:
      """
      [{"tool": "researcher", "args": {"task": "t"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "research it" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "researcher-a2a-receipt-1"
    When the requests the remote agents of source team received are read
    Then the answer matches:
      | pointer                               | value |
      | /result/gets/0/headers/Authorization  | "Bearer tok-7f3a" |
      | /result/posts/0/headers/Authorization | "Bearer tok-7f3a" |

  @AK-SECRET-01
  Scenario: An environment variable in an agent file reaches the model inside the system prompt
    Given the gateway runs with:
      """
      {"env": {"SIFU_PERSONA_NAME": "Ada"}, "system": "You are $[SIFU_PERSONA_NAME], the careful one."}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model saw "You are Ada, the careful one." under script main
    And the model did not see "SIFU_PERSONA_NAME" under script main

  @AK-SECRET-02
  Scenario: A $[secret:NAME] placeholder is filled from the environment when the provider is env
    Given the gateway runs with:
      """
      {"approval": "auto", "env": {"SIFU_TEAM_SECRET": "env-tok-52"}, "secrets": {"provider": "env"}, "a2a": [{"name": "team", "headers": {"X-Sifu-Token": "$[secret:SIFU_TEAM_SECRET]"}}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    When the requests the remote agents of source team received are read
    Then /result/gets/0/headers/X-Sifu-Token is "env-tok-52"

  @AK-SECRET-02
  Scenario: A $[secret:NAME] placeholder is filled from the secrets file when the provider is file, not from the environment
    Given the gateway runs with:
      """
      {"approval": "auto", "env": {"SIFU_TEAM_SECRET": "env-tok-52"}, "secrets": {"provider": "file", "file": {"SIFU_TEAM_SECRET": "file-tok-91"}}, "a2a": [{"name": "team", "headers": {"X-Sifu-Token": "$[secret:SIFU_TEAM_SECRET]"}}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    When the requests the remote agents of source team received are read
    Then /result/gets/0/headers/X-Sifu-Token is "file-tok-91"

  @AK-SECRET-03 @startup
  Scenario: An environment variable that is not set fails start-up naming it
    When the gateway is started with:
      """
      {"system": "You are $[SIFU_SURELY_UNSET_VAR_1]."}
      """
    Then the gateway did not start, and its output names "SIFU_SURELY_UNSET_VAR_1"

  @AK-SECRET-03 @startup
  Scenario: A secret the secrets file does not hold fails start-up naming it
    When the gateway is started with:
      """
      {"secrets": {"provider": "file", "file": {"OTHER": "x"}}, "system": "You are $[secret:SIFU_SURELY_UNSET_SECRET]."}
      """
    Then the gateway did not start, and its output names "SIFU_SURELY_UNSET_SECRET"

  @AK-SECRET-04 @startup
  Scenario: A placeholder on a comment line is left alone, so an unset variable there does not stop the gateway
    When the gateway is started with:
      """
      {"comment": "token: $[SIFU_SURELY_UNSET_VAR_2]"}
      """
    Then the gateway started
