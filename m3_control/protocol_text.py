"""Exact protocol strings of the M3-Agent-Control model (the interface it was trained with by RL).

Source: ByteDance-Seed/m3-agent, commit 0e3e41939bd8, ``m3_agent/control.py``: system prompt (line 79),
per-round instruction (80-89), ``Searched knowledge:`` turns (128, 164), the empty-result hint (130), the
final-round note (175) and the Action/Content regex (98). Identical in M3-Agent-Training
``verl/trainer/ppo/ray_trainer.py:73-83``. Verbatim on purpose: the released checkpoint must see what it was
trained with.
"""

# ruff: noqa: E501
SYSTEM_PROMPT = 'You are given a question and some relevant knowledge. Your task is to reason about whether the provided knowledge is sufficient to answer the question. If it is sufficient, output [Answer] followed by the answer. If it is not sufficient, output [Search] and generate a query that will be encoded into embeddings for a vector similarity search. The query will help retrieve additional information from a memory bank.\n\nQuestion: {question}'
INSTRUCTION = '\n\nOutput the answer in the format:\nAction: [Answer] or [Search]\nContent: {content}\n\nIf the answer cannot be derived yet, the {content} should be a single search query that would help retrieve the missing information. The search {content} needs to be different from the previous.\nYou can get the mapping relationship between character ID and name by using search query such as: "What is the name of <character_{i}>" or "What is the character id of {name}".\nAfter obtaining the mapping, it is best to use character ID instead of name for searching.\nIf the answer can be derived from the provided knowledge, the {content} is the specific answer to the question. Only name can appear in the answer, not character ID like <character_{i}>.'
FINAL_ROUND_NOTE = '\n(The Action of this round must be [Answer]. If there is insufficient information, you can make reasonable guesses.)'
SEARCHED_KNOWLEDGE = "Searched knowledge: "
INITIAL_KNOWLEDGE = "Searched knowledge: {}"
EMPTY_RESULT_HINT = '\n(The search result is empty. Please try searching from another perspective.)'
ACTION_PATTERN = r"Action: \[(.*)\].*Content: (.*)"
CHARACTER_ID_MARKER = "character id"
