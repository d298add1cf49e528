"""Questions about the sentences themselves, not the people: "who spoke the longest single turn?", "who said the
longest sentence?", "what was the shortest thing anyone said?", "which room had the longest single turn?" (one
turn's own length: the time it took to say, which the records hold; a person's time in all is the frame's
``measure=time``), "how many different sentences did I hear?", "which sentence did I hear most often?", "was anything
said more than once?" (turns grouped by what they said: two transcripts of one sentence are one, as
``execute.same_sentence`` tells), "what did everyone say?" (each
speaker's sentences), "who said the most words?" (each person's words as heard, counted; "per turn on average": over
their turns).

One frame selects everyone's voice turns in the question's window and place (the model's frame keeps those; a
person the question names keeps their turns only); code measures or groups them. The answer names the turns it
rests on and their times, checked against that result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .execute import QueryExecutor, same_sentence
from .fidelity import quotes_of
from .frame import Query, voice_turns
from .length_limits import than_persons_turn
from .phrase import REFUSAL, _cap, _join, check, conditions, phrase
from .repair import time_of
from .result import QueryResult
from .turn_sequence import people_in
from .word_counts import WORD_KINDS, answer_words, word_form
from .wording import QUOTED
from .words import AMOUNT, WHERE_ASKED, ordinal_word, the_place, times_word

_LENGTH = re.compile(r"\b(?P<which>longest|shortest|briefest|longer|shorter)\s+(?:single\s+|one\s+|individual\s+)?"
                     r"(?P<what>turn|sentence|utterance|remark|line|statement|thing\s+(?:anyone|someone|anybody|"
                     r"somebody|that\s+was|i\s+heard)?\s*(?:said|say)|phrase|sentence\s+spoken|stretch\s+of\s+speech)",
                     re.IGNORECASE)
_DISTINCT = re.compile(r"\bhow\s+many\s+(?:different|distinct|unique|separate)\s+(?:sentences|things|phrases|lines|"
                       r"remarks|utterances|statements)\b", re.IGNORECASE)
_MOST_SAID = re.compile(r"^\W*what\s+(?:was|got|did\s+i\s+hear|did\s+people\s+say)\s+(?:said\s+|heard\s+)?(?:the\s+)?"
                        r"most\s+(?:often|times|frequently)\b|"
                        r"\b(?:which|what)\s+(?:sentence|phrase|line|words|thing|remark)\b[^?]*?\b(?:most\s+often|"
                        r"the\s+most|most\s+times|most\s+frequently|repeated\s+(?:the\s+)?most)\b|"
                        r"\b(?:most\s+(?:often\s+)?(?:repeated|said|heard|common|frequent))\s+(?:sentence|phrase|line|"
                        r"words|thing|remark)\b", re.IGNORECASE)
# "which sentence was said by more than one person?", "did two people say the same thing?"
_SHARED = re.compile(r"\b(?:sentences?|phrases?|lines?|words|things?)\b[^?]*?\b(?:said|spoken|used)\s+by\s+"
                     r"(?:more\s+than\s+one|two\s+or\s+more|several|multiple|different|two)\s+(?:people|persons|person|speakers|voices)|"
                     r"^\W*(?:did|have|had)\s+(?:two|any\s+two|different|several)\s+(?:people|persons|speakers)\s+(?:ever\s+)?"
                     r"(?:say|said)\s+the\s+same\s+(?:thing|sentence|words)", re.IGNORECASE)
# "who repeated their sentence the most?", "who said the same thing the most times?"
_MOST_REPEATED = re.compile(r"^\W*who\s+(?:repeated|said)\s+(?:their|his|her|the\s+same)\s+(?:own\s+)?(?:sentence|"
                            r"words|thing|phrase|line)s?\s+(?:the\s+)?most(?:\s+(?:often|times))?\b|"
                            r"^\W*who\s+repeated\s+(?:themselves|himself|herself)\s+(?:the\s+)?most\b", re.IGNORECASE)
_REPEATED = re.compile(r"^\W*(?:was|were|did)\s+(?:anything|any\s+sentence|something|a\s+sentence|the\s+same\s+"
                       r"(?:sentence|thing|words))\b[^?]*?\b(?:said|heard|repeated|spoken)\b[^?]*?\b(?:more\s+than\s+"
                       r"once|twice|again|repeated(?:ly)?|several\s+times)|^\W*(?:was|were)\s+(?:anything|any\s+"
                       r"sentence|something)\s+repeated\b", re.IGNORECASE)


# "did anyone speak for more than five seconds in one turn?": one turn's length over a time
_OVER_TURN = re.compile(rf"\bfor\s+(?:more\s+than|over|longer\s+than|at\s+least)\s+(?P<n>{AMOUNT})\s+"
                        rf"(?:in\s+(?:one|a\s+single)\s+(?:turn|go|stretch)|at\s+(?:a\s+time|once)|without\s+(?:stopping|a\s+(?:break|"
                        rf"pause))|straight|in\s+a\s+row|continuously|non-?stop)\b", re.IGNORECASE)


@dataclass(frozen=True)
class SentenceAsk:
    kind: str   # longest | shortest | distinct | most_said | repeated | shared | most_repeated | over | same_as |
    #             by_person | most_words | fewest_words | word_count | count_over | count_under | nth_length |
    #             word_mean | word_freq
    said: str = ""       # the question's words for it
    seconds: float = 0.0  # over: the time a turn is asked to last longer than
    who: str | None = None  # over: the one person the question asks it of (their words or name), else everyone
    nth: str = ""           # nth_length: each person's "first" (or "last") turn compared; word_count: the turn
    #                         counted ("first", "last", "longest"...); most_words / fewest_words: "turn" (the turn)
    rank: int = 1           # longest / shortest: "the second longest turn" is 2
    per_turn: bool = False  # most_words / fewest_words: words per turn on average, not in all
    single: bool = False    # most_words / fewest_words: in one turn (each person's wordiest), not in all
    rel: str = ""           # longest / shortest: "before" / "after": the turn right before (after) that one
    than: str | None = None  # count_over / count_under: whose longest (``nth``: "shortest") turn is the limit


# "who spoke the longest in one go?", "who talked the longest without stopping?": one turn's length
_ONE_GO = re.compile(r"\b(?P<which>longest|shortest)\b[^?]*?\b(?:in\s+one\s+go|in\s+a\s+single\s+(?:go|stretch)|"
                     r"without\s+(?:stopping|a\s+(?:break|pause))|at\s+a\s+time|at\s+once|in\s+one\s+stretch)\b",
                     re.IGNORECASE)

# "which single turn was the longest?", "whose turn was the shortest?": the length said after the turn
_TURN_WAS = re.compile(r"\b(?:which|whose|what)\s+(?:single\s+|one\s+|individual\s+)?(?:turn|sentence|utterance|"
                       r"remark|statement)\s+(?P<where>(?:in|at)\s+(?:the\s+)?[a-z]+(?:\s+room)?\s+)?(?:was|is|lasted|took)\s+"
                       r"(?:the\s+)?(?:(?:second|third|fourth|fifth|2nd|3rd)"
                       r"[\s-]+)?(?P<which>longest|shortest|briefest)\b",
                       re.IGNORECASE)

# "who said the most words?", "which speaker used the fewest words in the lab?": people by the words they said
_WORDIEST = re.compile(r"^\W*(?:who|which\s+(?:person|speaker|one|of\s+them)|whose\s+(?:turns|sentences|utterances))\b"
                       r"[^?]*?\b(?:the\s+)?(?P<which>most|fewest|least)\s+(?:number\s+of\s+)?words\b", re.IGNORECASE)
# "who spoke the most words per turn on average?", "whose turns had the most words on average?"
_PER_TURN = re.compile(r"\bper\s+(?:turn|sentence|utterance)\b|\bon\s+(?:the\s+)?average\b|\baverage\b|\b(?:a|each)\s+"
                       r"turn\b|^\W*whose\s+(?:turns|sentences|utterances)\b", re.IGNORECASE)

# "who said the most words in a single turn?", "which person used the most words in one sentence?"
_ONE_TURN = re.compile(r"\bin\s+(?:a\s+single|one\s+single|one|a)\s+(?:turn|go|sentence|utterance|stretch|breath)\b|"
                       r"\bat\s+(?:a\s+time|once)\b", re.IGNORECASE)
# "who spoke right before the longest turn?", "who took the turn just before the longest one?"
_NEXT_TO_LENGTH = re.compile(r"\b(?:right|just|immediately|directly)\s+(?P<rel>before|after)\s+(?:the\s+)?"
                             r"(?P<which>longest|shortest)\s+(?:single\s+|one\s+)?(?:turn|sentence|utterance|one)\b|"
                             r"\b(?:turn|sentence|utterance)\s+(?:right|just|immediately|directly)\s+(?P<rel2>before|"
                             r"after)\s+(?:the\s+)?(?P<which2>longest|shortest)\b(?!\s+(?:silence|pause|gap|quiet|wait))",
                             re.IGNORECASE)

# "how much longer was the longest turn than the shortest one?", "the difference in length between the longest and
# the shortest turn": the two lengths and their difference
_RANGE = re.compile(r"\bhow\s+much\s+(?:longer|shorter)\s+was\s+the\s+(?:longest|shortest)\b[^?]*?\bthan\s+the\s+"
                    r"(?:shortest|longest)\b|\bdifference\s+(?:in\s+(?:length|duration)\s+)?between\s+the\s+(?:longest|"
                    r"shortest)\b[^?]*?\band\s+(?:the\s+)?(?:shortest|longest)\b", re.IGNORECASE)

# "how many words did A say in total?", "how many words were spoken in the lab?": the words heard, counted
_WORD_COUNT = re.compile(r"^\W*how\s+many\s+words\s+(?:did|were|have|had|has)\b", re.IGNORECASE)
# "how many turns were longer than 2 seconds?", "how many sentences lasted less than three seconds?"
_HOW_MANY_TURNS = r"^\W*how\s+many\s+(?:of\s+(?:the\s+|[^?]*?(?:'s|’s)\s+))?(?:turns|sentences|utterances|remarks|" \
    r"things\s+said)\b"
_COUNT_OVER = re.compile(_HOW_MANY_TURNS +
                         rf"[^?]*?\b(?P<cmp>longer|more|over|shorter|less|under)\s+(?:than\s+)?(?P<n>{AMOUNT})",
                         re.IGNORECASE)


# "how many turns were longer than A's longest turn?", "how many turns lasted longer than the longest of A's turns?"
_COUNT_THAN_TURN = re.compile(_HOW_MANY_TURNS + r"[^?]*?\b(?P<cmp>longer|more|over|shorter|less|under)\s+than\s+"
                              r"(?:the\s+(?P<w1>longest|shortest|briefest)\s+(?:one\s+)?of\s+)?(?:the\s+person\s+who\s+"
                              r"said\s+)?(?:QUOTED|[A-Z][a-z]+)\s*(?:'s|’s)\s+(?:(?P<w2>longest|shortest|briefest)\s+)?"
                              r"(?:turns?|sentences?|utterances?|ones?)\b", re.IGNORECASE)


# "did anyone say the same sentence as A?", "who else said what A said?"
_SAME_AS = re.compile(r"\b(?:say|said|says|repeat|repeated)\s+the\s+same\s+(?:sentence|thing|words?|phrase)\s+as\s+"
                      r"|\bwho\s+else\s+said\s+(?:the\s+same|what)\b", re.IGNORECASE)


# "what did everyone say?", "what did each person say in the lab?": every speaker's sentences (not a topic: "what did
# people say about the folder?" is a search)
_EACH_SAID = re.compile(r"^\W*what\s+(?:did|have|had|has)\s+(?:everyone|everybody|each\s+(?:person|one|speaker|voice|"
                        r"of\s+them)|all\s+(?:of\s+)?(?:the\s+)?(?:people|speakers|voices)|(?:the\s+)?people|they\s+all|all\s+of\s+"
                        r"them|the\s+(?:speakers|voices))\s+(?:\w+\s+)?(?:say|said|tell|told)\b(?![^?]*\babout\b)",
                        re.IGNORECASE)


# "which room had the longest single turn?", "where was the shortest sentence said?": the room is asked

# "whose first turn was the longest?", "which person's last turn was the shortest?", "who had the longest first turn?"
_NTH_LENGTH = re.compile(r"^\W*(?:whose|which\s+(?:person|speaker)(?:'s|’s)|(?:who|which\s+(?:person|speaker|one))\s+"
                         r"had\s+the\s+(?P<w1>longest|shortest|briefest))\s+(?P<nth>first|last|final|opening|closing)\s+(?:turn|words|sentence|utterance)s?"
                         r"(?:\s+(?:was|were|lasted|took)\s+(?:the\s+)?(?P<w2>longest|shortest|briefest))?\b",
                         re.IGNORECASE)


# "how many turns were longer than the average turn?", "how many turns lasted less than average?"
_COUNT_AVERAGE = re.compile(_HOW_MANY_TURNS + r"[^?]*?\b(?P<cmp>longer|more|over|shorter|less|under|above|below)\s+"
                            r"(?:than\s+)?(?:the\s+|an\s+)?(?:average|mean|typical)\b(?:\s+(?:turn|sentence|utterance|length|one|duration)s?)?",
                            re.IGNORECASE)


def _rank_of(question: str) -> int:
    """"the second longest turn" -> 2 (else 1)."""
    m = re.search(r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)[\s-]+(?:longest|shortest|briefest)\b", question,
                  re.IGNORECASE)
    return {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}[
        m.group(1).lower()] if m else 1


def one_turn_over(question: str) -> bool:
    """"... for more than 3 seconds at once (in one go)?": one turn's length over a time, not a total."""
    return _OVER_TURN.search(question) is not None


