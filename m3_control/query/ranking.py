"""Ranks the question's own words leave one reading of (used by :mod:`.fidelity`), beside wording.py's n-th person
and n-th from the end:

* "the second most", "the second highest number of turns", "the second fewest times": a rank by count
  (``pick=second_most``, ``third_most``, ``second_least``), not the most nor the second person;
* "the third thing I heard", "the second to last words", "what did you hear said third?": the n-th *turn* of anyone
  (``by=turn``), not the n-th person; "the third person to speak" stays a person;
* "when did X speak for the second time?": X's own second turn, not a relation to someone's;
* a rank the question never says (``pick=-2`` for "before X said anything, how many turns had I heard?") goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from .frame import TIMED_REL, Query, compares_with_other, count_rank, rel_base
from .wording import ORDINAL_WORDS, _rank
from .words import COUNT_WORDS

_ORD_RE = r"(?:" + "|".join(ORDINAL_WORDS) + r"|\d{1,2}(?:st|nd|rd|th))"
_MOST_WORDS = r"(?:most|highest|greatest|largest|biggest)"
_LEAST_WORDS = r"(?:least|fewest|lowest|smallest)"
_BY_COUNT = re.compile(rf"\b(second|third|2nd|3rd)[\s-]+(?:{_MOST_WORDS}(?!\s+recent)|({_LEAST_WORDS}))\b",
                       re.IGNORECASE)
_ORDINAL_OR_END = (r"(?P<ord>(?P<end>second|third|next)[\s-]+to[\s-]+(?:the\s+)?(?:last|final)|penultimate|"
                   rf"{_ORD_RE}|last|final)")
# "the third thing I heard", "the second to last words", "the fourth utterance", "the 3rd time I heard someone speak"
_TURN_NOUN = re.compile(rf"\b{_ORDINAL_OR_END}\s+(?:things?|words|utterances?|sentences?|remarks?|lines?|"
                        r"time\s+(?:that\s+)?(?:i|you|we)\s+(?:heard|hear)\s+(?:someone|somebody|anyone|anybody|"
                        r"a\s+voice|people))\b", re.IGNORECASE)
_STEP = re.compile(r"\b(?:just|right|immediately)\s+(before|after)\s+(?:the\s+)?$", re.IGNORECASE)
# "what did you hear said third?", "which words did I hear second to last?": only in a question about words
_REL_WORD = re.compile(r"\b(?:after|before|since|until|till)\b", re.IGNORECASE)
_HEARD_ORD = re.compile(rf"\b(?:hear|heard)\s+(?:said\s+|spoken\s+)?{_ORDINAL_OR_END}\b", re.IGNORECASE)
_WHO_ASKED = re.compile(r"^\W*(?:who|whose|which\s+(?:person|people|one|speaker|voice))\b", re.IGNORECASE)
# ("the third to last person to speak": people by their last words, counted from the end)
_PERSON_RANK = re.compile(rf"\b(?:{_ORD_RE}|(?:second|third|fourth|fifth|next)[\s-]+to[\s-]+(?:the\s+)?(?:last|final)|"
                          r"penultimate)\s+(?:person|people|one|speaker|voice|to\s+(?:speak|talk))\b|"
                          r"\b(?:each|every)\s+(?:person|speaker|one|voice)\s+(?:only\s+)?once\b|"
                          r"\b(?:different|distinct|new)\s+(?:person|people|speakers?|voices?)\b", re.IGNORECASE)


def rank_by_count(q: Query, plain: str, added: list[str]) -> Query:
    """"Who spoke the second most?" written pick=most, pick=2 or times=2: the people with the second highest count
    (``pick=second_most``); "the third most" and "the second fewest" likewise."""
    m = _BY_COUNT.search(plain)
    if m is None or q.find not in ("who", "what", "when", "where") or q.until or compares_with_other(q.times) or \
            (q.rel and q.rel not in ("before", "after", "before_last", "after_last", "same_place")):
        return q
    word = m.group(1).lower()
    k = 3 if word in ("third", "3rd") else 2
    least = m.group(2) is not None
    pick = "second_least" if least and k == 2 else None if least else f"{'second' if k == 2 else 'third'}_most"
    if pick is None or q.pick == pick:
        return q
    added.append(f"pick={pick}: the question ranks by count ({m.group(0)!r})")
    return replace(q, pick=pick, times=None, by=None)


_EXACT_N = {"one": 1, "a single": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "once": 1, "twice": 2,
            "thrice": 3}
# "how many people had only one turn in the kitchen?", "which speakers took exactly two turns?": the people with that
# many turns (a count of people; not "did A speak only once?", a yes / no of one person's)
_EXACT = re.compile(r"^\W*(?:how\s+many\s+(?:people|persons|speakers|voices)|who|which\s+(?:people|persons|speakers|"
                    r"voices|person|speaker|one))\b[^?]*?\b(?:took|had|spoke|talked|said\s+something|was\s+heard|"
                    r"were\s+heard)\s+(?:exactly|only|just|precisely)\s+(?:(?P<n>one|a\s+single|two|three|four|five|\d+)\s+"
                    r"(?:turns?|times?|utterances?)|(?P<w>once|twice|thrice))\b", re.IGNORECASE)


def exact_count(q: Query, plain: str, added: list[str]) -> Query:
    """"How many people had only one turn in the kitchen?" written without times=: the people with exactly that many
    turns (times=N)."""
    m = _EXACT.search(plain)
    if m is None or q.times is not None or q.find not in ("who", "count_people") or q.who or q.rel or q.pick:
        return q
    word = " ".join((m.group("n") or m.group("w")).lower().split())
    n = _EXACT_N.get(word) or (int(word) if word.isdigit() else None)
    if n is None:
        return q
    added.append(f"times={n}: the question asks for the people with exactly {n} turn{'s' if n != 1 else ''}")
    return replace(q, times=f"={n}", act=q.act or "spoke")


# ("the second most recent speaker" is a rank from the end, read by the rank checks)
_RECENT = re.compile(r"(?<!second )(?<!third )(?<!fourth )\b(most|least)\s+recent(?:ly)?\b", re.IGNORECASE)


def recent_is_last(q: Query, plain: str, added: list[str]) -> Query:
    """"Who spoke most recently?" written pick=most: the last (least recently: the first), an order in time, not a
    count."""
    m = _RECENT.search(plain)
    if m is None or q.find not in ("who", "what", "when", "where") or q.rel or q.until:
        return q
    pick = "last" if m.group(1).lower() == "most" else "first"
    if q.pick == pick:
        return q
    added.append(f"pick={pick}: {m.group(0)!r} is an order in time, not a count")
    return replace(q, pick=pick, times=None, by=None if q.by != "turn" else q.by)


def _pick_of(m: re.Match) -> str:
    word = m.group("ord").lower()
    if m.group("end") or word == "penultimate":
        end = (m.group("end") or "second").lower()
        return str(-ORDINAL_WORDS.get(end, 2))   # "next to last" is the second to last
    if word in ("last", "final"):
        return "last"
    n = _rank(word)
    return "first" if n == 1 else str(n)


def _stepped(pick: str, step: int) -> str | None:
    """One turn earlier (-1) or later (+1) than ``pick``: "just before the last thing" is the second to last."""
    n = {"first": 1, "last": -1}.get(pick) or int(pick)
    n = n + step
    if n == 0 or (n == -1 and step > 0):
        return None
    return "first" if n == 1 else "last" if n == -1 else str(n)


def rank_of_turn(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"Who said the third thing I heard?": the third turn of anyone (``pick=3 by=turn``), whatever pick the frame
    wrote; "what was said just before the last thing I heard?" is the second to last (a relation to a turn no
    quote names); a frame that counts turns where the question ranks people ("the third person to speak") counts
    people."""
    no_quote = not quoted
    if q.who or q.until or q.find not in ("who", "what", "when", "where") or \
            (q.rel and not (q.rel in ("before", "after") or (no_quote and q.rel in ("right_before", "right_after")))):
        return q
    # "the second thing said after I entered the office": the n-th turn counted from the move (rel=after kept)
    keep_rel = q.rel in ("before", "after")
    drop_rel = no_quote and not keep_rel
    # with a relation kept, only a rank said before it ranks the asked turns ("the second thing said after I came
    # in"); one after it is the anchor's own ("who spoke after B's first words?")
    rel_word = _REL_WORD.search(plain) if keep_rel else None
    cut = rel_word.start() if rel_word else len(plain)
    picks = set()
    for m in _TURN_NOUN.finditer(plain[:cut]):
        step = _STEP.search(plain[:m.start()])
        pick = _pick_of(m)
        picks.add(_stepped(pick, -1 if step.group(1).lower() == "before" else 1) if step else pick)
    if not picks and q.find == "what":
        picks = {_pick_of(m) for m in _HEARD_ORD.finditer(plain[:cut])}
    if len(picks) == 1 and None not in picks:
        pick = str(picks.pop())
        if q.find == "what" and _WHO_ASKED.match(plain):
            # "whose words were the ninth thing I heard?", "who said the seventh thing?": the speaker, not the words
            added.append("find=who: the question asks who said it")
            q = replace(q, find="who")
        if (q.pick, q.by, q.rel) != (pick, "turn", None):
            added.append(f"pick={pick} by=turn: the question ranks the things said, not the people")
            return replace(q, pick=pick, by="turn", times=None, rel=None if drop_rel else q.rel,
                           other=None if drop_rel else q.other)
        return q
    if q.by == "turn" and not picks and _PERSON_RANK.search(plain):
        added.append("by=turn dropped: the question ranks people")
        return replace(q, by=None)
    return q


