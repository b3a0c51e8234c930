@planner
Feature: Properties of the planner that vectors express poorly
  Vectors pin one outcome each. These scenarios pin what must hold across
  calls: a plan is a pure function of its inputs, ceilings are never
  exceeded, and what is not granted stays closed.

  Background:
    Given a manifest court:
      """
      project: "kcp-fixture"
      version: "1.0.0"
      kcp_version: "0.32"
      units:
        - id: "filings-paid"
          path: "dockets/paid.md"
          intent: "Court filings full text"
          access: "restricted"
          payment:
            methods:
              - type: "x402"
                price_per_request: "0.30"
                currency: "USDC"
        - id: "filings-brief"
          path: "dockets/brief.md"
          intent: "Court filings brief"
          payment:
            methods:
              - type: "x402"
                price_per_request: "0.10"
                currency: "USDC"
        - id: "filings-digest"
          path: "dockets/digest.md"
          intent: "Court filings digest"
          payment:
            methods:
              - type: "x402"
                price_per_request: "0.10"
                currency: "USDC"
        - id: "filings-index"
          path: "dockets/index.md"
          intent: "Court filings index"
      """

  @KCP-determinism
  Scenario: The same inputs give the same plan, one after another and all at once
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "budget": {"amount": 0.25}, "capabilities": {"paymentMethods": ["free", "x402"], "credentials": ["oauth2"]}}
      """
    Then it succeeds
    And remember /result as first
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "budget": {"amount": 0.25}, "capabilities": {"paymentMethods": ["free", "x402"], "credentials": ["oauth2"]}}
      """
    Then /result is "${first}"
    When the planner plans "court filings" over court 8 times at once with options:
      """
      {"asOf": "2026-07-06", "budget": {"amount": 0.25}, "capabilities": {"paymentMethods": ["free", "x402"], "credentials": ["oauth2"]}}
      """
    Then /result/ok_count is 8
    And /result/outcomes/*/result matches {"$each": "${first}"}

  @KCP-4.14
  Scenario: Projected spend never exceeds the money ceiling, whatever the ceiling
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "budget": {"amount": 0.15}, "capabilities": {"paymentMethods": ["free", "x402"], "credentials": ["oauth2"]}}
      """
    Then it succeeds
    And /result/budget/projectedSpend matches {"$lte": 0.15}
    And /result/budget/remaining matches {"$gte": 0}
    And /result/skipped/*/reason matches {"$contains": "over budget: 0.1 would exceed remaining 0.05 of 0.15 USDC"}
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "budget": {"amount": 0}, "capabilities": {"paymentMethods": ["free", "x402"], "credentials": ["oauth2"]}}
      """
    Then /result/budget/projectedSpend is 0
    And /result/selected/*/id matches {"$set": ["filings-index"]}

  @KCP-fail-closed @KCP-4.11
  Scenario: Without options, paid and restricted units are not load-eligible
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06"}
      """
    Then it succeeds
    And the answer matches:
      | pointer                     | value           |
      | /result/selected/0/id       | "filings-brief" |
      | /result/selected/0/loadEligible | false       |
      | /result/selected/1/id       | "filings-digest" |
      | /result/selected/1/loadEligible | false       |
      | /result/selected/2/id       | "filings-index" |
      | /result/selected/2/loadEligible | true        |
      | /result/selected/3/id       | "filings-paid"  |
      | /result/selected/3/loadEligible | false       |

  @KCP-4.11
  Scenario: A restricted unit is never load-eligible without credentials, even when it is affordable
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "capabilities": {"paymentMethods": ["free", "x402"]}}
      """
    Then it succeeds
    And /result/selected/3/id is "filings-paid"
    And /result/selected/3/loadEligible is false
    When the planner plans "court filings" over court with options:
      """
      {"asOf": "2026-07-06", "strict": true, "capabilities": {"paymentMethods": ["free", "x402"]}}
      """
    Then /result/selected/*/id matches {"$not_contains": "filings-paid"}
    And /result/skipped/*/id matches {"$contains": "filings-paid"}

  # 800 plans (100 on a target that starts a process per plan, such as
  # kcp-agent's command line, where they took 20–34 s): four times the
  # per-check limit (@timeout:4x), so that the check fits it with room.
  @slow @timeout:4x @KCP-determinism @KCP-4.14 @KCP-4.15 @KCP-4.11
  Scenario: Invariants hold on generated manifests and options
    Then the planner keeps its invariants on 200 generated manifests with seed 1
    And the planner keeps its invariants on 200 generated manifests with seed 20261129