def asks_sentences(question: str) -> SentenceAsk | None:
    if _EACH_SAID.search(question) and not quotes_of(question):
        return SentenceAsk("by_person", "")
    if _SAME_AS.search(question) and len(quotes_of(question)) == 1:
        return SentenceAsk("same_as", "")
    words = word_form(question)
    if words is not None:
        return SentenceAsk(**{"said": "", **words})
    if _WORD_COUNT.search(question):
        return SentenceAsk("word_count", "")
    m = _COUNT_AVERAGE.search(question)
    if m is not None:      # the limit is the average of the turns counted (seconds < 0)
        over = m.group("cmp").lower() in ("longer", "more", "over", "above")
        return SentenceAsk("count_over" if over else "count_under", question[m.start("cmp"):m.end()], seconds=-1.0)
    m = _COUNT_THAN_TURN.search(QUOTED.sub(" QUOTED ", question))
    if m is not None and len(people := people_in(question)) == 1:
        # "how many turns were longer than A's longest turn?": the limit is that turn's length
        over = m.group("cmp").lower() in ("longer", "more", "over")
        which = (m.group("w1") or m.group("w2") or "longest").lower()
        return SentenceAsk("count_over" if over else "count_under", "", seconds=-2.0, than=people[0],
                           nth="shortest" if which in ("shortest", "briefest") else "longest")
    m = _COUNT_OVER.search(question)
    if m is not None and (n := time_of(m.group("n"))) is not None:
        over = m.group("cmp").lower() in ("longer", "more", "over")
        return SentenceAsk("count_over" if over else "count_under", question[m.start("cmp"):m.end("n")], seconds=n)
    m = _NTH_LENGTH.search(question)
    if m is not None and (m.group("w1") or m.group("w2")):
        nth = "first" if m.group("nth").lower() in ("first", "opening") else "last"
        return SentenceAsk("nth_length", m.group(0), nth=nth,
                           seconds=1.0 if (m.group("w1") or m.group("w2")).lower() == "longest" else 0.0)
    m = _RANGE.search(question)
    if m is not None:
        return SentenceAsk("range", m.group(0))
    m = _WORDIEST.search(question)
    if m is not None:
        single = bool(_ONE_TURN.search(question)) and not re.search(r"\bon\s+(?:the\s+)?average|\bper\s+turn\b",
                                                                    question, re.IGNORECASE)
        return SentenceAsk("most_words" if m.group("which").lower() == "most" else "fewest_words", m.group(0),
                           per_turn=not single and bool(_PER_TURN.search(question)), single=single)
    m = _NEXT_TO_LENGTH.search(question)
    if m is not None:
        which = (m.group("which") or m.group("which2")).lower()
        return SentenceAsk("longest" if which == "longest" else "shortest", m.group(0),
                           rel=(m.group("rel") or m.group("rel2")).lower())
    m = _ONE_GO.search(question) or _TURN_WAS.search(question)
    if m is not None:    # ("whose single turn in the hallway was the longest?": the place stays the checks')
        said = m.group(0).replace(m.group("where"), " ") if "where" in m.re.groupindex and m.group("where") else \
            m.group(0)
        return SentenceAsk("longest" if m.group("which").lower() == "longest" else "shortest", said,
                           rank=_rank_of(question))
    m = _OVER_TURN.search(question)
    if m is not None and (n := time_of(m.group("n"))) is not None:
        people = people_in(question)     # "did A ever speak for longer than 3 seconds at once?": A's turns only
        return SentenceAsk("over", m.group(0), seconds=n, who=people[0] if len(people) == 1 else None)
    m = _LENGTH.search(question)
    if m is not None:
        which = m.group("which").lower()
        return SentenceAsk("longest" if which in ("longest", "longer") else "shortest", m.group(0),
                           rank=_rank_of(question))
    for kind, pattern in (("distinct", _DISTINCT), ("shared", _SHARED), ("most_repeated", _MOST_REPEATED),
                          ("most_said", _MOST_SAID), ("repeated", _REPEATED)):
        m = pattern.search(question)
        if m is not None:     # (one person named: their sentences only)
            people = people_in(question) if kind == "most_said" else []
            return SentenceAsk(kind, m.group(0), who=people[0] if len(people) == 1 else None)
    return None


