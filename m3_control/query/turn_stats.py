"""Figures over the turns no frame field holds, computed by code from everyone's voice turns:

- ``difference``: how much one person out-talked another, in seconds or turns ("how much longer did A talk than B?",
  "by how many seconds did A's speaking time exceed C's?", "how many more times did A speak than C?", "how many turns
  more than B did A take?"): both figures and the difference, or that it went the other way;
- ``share``: one person's part of all the turns or of all the speech ("what share (fraction, percentage) of the turns
  were A's?", "what fraction of the speaking time was B's?"), or the part of their own turns (speech) in the frame's
  place or window ("what fraction of B's turns were in the kitchen?", "what percentage of A's speaking time was
  before 0:40?");
- ``together``: two people's turns or seconds added up ("how many seconds did A and B speak for together?");
- ``ratio``: one person's turns (seconds) for each of another's ("what's the ratio of A's turns to B's?", "how many
  turns did B take for every turn of C's?");
- ``per_person``: the turns (seconds of speech) each person took on average ("on average, how many times did each
  speaker talk?", "what was the average speaking time per person?");
- ``share`` asked yes / no: "was more than half of the speech A's?", "did B do most of the talking?" (the measure
  asked decides; the other is said beside it);
- ``stay``: the robot's own time in a room as a share of the recording ("what fraction of the recording did I spend
  in the office?");
- ``length`` / ``end``: how long the recording is ("how long was the recording?", "how many seconds did the recording
  last?"), or when it ended ("at what time did the recording end?");
- ``rate``: turns a minute over the recording, everyone's or one person's ("how many turns per minute did I hear?",
  "how many times per minute did B speak?"); in a room, over the robot's time there;
- ``covered``: how much of the recording someone was speaking, or nobody was ("what percentage of the recording had
  someone speaking?", "for what percentage of the time was nobody speaking?"): overlapping turns counted once.

Seconds are of detected speech; the recording runs from stream time 0 to the last input the memory holds (as "the
middle of the recording" does). Every figure the answer states is the result's, checked like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor
from .frame import Query
from .named_ids import named_ids
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .result import QueryResult
from .robot_track import robot_time_in
from .role_match import tally
from .turn_sequence import people_in
from .wording import QUOTED
from .words import COUNT_WORDS, seconds_word, tenths, times_word

_SECONDS_WORDS = re.compile(r"\b(?:seconds?|longer|shorter|speaking\s+time|talking\s+time|talk\s+time|speech|time)\b",
                            re.IGNORECASE)
_DIFFERENCE = re.compile(r"\bhow\s+much\s+(?:longer|shorter|more|less)\b|\bby\s+how\s+(?:many\s+(?:seconds|turns|"
                         r"times)|much)\b|\bhow\s+many\s+(?:more|fewer|extra)\s+(?:seconds|times|turns)\b|"
                         r"\bhow\s+many\s+(?:seconds|times|turns)\s+(?:more|fewer|less|longer|shorter)\b",
                         re.IGNORECASE)
_LESS = re.compile(r"\b(?:shorter|less|fewer)\b", re.IGNORECASE)
_SHARE = re.compile(r"\b(?:what|which)\s+(?:share|fraction|proportion|percentage|part|portion|per\s*cent)\s+of\b",
                    re.IGNORECASE)
_WHOLE = r"(?:the\s+)?(?:whole\s+|entire\s+)?(?:recording|time|video|session|scene)\b"
# "what percentage of the recording ...?"; "how much of the recording, in percent, was speech?", "for how much of the
# recording was it silent, as a percentage?" (a share asked as "how much of", its unit anywhere)
_OF_RECORDING = re.compile(r"\b(?:share|fraction|proportion|percentage|part|portion|per\s*cent)\s+of\s+"
                           rf"(?:my\s+|our\s+)?{_WHOLE}|"
                           rf"\bhow\s+much\s+of\s+{_WHOLE}(?=[^?]*\b(?:per\s*cent(?:age)?|share|fraction|"
                           r"proportion|speech|speaking|talking|silent|silence|quiet)\b)", re.IGNORECASE)
# "of B's turns", "of Ann's speaking time": the person's own turns (speech) are the whole
_OWN = re.compile(r"\bof\s+[^?]*?(?:'s|’s)\s+(?:own\s+|total\s+)?(?:turns|speaking\s+time|talking\s+time|talk\s+time|"
                  r"speech|talking|talk|time|utterances)\b", re.IGNORECASE)
# "what share of the office's turns did A take?": the turns of a room (of the recording, of a minute), A's part of
# them, not A's own turns
_WHOLE_OWNER = re.compile(r"^of\s+(?:the|my|this|that)\s+(?:[a-z]+\s+){0,2}?(?!(?:person|one|speaker|man|woman|voice|"
                          r"people|speakers)(?:'s|’s))[a-z]+(?:'s|’s)\s", re.IGNORECASE)
_TOGETHER = re.compile(r"^\W*(?:how\s+(?:many|much|long)|what\s+(?:was|is)\s+the\s+(?:total|combined|sum))\b[^?]*?"
                       r"\b(?:together|combined|between\s+them|altogether|jointly|put\s+together|in\s+total)\b",
                       re.IGNORECASE)
_PER_PERSON = re.compile(r"\b(?:each|every|per|an?)\s+(?:person|speaker|one|voice|individual|people)\b|"
                         r"\beach\s+(?:of\s+them|other)\b", re.IGNORECASE)
_AVERAGE = re.compile(r"\b(?:average|mean|on\s+average|typically)\b", re.IGNORECASE)
_COUNTED = re.compile(r"\b(?:how\s+many\s+(?:turns|times|utterances)|how\s+often|number\s+of\s+(?:turns|times))\b",
                      re.IGNORECASE)
_RATIO = re.compile(r"\bratio\s+(?:of|between)\b|\bfor\s+(?:every|each)\s+(?:one\s+)?(?:turn|time|second)s?\b|"
                    r"\bfor\s+(?:every|each)\s+(?:one\s+)?of\b", re.IGNORECASE)
_SILENT_TOTAL = re.compile(r"^\W*(?:how\s+(?:many\s+seconds|long|much\s+time)|for\s+how\s+(?:many\s+seconds|long)|"
                           r"how\s+much(?=\s+(?:silence|quiet)\b)|what\s+was\s+the\s+(?:total|whole)\s+(?:amount\s+of\s+)?"
                           r"(?=(?:silence|quiet)\b))"
                           r"(?![^?]*\b(?:longest|shortest|first|last|opening|initial|closing|start|beginning|end|pause|gap|break|"
                           r"before|after|between(?!\s+\d{1,2}:[0-5]\d\s+and\s+\d))\b)[^?]*\b"
                           r"(?:silence|silent|quiet|nobody\s+(?:was\s+)?(?:speaking|talking)|no\s*-?one\s+(?:was\s+)?"
                           r"(?:speaking|talking))\b", re.IGNORECASE)
# "for what share of my time in the library was somebody talking?": speech in the robot's time there, not its stay
_SOMEONE_TALKING = re.compile(r"\b(?:someone|somebody|anyone|anybody|nobody|no\s*-?one|people|a\s+person)\s+"
                              r"(?:was\s+|were\s+)?(?:talking|speaking|spoke|talked)\b|\b(?:speech|silence|silent)\b",
                              re.IGNORECASE)
_NOBODY = re.compile(r"\b(?:nobody|no\s+one|no-one|silence|silent|quiet)\b", re.IGNORECASE)
_RATE_WHAT = r"(?:turns|times|utterances|sentences)"
_RATE_VERB = r"(?:rate|speak|spoke|talk|talked|speaking|talking)"   # ("per minute" only: "talked for half a minute")
_RATE = re.compile(rf"\b{_RATE_WHAT}\b[^?]*\b(?:per|a|each|every)\s+minute\b|"
                   rf"\b(?:per|a|each|every)\s+minute\b[^?]*\b{_RATE_WHAT}\b|"
                   rf"\b{_RATE_VERB}\b[^?]*\b(?:per|each|every)\s+minute\b|\b(?:per|each|every)\s+minute\b[^?]*\b"
                   rf"{_RATE_VERB}\b", re.IGNORECASE)
# "how long was the recording?", "how many seconds did the recording last?", "what was the length of the video?"
_LENGTH = re.compile(rf"^\W*(?:how\s+long\s+(?:was|is|did)|how\s+many\s+(?:seconds|minutes)\s+(?:did|does|was|is)|"
                     rf"for\s+how\s+long\s+did|what\s+(?:was|is)\s+the\s+(?:total\s+)?(?:length|duration)\s+of)\s+"
                     rf"{_WHOLE}(?:\s+(?:last|run|go\s+on|take|long|in\s+(?:total|all|seconds|minutes)|altogether|for))*"
                     r"\W*$", re.IGNORECASE)
# "at what time did the recording end?", "when did the recording finish?"
_END = re.compile(rf"^\W*(?:(?:at\s+)?what\s+time|when)\s+(?:did|does|was)\s+{_WHOLE}\s+(?:end|finish|stop|over)\b|"
                  rf"^\W*(?:(?:at\s+)?what\s+time|when)\s+(?:was|is)\s+the\s+end\s+of\s+{_WHOLE}", re.IGNORECASE)
# "was more than half of the speech A's?", "did B do more than half of the talking?", "did A take most of the turns?"
_HALF = re.compile(r"^\W*(?:was|were|is|did|does|do|has|had)\b[^?]*\b(?:(?:(?P<more>more|over|greater|less|fewer|under)"
                   r"\s+than\s+half|over\s+half|under\s+half)\b(?!\s+(?:a|an)\b)|(?:the\s+majority\s+of|most\s+of\s+the\s+"
                   r"(?:talking|speech|speaking|turns|conversation|talk))\b)", re.IGNORECASE)   # (not "half a minute")
# "did I spend", "was I in", "I stayed": the robot's own time, not speech
_MY_STAY = re.compile(r"\b(?:did|was|were)\s+(?:i|we)\b(?![^?]*\b(?:hear|heard|listen)\b)|\b(?:i|we)\s+(?:spent|"
                      r"stayed|was|were)\b|\bmy\s+(?:time|stay)\b", re.IGNORECASE)
_OF_THE_TIME = re.compile(r"\b(?:share|fraction|proportion|percentage|part|portion)\s+of\s+the\s+time\b", re.IGNORECASE)
# "was there more speech than silence while I was in the lab?", "in the porch, was there less talking than silence?"
_SPEECH_VS_SILENCE = re.compile(r"^\W*(?:was|were|is|did|does|has|had)\b[^?]*?\b(?P<cmp>more|less)\s+"
                                r"(?P<a>speech|talk(?:ing)?|speaking|silence|quiet)\s+than\s+(?:there\s+was\s+)?"
                                r"(?:silence|quiet|speech|talk(?:ing)?|speaking)\b", re.IGNORECASE)
_BY_TURNS = re.compile(r"\b(?:times|turns?|utterances)\b", re.IGNORECASE)


# "how much longer was A's longest turn than B's?": two turns' lengths (turn_lengths.py), not their talk in all
_ONE_TURN_EACH = re.compile(r"(?:'s|’s)\s+(?:longest|shortest|first|last|second|third|final)\s+(?:turn|one|"
                            r"utterance)\b", re.IGNORECASE)


# "the two most talkative people", "the three people who spoke most", "the top two speakers": the people ranked first
_TOP = re.compile(r"\bthe\s+(?:top\s+)?(?P<k>two|three|four|five|[2-5])\s+(?:(?:most\s+(?:talkative|active|frequent|"
                  r"vocal)|busiest|chattiest|top|main|leading)\s+)?(?:people|speakers|persons|talkers|voices)\b(?:\s+"
                  r"(?:who|that)\s+(?:spoke|talked)\s+(?:the\s+)?most(?:\s+often)?)?", re.IGNORECASE)


@dataclass(frozen=True)
class StatsAsk:
    kind: str     # difference | share | rate | covered | together | ratio | per_person | length | end | stay
    people: tuple[str, ...] = ()    # difference: (the one asked about, the one compared with); share: (the one,)
    seconds: bool = False           # by seconds of speech (else by turns)
    less: bool = False              # difference: asked as "shorter / fewer"
    nobody: bool = False            # covered: asked about the time nobody spoke
    own: bool = False               # share: of the person's own turns (speech), the part in the frame's place / window
    half: str = ""                  # share asked yes / no: "more" (than half, the majority) or "less" (than half);
    #                                 covered asked yes / no: "speech" (more speech than silence?) or "silence"
    top: int = 0                    # share: of the ``top`` people who spoke most, together ("the two most talkative")


def asks_stats(question: str) -> StatsAsk | None:
    plain = QUOTED.sub(" ", question)
    people = people_in(question)
    if _DIFFERENCE.search(plain) and len(people) == 2 and not _ONE_TURN_EACH.search(plain):
        # the first one named after "than" is the one compared with ("how many turns more than B did A take?")
        than = re.search(r"\bthan\b", QUOTED.sub(lambda m: "x" * len(m.group(0)), question))
        k = len(people_in(question[:than.start()])) if than is not None else 1
        a, b = (people[1], people[0]) if k == 0 else (people[0], people[1])
        by_seconds = bool(_SECONDS_WORDS.search(plain)) and not re.search(r"\b(?:times|turns)\b", plain, re.I)
        return StatsAsk("difference", (a, b), seconds=by_seconds, less=bool(_LESS.search(plain)))
    half = _HALF.match(plain)
    if half is not None and len(people) == 1:
        less = (half.group("more") or "").lower() in ("less", "fewer", "under") or bool(re.search(r"\bunder\s+half\b",
                                                                                                 plain, re.I))
        return StatsAsk("share", (people[0],), seconds=not _BY_TURNS.search(plain), half="less" if less else "more")
    top = _TOP.search(plain)
    if _SHARE.search(plain) and top is not None and not people:   # "what share did the two most talkative take?"
        by_seconds = bool(_SECONDS_WORDS.search(plain)) and not re.search(r"\bturns\b", plain, re.IGNORECASE)
        return StatsAsk("share", seconds=by_seconds, top=COUNT_WORDS.get(top.group("k").lower()) or int(top.group("k")))
    if _SHARE.search(plain) and len(people) == 1 and _OF_THE_TIME.search(plain):
        return StatsAsk("covered", (people[0],))   # "what share of the time was B talking?": of the time, not speech
    if _SHARE.search(plain) and len(people) == 1:
        by_seconds = bool(_SECONDS_WORDS.search(plain)) and not re.search(r"\bturns\b", plain, re.IGNORECASE)
        own = _OWN.search(plain)
        own = own if own is None or not _WHOLE_OWNER.search(own.group(0)) else None   # ("of the office's turns")
        return StatsAsk("share", (people[0],), seconds=by_seconds, own=own is not None)
    if _RATIO.search(plain) and len(people) == 2:
        by_seconds = bool(_SECONDS_WORDS.search(plain)) and not re.search(r"\b(?:times|turns?)\b", plain, re.I)
        return StatsAsk("ratio", tuple(people), seconds=by_seconds)
    if _TOGETHER.search(plain) and len(people) == 2:
        by_seconds = bool(_SECONDS_WORDS.search(plain) or re.search(r"\bhow\s+long\b", plain, re.IGNORECASE)) and \
            not re.search(r"\b(?:times|turns)\b", plain, re.IGNORECASE)
        return StatsAsk("together", tuple(people), seconds=by_seconds)
    if _AVERAGE.search(plain) and _PER_PERSON.search(plain) and _COUNTED.search(plain) and not people:
        return StatsAsk("per_person")
    if _AVERAGE.search(plain) and _PER_PERSON.search(plain) and not people and not _BY_TURNS.search(plain) and \
            (_SECONDS_WORDS.search(plain) or re.search(r"\bhow\s+(?:long|much)\b", plain, re.IGNORECASE)):
        return StatsAsk("per_person", seconds=True)    # "on average, how many seconds did each person speak?"
    if _LENGTH.match(plain) and not people:
        return StatsAsk("length")
    if _END.match(plain) and not people:
        return StatsAsk("end")
    vs = _SPEECH_VS_SILENCE.match(plain)
    if vs is not None and not people:    # "was there more speech than silence in the lab?"
        speech_first = not re.match(r"silence|quiet", vs.group("a"), re.IGNORECASE)
        more = vs.group("cmp").lower() == "more"
        return StatsAsk("covered", half="speech" if speech_first == more else "silence")
    if _OF_RECORDING.search(plain) and not people and _MY_STAY.search(plain) and not _SOMEONE_TALKING.search(plain):
        return StatsAsk("stay")     # "what fraction of the recording did I spend in the office?"
    if _OF_RECORDING.search(plain) and not people:
        return StatsAsk("covered", nobody=bool(_NOBODY.search(plain)))
    if _OF_RECORDING.search(plain) and len(people) == 1 and not _MY_STAY.search(plain):
        return StatsAsk("covered", (people[0],))     # "for how much of the time ... was A speaking?"
    if _SILENT_TOTAL.search(plain) and not people:     # "how many seconds of silence were there in the hallway?"
        return StatsAsk("covered", nobody=True)
    if _RATE.search(plain) and len(people) <= 1:      # everyone's turns a minute, or one person's
        return StatsAsk("rate", tuple(people))
    return None


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window (the people are the question's)."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: StatsAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end))
    ids = named_ids(executor, prepare(q), ask.people, res, before_time)    # (as the question names them)
    if isinstance(ids, QueryResult):
        return phrase(ids), ids
    text = {"difference": _difference, "share": _share, "rate": _rate, "covered": _covered, "together": _together,
            "ratio": _ratio, "per_person": _per_person, "length": _length, "end": _length, "stay": _stay}[ask.kind](
        executor, res, turns, ids, ask, before_time)
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res


def _totals(turns: list, cid: int) -> tuple[int, float]:
    mine = [e for e in turns if e.character_id == cid]
    return len(mine), sum(e.end - e.start for e in mine)


def _difference(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
                before_time: float | None) -> str:
    """"A spoke for 3 seconds longer: 15 seconds in all, B 12 seconds." (or "The other way round: ...")."""
    (a, b), cond = ids, conditions(res)
    (na, sa), (nb, sb) = _totals(turns, a), _totals(turns, b)
    res.events = [e for e in turns if e.character_id in (a, b)] + \
        [e for e in res.events if e.character_id not in (a, b)]
    if ask.seconds:
        fa, fb = int(round(sa)), int(round(sb))
        word, say = ("shorter" if ask.less else "longer"), seconds_word
    else:
        fa, fb = na, nb
        word, say = ("fewer" if ask.less else "more"), times_word
    d = abs(fa - fb)
    res.value = (fa, fb, d)
    if d == 0:
        return f"Neither: {res.describe[a]} and {res.describe[b]} both spoke " \
               f"{'for ' + seconds_word(fa) if ask.seconds else times_word(fa)}{cond}."
    holds = (fa < fb) if ask.less else (fa > fb)
    (x, fx), (y, fy) = ((a, fa), (b, fb)) if holds else ((b, fb), (a, fa))
    # ("once more", "2 more times", "2 fewer times": never "twice fewer")
    amount = f"for {seconds_word(d)} {word}" if ask.seconds else "once more" if d == 1 and not ask.less else \
        f"{d} {word} time{'s' if d != 1 else ''}"
    lead = "" if holds else "The other way round: "
    return f"{lead}{res.describe[x]} spoke {amount}{cond}: {say(fx)}{' in all' if ask.seconds else ''}, " \
           f"{res.describe[y]} {say(fy)}."


def _share(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
           before_time: float | None) -> str:
    """"A took 8 of the 19 turns (42 %)." or "A spoke for 15 of the 35 seconds of speech (43 %)"."""
    if ask.top:
        return _top_share(res, turns, ask)
    cid, cond = ids[0], conditions(res)
    n, s = _totals(turns, cid)
    who = res.describe[cid]
    res.events = [e for e in turns if e.character_id == cid] + [e for e in res.events if e.character_id != cid]
    if ask.own:
        return _own_share(executor, res, turns, cid, ask, before_time)
    if not turns:
        return f"I heard nobody speak{cond}."
    if ask.half:
        return _half(res, turns, cid, ask)
    if ask.seconds:
        total = sum(e.end - e.start for e in turns)
        pct = int(round(100 * s / total)) if total else 0
        res.value = (int(round(s)), int(round(total)), pct)
        return f"{who} spoke for {int(round(s))} of the {seconds_word(int(round(total)))} of speech I heard{cond} " \
               f"({pct} %)."
    pct = int(round(100 * n / len(turns)))
    res.value = (n, len(turns), pct)
    return f"{who} took {n} of the {len(turns)} turns I heard{cond} ({pct} %)."


def _top_share(res: QueryResult, turns: list, ask: StatsAsk) -> str:
    """"The two people who spoke most often (A 5 turns, B 3) took 8 of the 12 turns (67 %)."; a tie at the last
    place counted said, each way."""
    cond, k = conditions(res), {2: "two", 3: "three", 4: "four", 5: "five"}[ask.top]
    people = list(dict.fromkeys(e.character_id for e in turns))
    figure = {c: _totals(turns, c)[1 if ask.seconds else 0] for c in people}
    ranked = sorted(people, key=lambda c: -round(figure[c], 2))
    if len(ranked) < ask.top:
        return f"I heard only {len(ranked)} {'person' if len(ranked) == 1 else 'people'} speak{cond}."
    top, edge = ranked[:ask.top], round(figure[ranked[ask.top - 1]], 2)
    tied = [c for c in ranked[ask.top:] if round(figure[c], 2) == edge]
    total = sum(figure.values())
    mine = sum(figure[c] for c in top)
    pct = int(round(100 * mine / total)) if total else 0
    res.events = [e for e in turns if e.character_id in top] + [e for e in turns if e.character_id not in top]
    if ask.seconds:
        res.value = (int(round(mine)), int(round(total)), pct)
        res.seconds = {**res.seconds, **{-(i + 1): tenths(figure[c]) for i, c in enumerate(ranked)}}
        each = ", ".join(f"{res.describe[c]} {seconds_word(tenths(figure[c]))}" for c in top)
        text = f"the {k} people who spoke longest{cond} ({each}) spoke for {int(round(mine))} of the " \
               f"{seconds_word(int(round(total)))} of speech ({pct} %)"
    else:
        res.value = (int(mine), len(turns), pct, *(int(figure[c]) for c in ranked))
        each = ", ".join(f"{res.describe[c]} {times_word(int(figure[c]))}" for c in top)
        text = f"the {k} people who spoke most often{cond} ({each}) took {int(mine)} of the {len(turns)} " \
               f"turns ({pct} %)"
    if tied:
        text += f"; {_join([res.describe[c] for c in tied])} spoke as {'long' if ask.seconds else 'often'} as " \
                f"{res.describe[top[-1]]}, a tie for that place"
    return text + "."


def _half(res: QueryResult, turns: list, cid: int, ask: StatsAsk) -> str:
    """"No: A's speech was 10.3 of the 21.8 seconds I heard (47 %); by turns, 7 of 13 (54 %)." (the yes / no is the
    measure asked; the other is said beside it)."""
    n, s = _totals(turns, cid)
    total = sum(e.end - e.start for e in turns)
    mine, whole = tenths(s), tenths(total)
    pct_s, pct_n = int(round(100 * s / total)) if total else 0, int(round(100 * n / len(turns)))
    res.value = (n, len(turns), pct_s, pct_n)
    res.seconds = {**res.seconds, -1: mine, -2: whole}
    part = n / len(turns) if not ask.seconds else (s / total if total else 0.0)
    yes = part > 0.5 if ask.half == "more" else part < 0.5
    lead = "Exactly half" if part == 0.5 else ("Yes" if yes else "No")
    who, cond = res.describe[cid], conditions(res)
    by_s = f"{who}'s speech was {seconds_word(mine)} of the {seconds_word(whole)} I heard{cond} ({pct_s} %)"
    by_n = f"{who} took {n} of the {len(turns)} turns{cond} ({pct_n} %)"
    return f"{lead}: {by_s}; by turns, {n} of {len(turns)} ({pct_n} %)." if ask.seconds else \
        f"{lead}: {by_n}; by seconds of speech, {seconds_word(mine)} of {whole} ({pct_s} %)."


def _own_share(executor: QueryExecutor, res: QueryResult, turns: list, cid: int, ask: StatsAsk,
               before_time: float | None) -> str:
    """"Of A's 3 turns, 2 were in the kitchen (67 %)." (their turns in the frame's place and window, of all theirs)."""
    cond, who = conditions(res), res.describe[cid]
    theirs = executor.run(Query(find="who", who=f"<character_{cid}>", act="spoke"), before_time)
    mine = [e for e in theirs.events if e.kind == "voice" and e.character_id == cid]
    n, s = _totals(turns, cid)
    n_all, s_all = len(mine), sum(e.end - e.start for e in mine)
    res.events = list(dict.fromkeys([e for e in turns if e.character_id == cid] + mine)) + \
        [e for e in res.events if e.character_id != cid]
    if not cond:     # (no place or window to take a part of)
        return f"{who} spoke {times_word(n_all)} in all; you did not say where or when to count a part of it."
    if ask.seconds:
        pct = int(round(100 * s / s_all)) if s_all else 0
        part, whole = tenths(s), tenths(s_all)
        res.value, res.seconds = (pct,), {**res.seconds, -1: part, -2: whole}
        return f"Of {who}'s {seconds_word(whole)} of speech, {part} {'was' if part == 1 else 'were'}{cond} ({pct} %)."
    pct = int(round(100 * n / n_all)) if n_all else 0
    res.value = (n, n_all, pct)
    return f"Of {who}'s {n_all} turn{'s' if n_all != 1 else ''}, {n} {'was' if n == 1 else 'were'}{cond} ({pct} %)."


def _together(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
              before_time: float | None) -> str:
    """"A and B spoke for 19 seconds together: A 15 seconds, B 4 seconds." (or their turns)."""
    (a, b), cond = ids, conditions(res)
    (na, sa), (nb, sb) = _totals(turns, a), _totals(turns, b)
    res.events = [e for e in turns if e.character_id in (a, b)] + \
        [e for e in res.events if e.character_id not in (a, b)]
    if ask.seconds:     # (in tenths: the parts add up to the whole as said)
        fa, fb, both = tenths(sa), tenths(sb), tenths(round(sa, 1) + round(sb, 1))
        res.seconds = {**res.seconds, -1: fa, -2: fb, -3: both}
        return f"{res.describe[a]} and {res.describe[b]} spoke for {seconds_word(both)} together{cond}: " \
               f"{res.describe[a]} {seconds_word(fa)}, {res.describe[b]} {seconds_word(fb)}."
    res.value = (na, nb, na + nb)
    return f"{res.describe[a]} and {res.describe[b]} spoke {times_word(na + nb)} together{cond}: " \
           f"{res.describe[a]} {times_word(na)}, {res.describe[b]} {times_word(nb)}."


def _ratio(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
           before_time: float | None) -> str:
    """"A spoke 4 times and B twice: 2 of A's turns for each of B's."."""
    (a, b), cond = ids, conditions(res)
    (na, sa), (nb, sb) = _totals(turns, a), _totals(turns, b)
    res.events = [e for e in turns if e.character_id in (a, b)] + \
        [e for e in res.events if e.character_id not in (a, b)]
    fa, fb = (tenths(sa), tenths(sb)) if ask.seconds else (na, nb)
    da, db = res.describe[a], res.describe[b]
    said = f"{da} spoke for {seconds_word(fa)} and {db} for {seconds_word(fb)}{cond}" if ask.seconds else \
        f"{da} spoke {times_word(na)} and {db} {times_word(nb)}{cond}"
    if not fb:
        res.value = (na, nb)
        res.seconds = {**res.seconds, -1: fa}
        return f"{said}, so there is no ratio to give."
    r = tenths(fa / fb)
    res.value = (na, nb, *((r,) if isinstance(r, int) else ()))
    res.seconds = {**res.seconds, -1: r, -2: fa, -3: fb}
    unit = "seconds" if ask.seconds else "turns"
    one = "second" if ask.seconds else "turn"
    return f"{said}: {r} of {res.describe[a]}'s {unit} for each {one} of {res.describe[b]}'s."


def _per_person(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
                before_time: float | None) -> str:
    """"I heard 17 turns from 4 people: 4.2 each on average (A 8, B 3, ...)."."""
    cond = conditions(res)
    counts, secs = tally(turns)
    if not counts:
        return f"I heard nobody speak{cond}."
    if ask.seconds:     # "on average, how many seconds did each person speak?"
        total, mean = tenths(sum(secs.values())), tenths(sum(secs.values()) / len(secs))
        each = {c: tenths(x) for c, x in secs.items()}
        res.value = (len(secs),)
        res.seconds = {**res.seconds, **each, -1: mean, -2: total}
        said = "; ".join(f"{res.describe[c]} {seconds_word(x)}" for c, x in each.items())
        return f"I heard {seconds_word(total)} of speech from {len(secs)} " \
               f"{'person' if len(secs) == 1 else 'people'}{cond}: {seconds_word(mean)} each on average ({said})."
    mean = tenths(len(turns) / len(counts))
    res.value = (len(turns), len(counts), *counts.values(), *((mean,) if isinstance(mean, int) else ()))
    res.seconds = {**res.seconds, -1: mean}     # (the average in tenths, for the answer's check)
    each = "; ".join(f"{res.describe[c]} {times_word(k)}" for c, k in counts.items())
    return f"I heard {len(turns)} turns from {len(counts)} {'person' if len(counts) == 1 else 'people'}{cond}: " \
           f"{mean} each on average ({each})."


def _end(executor: QueryExecutor, res: QueryResult, before_time: float | None) -> float:
    """The recording's end: the last input the memory holds (else the last event)."""
    return executor.store.perceived_until(before_time) or max((e.end for e in res.events), default=0.0)


def _recorded(executor: QueryExecutor, res: QueryResult, before_time: float | None) -> float:
    """Seconds of recording up to the last input the memory holds (the question's window, where it gives one)."""
    end = _end(executor, res, before_time)
    t1, t2 = (res.read(x) for x in (res.query.from_, res.query.to))
    return max(0.0, (min(end, t2) if t2 is not None else end) - (t1 or 0.0))


def _length(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
            before_time: float | None) -> str:
    """"I recorded 71 seconds (1 minute 11 seconds), from the start to the last input I hold."."""
    end = _end(executor, res, before_time)
    if end <= 0:
        return "I have recorded nothing yet."
    secs = int(round(end))
    m, rest = divmod(secs, 60)
    res.value = (secs, m, rest)
    minutes = f" ({m} minute{'s' if m != 1 else ''}{f' {seconds_word(rest)}' if rest else ''})" if m else ""
    if ask.kind == "end":     # (the end said as a clock: the answer's window is the whole recording)
        res.query = replace(res.query, from_=None, to=f"{end:.1f}")
        return f"The recording ended at {res.say(end)}, the last input I hold: {seconds_word(secs)} after it began."
    return f"I recorded {seconds_word(secs)}{minutes}, from the start to the last input I hold."


def _stay(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
          before_time: float | None) -> str:
    """"I was in the office for 26 of the 56 seconds recorded (46 %)." (the robot's own time there)."""
    if not res.query.place:
        return "You did not say which room to count my time in."
    whole = _recorded(executor, res, before_time)
    there = _span(executor, res, before_time)
    if whole <= 0:
        return "I have recorded nothing yet."
    s, total = int(round(there)), int(round(whole))
    pct = int(round(100 * there / whole))
    res.value = (s, total, pct)
    t1, t2 = (res.read(x) for x in (res.query.from_, res.query.to))
    window = conditions(replace(res, query=replace(res.query, place=None))) if t1 is not None or t2 is not None else ""
    return f"I was in the {res.query.place} for {s} of the {seconds_word(total)} recorded{window} ({pct} %)."


def _span(executor: QueryExecutor, res: QueryResult, before_time: float | None) -> float:
    """The seconds a rate or a share of the time is of: the recording in the question's window, or in a place, the
    robot's time there (in the window)."""
    if not res.query.place:
        return _recorded(executor, res, before_time)
    t1, t2 = (res.read(x) for x in (res.query.from_, res.query.to))
    return float(robot_time_in(executor.store, res, res.query.place, t1, t2 if t2 is not None else before_time))


def _rate(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
          before_time: float | None) -> str:
    """"I heard 19 turns in 100 seconds of recording: 11.4 a minute" (in a place: of the robot's time there)."""
    span, cond = _span(executor, res, before_time), conditions(res)
    of = "of my time there" if res.query.place else "of recording"
    if span <= 0:
        return "I have recorded nothing yet."
    mine = [e for e in turns if e.character_id == ids[0]] if ids else turns
    rate = round(len(mine) * 60.0 / span, 1)
    res.value = (len(mine), int(round(span)), *((int(rate),) if float(rate).is_integer() else ()))
    res.seconds = {**res.seconds, -1: rate}     # (the rate in tenths, for the answer's check)
    figure = tenths(rate)
    if ids:
        res.events = mine + [e for e in res.events if e not in mine]
        return f"I heard {res.describe[ids[0]]} {times_word(len(mine))}{cond} in {seconds_word(int(round(span)))} " \
               f"{of}: {figure} a minute."
    return f"I heard {len(turns)} turns{cond} in {seconds_word(int(round(span)))} {of}: {figure} a minute."


def _covered(executor: QueryExecutor, res: QueryResult, turns: list, ids: list[int], ask: StatsAsk,
             before_time: float | None) -> str:
    """"Someone was speaking for 35 of the 100 seconds recorded (35 %); nobody for the other 65 (65 %)"; in a place,
    of the robot's seconds there."""
    span, cond = _span(executor, res, before_time), conditions(res)
    if span <= 0:
        return "I have recorded nothing yet."
    spoken, reach = 0.0, None
    for e in turns:     # overlapping turns counted once
        lo = e.start if reach is None else max(e.start, reach)
        if e.end > lo:
            spoken += e.end - lo
        reach = e.end if reach is None else max(reach, e.end)
    if ids:     # one person's speech in the scope's time
        mine = [e for e in turns if e.character_id == ids[0]]
        own = sum(e.end - e.start for e in mine)
        res.events = mine + [e for e in res.events if e not in mine]
        res.value = (int(round(own)), int(round(span)), int(round(100 * own / span)), len(mine))
        return f"{res.describe[ids[0]]} was speaking for {int(round(own))} of the {seconds_word(int(round(span)))}" \
               f"{cond} ({int(round(100 * own / span))} %, {times_word(len(mine))})."
    s, total = int(round(spoken)), int(round(span))
    pct = int(round(100 * spoken / span))
    res.value = (s, total, pct, total - s, 100 - pct)
    if ask.half:     # "was there more speech than silence?": yes or no, by the two figures
        yes = spoken > span - spoken if ask.half == "speech" else span - spoken > spoken
        return f"{'Yes' if yes else 'No'}: someone was speaking for {s} of the {seconds_word(total)} recorded{cond} " \
               f"({pct} %), and nobody for the other {total - s} ({100 - pct} %)."
    if ask.nobody:
        return f"Nobody was speaking for {total - s} of the {seconds_word(total)} recorded{cond} ({100 - pct} %); " \
               f"someone was, for {s} ({pct} %)."
    return f"Someone was speaking for {s} of the {seconds_word(total)} recorded{cond} ({pct} %); nobody for the " \
           f"other {total - s} ({100 - pct} %)."