_NTH_TIME = re.compile(rf"\bfor\s+the\s+{_ORDINAL_OR_END}\s+time\b|"
                       r"\b(?P<again>again)\s+after\s+(?:their|his|her|the)\s+(?:very\s+)?first\s+(?:turn|time|words)\b",
                       re.IGNORECASE)
# "where was I the third time I heard X speak?": the n-th time as a clause, not "for the n-th time"
_NTH_TIME_CLAUSE = re.compile(rf"\bthe\s+{_ORDINAL_OR_END}\s+time\s+(?:that\s+)?(?:i|you|we|they|he|she|someone|"
                              r"somebody|anyone|anybody|the\s+person)\b", re.IGNORECASE)
# "right after the person who said X's second turn" (the quote taken out: "... 's second turn")
_NTH_TURN_OF = re.compile(rf"(?<!\w)'s\s+{_ORDINAL_OR_END}\s+(?:turn|time|words|sentence|remark)\b", re.IGNORECASE)
_RELATION = re.compile(r"\b(?:before|after|next|following|preceding|previous|since|until|till|once|between)\b",
                       re.IGNORECASE)


def own_nth_time(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"When did X speak for the second time?", "... talk again after their first turn?": X's own second turn
    (``who=X pick=2``), not a relation to somebody's turn; with a relation word before it ("what did I hear right
    after X spoke for the second time?") the question is about another turn and stays as it is."""
    if len(quoted) != 1 or q.find not in ("when", "where", "what") or q.until:
        return q
    m = _NTH_TIME.search(plain) or _NTH_TIME_CLAUSE.search(plain)
    if m is None or (not m.groupdict().get("again") and _RELATION.search(plain[:m.start()] + " " + plain[m.end():])):
        return q
    pick = "2" if m.groupdict().get("again") else _pick_of(m)
    if (q.who, q.other, q.rel, q.pick) == (quoted[0], None, None, pick):
        return q
    added.append(f"who={quoted[0]!r} pick={pick}: the question asks about their own {m.group(0)!r}")
    return replace(q, who=quoted[0], other=None, rel=None, pick=pick, by=None, times=None)


_RANK_WORDS = re.compile(rf"\b{_ORD_RE}\b|\bpenultimate\b|\bto[\s-]+(?:the\s+)?(?:last|final)\b|\bbut\s+one\b|"
                         r"\bbefore\s+(?:the\s+)?last\b|\bagain\b|\bnext\b|\bnumber\s+(?:\d+|one|two|three|four|five|six|"
                         r"seven|eight|nine|ten)\b|#\s*\d", re.IGNORECASE)


_COUNTING = re.compile(r"\b(?:most|least|fewest|more|less|fewer|often|times|talkative|busiest|quietest|highest|lowest|"
                       r"greatest|largest|smallest|biggest|number|turns|count)\b", re.IGNORECASE)


# any word that may ask for an end of an order: a first / last pick with none of them is the model's, not the question's
_ORDER_CUE = re.compile(r"\b(?:first|earliest|last|final|latest|recent(?:ly)?|newest|start\w*|began|begin\w*|"
                        r"open\w*|clos\w*|end\w*|finish\w*|stop\w*|kick\w*|initial\w*|previous\w*|prior|1st|going|led|lead\w*|"
                        r"earl\w*|lat\w*|most|least|"
                        r"again|next|then|once|until|till|(?:before|after)\s+(?:every|any|all)\w*|"
                        r"(?:right|just|immediately|directly|shortly)\s+(?:before|after))\b", re.IGNORECASE)


def unasked_rank(q: Query, plain: str, added: list[str]) -> Query:
    """An ordinal pick (2, -2, ...) in a question that ranks nothing ("before X said anything, how many turns had I
    heard?" written ``pick=-2``): dropped. A rank by count (second_least) where the question counts nothing and
    names an ordinal ("which room did I visit second?"): that ordinal. ``by=turn`` with no pick to count by (a count
    of turns written ``find=count_times by=turn``): dropped. A first / last person or words where the question has no
    word of order at all ("name everyone who spoke before 0:40" written ``pick=first``): dropped."""
    if q.by and not q.pick:
        added.append(f"by={q.by} dropped: no pick for it to rank")
        q = replace(q, by=None)
    if count_rank(q.pick) and count_rank(q.pick)[1] > 1 and not _COUNTING.search(plain):  # type: ignore[index]
        m = re.search(rf"\b{_ORD_RE}\b", plain, re.IGNORECASE)
        n = ORDINAL_WORDS.get(m.group(0).lower()) if m else None
        if n:
            added.append(f"pick={n}: the question counts nothing, its {m.group(0)!r} is an order")  # type: ignore
            return replace(q, pick="first" if n == 1 else str(n))
    if q.pick in ("first", "last") and q.find in ("who", "what") and not (q.rel or q.until or q.at or q.top) \
            and not _ORDER_CUE.search(plain):
        # "name everyone who spoke before 0:40" written pick=first: the question asks for all of them
        added.append(f"pick={q.pick} dropped: the question asks for no first or last")
        return replace(q, pick=None, by=None)
    if not q.pick or not re.fullmatch(r"-?\d+", q.pick) or _RANK_WORDS.search(plain):
        return q
    added.append(f"pick={q.pick} dropped: the question ranks nothing")
    return replace(q, pick=None, by=None)


def nth_anchor(q: Query, plain: str, added: list[str]) -> Query:
    """A relation to someone's n-th turn, other than their first or last ("who spoke right before A spoke for the
    second time?"): ``other_turn`` (a field of the question checks, not the model's), not their first turn; a pick
    the model wrote for that ordinal goes (it numbers other's turns, not the people asked about)."""
    if not q.rel or not q.other or q.rel in ("with", "same_place"):
        return q
    m = _NTH_TIME.search(plain) or _NTH_TIME_CLAUSE.search(plain) or _NTH_TURN_OF.search(plain)
    if m is None or m.groupdict().get("again"):
        return q
    n = _pick_of(m)
    if n in ("first", "last"):
        # "how many times did A speak before C spoke for the first time?": a count has no first one to pick, the
        # model's pick=first was other's first turn (the relation's default); "last" is other's last turn
        if not q.find.startswith("count_") or q.pick != n or not _RELATION.search(plain[:m.start()]):
            return q
        added.append(f"pick={n} dropped: the question's {m.group(0)!r} is other's turn, not one of those counted")
        rel = f"{rel_base(q.rel)}_last" if n == "last" and q.rel in TIMED_REL else q.rel
        return replace(q, pick=None, by=None, rel=rel)
    dropped = q.pick == n      # (the model's pick for that ordinal numbers other's turns, with its by=turn)
    new = replace(q, other_turn=n, rel=rel_base(q.rel), pick=None if dropped else q.pick,
                  by=None if dropped else q.by)
    if new != q:
        added.append(f"other_turn={n}: the relation is to other's {m.group(0)!r}")
    return new


_TIMES_SAID = re.compile(r"\b(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)\s+times\b|\b(?P<w>twice|thrice)\b",
                         re.IGNORECASE)


def count_not_rank(q: Query, plain: str, added: list[str]) -> Query:
    """pick=2 for "did anyone speak twice before C first spoke?": the question gives a number of times, not a rank
    (no ordinal in it): times>=2 ("exactly twice": times=2)."""
    m = _TIMES_SAID.search(plain)
    if m is None or q.times is not None or not q.pick or not re.fullmatch(r"\d+", q.pick):
        return q
    said = (m.group("n") or m.group("w")).lower()
    n = int(said) if said.isdigit() else COUNT_WORDS[said]
    ranks = {ORDINAL_WORDS.get(o.group(0).lower()) for o in re.finditer(rf"\b{_ORD_RE}\b", plain, re.IGNORECASE)}
    if n != int(q.pick) or n in ranks:    # ("who spoke a second time, twice in all?": the rank stays)
        return q
    exact = re.search(r"\b(?:exactly|only|just)\s+$", plain[:m.start()], re.IGNORECASE)
    times = f"={n}" if exact else f">={n}"
    added.append(f"times{times}: the question's {m.group(0)!r} is a number of times, not a rank")
    return replace(q, pick=None, by=None, times=times, act=q.act or "spoke")


def tie_across_top(people: list, said: list[str], score: Callable[[object], object], top: int, did: str) -> str:
    """"Which two people spoke the most?" when a tie runs across the cut: those ahead of it, then everyone tied, and
    that no ``top`` people alone did (``said``: each person with their figure, ranked as ``people``; " ~" marks
    where the answer's conditions go). "" when the top ``top`` are clear."""
    if not 0 < top < len(people) or score(people[top]) != score(people[top - 1]):
        return ""
    cut = score(people[top - 1])
    ahead = [i for i, p in enumerate(people) if score(p) != cut and i < top]
    tied = [p.description for p in people if score(p) == cut]
    figure = said[len(ahead)][said[len(ahead)].rindex("(") + 1:-1]
    lead = f"{' and '.join(said[i] for i in ahead)} {did} ~; then " if ahead else ""
    names = ", ".join(tied[:-1]) + f" and {tied[-1]}"
    return f"{lead}{names} tied ({figure} each){'' if ahead else ' ~'}, so no {_WORDS.get(top, str(top))} people " \
           f"alone {did}."


_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