def check_question(question: str, ask: SentenceAsk) -> str:
    return question.replace(ask.said, " ") if ask.said else question


def prepare(q: Query) -> Query:
    """Voice turns in the frame's window and place (a person the frame names keeps their own)."""
    return voice_turns(q, person=True)


def groups_of(turns: list) -> list[list]:
    """Turns grouped by the sentence they said, in the order each was first said."""
    groups: list[list] = []
    for e in turns:
        g = next((g for g in groups if same_sentence(g[0].text, e.text)), None)
        if g is None:
            groups.append([e])
        else:
            g.append(e)
    return groups


def _length_said(e: object, limit: float) -> str:
    """A turn's length to a tenth of a second, or a hundredth where the tenth would read as the limit itself ("less
    than 2 seconds: ... (1.96 seconds)", not "(2.0 seconds)")."""
    d = e.end - e.start  # type: ignore[attr-defined]
    return f"{d:.2f}" if round(d, 1) == limit else f"{d:.1f}"


def answer(executor: QueryExecutor, q: Query, ask: SentenceAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    frame = replace(prepare(q), who=None) if ask.kind == "same_as" or ask.than else \
        replace(prepare(q), who=ask.who) if ask.who else prepare(q)
    res = executor.run(frame, before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice" and e.text.strip()), key=lambda e: (e.start, e.id))
    where = conditions(res)   # the place and the window asked about ("in the lab before 00:40")
    if not turns:
        if "who" in res.who and frame.who:     # the person named never spoke there (others may have)
            return f"I did not hear {res.describe[res.who['who'].character_id]} speak{where}.", res
        return f"I heard nobody speak{where}.", res
    if ask.kind == "over":
        over = [e for e in turns if e.end - e.start > ask.seconds]
        limit = f"{ask.seconds:g} second{'s' if ask.seconds != 1 else ''}"
        res.value = (len(over), int(round(ask.seconds)))
        if not over:
            longest = max(turns, key=lambda e: e.end - e.start)
            res.events = [longest] + [e for e in res.events if e is not longest]
            whose = f" of {res.describe[longest.character_id]}'s" if ask.who else ""
            text = f"No, no single turn{whose}{where} lasted more than {limit}: the longest was " \
                f"{res.describe[longest.character_id]}'s at {res.say(longest.start)} " \
                f"({longest.end - longest.start:.1f} seconds)."
            problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
            return (REFUSAL if problems else text), res
        res.events = over + [e for e in res.events if e not in over]
        said = "; ".join(f"{res.describe[e.character_id]} at {res.say(e.start)} ({_length_said(e, ask.seconds)} "
                         "seconds)" for e in over)
        text = f"Yes, {said}."
        problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
        return (REFUSAL if problems else text), res
    if ask.kind == "range":
        return _range(res, turns, where)
    if ask.kind in ("longest", "shortest"):
        if WHERE_ASKED.match(question):     # "which room had the longest single turn?": the turns placed first
            executor.place_turns(res, turns)
        if ask.rel:
            return _next_to_length(executor, res, turns, ask, where, before_time)
        return _length(res, turns, ask.kind == "longest", where, question, ask.rank)
    if ask.kind == "nth_length":
        return _nth_length(res, turns, ask.nth, bool(ask.seconds), where)
    if ask.kind in WORD_KINDS:       # measured in words
        return answer_words(res, turns, ask.kind, ask.nth, ask.single, ask.per_turn, where,
                            bool(frame.who), bool(q.who))
    if ask.kind in ("count_over", "count_under") and ask.than:
        return than_persons_turn(executor, res, turns, ask.than, ask.nth, ask.kind == "count_over", where,
                                 before_time)
    if ask.kind in ("count_over", "count_under"):
        over = ask.kind == "count_over"
        mean = sum(e.end - e.start for e in turns) / len(turns)
        seconds = mean if ask.seconds < 0 else ask.seconds
        hits = [e for e in turns if (e.end - e.start > seconds) == over and e.end - e.start != seconds]
        res.events = hits + [e for e in res.events if e not in hits]
        res.value = (len(hits), len(turns), int(round(seconds)))
        limit = f"{'more' if over else 'less'} than {ask.seconds:g} second{'s' if ask.seconds != 1 else ''}" \
            if ask.seconds >= 0 else f"{'longer' if over else 'shorter'} than {'their' if frame.who else 'the'} " \
            f"average turn ({mean:.2f} seconds)"
        length = (lambda e: f"{e.end - e.start:.2f}") if ask.seconds < 0 else (lambda e: _length_said(e, seconds))
        said = "; ".join(f"{res.describe[e.character_id]} at {res.say(e.start)} ({length(e)} seconds)"
                         for e in hits[:8]) + (f" (and {len(hits) - 8} more)" if len(hits) > 8 else "")
        verb = "lasted" if ask.seconds >= 0 else "was" if len(hits) == 1 else "were"
        text = f"{len(hits)} of the {len(turns)} turns{where} {verb} {limit}" + \
            (f": {said}." if hits else ".")
        problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
        return (REFUSAL if problems else text), res
    groups = groups_of(turns)
    res.steps.append({"step": "sentences", "turns": len(turns), "sentences": len(groups)})
    if ask.kind == "distinct":
        res.value = (len(groups), len(turns))
        said = "; ".join(f'"{g[0].text}" ({times_word(len(g))})' for g in groups)
        text = f"{len(groups)} different sentence{'s' if len(groups) != 1 else ''}{where}, in {len(turns)} turns: " \
            f"{said}."
        return (REFUSAL if check(text, res) else text), res
    if ask.kind in ("shared", "most_repeated", "by_person"):
        return _by_people(res, groups, ask.kind, where)
    if ask.kind == "same_as":
        named = executor.run(replace(prepare(q), who=quotes_of(question)[0]), before_time)
        if named.status != "ok":
            return phrase(named), named
        cid = named.who["who"].character_id
        res.describe[cid] = named.describe[cid]  # type: ignore[index]
        theirs = [g for g in groups if any(e.character_id == cid for e in g)]
        others = [(g, [e for e in g if e.character_id != cid]) for g in theirs]
        others = [(g, o) for g, o in others if o]
        d = res.describe[cid]
        if not others:
            return f"No, nobody else{where} said what {d} said.", res
        res.events = [e for g, _ in others for e in g] + [e for e in res.events if all(e not in g for g, _ in others)]
        said = "; ".join(f'"{g[0].text.strip().rstrip(".!?")}": ' + _join(
            [f"{res.describe[e.character_id]} at {res.say(e.start)}" for e in o]) for g, o in others)
        text = f"Yes, {said}."
        return (REFUSAL if check(text, res) else text), res
    n = max(len(g) for g in groups)
    top = [g for g in groups if len(g) == n]
    res.value = n
    res.events = [e for g in top for e in g] + [e for e in res.events if all(e not in g for g in top)]
    if ask.kind == "repeated":
        again = [g for g in groups if len(g) > 1]
        if not again:
            return f"No, every sentence I heard{where} was said once.", res
        res.value = tuple(len(g) for g in again)
        said = "; ".join(f'"{g[0].text}" ({times_word(len(g))}: at {_join([res.say(e.start) for e in g])})'
                         for g in again)
        text = f"Yes, {said}."
        return (REFUSAL if check(text, res) else text), res
    if n == 1:
        return f"Every sentence I heard{where} was said once ({len(turns)} turns): none more often than another.", res
    def by(g: list) -> str:
        return _join(list(dict.fromkeys(res.describe[e.character_id] for e in g)))

    said = "; ".join(f'"{g[0].text}", {times_word(n)} (by {by(g)}, at {_join([res.say(e.start) for e in g])})'
                     for g in top)
    text = f"The sentence I heard most often{where}: {said}." if len(top) == 1 else \
        f"{len(top)} sentences were said most often{where}: {said}."
    res.value = (n, len(top))
    return (REFUSAL if check(text, res) else text), res


def _length(res: QueryResult, turns: list, longest: bool, where: str, question: str,
            rank: int = 1) -> tuple[str, QueryResult]:
    """The longest (shortest) single turn: the time it took to say, to the hundredth as measured (turns as long as
    each other are each named; the words break a tie only where the question asks for a sentence or words); the
    turns within a tenth of a second of it are counted."""
    by_words = bool(re.search(r"\b(?:sentences?|words?)\b|\bthings?\b[^?]*\bsaid\b", QUOTED.sub(" ", question),
                              re.IGNORECASE))

    def key(e) -> tuple[float, int]:  # noqa: ANN001
        return (round(e.end - e.start, 2), len(e.text.split()) if by_words else 0)

    if rank > 1:    # "the second longest turn": the n-th length to the hundredth (turns as long as each other: one)
        return _nth_length_turn(res, turns, longest, where, rank)
    best = max(turns, key=key) if longest else min(turns, key=key)
    ties = [e for e in turns if key(e) == key(best)]
    near = [e for e in turns if e not in ties and abs(key(e)[0] - key(best)[0]) < 0.1]
    res.events = ties + [e for e in res.events if e not in ties]
    res.value = (*(int(round(e.end - e.start)) for e in ties), len(near))
    res.steps.append({"step": f"{'longest' if longest else 'shortest'} single turn", "turns": len(turns)})
    word = "longest" if longest else "shortest"

    def one(e) -> str:  # noqa: ANN001
        secs = e.end - e.start
        took = f"{secs:.1f} seconds" if secs < 10 else f"{int(round(secs))} seconds"
        return f'{res.describe[e.character_id]}, at {res.say(e.start)}: "{e.text}" ({took})'

    text = f"The {word} single turn{where} was {one(best)}." if len(ties) == 1 else \
        f"The {word} single turns{where} ({len(ties)}, as long as each other) were {'; '.join(one(e) for e in ties)}."
    if near:
        text += f" {len(near)} other turn{'s' if len(near) != 1 else ''} came within a tenth of a second of " \
                f"{'it' if len(ties) == 1 else 'them'}."
    if re.match(r"^\W*(?:who|whose|which\s+(?:person|speaker|one\s+of\s+them))\b", question, re.IGNORECASE):
        # "who said the longest sentence?", "which person took the longest turn?": the person first
        people = _join(list(dict.fromkeys(res.describe[e.character_id] for e in ties)))
        text = f"{_cap(people)}. {text}"
    elif WHERE_ASKED.match(question):     # "in which room was the longest turn spoken?": the room(s) first
        rooms = list(dict.fromkeys(res.places[e.id] for e in ties if e.id in res.places))
        lead = f"In {_join([the_place(r) for r in rooms])}" if rooms else "I cannot place it in a room I knew"
        text = f"{lead}{' (a tie across rooms)' if len(rooms) > 1 else ''}. {_cap(text)}"
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


def _range(res: QueryResult, turns: list, where: str) -> tuple[str, QueryResult]:
    """"The longest single turn (A's at 01:03, 2.33 seconds) was 0.83 seconds longer than the shortest (B's at 00:06,
    1.50 seconds)."."""
    long, short = max(turns, key=lambda e: e.end - e.start), min(turns, key=lambda e: e.end - e.start)
    a, b = round(long.end - long.start, 2), round(short.end - short.start, 2)
    res.events = [long, short] + [e for e in res.events if e is not long and e is not short]
    res.seconds = {**res.seconds, -1: round(a - b, 2), -2: round(a, 2), -3: round(b, 2)}
    res.steps.append({"step": "longest and shortest single turns", "turns": len(turns)})
    text = f"The longest single turn{where} ({res.describe[long.character_id]}'s at {res.say(long.start)}, {a:.2f} " \
           f"seconds) was {a - b:.2f} seconds longer than the shortest ({res.describe[short.character_id]}'s at " \
           f"{res.say(short.start)}, {b:.2f} seconds)."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res


def _nth_length_turn(res: QueryResult, turns: list, longest: bool, where: str, rank: int) -> tuple[str, QueryResult]:
    """"The second longest single turn was A's at 00:33 (1.96 seconds); the longest, B's at 01:01 (2.44 seconds)."."""
    values = sorted({round(e.end - e.start, 2) for e in turns}, reverse=longest)
    word = "longest" if longest else "shortest"
    if rank > len(values):
        res.value = (len(values),)
        return f"The turns{where} had only {len(values)} different lengths.", res
    pick, first = values[rank - 1], values[0]
    chosen = [e for e in turns if round(e.end - e.start, 2) == pick]
    top = [e for e in turns if round(e.end - e.start, 2) == first]
    res.events = chosen + top + [e for e in res.events if e not in chosen and e not in top]
    res.value = (len(chosen),)
    res.steps.append({"step": f"{ordinal_word(rank)} {word} single turn", "turns": len(turns)})

    def one(e) -> str:  # noqa: ANN001
        return f"{res.describe[e.character_id]}'s at {res.say(e.start)} ({e.end - e.start:.2f} seconds)"

    text = f"The {ordinal_word(rank)} {word} single turn{where} was {'; '.join(one(e) for e in chosen)}; the " \
           f"{word}, {'; '.join(one(e) for e in top)}."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else _cap(text)), res


def _nth_length(res: QueryResult, turns: list, nth: str, longest: bool, where: str) -> tuple[str, QueryResult]:
    """"Whose first turn was the longest?": each person's first (last) turn, by its length to the hundredth."""
    own: dict[int, object] = {}
    for e in turns:
        if nth == "last" or e.character_id not in own:
            own[e.character_id] = e
    length = {c: round(e.end - e.start, 2) for c, e in own.items()}  # type: ignore[attr-defined]
    best = (max if longest else min)(length.values())
    top = [c for c in own if length[c] == best]
    res.events = [own[c] for c in top] + [own[c] for c in own if c not in top]  # type: ignore[misc]
    res.value = (len(own),)
    res.steps.append({"step": f"each person's {nth} turn by its length", "people": len(own)})
    word = "longest" if longest else "shortest"

    # to the hundredth where a tenth would show another person's turn as long as the longest
    fine = any(round(length[c], 1) == round(best, 1) for c in own if c not in top)

    def said(c: int) -> str:
        e = own[c]
        return f"{e.end - e.start:.{2 if fine else 1}f} seconds, at {res.say(e.start)}"  # type: ignore[attr-defined]

    lead = " and ".join(res.describe[c] for c in top)
    others = "; ".join(f"{res.describe[c]} {said(c)}" for c in own if c not in top)
    text = _cap(f"{lead}'s {nth} turn{'s were' if len(top) > 1 else ' was'} the {word}{where} "
                f"({'; '.join(said(c) for c in top)}){f'; the others: {others}' if others else ''}.")
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res



def _by_people(res: QueryResult, groups: list[list], kind: str, where: str) -> tuple[str, QueryResult]:
    """"Which sentence was said by more than one person?" (``shared``), "who repeated their sentence the most?"
    (``most_repeated``: the person with the most turns of one sentence)."""
    def who(g: list) -> list[int]:
        return list(dict.fromkeys(e.character_id for e in g))

    if kind == "by_person":      # each speaker's sentences, in the order they first spoke
        people = list(dict.fromkeys(c for g in groups for c in who(g)))
        people.sort(key=lambda c: min(e.start for g in groups for e in g if e.character_id == c))
        res.value = len(people)
        said = "; ".join(f"{res.describe[c]}: " + ", ".join(
            f'"{g[0].text.strip().rstrip(".!?")}" ({times_word(sum(e.character_id == c for e in g))})'
            for g in groups if c in who(g)) for c in people)
        text = f"{len(people)} {'person' if len(people) == 1 else 'people'} spoke{where}. {_cap(said)}."
        return (REFUSAL if check(text, res) else text), res
    if kind == "shared":
        shared = [g for g in groups if len(who(g)) > 1]
        res.value = len(shared)
        if not shared:
            return f"None: every sentence I heard{where} was said by one person only.", res
        said = "; ".join(f'"{g[0].text}" by {_join([res.describe[c] for c in who(g)])}' for g in shared)
        res.events = [e for g in shared for e in g] + [e for e in res.events if all(e not in g for g in shared)]
        text = f"{said}."
        return (REFUSAL if check(_cap(text), res) else _cap(text)), res
    best: dict[int, list] = {}
    for g in groups:
        for c in who(g):
            mine = [e for e in g if e.character_id == c]
            if len(mine) > len(best.get(c, [])):
                best[c] = mine
    n = max(len(v) for v in best.values())
    top = [c for c, v in best.items() if len(v) == n]
    res.value = n
    res.events = [e for c in top for e in best[c]] + [e for e in res.events if all(e not in best[c] for c in top)]
    if n == 1:
        return f"Nobody{where} said the same sentence twice.", res
    said = "; ".join(f'{res.describe[c]} said "{best[c][0].text.strip().rstrip(".!?")}" {times_word(n)} (at '
                     f"{_join([res.say(e.start) for e in best[c]])})" for c in top)
    text = f"{_cap(said)}{where}."
    return (REFUSAL if check(text, res) else text), res



def _next_to_length(executor: QueryExecutor, res: QueryResult, turns: list, ask: SentenceAsk, where: str,
                    before_time: float | None) -> tuple[str, QueryResult]:
    """"Who spoke right before the longest turn?": the longest (shortest) single turn of the frame's turns, then the
    turn heard right before (after) it among everyone's turns (the frame's place and window do not bound that one)."""
    longest = ask.kind == "longest"

    def key(e) -> float:  # noqa: ANN001
        return round(e.end - e.start, 2)    # (turns as long as each other, to the hundredth: each one is answered)

    best = max(turns, key=key) if longest else min(turns, key=key)
    ties = [e for e in turns if key(e) == key(best)]
    everyone = executor.run(replace(prepare(Query(find="who")), at=None), before_time)
    timeline = sorted((e for e in (everyone.events if everyone.status == "ok" else turns) if e.kind == "voice"),
                      key=lambda e: (e.start, e.id))
    for e in timeline:
        res.describe.setdefault(e.character_id, everyone.describe.get(e.character_id, f"<character_{e.character_id}>"))
    ids = [e.id for e in timeline]
    parts: list[str] = []
    found: list = []
    word = "longest" if longest else "shortest"
    side = "before" if ask.rel == "before" else "after"
    for t in ties:
        i = ids.index(t.id) if t.id in ids else -1
        j = i - 1 if side == "before" else i + 1
        n = timeline[j] if i >= 0 and 0 <= j < len(timeline) else None
        owner = f"{res.describe[t.character_id]}'s at {res.say(t.start)}"
        this = owner if len(ties) > 1 else f"the {word} single turn{where}, {owner} ({t.end - t.start:.1f} seconds)"
        if n is None:
            parts.append(f"nobody spoke right {side} {this}")
            continue
        found.append(n)
        parts.append(f'{res.describe[n.character_id]} spoke right {side} {this}: at {res.say(n.start)}, '
                     f'"{n.text.strip().rstrip(".!?")}"')
    if len(ties) > 1:
        parts[0] = f"{len(ties)} single turns{where} were the {word}, as long as each other " \
                   f"({ties[0].end - ties[0].start:.1f} seconds): {parts[0]}"
    res.events = found + ties + [e for e in res.events if e not in found and e not in ties]
    res.steps.append({"step": f"the turn right {side} the {word} single turn", "turns": len(timeline)})
    text = _cap("; ".join(parts)) + "."
    problems = [p for p in check(text, res) if not p.startswith("count not in the result")]
    return (REFUSAL if problems else text), res

