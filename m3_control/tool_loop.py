"""Reasoning with compositional queries (the embedded default): the model alternates search / query and answer
rounds as M3-Agent-Control does, in the compact one-line form of :mod:`.prompt_tools`; its output is constrained
by a GBNF grammar where the backend supports one (llama.cpp), and parsed tolerantly everywhere else.

* ``find=who rel=right_before other="..."``: a typed frame (:mod:`m3_control.query`) executed by code over
  the turn records visible at the question's time; the answer is phrased from the executed result and checked
  against it (the model chose what to ask; code selected, counted, ordered and compared). A frame that does not
  parse is reported back to the model for another round. ``[Tool] times_spoke("...")`` calls of the entity
  tools (:class:`~m3_control.tools.EntityTools`) are still executed for models that write them.
* ``Search: query``: the best memories (node level, question time respected) are shown with their ids; the
  model then answers and cites them (``... [31]``). Only cited ids that were actually shown count as provenance.
* The first round may not answer (the model has seen no memory yet); the last round must.

Provenance (``Answer.cited_memory_ids`` and ``trace["provenance"]``) is what the answer was derived from: the
memories the model cited, or the turn records a tool read and the memories written from them.
"""

from __future__ import annotations

import re
import time
from typing import Any

from m3_memory.people import PeopleFacts
from m3_memory.store.where import find_place, load_places

from . import quote_fit
from .answerer import Answer, ErrorKind
from .backends.base import ChatBackend, ChatError, StopCheck
from .loop import RoundCallback, RoundInfo, clean_answer
from .prompt_tools import NO_MEMORY, grammar, initial_messages, memories_turn, parse_tools_reply, tool_error_turn
from .query import REFUSAL, QueryError, QueryExecutor, answer_query
from .query import also as query_also
from .query import fidelity as query_fidelity
from .query import person_refs as query_person_refs
from .query import place_refs as query_place_refs
from .query import plans as query_plans
from .query import polarity as query_polarity
from .query import routing as query_routing
from .query import spans as query_spans
from .query import stay_moments as query_stay_moments
from .query import turn_windows as query_turn_windows
from .query.frame import FIND, YES_NO_FIND
from .query.frame import parse as parse_query
from .query.quotes import quote_score
from .query.requests import direct_question
from .query.robot_track import visits
from .query.stopped import described_nobody
from .robot_provenance import robots_of
from .rounds import Rounds
from .search_evidence import SAYS as _SAYS
from .search_evidence import is_evidence
from .tool_result import ToolResult
from .tools import MAX_PROVENANCE_TURNS, EntityTools, ToolError, alias_call

_CITE = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]\s*\.?\s*$")
# A yes/no question starts with an auxiliary verb ("Did ...", "Is ...", "Are ...", "Has ..."); "Who spoke more
# often, A or B?" does not, so a pair tool's "Yes, "/"No, " lead-in is dropped from its answer there.
_YES_NO_QUESTION = query_polarity.YES_NO_QUESTION   # one definition: the query grammar narrows by it too
_POLARITY_LEAD = re.compile(r"^(?:Yes|No), ")
_NAME = re.compile(r"(?<![.!?]\s)\b([A-Z][a-z]{1,20})\b")
_NOT_NAMES = frozenset({"I", "What", "Who", "Where", "When", "Which", "How", "Did", "Was", "Is", "Are", "Were", "Do",
                        "Does", "Has", "Have", "The", "A", "An", "In", "At", "On", "Between", "After", "Before",
                        "Counting", "Of", "Among", "Right", "Just", "Tell", "Please"})
_CLOCK_TIME = re.compile(r"\b\d{1,2}:[0-5]\d\b")
ECHO_MATCH = 0.7    # a picked transcript this close to a quote of the question repeats it (quotes.quote_score)


