"""Judge an agent's answer against the reference, as the paper does (an LLM asked for Yes/No) or offline.

* :class:`LLMJudge`: any OpenAI-compatible chat endpoint, the paper's prompt and system message, temperature 0;
  correct iff the lower-cased reply contains "yes"; an empty answer is wrong without asking.
* :class:`NormalizedMatchJudge`: the offline fallback when no judge model is configured, clearly labelled in
  every report. Correct iff every content word of the normalized reference (lower-cased, punctuation and
  articles removed, digits spelled out as words, a small stop-word list dropped) occurs in the normalized answer.
  It is stricter than an LLM judge on paraphrases and looser on answers that list many candidates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Protocol

from .judge_prompt import JUDGE_PROMPT, JUDGE_SYSTEM


@dataclass
class Verdict:
    correct: bool
    judge: str
    detail: str = ""


class Judge(Protocol):
    name: str

    def judge(self, question: str, reference: str, answer: str) -> Verdict: ...


_STOP = {"a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "is", "are", "was", "were", "be", "it", "its",
         "he", "she", "they", "his", "her", "their", "this", "that", "with", "for", "by", "as", "from", "s"}


def normalize_words(text: str) -> list[str]:
    """Lower-case words without punctuation and stop words; digits spelled out ("X4" -> "x four", "2" -> "two")."""
    from m3_memory.perception.wer import normalize

    return [w for w in normalize(text) if w not in _STOP]


class NormalizedMatchJudge:
    name = "normalized-match (offline fallback, no LLM judge configured)"

    def judge(self, question: str, reference: str, answer: str) -> Verdict:
        ref = normalize_words(reference)
        got = set(normalize_words(answer))
        if not answer.strip() or not ref:
            return Verdict(False, self.name, "empty answer" if not answer.strip() else "empty reference")
        missing = [w for w in ref if w not in got]
        return Verdict(not missing, self.name, f"missing: {' '.join(missing)}" if missing else "all words found")


class LLMJudge:
    def __init__(self, base_url: str, model: str, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 30.0, retries: int = 5) -> None:
        import httpx

        from m3_memory.http_json import auth_headers

        self.name = f"llm:{model}"
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.Client(timeout=timeout_s, headers=auth_headers(api_key or os.environ.get(api_key_env)))
        self._model, self._retries = model, retries

    def judge(self, question: str, reference: str, answer: str) -> Verdict:
        from m3_memory.http_json import HttpApiError, post_json

        if not answer.strip():
            return Verdict(False, self.name, "empty answer")
        prompt = JUDGE_PROMPT.format(question=question, ground_truth_answer=reference, agent_answer=answer)
        body = {"model": self._model, "temperature": 0, "max_tokens": 2048,
                "messages": [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}]}
        try:
            reply = post_json(self._client, self._url, body, self._retries)
            text = reply["choices"][0]["message"]["content"] or ""
        except (HttpApiError, KeyError, IndexError, TypeError) as e:
            return Verdict(False, self.name, f"judge failed: {e}")  # as upstream: a judge error counts as wrong
        return Verdict("yes" in text.lower(), self.name, text.strip()[:200])


def make_judge(config: dict | None) -> Judge:
    if not config or not config.get("base_url"):
        return NormalizedMatchJudge()
    return LLMJudge(**config)
