"""Judge an agent's answer against the reference, as the paper does (an LLM asked for Yes/No) or offline.

* :class:`LLMJudge`: any OpenAI-compatible chat endpoint, the paper's prompt and system message, temperature 0;
  correct iff the lower-cased reply contains "yes"; an empty answer is wrong without asking.
* :class:`StrictMatchJudge`: the offline default when no judge model is configured, clearly labelled in every
  report: counts, yes/no and open answers judged by rules (see its docstring); an answer that lists several
  candidates, or states a second count, is wrong. ``Verdict.detail`` says why.
* :class:`NormalizedMatchJudge`: the former offline default, kept for comparison. Correct iff every content word
  of the normalized reference (lower-cased, punctuation and articles removed, digits spelled out as words, a small
  stop-word list dropped) occurs in the normalized answer, so it accepts shotgun answers and wrong counts that
  also state the right number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from m3_memory.perception.wer import HOMOPHONES  # one table, shared with the query quote matcher
from m3_memory.timeline import Timeline

from ..query.words import ONE_TO_TWENTY
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


# Open answers about speech are judged on the *spoken* words: words that sound the same are one word, since a
# transcript has to pick a spelling for them ("lay blue by c to again" is what "lay blue by c two again" sounds
# like). Mis-heard words ("bimblue" for "bin blue") still fail. Counts and yes/no are not affected.

def spoken_words(text: str, stop_homophones: bool = True) -> list[str]:
    """:func:`normalize_words` with homophones mapped to one spelling (before stop words are dropped: "c to" is
    "c two"). ``stop_homophones=False`` drops a stop word whatever it sounds like ("for the last time" asserts no
    "four"): for counting what else an answer says."""
    from m3_memory.perception.wer import normalize

    return [w for w in (HOMOPHONES.get(x, x) for x in normalize(text) if stop_homophones or x not in _STOP)
            if w not in _STOP]


class NormalizedMatchJudge:
    """Every reference content word occurs in the answer (the former default; lenient, for comparison)."""

    name = "normalized-match (offline fallback, no LLM judge configured)"

    def judge(self, question: str, reference: str, answer: str) -> Verdict:
        ref = normalize_words(reference)
        got = set(normalize_words(answer))
        if not answer.strip() or not ref:
            return Verdict(False, self.name, "empty answer" if not answer.strip() else "empty reference")
        missing = [w for w in ref if w not in got]
        return Verdict(not missing, self.name, f"missing: {' '.join(missing)}" if missing else "all words found")


# (not "a" / "an": an answer's article is no count)
_NUMBER_WORDS = {"zero": 0, **{w: i for i, w in enumerate(ONE_TO_TWENTY, 1)}, "once": 1, "twice": 2, "thrice": 3,
                 "never": 0, "none": 0, "nobody": 0}
_COUNT_QUESTION = re.compile(r"\bhow (?:many|often)\b|\bnumber of\b")
_COUNT_UNITS = {"time", "times"}
_NO_ONE_ANYWHERE = re.compile(r"\bno[\s-]+one\b")
_NO_ONE = re.compile(r"\s*no[\s-]+one\b", re.IGNORECASE)
_ABSTAIN = re.compile(
    r"\b(?:no (?:stored |relevant )?(?:memory|memories|information|record|records|idea)"
    r"|(?:dont|do not|cannot|cant|can not|could not|couldnt) (?:know|remember|recall|tell|say|answer|find)"
    r"|not (?:mentioned|in (?:my )?memory)|unable to (?:answer|tell|find|recall))\b|^(?:unknown|not known)$")
_QUOTES = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
# Words an answer may add around the reference without asserting anything new (besides stop words).
_FILLER_WORDS = (
    "said says say saying told tell tells person people someone somebody man woman men women they he she him her "
    "them heard hear saw see seen spoke speak speaks speaking asked ask asks who whom was were the i me my we memory "
    "memories remember recall think believe probably answer according character sentence words phrase quote then also "
    "did do does had has have been being there extractive video clip")
FILLER = frozenset(_FILLER_WORDS.split())
# Words the question said in other words: an answer to "which room had the fewest turns?" that says "least often"
# restates the question, it asserts nothing else. Only same-sense words: "most" for "fewest" stays other content.
_SAME_SENSE = tuple(frozenset(g.split()) for g in ("least fewest fewer less", "most more greatest largest"))


def _same_sense(words: set[str]) -> set[str]:
    return {w for g in _SAME_SENSE if words & g for w in g}


# Not counts: clock times ("between 00:40 and 00:55"); quoted speech (_QUOTES) neither.
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")


def _number_tokens(text: str) -> list[int | float]:
    """Numbers stated in ``text``: digit runs as written ("15" is fifteen, not "one five" as wer.normalize spells it
    for ASR), number words zero..twenty, once/twice/thrice, and never/none/nobody/no one as 0."""
    t = _NO_ONE_ANYWHERE.sub(" nobody ", (text or "").lower())
    out: list[int | float] = []
    for tok in re.findall(r"\d+(?:\.\d+)?|[a-z]+", t):
        if tok[0].isdigit():
            v = float(tok)
            out.append(int(v) if v.is_integer() else v)
        elif tok in _NUMBER_WORDS:
            out.append(_NUMBER_WORDS[tok])
    return out


def _is_bare_count(reference: str) -> bool:
    """The reference is only a number, optionally "N times" ("5", "2 times", "twice", "Five.")."""
    t = _NO_ONE_ANYWHERE.sub(" nobody ", (reference or "").lower())
    toks = [w for w in re.findall(r"\d+(?:\.\d+)?|[a-z]+", t) if w not in _STOP and w not in _COUNT_UNITS]
    return bool(toks) and all(w[0].isdigit() or w in _NUMBER_WORDS for w in toks)


def _fmt_numbers(nums: Iterable[int | float]) -> str:
    return ", ".join(str(n) for n in sorted(set(nums))) or "none"


def _polarities(text: str, about_same: bool) -> list[str]:
    """Yes/no assertions of ``text`` in order: a clause (split at punctuation and and/or/but) that starts with
    "yes" or "no"; when the question asks whether something is the "same", also "same person/people/one" (yes) and
    "not the same" / "different person(s)/people" (no)."""
    from m3_memory.perception.wer import normalize

    found: list[tuple[int, str]] = []
    pos = 0
    for clause in re.split(r"[.,;:!?\n]+|\b(?:and|or|but)\b", (text or "").lower()):
        words = normalize(clause)
        if words and words[0] in ("yes", "no"):
            found.append((pos, words[0]))
        pos += len(clause) + 1
    if about_same:
        joined = " ".join(normalize(text))
        no_spans = [m.span() for m in re.finditer(r"\bnot (?:the )?same\b|\bdifferent (?:person|persons|people)\b",
                                                  joined)]
        offset = len(text) + 1  # phrase assertions count after the clause-initial yes/no of the same answer
        found += [(offset + s, "no") for s, _ in no_spans]
        found += [(offset + m.start(), "yes") for m in re.finditer(r"\bsame (?:person|people|one|man|woman)\b", joined)
                  if not any(s <= m.start() < e for s, e in no_spans)]
    return [p for _, p in sorted(found)]


class StrictMatchJudge:
    """The offline default when no judge model is configured (labelled as such in every report).

    Rules, chosen by the reference (and the question); ``detail`` gives the reason in words:

    0. Abstentions: an empty answer is wrong; an answer saying it has no memory ("I have no memory of that",
       "I don't know", "No stored memory matches ...", just "Unknown") is right only if the reference says the
       same kind of thing. Hedges around content ("not sure, but ...") are judged on the content.
    1. Counts: the question asks "how many" / "how often" / "number of" and the reference states a number, or the
       reference is only a number ("5", "2 times", "twice"). Numbers are digit runs, number words zero..twenty,
       once/twice/thrice, never/none/nobody/no one (= 0). Right iff every reference number is in the answer and
       the answer states no other number ("There were 5 people, maybe 6" is wrong). Numbers inside quoted speech
       and clock times (00:40) are not counts and are ignored.
    1b. Times: the reference states clock times ("1:35", "at 01:35"). Right iff every reference time is within
       :data:`TIME_TOLERANCE_S` of a time the answer states, or inside a span it states ("from 01:33 to 01:37",
       at most :data:`MAX_SPAN_S` wide),
       and every time the answer states is near a reference time or bounds such a span ("at 01:35 or 02:10" is
       wrong).
    2. Yes/no: the normalized reference starts with "yes" or "no". The answer's polarity is its first yes/no
       assertion (a clause starting with yes/no; for "same ...?" questions also "same person" = yes and
       "not the same" / "different people" = no). Right iff it equals the reference's and the answer asserts no
       opposite ("Yes and no" is wrong). Whatever the reference says after its yes/no is not judged.
    3. Open answers (clock times in the answer are not counted as content): every reference content word
       (as :func:`spoken_words`: homophones are one word) must occur in the answer, and the answer must not
       assert other content: (a) two or more different quoted segments of which one is not made of
       reference/question words are wrong (a shotgun of candidate quotes); (b) the answer's distinct content
       words found in neither the reference, nor the question, nor :data:`FILLER` may number at most
       ``max(3, len(reference content words) // 2)`` -- room for "He said ..." framing and a short paraphrase,
       not for a second memory; (c) an alternative it offers ("in the kitchen or the lab": content words after
       "or"/"either" that the reference lacks) is a hedge between answers, wrong however short.

    Known limits: a second candidate that differs from the right one in one or two words, unquoted, stays
    within the allowance; paraphrases with other words fail where an LLM judge would accept them.
    """

    name = "strict-match (offline, no LLM judge configured)"

    def __init__(self, timeline: Timeline | None = None) -> None:
        # a memory on the wall clock (a robot's recording) answers "at 09:00:40" where the reference says "0:40"
        # into the recording: with its timeline, a stated wall time counts as the same instant of the recording
        self.timeline = timeline if timeline is not None and timeline.is_wall else None

    def _instants(self, clock: str) -> tuple[float, ...]:
        """The recording times a clock time in an answer may state: itself, and on a wall-clock memory the wall
        time of that day (or the next) since the recording began."""
        t = _seconds(clock)
        if self.timeline is None or t >= 24 * 3600:
            return (t,)
        start = self.timeline.wall(0.0)
        parts = [int(x) for x in clock.split(":")] + [0]
        day = start.replace(hour=parts[0], minute=parts[1], second=parts[2] if clock.count(":") == 2 else 0,
                            microsecond=0)
        if day < start - timedelta(seconds=TIME_TOLERANCE_S):
            day += timedelta(days=1)
        return (t, self.timeline.stream(day))

    def judge(self, question: str, reference: str, answer: str) -> Verdict:
        if not (answer or "").strip():
            return Verdict(False, self.name, "empty answer")
        if not normalize_words(reference) and not _number_tokens(reference):
            return Verdict(False, self.name, "empty reference")
        ref_abstains = bool(_ABSTAIN.search(_plain(reference)))
        if _ABSTAIN.search(_plain(answer)):
            if ref_abstains:
                return Verdict(True, self.name, "answer and reference both say there is no such memory")
            return Verdict(False, self.name, "answer says it has no memory of this")
        ref_times = _clock_times(reference)
        if ref_times:
            return self._times(ref_times, answer)
        ref_span = _durations(reference)
        if len(ref_span) == 1 and _is_duration(reference):
            return self._duration(ref_span[0], answer)
        ref_nums = _number_tokens(_QUOTES.sub(" ", reference))   # "the person who said 'c two'" holds no count
        if ref_nums and (_COUNT_QUESTION.search((question or "").lower()) or _is_bare_count(reference)):
            return self._count(ref_nums, answer)
        if _first_word(reference) in ("yes", "no") and _polarities(reference, False) and not _NO_ONE.match(reference):
            return self._yes_no(question, reference, answer)
        return self._open(question, reference, answer)

    def _count(self, ref_nums: list[int | float], answer: str) -> Verdict:
        got = _number_tokens(_CLOCK.sub(" ", _QUOTES.sub(" ", answer)))
        want, said = set(ref_nums), set(got)
        if not said:
            return Verdict(False, self.name, f"no count in answer, reference {_fmt_numbers(want)}")
        if want <= said and said <= want:
            return Verdict(True, self.name, f"count {_fmt_numbers(want)} matches")
        return Verdict(False, self.name, f"wrong count: answer says {_fmt_numbers(got)}, "
                                         f"reference {_fmt_numbers(want)}")

    def _duration(self, want: float, answer: str) -> Verdict:
        """A time between two moments ("14 seconds"): the answer states one, within ``DURATION_TOLERANCE_S`` (each
        end of the reference and of the answer is a moment the recording's own timing places to about a second)."""
        plain = _CLOCK.sub(" ", _QUOTES.sub(" ", answer))
        said = set(_durations(plain))
        if not said:
            return Verdict(False, self.name, f"no time span in answer, reference {want:g} s")
        off = [d for d in said if abs(d - want) > DURATION_TOLERANCE_S]
        if off:
            return Verdict(False, self.name, f"answer says {_fmt_numbers(said)} s, reference {want:g} s")
        return Verdict(True, self.name, f"{_fmt_numbers(said)} s within {DURATION_TOLERANCE_S:g} s of {want:g} s")

    def _times(self, want: list[float], answer: str) -> Verdict:
        plain = _QUOTES.sub(" ", answer)
        stated = [self._instants(m.group(0)) for m in _CLOCK.finditer(plain)]
        said = [ts[-1] for ts in stated]
        if not said:
            return Verdict(False, self.name, f"no time in answer, reference {_fmt_clock(want)}")
        spans = [(a, b) for m in _SPAN.finditer(plain) for a, b in zip(self._instants(m.group(1)),
                                                                        self._instants(m.group(2)), strict=False)
                 if 0 <= b - a <= MAX_SPAN_S]
        used: set[int] = set()
        for w in want:
            near = [i for i, ts in enumerate(stated) if any(abs(t - w) <= TIME_TOLERANCE_S for t in ts)]
            inside = [(a, b) for a, b in spans if a - TIME_TOLERANCE_S <= w <= b + TIME_TOLERANCE_S]
            if not near and not inside:
                return Verdict(False, self.name, f"answer says {_fmt_clock(said)}, reference {_fmt_clock(want)}")
            used.update(near)
            for a, b in inside:
                used.update(i for i, ts in enumerate(stated) if a in ts or b in ts)
        other = [said[i] for i in range(len(stated)) if i not in used]
        if other:
            return Verdict(False, self.name, f"answer also says {_fmt_clock(other)}, reference {_fmt_clock(want)}")
        return Verdict(True, self.name, f"time {_fmt_clock(want)} matches")

    def _yes_no(self, question: str, reference: str, answer: str) -> Verdict:
        want = _polarities(reference, False)[0]
        about_same = "same" in normalize_words(question)
        said = _polarities(answer, about_same)
        if not said:
            return Verdict(False, self.name, f"no yes/no in answer, reference {want}")
        if said[0] != want:
            return Verdict(False, self.name, f"answer says {said[0]}, reference {want}")
        if len(set(said)) > 1:
            return Verdict(False, self.name, f"answer says {want} but also {'no' if want == 'yes' else 'yes'}")
        return Verdict(True, self.name, f"answer says {want}, as the reference")

    def _open(self, question: str, reference: str, answer: str) -> Verdict:
        ref = spoken_words(reference)
        got = spoken_words(_CLOCK.sub(" ", answer))  # when it happened ("(01:35)") is detail, not other content
        missing = [w for w in dict.fromkeys(ref) if w not in set(got)]
        if missing:
            return Verdict(False, self.name, f"missing: {' '.join(missing)}")
        # "... said 'X''s final turn": the possessive after a quote is no part of the words quoted
        known = set(ref) | set(spoken_words(question)) | set(spoken_words(re.sub(r"'+s\b", " ", question)))
        known |= _same_sense(known)
        quotes = [q for q in dict.fromkeys(" ".join(spoken_words(q)) for q in _quoted(answer)) if q]
        if len(quotes) >= 2 and any(not set(q.split()) <= known for q in quotes):
            shown = "; ".join(f"'{q}'" for q in quotes)
            return Verdict(False, self.name, f"several different quotes: {shown}")
        places = _other_places(reference, known, answer)
        if places:
            return Verdict(False, self.name, f"names other places: {', '.join(places)}")
        hedge = _hedged(question, ref, known, answer)
        if hedge:
            return Verdict(False, self.name, f"offers alternatives: 'or {' '.join(hedge)}'")
        content = spoken_words(_CLOCK.sub(" ", answer), stop_homophones=False)
        extra = [w for w in dict.fromkeys(content) if w not in known and w not in FILLER]
        allowance = max(3, len(set(ref)) // 2)
        if len(extra) > allowance:
            return Verdict(False, self.name, f"asserts other content: '{' '.join(extra)}' "
                                             f"({len(extra)} other words, {allowance} allowed)")
        tail = f" ({len(extra)} other word{'s' * (len(extra) != 1)}: {' '.join(extra)})" if extra else ""
        return Verdict(True, self.name, f"all reference words found, nothing else asserted{tail}")


_PLACE_REF = re.compile(r"^\s*(?:in|at|on|near|inside)\s+the\s+\w", re.IGNORECASE)
_THE_NOUN = re.compile(r"\b(?:in|at|on|near|inside|to|then)\s+the\s+([a-z]+)", re.IGNORECASE)


def _other_places(reference: str, known: set[str], answer: str) -> list[str]:
    """A reference that is a place ("in the kitchen"): the places the answer names besides it ("I was in the hallway,
    then the kitchen" lists three rooms for "which room?"; the few-extra-words allowance would pass it). Words of
    the question count as known; quoted speech is not a place."""
    if not _PLACE_REF.match(reference):
        return []
    plain = _CLOCK.sub(" ", _QUOTES.sub(" ", answer))
    out: list[str] = []
    for m in _THE_NOUN.finditer(plain):
        w = spoken_words(m.group(1))
        if w and w[0] not in known and w[0] not in FILLER and w[0] not in out:
            out.append(w[0])
    return out


_OR_CLAUSE = re.compile(r"\b(?:or|either)\b([^.,;:!?()]*)", re.IGNORECASE)


def _hedged(question: str, ref: list[str], known: set[str], answer: str) -> list[str]:
    """Content words of an alternative the answer offers ("in the kitchen or the lab") that the reference does not
    have; words of the question count as known unless the question itself offers alternatives ("the kitchen or
    the lab?"). Quoted speech and clock times are not alternatives."""
    plain = _CLOCK.sub(" ", _QUOTES.sub(" ", answer))
    exempt = set(ref) if _OR_CLAUSE.search(question or "") else known
    out: list[str] = []
    for m in _OR_CLAUSE.finditer(plain):
        out += [w for w in spoken_words(m.group(1)) if w not in exempt and w not in FILLER and w not in out]
    return out


TIME_TOLERANCE_S = 3.0
DURATION_TOLERANCE_S = 2.0
_SPAN_UNIT = re.compile(r"\b(\d+(?:\.\d+)?)\s*(hours?|hrs?|minutes?|mins?|seconds?|secs?)\b", re.IGNORECASE)
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0}


def _durations(text: str) -> list[float]:
    """Time spans stated in ``text`` in seconds: "14 seconds", "2 minutes", "1 minute and 5 seconds" (one span)."""
    out: list[float] = []
    last_end = -1
    for m in _SPAN_UNIT.finditer(text or ""):
        v = float(m.group(1)) * _UNIT_S[m.group(2)[0].lower()]
        joined = last_end >= 0 and re.fullmatch(r"\s*(?:,|and)?\s*", text[last_end:m.start()])
        if joined and out:
            out[-1] += v
        else:
            out.append(v)
        last_end = m.end()
    return out


def _is_duration(reference: str) -> bool:
    """The reference is only a time span ("14 seconds", "about 1 minute 5 seconds")."""
    rest = _SPAN_UNIT.sub(" ", reference or "")
    return not re.sub(r"\b(?:about|around|roughly|and)\b|[^a-z0-9]", "", rest.lower())
MAX_SPAN_S = 30.0   # a stated span wider than this is no answer to "when" ("between 00:00 and 02:00")
_SPAN = re.compile(r"(\d{1,2}:\d{2}(?::\d{2})?)\s*(?:-|–|to|until|till|and)\s*(\d{1,2}:\d{2}(?::\d{2})?)\b")


def _seconds(clock: str) -> float:
    parts = [int(x) for x in clock.split(":")]
    return float(sum(v * 60 ** i for i, v in enumerate(reversed(parts))))


def _clock_times(text: str) -> list[float]:
    return [_seconds(m.group(0)) for m in _CLOCK.finditer(text or "")]


def _fmt_clock(times: Iterable[float]) -> str:
    return ", ".join(f"{int(t) // 60:02d}:{int(t) % 60:02d}" for t in sorted(set(times)))


def _first_word(text: str) -> str:
    from m3_memory.perception.wer import normalize

    return next(iter(normalize(text)), "")


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9\s]", "", (text or "").lower())).strip()


def _quoted(text: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in _QUOTES.finditer(text or "")]


class LLMJudge:
    """The paper's judge: ``JUDGE_PROMPT`` with ``JUDGE_SYSTEM`` at temperature 0 to any OpenAI-compatible chat
    endpoint (GPT-4o as in the paper, `vllm serve`, `m3-serve-llm`); correct iff the reply contains "yes". A judge
    request that fails counts as wrong (as upstream), with the error in ``detail`` and ``failures`` counted."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 30.0, connect_timeout_s: float = 5.0, retries: int = 5,
                 max_tokens: int = 2048, extra_body: dict | None = None) -> None:
        """``extra_body``: server extensions merged into every request (e.g. a llama.cpp ``grammar`` forcing
        "Yes" or "No" for a small local judge)."""
        from m3_memory.openai_api import make_client

        self.name = f"llm:{model}"
        self._client = make_client(base_url, api_key, api_key_env, timeout_s, connect_timeout_s, retries)
        self._model, self._max_tokens, self._extra = model, max_tokens, dict(extra_body or {})
        self.failures = 0

    def request_body(self, question: str, reference: str, answer: str) -> dict:
        prompt = JUDGE_PROMPT.format(question=question, ground_truth_answer=reference, agent_answer=answer)
        return {"model": self._model, "temperature": 0, "max_tokens": self._max_tokens, **self._extra,
                "messages": [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}]}

    def judge(self, question: str, reference: str, answer: str) -> Verdict:
        from m3_memory.openai_api import ApiError, chat_message

        if not answer.strip():
            return Verdict(False, self.name, "empty answer")
        try:
            text = chat_message(self._client, self.request_body(question, reference, answer)).get("content") or ""
        except ApiError as e:
            self.failures += 1
            return Verdict(False, self.name, f"judge failed: {e}")  # as upstream: a judge error counts as wrong
        return Verdict("yes" in text.lower(), self.name, text.strip()[:200])


def make_judge(config: dict | None, timeline: Timeline | None = None) -> Judge:
    if not config or not config.get("base_url"):
        return StrictMatchJudge(timeline)
    return LLMJudge(**config)