# Pair tools that ask the same fact with opposite polarity (or when / where), and the question words that pick one.
# A small model sometimes calls same_person for "are they different people?"; the fact is computed either way, only
# the yes/no depends on the question's wording, so the question's own words decide which of the two runs.
_OPPOSITES = [("spoke_before", "spoke_after", re.compile(r"\bbefore\b"), re.compile(r"\bafter\b")),
              ("same_person", "different_people", re.compile(r"\bsame\b"), re.compile(r"\bdifferent\b")),
              ("spoke_more", "spoke_less", re.compile(r"\bmore\b"), re.compile(r"\b(?:less|fewer)\b")),
              # when vs where: "Where did I last see her?" asks for a place, "When ...?" for a time
              ("last_seen", "last_place", re.compile(r"\b(?:when|what time)\b"),
               re.compile(r"\b(?:where|which (?:room|place)|what (?:room|place))\b"))]
_CALL_NAME = re.compile(r"^\s*(\w+)\s*\(")
_QUOTED_SPEECH = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)")


def align_polarity(question: str, call: str) -> str:
    """``call`` with its pair tool swapped for the opposite one when the question's words ask only the opposite
    ("Did A speak after B?" -> spoke_after, whichever of the two the model chose). Other calls: unchanged."""
    m = _CALL_NAME.match(call)
    q = _QUOTED_SPEECH.sub(" ", question.lower())  # words inside quoted speech ask nothing
    for a, b, says_a, says_b in _OPPOSITES:
        if m and m.group(1) in (a, b):
            want = a if says_a.search(q) and not says_b.search(q) else b if says_b.search(q) and not says_a.search(
                q) else m.group(1)
            return want + call[m.end(1):] if want != m.group(1) else call
    return call


def fit_polarity(question: str, answer: str) -> str:
    """A tool answer's "Yes, "/"No, " lead-in only where the question asks yes or no."""
    if _YES_NO_QUESTION.match(question) or not _POLARITY_LEAD.match(answer):
        return answer
    rest = _POLARITY_LEAD.sub("", answer, count=1)
    return rest[:1].upper() + rest[1:]


def _names_words_or_time(question: str) -> bool:
    """The question quotes words or names a clock time: what the turn records can be checked for."""
    return bool(query_fidelity.quotes_of(question) or _CLOCK_TIME.search(question))


def _echoes(question: str, picked: list[dict]) -> bool:
    """Every picked memory is speech whose words are a quote of the question itself (a question about the person
    who said X is not answered by X's words)."""
    quotes = query_fidelity.quotes_of(question)
    if not quotes:
        return False
    for m in picked:
        said = _SAYS.match(m.get("text") or "")
        words = said.group(2) if said else ""
        if not words or not any(max(quote_score(q, words), quote_score(words, q)) >= ECHO_MATCH for q in quotes):
            return False
    return True


def split_citation(text: str) -> tuple[str, list[int]]:
    m = _CITE.search(text)
    if not m:
        return text.strip(), []
    return text[: m.start()].strip(), [int(x) for x in re.findall(r"\d+", m.group(1))]


