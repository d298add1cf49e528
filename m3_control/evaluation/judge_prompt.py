"""The answer-judging prompt of the M3-Agent paper's evaluation, verbatim.

Source: ByteDance-Seed/m3-agent, commit 0e3e41939bd8, ``mmagent/prompts.py:992-1013``
(``prompt_agent_verify_answer_referencing``), sent with the system message of ``mmagent/utils/chat_api.py:275``.
Verbatim so that scores are comparable with the paper's.
"""

# ruff: noqa: E501, W191, RUF001
JUDGE_SYSTEM = "You are an expert in video understanding."
JUDGE_PROMPT = """You are provided with a question, a ground truth answer, and an answer from an agent model. Your task is to determine whether the ground truth answer can be logically inferred from the agent's answer, in the context of the question.

Do not directly compare the surface forms of the agent answer and the ground truth answer. Instead, assess whether the meaning expressed by the agent answer supports or implies the ground truth answer. If the ground truth can be reasonably derived from the agent answer, return "Yes". If it cannot, return "No".

Important notes:
	•	Do not require exact wording or matching structure.
	•	Semantic inference is sufficient, as long as the agent answer entails or implies the meaning of the ground truth answer, given the question.
	•	Only return "Yes" or "No", with no additional explanation or formatting.

Input fields:
	•	question: the question asked
	•	ground_truth_answer: the correct answer
	•	agent_answer: the model's answer to be evaluated

Now evaluate the following input:

Input:
	•	question: {question}
	•	ground_truth_answer: {ground_truth_answer}
	•	agent_answer: {agent_answer}

Output ('Yes' or 'No'):"""
