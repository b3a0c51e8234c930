Feature: The vector (RAG) source
  A source of type vector is a retrieval tool over a knowledge base; with
  the built-in in-memory backend its documents are listed in the config.
  The documents here are Chinese, as the README's own example is, so that
  which of them share text with a query is plain. Where the README says
  nothing of a behaviour, what agent-kit 7a3845b was seen to do decides, and
  the rule says so.

  @AK-RAG-01
  Scenario: A vector source offers one retrieval tool, search_knowledge_base by default, that runs without approval
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "docs": ["退货政策:七天无理由退货", "礼品卡永久有效"]}]}
      """
    And the model follows script main:
      """
      [{"tool": "search_knowledge_base", "args": {"query": "退货要几天"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "退货政策"
    And the model was offered the tools search_knowledge_base and deduct under script main

  @AK-RAG-01
  Scenario: A vector source's tool_name names its tool
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "tool_name": "search_policies", "docs": ["退货政策:七天无理由退货"]}]}
      """
    And the model follows script main:
      """
      [{"text": "hello"}]
      """
    When a message "hi" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "hello"
    And the model was offered the tool search_policies under script main
    And the model was not offered a tool named search_knowledge_base under script main

  @AK-RAG-02
  Scenario: A search returns the documents that share text with the query, numbered, and not the others
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "docs": ["礼品卡永久有效", "退货政策:七天无理由退货", "物流:欧洲五个工作日送达"]}]}
      """
    And the model follows script main:
      """
      [{"tool": "search_knowledge_base", "args": {"query": "退货要几天"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw:"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer            | value |
      | /result/tool_text  | {"$contains": "[doc 1] 退货政策:七天无理由退货"} |
      | /result/tool_text  | {"$not_contains": "礼品卡"} |
      | /result/tool_text  | {"$not_contains": "物流"} |
      | /result/tool_text  | {"$not_contains": "[doc 2]"} |

  @AK-RAG-02
  Scenario: A search that no document matches says so
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "docs": ["礼品卡永久有效"]}]}
      """
    And the model follows script main:
      """
      [{"tool": "search_knowledge_base", "args": {"query": "退货"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "no relevant documents found"

  @AK-RAG-03
  Scenario: top_k bounds how many documents come back, those sharing the most with the query first
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "top_k": 2, "docs": ["退货需保留发票", "退货运费由买家承担", "退货政策:七天无理由退货"]}]}
      """
    And the model follows script main:
      """
      [{"tool": "search_knowledge_base", "args": {"query": "退货政策运费"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "saw:"
    When the model's requests under script main are read
    Then the answer matches:
      | pointer            | value |
      | /result/tool_text  | {"$contains": "[doc 1] 退货政策:七天无理由退货\\n[doc 2] 退货运费由买家承担"} |
      | /result/tool_text  | {"$not_contains": "发票"} |

  @AK-RAG-03
  Scenario: max_doc_len cuts a returned document to that many characters, marked with an ellipsis
    Given the gateway runs with:
      """
      {"vector": [{"name": "kb", "max_doc_len": 4, "docs": ["退货政策:七天无理由退货"]}]}
      """
    And the model follows script main:
      """
      [{"tool": "search_knowledge_base", "args": {"query": "退货政策"}}, {"text": "saw: {{tools}}"}]
      """
    When a message "look it up" under script main is sent to assistant on session s1
    Then the turn is done with an answer containing "[doc 1] 退货政策..."
    When the model's requests under script main are read
    Then /result/tool_text matches {"$not_contains": "七天"}