class ToolReasoningLoop:
    def __init__(self, store: Any, backend: ChatBackend, search_topk: int = 6, default_rounds: int = 3,
                 max_answer_chars: int = 600, min_match: float = 0.6, min_score: float = 0.2) -> None:
        self.store, self.backend = store, backend
        self.tools = EntityTools(store, min_match=min_match)
        self.queries = QueryExecutor(store)   # its own, stricter quote match (query/quotes.py)
        self.search_topk = search_topk
        # memories less similar than this to the query are not shown (all-MiniLM-L6-v2 cosine: unrelated speech
        # scores 0.1-0.2 against a query, a transcript about the asked words 0.25-0.7); with nothing shown the
        # grammar leaves only "I have no memory of that."
        self.min_score = min_score
        self.default_rounds = default_rounds
        self.max_answer_chars = max_answer_chars
        self._grammar_ok = backend.supports_grammar

    def prompt_prefix(self) -> list[dict[str, str]]:
        """The static part of the prompt (for the backend's warm-up), i.e. everything but the question."""
        return initial_messages("")[:-1]

    def _grammar(self, allow: tuple[str, ...], shown: list[int], finds: tuple[str, ...] = FIND) -> dict[str, Any]:
        """The reply grammar for this round, for backends that honour one."""
        return {"grammar": grammar(allow, shown, finds)} if self._grammar_ok else {}

    def _search(self, query: str, before_time: float | None, shown: dict[int, dict], question: str = "") -> list[str]:
        """The memories a search shows the model, best first: alike enough to the query and, where only weakly
        alike, sharing a word with the query or the question (search_evidence.py)."""
        lines: list[str] = []
        texts: set[str] = set()
        timeline = self.store.timeline()
        now = timeline.now(before_time)
        found = self.store.search_nodes(query, topk=3 * self.search_topk, before_time=before_time)
        robots = robots_of(self.store, (m.clip_id for m in found))   # several robots share the memory: whose
        for m in found:
            text = self.store.translate(m.text, before_time=before_time)
            if not text or text in texts:  # the same words said again: shown once (the best-scored memory)
                continue
            if len(lines) >= self.search_topk or (m.score is not None and m.score < self.min_score):
                break  # ranked best first: nothing below the floor is evidence of anything
            texts.add(text)
            if not is_evidence(text, m.score, query, question):
                continue     # alike in form only ("red car" and "Lay blue by C to again"): no evidence
            when = timeline.say(float(m.start_time or 0), now)
            shown[int(m.id)] = {"id": int(m.id), "kind": m.kind, "clip_id": m.clip_id, "text": text, "raw": m.text,
                                "score": round(float(m.score or 0.0), 3), "time": m.start_time}
            robot = robots.get(m.clip_id) if m.clip_id is not None else None
            if robot:
                shown[int(m.id)]["robot"] = robot
            lines.append(f"[{m.id}] {when} {f'({robot}) ' if robot else ''}{text}")
        return lines

    def _names_fit(self, question: str, picked: list[dict], before_time: float | None) -> bool:
        """A name the question asks about ("where did I meet Jonas?") is in the picked memories, or in the names
        of the people they are about; a memory about somebody else is no answer about Jonas."""
        names = _NAME.findall(_QUOTED_SPEECH.sub(" ", question)[1:])   # capitalised words after the first
        names = [n for n in names if n not in _NOT_NAMES]
        if not names:
            return True
        said = " ".join(self._phrase(m, before_time) for m in picked)   # people by their names, where known
        return all(re.search(rf"\b{re.escape(n)}\b", said, re.IGNORECASE) for n in names)

    def _phrase(self, memory: dict, before_time: float | None) -> str:
        """One picked memory as an answer sentence: speech as 'X said "..."', anything else as it stands; names
        where known, otherwise "someone"."""
        from m3_memory.store.retrieval import character_name
        from m3_memory.tags import TAG_RE, replace_tags

        chars = self.store.characters(before_time)

        def name(kind: str, nid: int) -> str | None:
            cid = chars.of_tag(kind, nid)
            return character_name(self.store, cid, before_time) if cid is not None else None

        text = replace_tags(memory.get("raw") or memory["text"], name)
        text = TAG_RE.sub("someone", text).strip()
        m = _SAYS.match(text)
        robot = memory.get("robot")
        if m:
            who, said = m.group(1).strip(), m.group(2).strip().rstrip(".!?")
            return f'{who[:1].upper() + who[1:]} said "{said}"' + (f" ({robot} heard it)." if robot else ".")
        text = text[:1].upper() + text[1:]
        text = text.rstrip(".!?") if robot else text
        return f"{text} ({robot} saw it)." if robot else text if text.endswith((".", "!", "?")) else text + "."

    def _names_known_place(self, question: str) -> bool:
        """A place of the memory's the question names: "no memory" of what happened there is checked on the records
        ("what did people say in the office?" was answered "I have no memory of that", three people spoke there)."""
        return self._named_place(question) is True

    def _names_unknown_place(self, question: str) -> bool:
        """A place the question names that the memory has none of ("what did people say in the lab?" with no lab):
        only the records can say so; a search by meaning found a mis-heard "Labley" and answered from it."""
        return self._named_place(question) is False

    def _named_place(self, question: str) -> bool | None:
        """Whether the place the question names ("in the lab") is one of the memory's; None when it names none (the
        places are read only then: most questions name no place)."""
        if query_fidelity.place_of_question(question, []) is None:
            return None
        places = load_places(self.store)
        words = query_fidelity.place_of_question(question, [p.name for p in places])
        return None if words is None else find_place(places, words) is not None

    def _clean(self, text: str, before_time: float | None, flags: list[str]) -> str:
        return clean_answer(self.store, text, before_time, flags, self.max_answer_chars)

    def run(self, question: str, before_time: float | None = None, max_rounds: int | None = None,
            on_round: RoundCallback | None = None, should_stop: StopCheck | None = None) -> Answer:
        """``should_stop`` (cancel, deadline, shutdown) is checked before every round and handed to the backend,
        which aborts a generation in progress where it can; either way the answer is ``error="cancelled"``.
        Two whole questions joined by ", and" are asked one after the other (also.two_questions)."""
        pair = query_also.two_questions(direct_question(question))
        if pair is None:
            return self._run(question, before_time, max_rounds, on_round, should_stop)
        parts = [self._run(pair[0], before_time, max_rounds, on_round, should_stop)]
        if not parts[0].error:     # a cancel, deadline or failure of the first ends the question
            parts.append(self._run(pair[1], before_time, max_rounds, on_round, should_stop))
        failed = next((a for a in parts if a.error), None)
        trace = {**parts[0].trace, "question": question, "parts": [a.trace for a in parts],
                 "provenance": [p for a in parts for p in a.trace.get("provenance", [])]}
        return Answer(answer=" ".join(a.answer for a in parts if a.answer), trace=trace,
                      rounds_used=sum(a.rounds_used for a in parts), searches=[s for a in parts for s in a.searches],
                      cited_memory_ids=list(dict.fromkeys(i for a in parts for i in a.cited_memory_ids)),
                      error=failed.error if failed else "", error_kind=failed.error_kind if failed else ErrorKind.NONE)

    def _run(self, question: str, before_time: float | None, max_rounds: int | None, on_round: RoundCallback | None,
             should_stop: StopCheck | None) -> Answer:
        rounds = max(2, max_rounds or self.default_rounds)
        asked, question = question, direct_question(question)   # "Can you tell me who ...?" asks who
        also, question = query_also.split(question)   # "..., and in which rooms?": asked of the result (also.py)
        shown: dict[int, dict] = {}
        trace: dict[str, Any] = {"backend": self.backend.name, "prompt": "tools", "question": asked,
                                 "before_time": before_time, "rounds": [], "provenance": [],
                                 "counts": {"invalid": 0, "tool_errors": 0, "repeated_query": 0}}
        # "the last room I went to", "the room where X first spoke": the place's name (place_refs.py)
        question, place_ref = query_place_refs.resolve(question, self.queries, before_time)
        if place_ref is not None:
            trace["place_ref"] = place_ref.trace()
        # "the first person I heard in the porch" inside a question about them: who that is (person_refs.py)
        question, person_ref = query_person_refs.resolve(question, self.queries, before_time)
        if person_ref is not None:
            trace["person_ref"] = person_ref.trace()
        # "after I had been there for 20 seconds": the clock time of that moment (stay_moments.py)
        question, stay = query_stay_moments.resolve(question, self.queries, before_time)
        if stay is not None:
            trace["stay_moment"] = stay.trace()
        # "between A's first and last turns", "in the 20 s after C's first turn": two clock times (turn_windows.py)
        question, window = query_turn_windows.resolve(question, self.queries, before_time)
        if window is not None:
            trace["turn_window"] = window.trace()
        messages = initial_messages(question)   # the model reads the question with the place named
        if question != asked:
            trace["asked_as"] = question
        if also:
            trace["also_asked"] = also
        run = Rounds(self.backend, trace, should_stop, on_round)
        searches, done = run.searches, run.answer
        if place_ref is not None and place_ref.place is None:   # a described place the records do not hold
            return done(Answer(answer=f"I don't know which place you mean by \"{place_ref.said}\": {place_ref.why}.",
                               rounds_used=0), "model")
        if person_ref is not None and person_ref.person is None:   # a rank nobody holds
            return done(Answer(answer=f"I don't know who you mean by \"{person_ref.said}\": {person_ref.why}.",
                               rounds_used=0), "model")
        if window is not None and window.span is None:   # a person never heard (or heard once)
            return done(Answer(answer=f"I can't tell the time \"{window.said}\": {window.why}.", rounds_used=0),
                        "model")
        if stay is not None and stay.at is None:   # a stay that never was (that long)
            return done(Answer(answer=f"I can't tell when I had \"{stay.said}\": {stay.why}.", rounds_used=0), "model")

        finds = query_polarity.finds_for(question)   # the answer's form follows the question's
        yes_no = finds == YES_NO_FIND
        requery = False      # the last frame was refused: the next round writes it again
        refused = False       # an answer refused (echo, another person, unchecked "no memory"): next, a query
        queried = False       # a query ran (its result, not a search, said what the records hold)
        plan = query_plans.plan_for(question)    # a question no one frame says (plans.py)
        # a clock time, a person named by the words they said (matched to what was heard, mis-hearings included), by
        # looks or by rank among the speakers: a search ranks by meaning, only the records can say
        records_only = (bool(_CLOCK_TIME.search(question)) or query_routing.asks_order_of_quote(question)
                        or query_routing.asks_company_of_quote(question) or query_routing.asks_about_looks(question)
                        or query_routing.asks_by_rank(question) or bool(query_fidelity.spoken_quotes(question))
                        or query_routing.asks_turn_count(question) or query_routing.asks_who_spoke(question)
                        or query_routing.asks_own_moves(question) or query_spans.asks_time_between(question)
                        or query_routing.asks_who_was_there(question) or query_routing.asks_talk_seconds(question)
                        or plan is not None or self._names_unknown_place(question))
        refused_frames: set[str] = set()   # frames sent back for what they leave out: written again, they run
        failed_frames: set[str] = set()    # frames that could not run: written again unchanged, nothing will
        fallback: str | None = None   # the refused "no memory", kept if the query that rechecks it cannot run
        for r in range(rounds):
            if run.stopped():
                return run.cancelled(r)
            allow = ("Search", "Query") if r == 0 else ("Answer",) if r == rounds - 1 else ("Search", "Query", "Answer")
            if (r == 0 and (yes_no or records_only) or requery) and r < rounds - 1 or refused:
                allow = ("Query",)   # a picked memory is phrased as a statement: it cannot say yes or no
            requery = refused = False
            try:
                reply, model_s = run.complete(messages, **self._grammar(allow, list(shown), finds))
            except ChatError as e:
                return run.failed(r, e)
            info = RoundInfo(r + 1, "", "", 0, reply=reply, model_s=model_s)
            messages.append({"role": "assistant", "content": reply})
            parsed = parse_tools_reply(reply)
            action, name = parsed.action, parsed.name
            info.action, info.content = action, parsed.content
            row: dict[str, Any] = vars(info)
            if action == "answer":
                text, cited = split_citation(parsed.content)
                valid = [c for c in cited if c in shown]
                if cited and len(valid) < len(cited):
                    info.flags.append("cited_unseen_memory")
                picked = [shown[c] for c in valid]
                echo = bool(valid) and not text and _echoes(question, picked)
                other_person = bool(valid) and not text and not echo and not self._names_fit(question, picked,
                                                                                           before_time)
                misfit = "" if echo or other_person or not valid or text else quote_fit.misfit(
                    self.store, question, picked, before_time)
                other_person = other_person or bool(misfit)
                unchecked = not valid and text == NO_MEMORY and not queried and (
                    _names_words_or_time(question) or self._names_known_place(question))
                if (echo or other_person or unchecked) and r < rounds - 1:
                    # "Who spoke right before the person who said X?" answered by X's own words names the person the
                    # question starts from, not the one it asks for; "no memory" of a quote or a clock time is a
                    # claim about the records that a search by meaning cannot make. Either way the question is
                    # asked again from the start as a query (a fresh prompt: the failed turns only confuse it).
                    why = ("echo_refused", "it repeats the question's quote") if echo else \
                        ("quote_speaker_not_in_answer", misfit) if misfit else \
                        ("name_not_in_answer", "it is not about the person the question names") if other_person else \
                        ("no_memory_rechecked", "no memory, unchecked against the records")
                    info.flags.append(why[0])
                    requery = refused = True
                    fallback = text if unchecked else None
                    row["result"] = {"error": "answer refused: " + why[1]}
                    trace["rounds"].append(row)
                    messages = initial_messages(question)
                    if not run.report(info):
                        return run.cancelled(r + 1)
                    continue
                if not text and valid:  # the model picked memories: the answer is phrased from them
                    text = " ".join(self._phrase(shown[c], before_time) for c in valid)
                text = self._clean(text, before_time, info.flags)
                trace["rounds"].append(row)
                trace["provenance"] = [shown[c] for c in valid]
                run.report(info)
                if not text:
                    return done(Answer(rounds_used=r + 1, error="empty answer",
                                       error_kind=ErrorKind.NO_ANSWER), "error")
                return done(Answer(answer=text, rounds_used=r + 1, cited_memory_ids=valid),
                            "model")
            if action == "tool" and name.lower() == "query":
                queried = True
                t = time.perf_counter()
                try:
                    q = parse_query(parsed.content)
                    aligned = query_polarity.align(question, q)
                    if aligned != q:
                        info.flags.append("polarity_from_question")
                    # a plan's frame keeps its window, place and act; the checks read the question as the plan says
                    asked = question if plan is None else plan.check_question or question
                    if plan is not None:
                        aligned = plan.prepare(aligned)
                    places = [p.name for p in load_places(self.store)]   # read only when a query runs
                    timeline = self.store.timeline()
                    now = timeline.now(before_time)
                    aligned, added, missing = query_fidelity.check(
                        asked, aligned, places, timeline, now, stays=lambda t=now: visits(self.store, t),
                        recorded=lambda t=now: self.store.perceived_until(t),
                        names=lambda: self.queries.names(before_time))
                    aligned = query_polarity.align(asked, aligned)     # relations the check put in
                    aligned = query_turn_windows.pin(aligned, window, timeline, now)
                    if plan is not None:
                        aligned = plan.prepare(aligned)
                    for what in added:
                        info.flags.append(f"{what.split('=')[0].split()[0]}_from_question")
                    beyond = next((m for m in missing if m.startswith("unsupported: ")), None)
                    if beyond is not None:
                        # what the query language cannot say: no frame the model writes answers it
                        info.flags.append("unsupported_question")
                        trace["rounds"].append(row)
                        run.report(info)
                        return done(Answer(answer=f"I can't answer that reliably: {beyond.split(': ', 1)[1]}.",
                                           rounds_used=r + 1), "model")
                    moment = next((m for m in missing if m.startswith("the moment '")), None)
                    if moment is not None:
                        # a move of the robot's its pose track does not hold: no frame the model could write fixes
                        # that, and any time the query could run at is another moment
                        info.flags.append("moment_not_on_track")
                        trace["rounds"].append(row)
                        run.report(info)
                        move = moment.split("'")[1]
                        return done(Answer(answer=f"I don't know: I have no record that {move} by then.",
                                           rounds_used=r + 1), "model")
                    if plan is not None:
                        # a plan that reads the people from the question does not need them in the frame; a clock
                        # time the frame left out is still its window, asked for as for any frame
                        missing = [m for m in missing if plan.keeps(m)]
                    if missing and fallback is not None:   # the recheck does not ask the question: no memory stands
                        info.flags.append("recheck_off_question")
                        trace["rounds"].append(row)
                        run.report(info)
                        return done(Answer(answer=fallback, rounds_used=r + 1), "model")
                    if missing and aligned.compact() in refused_frames:
                        # the model wrote the frame it was told leaves something out again: asking once more
                        # only costs rounds (seconds each). Without the person the question names, its result
                        # is about other people: refused; otherwise it runs as written. The flag says so.
                        info.flags.append("refused_frame_repeated")
                        if any(m.startswith("the words '") for m in missing):
                            trace["rounds"].append(row)
                            run.report(info)
                            return done(Answer(answer=REFUSAL, rounds_used=r + 1), "model")
                    elif missing and r < rounds - 2:   # one more query round is left: the model fixes the frame
                        refused_frames.add(aligned.compact())
                        raise QueryError("the query leaves out " + "; ".join(missing))
                    if plan is not None:
                        info.flags.append(f"plan_{plan.kind}")
                        text, qres = plan.run(self.queries, aligned, before_time)
                    else:
                        text, qres = answer_query(self.queries, aligned.compact(), before_time)
                except Exception as e:   # noqa: BLE001  (any fault of the executor: reported, never raised)
                    # a frame that does not fit (QueryError), or a fault of the executor on this memory: reported
                    # to the model for another round and recorded, never raised out of the loop
                    info.flags.append("query_error" if isinstance(e, QueryError) else "query_failed")
                    requery = isinstance(e, QueryError)
                    trace["counts"]["tool_errors"] += 1
                    err = str(e) if isinstance(e, QueryError) else f"the query failed ({type(e).__name__}: {e})"
                    row["result"] = {"error": err}
                    trace["rounds"].append(row)
                    if fallback is not None:   # the recheck of a "no memory" cannot run: no memory stands
                        run.report(info)
                        return done(Answer(answer=fallback, rounds_used=r + 1), "model")
                    if parsed.content in failed_frames and not shown:
                        # the same frame that could not run, written again: more rounds only cost seconds, and
                        # the last one could only say "no memory", which nobody checked. It says so instead.
                        info.flags.append("failed_frame_repeated")
                        run.report(info)
                        return done(Answer(answer=REFUSAL, rounds_used=r + 1), "model")
                    failed_frames.add(parsed.content)
                    messages.append(tool_error_turn(err))
                    if not run.report(info):
                        return run.cancelled(r + 1)
                    continue
                text = described_nobody(qres, question, query_fidelity.quotes_of(question)) or text
                more = query_also.answer(also, qres, self.queries, text) if also else ""
                if also:
                    info.flags.append(f"also_{also}" if more else f"also_{also}_unanswered")
                info.search_s = time.perf_counter() - t
                info.results = len(qres.events)
                # (the turn a described place was found by is part of what the answer came from: place_refs.py)
                placed = [r.turn for r in (place_ref, person_ref) if r is not None and r.turn is not None
                          and r.turn not in qres.events]
                turns = qres.events[:MAX_PROVENANCE_TURNS - len(placed)] + placed
                turns = PeopleFacts(self.store, before_time).with_memories(turns)
                prov = ToolResult(aligned.compact(), text, [], turns)
                row.update(query=aligned.compact(), result=qres.trace())
                trace["rounds"].append(row)
                trace["provenance"] = prov.provenance()
                run.report(info)
                text = fit_polarity(question, query_polarity.fit(question, aligned, text))
                text = f"{text} {more}" if more else text
                return done(Answer(answer=text, rounds_used=r + 1,
                                   cited_memory_ids=prov.memory_ids), "model")
            if action == "tool":
                t = time.perf_counter()
                try:
                    call = parsed.content if name.lower() == "tool" else alias_call(name, parsed.content)
                    aligned = align_polarity(question, call)
                    if aligned != call:
                        info.flags.append("polarity_from_question")
                        call = aligned
                    res = self.tools.run(call, before_time)
                except ToolError as e:
                    info.flags.append("tool_error")
                    trace["counts"]["tool_errors"] += 1
                    row["result"] = {"error": str(e)}
                    trace["rounds"].append(row)
                    messages.append(tool_error_turn(str(e)))
                    if not run.report(info):
                        return run.cancelled(r + 1)
                    continue
                info.search_s = time.perf_counter() - t
                info.results = len(res.turns)
                row.update(tool=res.call, result={"answer": res.answer, "facts": res.facts, "value": res.value,
                                                  "resolved": res.resolved})
                trace["rounds"].append(row)
                trace["provenance"] = res.provenance()
                run.report(info)
                mids = res.memory_ids
                return done(Answer(answer=fit_polarity(question, res.answer), rounds_used=r + 1,
                                   cited_memory_ids=mids), "model")
            if action == "invalid":
                info.flags.append("invalid")
                trace["counts"]["invalid"] += 1
                lines: list[str] = []
                messages.append(tool_error_turn(f"unreadable reply ({parsed.reason}); reply in one line: find=..., "
                                                f"Search: ... or Answer: ..."))
            else:  # search
                if parsed.content in searches:
                    info.flags.append("repeated_query")
                    trace["counts"]["repeated_query"] += 1
                searches.append(parsed.content)
                t = time.perf_counter()
                lines = self._search(parsed.content, before_time, shown, question)
                info.search_s = time.perf_counter() - t
                info.results = len(lines)
                messages.append(memories_turn(lines))
            row["result"] = lines
            trace["rounds"].append(row)
            if not run.report(info):
                return run.cancelled(r + 1)
        return run.no_answer(rounds)
