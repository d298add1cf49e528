"""Multi-turn reasoning over memory: the model alternates [Search] and [Answer] (M3-Agent-Control protocol).

Each round: the per-round instruction is appended to the last user turn, the backend generates, the reply is
parsed; a search runs against the store with the question's time bound and its result becomes the next user turn
(``Searched knowledge: {"CLIP_3": [...]}``, memories shown with ``<character_k>`` ids). A query containing
"character id" returns node-level matches (top 20); other queries return the top clips not shown before
(top 2, threshold 0.5). The last round forces an answer; no search is run after it (upstream ran one).

Garbage is handled, counted in the trace and never raised: unparseable replies and empty content (round
wasted, flagged ``invalid``), repeated queries (``repeated_query``; already-shown clips are excluded so the
result is usually the empty hint), answers longer than ``max_answer_chars`` (cut, ``truncated_answer``),
raw or character ids in an answer (names substituted where known, otherwise "someone": ``id_in_answer``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from m3_memory.people import PeopleFacts
from m3_memory.tags import TAG_RE

from .answerer import Answer
from .backends.base import ChatBackend, ChatError, StopCheck
from .protocol import add_round_instruction, initial_messages, parse_reply, search_result_message
from .protocol_text import CHARACTER_ID_MARKER
from .rounds import Rounds

log = logging.getLogger(__name__)


def clean_answer(store: Any, text: str, before_time: float | None, flags: list[str], max_chars: int) -> str:
    """Cut an over-long answer (flag ``truncated_answer``); raw or character ids become names where known, else
    "someone" (flag ``id_in_answer``): only names may appear in an answer."""
    if len(text) > max_chars:
        text = text[:max_chars].rstrip() + " ..."
        flags.append("truncated_answer")
    if TAG_RE.search(text):
        flags.append("id_in_answer")
        text = store.translate(text, names=True, before_time=before_time, hide_equivalences=False)
        text = TAG_RE.sub("someone", text)
    return text.strip()


@dataclass
class RoundInfo:
    round: int
    action: str
    content: str
    results: int
    flags: list[str] = field(default_factory=list)
    reply: str = ""
    model_s: float = 0.0
    search_s: float = 0.0


RoundCallback = Callable[[RoundInfo], bool]   # return False to cancel


class ReasoningLoop:
    def __init__(self, store: Any, backend: ChatBackend, topk: int = 2, threshold: float = 0.5,
                 node_topk: int = 20, max_answer_chars: int = 2000, default_rounds: int = 5,
                 max_consecutive_invalid: int | None = None) -> None:
        self.store, self.backend = store, backend
        self.topk, self.threshold, self.node_topk = topk, threshold, node_topk
        self.max_answer_chars = max_answer_chars
        self.default_rounds = default_rounds
        # None: upstream behaviour (keep going until the round limit). A number: stop after that many unparseable
        # replies in a row (a weak model that never follows the format wastes no more time).
        self.max_consecutive_invalid = max_consecutive_invalid
        from .query import QueryExecutor
        from .tools import EntityTools

        self.tools = EntityTools(store)
        self.queries = QueryExecutor(store)

    # -- search -----------------------------------------------------------------------------------
    def _search(self, query: str, before_time: float | None, shown: set[int], seen_mem: dict[int, dict]
                ) -> dict[str, list[str]]:
        result: dict[int, list[str]] = {}
        if CHARACTER_ID_MARKER in query:
            mems = self.store.search_nodes(query, topk=self.node_topk, before_time=before_time)
            for m in mems:
                text = self.store.translate(m.text, before_time=before_time)
                if text:
                    result.setdefault(m.clip_id, []).append(text)
                    seen_mem.setdefault(m.id, {"text": text, "score": m.score or 0.0, "clip": m.clip_id})
        else:
            hits = self.store.search_clips(query, topk=self.topk, threshold=self.threshold, before_time=before_time,
                                           exclude_clips=shown)
            for h in hits:
                shown.add(h.clip_id)
                for m in h.memories:
                    text = self.store.translate(m.text, before_time=before_time)
                    if text:
                        result.setdefault(h.clip_id, []).append(text)
                        seen_mem.setdefault(m.id, {"text": text, "score": m.score or 0.0, "clip": h.clip_id})
        return {f"CLIP_{c}": result[c] for c in sorted(result)}

    # -- answer post-processing -------------------------------------------------------------------
    def _clean_answer(self, text: str, before_time: float | None, flags: list[str]) -> str:
        return clean_answer(self.store, text, before_time, flags, self.max_answer_chars)

    @staticmethod
    def _cite(answer: str, seen: dict[int, dict], limit: int = 50) -> list[int]:
        """The plain protocol has no citations: what the answer was derived from is what the model was shown
        (search results and tool facts, in the order shown), recorded while the loop ran, never guessed from
        the answer's words."""
        return list(seen)[:limit]

    def _tool(self, action: str, content: str, before_time: float | None, seen_mem: dict[int, dict]
              ) -> dict[str, list[str]]:
        """A tool action in the plain protocol ([Tool] call, [Characters], [Timeline] <character_k>, [Who] t1-t2):
        its facts and computed answer come back as searched knowledge."""
        from .query import QueryError, answer_query
        from .tools import ToolError, alias_call

        if action.lower() == "query":
            try:
                answer, qres = answer_query(self.queries, content, before_time)
            except QueryError as e:
                return {"TOOL_ERROR": [str(e)]}
            for t in PeopleFacts(self.store, before_time).with_memories(qres.events[:100]):
                for mid in t.memory_ids:
                    seen_mem.setdefault(mid, {"text": t.text, "score": 1.0, "clip": t.clip_id, "turn": t.id})
            return {f"QUERY {qres.query.compact()}": [f"Result: {answer}"]}
        try:
            call = content if action.lower() == "tool" else alias_call(action, content)
            res = self.tools.run(call, before_time)
        except ToolError as e:
            return {"TOOL_ERROR": [str(e)]}
        for t in res.turns:
            for mid in t.memory_ids:
                seen_mem.setdefault(mid, {"text": t.text, "score": 1.0, "clip": t.clip_id, "turn": t.id})
        return {f"TOOL {res.call}": [*res.facts, f"Result: {res.answer}"]}

    # -- the loop ---------------------------------------------------------------------------------
    def run(self, question: str, before_time: float | None = None, max_rounds: int | None = None,
            on_round: RoundCallback | None = None, should_stop: StopCheck | None = None) -> Answer:
        """``should_stop`` (cancel, deadline, shutdown) is checked before every round and handed to the backend,
        which aborts a generation in progress where it can; either way the answer is ``error="cancelled"``."""
        rounds = max_rounds or self.default_rounds
        messages = initial_messages(question)
        shown: set[int] = set()
        seen_mem: dict[int, dict] = {}
        trace: dict[str, Any] = {"backend": self.backend.name, "question": question, "before_time": before_time,
                                 "rounds": [], "counts": {"invalid": 0, "repeated_query": 0, "empty_result": 0}}
        run = Rounds(self.backend, trace, should_stop, on_round)
        searches = run.searches
        invalid_run = 0
        for r in range(rounds):
            if run.stopped():
                return run.cancelled(r)
            final = r == rounds - 1
            add_round_instruction(messages, final)
            try:
                reply, model_s = run.complete(messages)
            except ChatError as e:
                return run.failed(r, e)
            info = RoundInfo(r + 1, "", "", 0, reply=reply, model_s=model_s)
            messages.append({"role": "assistant", "content": reply})
            parsed = parse_reply(reply)
            info.action, info.content = parsed.action, parsed.content
            tool_action = parsed.name if parsed.action == "tool" else ""
            if parsed.action == "answer":
                answer = self._clean_answer(parsed.content, before_time, info.flags)
                trace["rounds"].append(vars(info))
                run.report(info)
                trace["provenance"] = [{"id": k, **v, "basis": "shown to the model"} for k, v in seen_mem.items()]
                return run.answer(Answer(answer=answer, rounds_used=r + 1,
                                         cited_memory_ids=self._cite(answer, seen_mem)), "model")
            result: dict[str, list[str]] = {}
            invalid_run = invalid_run + 1 if parsed.action == "invalid" else 0
            if parsed.action == "invalid":
                info.flags.append("invalid")
                trace["counts"]["invalid"] += 1
            elif not final:
                if parsed.content in searches:
                    info.flags.append("repeated_query")
                    trace["counts"]["repeated_query"] += 1
                searches.append(parsed.content)
                t = time.perf_counter()
                result = (self._tool(tool_action, parsed.content, before_time, seen_mem) if tool_action else
                          self._search(parsed.content, before_time, shown, seen_mem))
                info.search_s = time.perf_counter() - t
                info.results = sum(len(v) for v in result.values())
                if not result:
                    trace["counts"]["empty_result"] += 1
            trace["rounds"].append({**vars(info), "result": result})
            if not run.report(info):
                return run.cancelled(r + 1)
            if self.max_consecutive_invalid and invalid_run >= self.max_consecutive_invalid:
                return self._cited(run.no_answer(r + 1, f" ({invalid_run} unparseable replies in a row)"), seen_mem)
            messages.append(search_result_message(result))
        return self._cited(run.no_answer(rounds), seen_mem)

    def _cited(self, answer: Answer, seen_mem: dict[int, dict]) -> Answer:
        """A failed answer still names what the model was shown (the fallback's caller may use it)."""
        answer.cited_memory_ids = self._cite("", seen_mem)
        return answer
