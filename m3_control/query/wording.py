"""A frame put back in line with the question's own words where they leave one reading (used by :mod:`.fidelity`).

Each repair reads words a person would use, never a question kind:

* a clock time is a window bound or a moment by the words around it ("past 0:46", "later than", "as of 0:10",
  "by", "until", "at", "before the clock reached", "once 1:04 had gone by", "from 0:20 on"): left out, it is put in;
  in the wrong field, it moves; a time the question never says goes (where it says times only as clocks), and a
  ``times`` count that only repeats the clock's digits goes;
* two people and one relation in time: the person the relation is anchored on is the one the relation word comes
  before ("... how many times had A spoken *before* B first spoke?", "*Once* B had spoken for the last time, did A
  still ...?"); a frame that relates them the other way round is turned, one that forgot the relation gets it;
  one person right after a relation word (or after "when", with the side said elsewhere: "when A spoke for the last
  time, who spoke next?") is the anchor;
* two people with "between" (or "after A and before B") and no choice word: the time between their turns
  (``other=A until=B``);
* a place the question does not name is not the question's;
* "what place was I in" is asked by ``where``, whatever else the sentence starts with.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import Query, compares_with_other
from .words import same_quote

CLOCK = re.compile(r"\b(\d{1,2}):([0-5]\d)(?::[0-5]\d)?\b")
# the question's quotes, as the relation repairs locate them (fidelity.quotes_of reads the same ones): an apostrophe
# inside a word ("I'd", "who's") opens no quote, and one right after a quote ("'X''s final turn") closes none
QUOTED = re.compile(r"\"([^\"]{2,})\"|“([^”]{2,})”|(?<!\w)'([^']{2,})'(?!\w)")
# a person by name inside a question ("... right after Ann?", "what does Ann drink?"): a capitalised word after a
# space, not "I" and not the "QUOTED" mark a question's quotes are replaced by
NAME_IN_QUESTION = re.compile(r"(?<=\s)(?!I\b|QUOTED\b)[A-Z][a-z]+\b")
_QUOTED = QUOTED
# "before the clock reached 0:36", "after the clock showed 0:09": the clock's words between the bound and the time
_CLOCK_SAID = (r"(?:\s+the\s+(?:clock|time|timer|mark)(?:\s+(?:reached|reaches|hit|hits|showed|shows|read|reads|said|"
               r"says|struck|was(?:\s+at)?|is(?:\s+at)?|got\s+to|turned))?)?")
_AFTER_WORDS = re.compile(r"\b(?:after|past|passed|since|from|beyond|following|later\s+than|onwards?\s+from)"
                          + _CLOCK_SAID + r"\s*$", re.IGNORECASE)
_BEFORE_WORDS = re.compile(r"\b(?:before|until|till|by|as\s+of|up\s+to|prior\s+to|earlier\s+than|ahead\s+of)"
                           + _CLOCK_SAID + r"\s*$", re.IGNORECASE)
_BETWEEN_FIRST = re.compile(r"\bbetween\s*$", re.IGNORECASE)
_BETWEEN_SECOND = re.compile(r"\b(?:between|from)\s+\d{1,3}:[0-5]\d\s*(?:and|to|till|until|-)\s*$", re.IGNORECASE)
_AT_WORDS = re.compile(r"\b(?:at|around|about)\s*$", re.IGNORECASE)
# words that place one person's turn relative to another's: the quote right after them is the anchor
# the words that may stand between a relation word and the quote it anchors on ("after the person who said ...")
REL_FILLER = ("the|a|an|that|this|person|man|woman|one|who|said|says|say|told|first|last|final|very|time|moment|had|"
              "has|did|was|spoke|spoken|talked|turn|turns|words|of|their|his|her|i|heard|someone|somebody|anyone")
_REL_WORD = re.compile(r"\b(?:before|after|once|by\s+the\s+time|until|till|up\s+(?:to|until|till)|since|following|"
                       rf"preceding|prior\s+to)\b(?:\s+(?:{REL_FILLER}))*\s*$", re.IGNORECASE)
_BEFORE_REL = re.compile(r"\b(?:before|by\s+the\s+time|until|till|up\s+to|prior\s+to|earlier\s+than|preceding)\b",
                         re.IGNORECASE)
_AFTER_REL = re.compile(r"\b(?:after|once|since|following|later\s+than|again|still)\b", re.IGNORECASE)
# "when / as / while the person who said X ...": at the time of their turn, the order (if any) said elsewhere
_WHEN_WORD = re.compile(r"^\W*(?:when|as|while|whenever)\b(?:\s+(?:the|a|an|that|this|person|man|woman|one|who|i|"
                        r"heard|someone|somebody))*\s+(?:said|says|say|told)\s*$", re.IGNORECASE)
_BEFORE_NEXT = re.compile(r"\b(?:before|previous|preceding|prior|earlier)\b", re.IGNORECASE)
_AFTER_NEXT = re.compile(r"\b(?:after|next|following|afterwards?|later|then)\b", re.IGNORECASE)
_ASKS_PLACE = re.compile(r"\b(?:what|which)\s+(?:place|room|part\s+of\s+the\s+house)\b|\bwhere\s+(?:was|were|am)\s+"
                         r"(?:i|we)\b", re.IGNORECASE)


# words after a clock that make it a start ("once 1:04 had gone by", "from 1:04 on") or an end ("1:04 or earlier")
_AFTER_FOLLOW = re.compile(r"^\s*(?:(?:had|has|was)\s+)?(?:gone\s+by|went\s+by|passed|elapsed|over)\b|"
                           r"^\s*(?:on|onwards?)\s*(?:[,?.!;]|$)|^\s*or\s+(?:later|after)\b", re.IGNORECASE)
_BEFORE_FOLLOW = re.compile(r"^\s*or\s+(?:earlier|before|sooner)\b", re.IGNORECASE)
# words that say a time without a clock ("the one-minute mark", "the first 30 s", "this morning"): times in the
# frame may come from them
_TIME_WORDS = re.compile(r"\b(?:minutes?|seconds?|hours?|mark|o'?clock|[ap]\.?m\b|noon|midnight|morning|afternoon|"
                         r"evening|night|today|yesterday|ago|half|quarter)|\b\d+\s*(?:s|secs?|mins?|h)\b",
                         re.IGNORECASE)
_UNITS = re.compile(r"\b(?:how\s+many|in|by|of|total|most|fewest|least|per|every)\s+(?:second|minute|hour)s?\b", re.I)
_FIELD_NAME = {"from_": "from", "to": "to", "at": "at"}


def clock_role(plain: str, m: re.Match) -> str | None:
    """The frame field a clock of the question is, by the words around it: ``from_``, ``to``, ``at`` or None."""
    after, before = plain[m.end():], plain[:m.start()]
    if _AFTER_FOLLOW.search(after):
        return "from_"
    if _BEFORE_FOLLOW.search(after):
        return "to"
    if _BETWEEN_SECOND.search(before):     # "between 0:30 and 1:30", "from 0:30 to 1:30"
        return "to"
    return "from_" if _AFTER_WORDS.search(before) or _BETWEEN_FIRST.search(before) else \
        "to" if _BEFORE_WORDS.search(before) else "at" if _AT_WORDS.search(before) else None


def invented_times(q: Query, plain: str, read, added: list[str]) -> Query:  # noqa: ANN001
    """from= / to= / at= holding a time the question never says ("to=1:30" for "once 1:27 had gone by, how many
    ...?", "from=0:00 to=0:01" for a question with no time in it) where the question says times only as clocks."""
    if _TIME_WORDS.search(_UNITS.sub(" ", plain)):   # ("how many seconds ...?", "least, in seconds": units, no time)
        return q
    said = {read(m.group(0)) for m in CLOCK.finditer(plain)}
    for f in ("from_", "to", "at"):
        if (v := getattr(q, f)) is not None and read(v) not in said:
            q = replace(q, **{f: None})
            added.append(f"{_FIELD_NAME[f]}={v} dropped: the question never says that time")
    return q


def clock_fields(q: Query, plain: str, read, added: list[str]) -> Query:  # noqa: ANN001
    """A clock of the question in a field its words do not give it ("once 1:04 had gone by" written from=1:04
    to=1:04, "before 0:50" written from=0:50, "what was said at 0:20?" written from=0:20): it moves to the field
    they give."""
    for m in CLOCK.finditer(plain):
        role = clock_role(plain, m)
        t = read(m.group(0))
        holding = [f for f in ("from_", "to", "at") if getattr(q, f) is not None and read(getattr(q, f)) == t]
        if role == "at" and holding and "at" not in holding and q.at is None and q.pick is None and \
                len(list(CLOCK.finditer(plain))) == 1:
            # "what was said at 0:20?" written from=0:20: everything after it, where the question asks for then
            q = replace(q, **({f: None for f in holding} | {"at": m.group(0)}))
            added.append(f"at={m.group(0)} only: the words around it make it a moment")
            continue
        if role not in ("from_", "to"):
            continue
        if not holding or holding == [role] or (role not in holding and getattr(q, role) is not None):
            continue
        q = replace(q, **({f: None for f in holding} | {role: m.group(0)}))
        added.append(f"{_FIELD_NAME[role]}={m.group(0)} only: the words around it make it "
                     f"{'a start' if role == 'from_' else 'an end'}")
    return q


def clock_bounds(q: Query, plain: str, frame_times: set, read, added: list[str]) -> Query:  # noqa: ANN001
    """Clock times of the question the frame does not hold, placed by the words around them. ``read(text)`` ->
    whole stream seconds (or None); ``frame_times``: the frame's times read the same way."""
    for m in CLOCK.finditer(plain):
        t = read(m.group(0))
        if t is None or t in frame_times:
            continue
        field = clock_role(plain, m)
        if field is None or getattr(q, field) is not None or (field == "at" and (q.from_ or q.to)) or \
                (field != "at" and q.at):
            continue
        digits = {m.group(1).lstrip("0") or "0", m.group(2).lstrip("0") or "0", m.group(1) + m.group(2)}
        times = q.times
        if times is not None and times.lstrip("<>=") in digits:
            times = None        # the clock's digits written as a number of times
        q = replace(q, **{field: m.group(0)}, times=times)
        frame_times.add(t)
        added.append(f"{'from' if field == 'from_' else field}={m.group(0)} from the words before it")
    return q


def _anchor_quote(question: str, quoted: list[str]) -> int | None:
    """Index into ``quoted`` of the one quote a relation word comes right before, else None."""
    spans = list(_QUOTED.finditer(question))
    if len(spans) != len(quoted) or len(spans) < 2:
        return None
    hits = []
    start = 0
    for i, m in enumerate(spans):
        if _REL_WORD.search(question[start:m.start()]):
            hits.append(i)
        start = m.end()
    return hits[0] if len(hits) == 1 else None


def anchor_order(q: Query, question: str, quoted: list[str], likeness, added: list[str]) -> Query:  # noqa: ANN001
    """Two quoted people related in time: other= is the one the relation word anchors on (swapped if the frame has
    it the other way round); a frame with both people and no relation gets the question's before / after. (A time
    between two people's turns runs from the first one named: spans.time_between.)"""
    if q.who is None or q.other is None or q.rel == "with" or q.find in ("same", "more", "less", "gap"):
        return q
    i = _anchor_quote(question, quoted)
    if i is None:
        return q
    anchor = quoted[i]
    if q.rel is None:
        plain = _QUOTED.sub(" ", question)
        b, a = bool(_BEFORE_REL.search(plain)), bool(_AFTER_REL.search(plain))
        if a == b:
            return q
        q = replace(q, rel="before" if b else "after")
        added.append(f"rel={q.rel} from the question")
    if likeness(anchor, q.who) > likeness(anchor, q.other):   # sentences built alike share words: the closer one
        q = replace(q, who=q.other, other=q.who)
        added.append("who / other turned: the question relates to the other person's turn")
    return q


def second_person(q: Query, question: str, quoted: list[str], likeness, added: list[str]) -> Query:  # noqa: ANN001
    """Two quoted people, one relation word anchored on one of them ("after A had spoken for the last time, how many
    times did B speak?"), and a frame that names only one of the two: the other goes in beside it
    (:func:`anchor_order` then puts the anchor in ``other=``)."""
    if len(quoted) != 2 or q.find in ("same", "more", "less") or q.rel == "with" or q.until or \
            compares_with_other(q.times):
        return q
    refs = [r for r in (q.who, q.other) if r]
    if len(refs) != 1 or _anchor_quote(question, quoted) is None:
        return q
    named = [x for x in quoted if likeness(x, refs[0]) >= 0.75]
    if len(named) != 1:
        return q
    missing = next(x for x in quoted if x != named[0])
    added.append(f"{missing!r} beside {refs[0]!r}: the question names two people")
    return replace(q, who=refs[0], other=missing)


_NEXT_AFTER = re.compile(r"\b(?:just|right|immediately|directly)\s+(?:after(?:wards)?|before|next|then|following)\b|"
                         r"\bnext\b", re.IGNORECASE)


def single_anchor(q: Query, question: str, quoted: list[str], likeness, added: list[str]) -> Query:  # noqa: ANN001
    """One quoted person right after a relation word ("how many people had spoken *before* the person who said X
    first spoke?", "who talked *after* someone said X?"): X is the turn the question is relative to: other=X with the
    relation word's before / after (``_last``: their last turn), not who=X or a person the question never names."""
    if len(quoted) != 1 or q.find in ("same", "more", "less") or q.rel == "with" or (q.find == "gap" and q.who
                                                                                   and q.who == q.other) or \
            (q.until and q.other and likeness(quoted[0], q.until) >= 0.75 > likeness(quoted[0], q.other)):
        return q     # ("after Ann's first turn but before X first spoke": X ends the frame's window, Ann anchors it)
    spans = list(_QUOTED.finditer(question))
    if len(spans) != 1:
        return q
    m = _REL_WORD.search(question[:spans[0].start()])
    when = _WHEN_WORD.search(question[:spans[0].start()]) if m is None else None
    x = quoted[0]
    if m is not None and q.rel in ("after", "after_last", "before", "before_last") and q.other is not None and \
            likeness(x, q.other) >= 0.75 and _NEXT_AFTER.search(_QUOTED.sub(" ", question[spans[0].end():])):
        added.append(f"rel=right_{q.rel}: the question asks what came next")   # "..., what was said immediately after?"
        return replace(q, rel=f"right_{q.rel}")
    if (m is None and when is None) or (q.other is not None and (CLOCK.search(q.other) or (likeness(x, q.other) >=
                                                                                           0.75 and q.rel))):
        return q
    if m is not None:
        words = m.group(0)
        before, after = bool(_BEFORE_REL.search(words)), bool(_AFTER_REL.search(words))
        lead = question[:spans[0].start()][:m.start()]
        right = bool(re.search(r"\b(?:just|right|immediately|directly)\s*$", lead, re.I)) or bool(_NEXT_AFTER.search(
            _QUOTED.sub(" ", question[spans[0].end():])))       # "after X spoke, what was said immediately afterwards?"
    else:
        # "When X spoke for the last time, who spoke next?": the order is in the rest of the question
        words = rest = _QUOTED.sub(" ", question[spans[0].end():])
        before, after = bool(_BEFORE_NEXT.search(rest)), bool(_AFTER_NEXT.search(rest))
        right = bool(re.search(r"\b(?:next|previous|preceding|just|right|immediately|directly)\b", rest, re.I))
    if before == after:
        return q
    rel = ("before" if before else "after") + ("_last" if re.search(r"\b(?:last|final)\b", words, re.I) else "")
    if (q.rel and q.rel.startswith("right_")) or right:
        rel = "right_" + rel
    who = None if q.who is not None and likeness(x, q.who) >= 0.75 else q.who
    if (q.who, q.other, q.rel) == (who, x, rel):
        return q
    # who=X pick=last for "when X spoke for the last time, ...": the last was X's turn, now the anchor's _last
    # who=X pick=first for "how many people had I heard before X's first turn?": the first was X's turn too
    moved = q.who is not None and who is None
    pick = None if moved and (q.pick == "last" and rel.endswith("_last") or q.pick == "first" and
                               not rel.endswith("_last")) else q.pick
    added.append(f"other={x!r} rel={rel}: the question's relation word is anchored on them")
    return replace(q, who=who, other=x, rel=rel, pick=pick)


_FILLER_TO_QUOTE = (r"(?:\s+(?:the|a|an|that|this|person|man|woman|one|who|said|says|say|told|time|moment|when|turn|"
                    r"turns|words|of|their|his|her|i|heard|someone|somebody|first|spoke|talked))*\s*$")
_BETWEEN = re.compile(r"\b(between|after|since|following|before|until|till)\b" + _FILLER_TO_QUOTE, re.IGNORECASE)
_AND = re.compile(r"^(?:'s|\u2019s)?(?:\s+(?:very\s+)?(?:first|last|opening|final)\s+(?:words?|turn|time|sentence))?"
                  r"\s*(?:,\s*)?(?:and|but)\b(?:\s+(after|since|following|before|until|till|prior\s+to))?"
                  + _FILLER_TO_QUOTE, re.IGNORECASE)
_AFTER_SIDE, _BEFORE_SIDE = {"after", "since", "following"}, {"before", "until", "till", "prior to"}
# "between A and B, who spoke more / first?", "which of them": a choice between the two people, not a time
_BOUND_TURN = re.compile(r"\b(?:very\s+)?(?:first|last|opening|final)\s+(?:words?|turns?|time|sentence)\b",
                         re.IGNORECASE)
_LAST_OWN = re.compile(r"\W*'s\s+(?:very\s+)?(?:last|final|latest)\b", re.IGNORECASE)   # "A's last words"
_CHOICE = re.compile(r"\b(?:more|less|fewer|most|least|often|first|last|earlier|later|before|after|same|"
                     r"different(?!\s+(?:people|persons|speakers|voices|individuals))|"
                     r"either|which\s+of|longer)\b", re.IGNORECASE)


def between_people(q: Query, question: str, quoted: list[str], likeness, yes_no: bool,  # noqa: ANN001
                   added: list[str]) -> Query:
    """"Who spoke between the person who said A and the person who said B?": the time between their turns
    (``other=A until=B``), not a relation to one of them or a comparison of the two."""
    spans = list(_QUOTED.finditer(question))
    if len(quoted) != 2 or len(spans) != 2 or q.until is not None:
        return q
    if same_quote(*quoted):
        return q     # one person twice ("after A's first turn but before A's second"): turn_forms._OWN_SPAN
    if q.find == "gap" and re.search(r"\b(?:last|final|latest)\b", _QUOTED.sub(" ", question), re.IGNORECASE):
        return q     # the time to / from someone's last turn (spans.time_between); until= bounds first turns
    head, mid = question[:spans[0].start()], question[spans[0].end():spans[1].start()]
    h, a = _BETWEEN.search(head), _AND.search(mid)
    if not h or not a:
        return q
    first, second = h.group(1).lower(), " ".join((a.group(1) or "").lower().split())
    if first == "between":
        # ("between A's first words and B's": whose turn bounds the time, no choice between them)
        if second or _CHOICE.search(_BOUND_TURN.sub(" ", _QUOTED.sub(" ", question))):
            return q
    elif not ({first, second} & _AFTER_SIDE and {first, second} & _BEFORE_SIDE):
        return q     # "after A and after B", "after A and B": no window between two turns
    find = q.find if q.find not in ("same", "more", "less") else "yes" if yes_no else "who"
    who = q.who if q.who is not None and max(likeness(q.who, x) for x in quoted) < 0.75 else None
    added.append(f"other={quoted[0]!r} until={quoted[1]!r}: the question asks about the time between their turns")
    # "between A's last words and B's last words": the turns each one's words name (first by default)
    ends = [_LAST_OWN.match(question[m.end():]) is not None for m in spans]
    new = replace(q, find=find, who=who, other=quoted[0], until=quoted[1], rel=None,
                  other_turn="-1" if ends[0] else None, until_turn="last" if ends[1] else None)
    if first == "between" and any(ends):   # (the model's pick=last was the bounds' "last": no choice word is left)
        new = replace(new, pick=None)
    if not CLOCK.search(_QUOTED.sub(" ", question)):   # the turns are the window: no clock the question does not say
        new = replace(new, from_=None, to=None, at=None)
    return new


def place_named(q: Query, plain: str, named: str | None, added: list[str]) -> Query:
    """place= only where the question names a place (``named``: the place it names, or None)."""
    if q.place is None or named is not None:
        return q
    low = " ".join(plain.lower().split())
    if re.search(rf"\b{re.escape(q.place.lower().removeprefix('the '))}\b", low):
        return q
    added.append(f"place={q.place!r} dropped: the question names no place")
    return replace(q, place=None)


def when_or_where(q: Query, plain: str, added: list[str]) -> Query:
    """find=when for "when she first spoke, what place was I in?": the question asks for a place."""
    if q.find == "when" and _ASKS_PLACE.search(plain) and not re.search(r"\b(?:what|which)\s+time\b", plain,
                                                                         re.IGNORECASE):
        added.append("find=where: the question asks for a place")
        return replace(q, find="where")
    return q


NUM_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10, "eleven": 11, "twelve": 12}
_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
# words around a number of turns written as a person ("the person who spoke only once", "the one who talked twice")
_COUNT_REF_FILLER = frozenset(("the", "a", "person", "people", "one", "ones", "speaker", "voice", "who", "that",
                               "spoke", "speak", "talked", "talk", "said", "say", "something", "anything", "only",
                               "exactly", "just", "time", "times", "did", "has", "had", "in", "all", "total", "often",
                               "of"))


def count_as_person(q: Query, quoted: list[str], same_words, added: list[str]) -> Query:  # noqa: ANN001
    """who= that is a number of turns, not anybody's words ("what did the person who spoke only once say?" written
    who="only once"): the person is the one who spoke that many times (times=), or the most / least (pick=). Not a
    quote of the question, not other= (a relation is to one named person's turn, and a count names nobody)."""
    ref = q.who
    if not ref or q.times is not None or q.pick is not None or q.find in ("same", "more", "less") or \
            any(same_words(x, ref) for x in quoted):
        return q
    words = re.findall(r"[a-z0-9]+", ref.lower())
    rest = [w for w in words if w not in _COUNT_REF_FILLER]
    if len(rest) != 1:
        return q
    w = rest[0]
    times = "times" in words or "time" in words
    n = _TIMES_WORDS.get(w) or (int(w) if w.isdigit() and times else NUM_WORDS.get(w) if times else None)
    pick = {"most": "most", "least": "least", "fewest": "least"}.get(w)
    if n is not None:
        added.append(f"times={n}: who={ref!r} is a number of turns, not anybody's words")
        return replace(q, who=None, times=f"={n}")
    if pick is not None:
        added.append(f"pick={pick}: who={ref!r} is the one who spoke {pick}, not anybody's words")
        return replace(q, who=None, pick=pick)
    return q


ORDINAL_WORDS = {w: i for i, w in enumerate(("first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                                              "eighth", "ninth", "tenth"), start=1)}
_ORDINAL_IN = re.compile(r"\b(" + "|".join(ORDINAL_WORDS) + r"|\d+(?:st|nd|rd|th))\b", re.IGNORECASE)
_N_TIMES = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+times\b|\b(?:twice|thrice)\b",
                      re.IGNORECASE)


def _rank(word: str) -> int:
    """"second" -> 2, "3rd" -> 3."""
    return ORDINAL_WORDS.get(word.lower()) or int(re.sub(r"\D", "", word))


_RANK_OF_PERSON = re.compile(r"\bthe\s+(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:nd|rd|th))\s+"
                             r"(?:person|one|speaker|voice|to\s+(?:speak|talk))\b", re.IGNORECASE)


def rank_of_person(q: Query, plain: str, added: list[str], to_moment: bool = False) -> Query:
    """"Who was the second person to speak in the hallway?" with no pick: the question ranks people (pick=2); so
    does "the second person to speak after 0:52" (``to_moment``: the relation is to a moment, a window)."""
    if q.pick is not None or (q.rel and not to_moment) or q.until or q.find not in ("who", "what", "when", "where"):
        return q
    ranks = {_rank(m.group(1)) for m in _RANK_OF_PERSON.finditer(plain)}
    if len(ranks) == 1:
        k = ranks.pop()
        added.append(f"pick={k}: the question ranks people")
        return replace(q, pick=str(k), times=None)
    return q


def rank_not_count(q: Query, plain: str, added: list[str]) -> Query:
    """times=4 for "who spoke fourth?": the question ranks people, it gives no number of times."""
    if q.times is None or not q.times.startswith("=") or not q.times[1:].isdigit() or _N_TIMES.search(plain):
        return q
    ranks = {_rank(m.group(1)) for m in _ORDINAL_IN.finditer(plain)}
    k = int(q.times[1:])
    if ranks == {k} and q.pick is None and k >= 2:
        added.append(f"pick={k}: the question ranks people (times={k} is not in it)")
        return replace(q, times=None, pick=str(k))
    return q


def counted_people(q: Query, added: list[str]) -> Query:
    """find=count_times with times=: "how many spoke exactly 5 times?" counts people, not turns."""
    if q.find == "count_times" and q.times is not None and q.who is None:
        added.append("find=count_people: a count of people who spoke that many times")
        return replace(q, find="count_people")
    return q


def place_not_person(q: Query, quoted: list[str], place: str | None, same_words, added: list[str],  # noqa: ANN001
                     yes_no: bool = True) -> Query:
    """find=same other="spoke while in the workshop": the second "person" is the question's place (a yes / no about
    the one person; "whose voice was the last one in the office?" asks for a person)."""
    if q.find != "same" or not q.other or place is None or place.lower() not in q.other.lower():
        return q
    # a quote the model put in other= stays a person, if the quote itself holds the place's word ("meet me in the
    # lab"); a fuzzy likeness alone is not that ("lab" is much like "lay" of "lay blue at x four now")
    word = re.compile(rf"\b{re.escape(place.lower())}\b")
    if any(word.search(x.lower()) and same_words(x, q.other) for x in quoted):
        return q
    find = "yes" if yes_no else "who"
    added.append(f"find={find} place={place!r}: other={q.other!r} is the question's place, not a person")
    return replace(q, find=find, other=None, rel=None, place=place)


_REF_FILLER = {"the", "person", "people", "man", "woman", "one", "who", "said", "says", "say", "someone", "somebody",
               "that", "this", "with", "and", "was", "were"}


_GENERIC_REF = {"voice", "voices", "speaker", "speakers", "person", "people", "someone", "somebody", "anyone",
                "anybody", "everyone", "everybody", "one", "ones", "the", "a", "any", "some", "who", "whose", "whom",
                "last", "first", "spoke", "talked", "heard", "speech", "talking", "speaking"}


_ROLE_WORDS = {"first", "last"}


def grounded_refs(q: Query, question: str, is_look, added: list[str]) -> Query:  # noqa: ANN001
    """who= / other= whose words the question never uses ("the printer is out of paper" for "who had spoken right
    before 0:57?") name nobody the question asks about: dropped (with the relation anchored on them); so is one made
    only of words that name nobody in particular (who="voice" for "whose voice was the last one?"). Looks are
    checked elsewhere; comparisons keep both people (their shape check asks the model again)."""
    asked = set(re.findall(r"[a-z]+", _QUOTED.sub(" ", question).lower()))
    for key in ("who", "other"):
        ref = getattr(q, key)
        words = set(re.findall(r"[a-z]+", ref or ""))
        if ref and not words - _GENERIC_REF and not re.search(r"[A-Z\d]", ref) and \
                not (words & _ROLE_WORDS and words & _ROLE_WORDS <= asked):
            # a role the question itself names ("... and the person who spoke first the same person?") is somebody
            q = replace(q, **{key: None}, **({"rel": None} if key == "other" else {}))
            added.append(f"{key}={ref!r} dropped: it names nobody in particular")
    if q.find in ("same", "more", "less"):
        return q
    words = _QUOTED.sub(" ", question).split()
    if any(w[:1].isupper() and w.strip("?,.!") not in ("I", "I'm") for w in words[1:]):
        return q     # a name ("when did Cy last speak?"): the model may have written the person by their words
    low = set(re.findall(r"[a-z0-9]+", question.lower()))
    for key in ("who", "other"):
        ref = getattr(q, key)
        if not ref or is_look(ref) is not None:
            continue
        words = {w for w in re.findall(r"[a-z0-9]+", ref.lower()) if len(w) >= 3 and w not in _REF_FILLER}
        if words and not words & low:
            q = replace(q, **{key: None}, **({"rel": None} if key == "other" else {}))
            added.append(f"{key}={ref!r} dropped: the question never says it")
    return q


def self_relation(q: Query, quoted: list[str], likeness, added: list[str]) -> Query:  # noqa: ANN001
    """who= and other= the same one quote with a relation in time ("when did X speak for the last time?" written
    who=X other=X rel=right_before_last): nobody else is in the question, the relation goes (not for the time from
    someone's turn to their own next one: find=gap, spans.time_between)."""
    if not (q.rel and q.rel != "with" and q.who and q.other) or len(quoted) > 1 or q.find == "gap":
        return q
    if likeness(q.who, q.other) < 0.75:
        return q
    added.append(f"other={q.other!r} rel={q.rel} dropped: the same person as who=")
    return replace(q, other=None, rel=None)


def clock_refs(q: Query, plain: str, added: list[str]) -> Query:
    """A person written around a clock time of the question's own words (`other="the clock showed 0:09"` for "who
    spoke first after the clock showed 0:09?") is that time (repair.py then makes it a window bound)."""
    said = list(dict.fromkeys(m.group(0) for m in CLOCK.finditer(plain)))
    for key in ("who", "other"):
        ref = getattr(q, key)
        found = [m.group(0) for m in CLOCK.finditer(ref or "")]
        if len(found) == 1 and found[0] in said and ref.strip() != found[0]:
            q = replace(q, **{key: found[0]})
            added.append(f"{key}={ref!r} is the time {found[0]}")
        elif ref and not found and len(said) == 1 and _THE_CLOCK.match(ref):
            # other="the clock" for "before the clock reached 0:36": the question's one time
            q = replace(q, **{key: said[0]})
            added.append(f"{key}={ref!r} is the time {said[0]}")
    return q


_THE_CLOCK = re.compile(r"^\W*(?:the\s+)?(?:clock|time|timer|mark|moment)\W*$", re.IGNORECASE)


# "the second to last person", "next-to-last", "penultimate", "the last but one": a rank counted from the end
_FROM_END = re.compile(r"\b(?:(second|third|fourth|fifth)[\s-]+(?:to[\s-]+)?(?:the\s+)?(?:last|final)|"
                       r"(next)[\s-]+to[\s-]+(?:the\s+)?(?:last|final)|(penultimate)|(?:last|final)\s+but\s+one|"
                       r"(?:one|the\s+one)\s+before\s+(?:the\s+)?last)\b", re.IGNORECASE)


def rank_from_end(q: Query, plain: str, added: list[str]) -> Query:
    """"Who was the second to last person to speak?" written pick=last (or pick=2): the rank counts from the end
    (pick=-2). Only where the frame ranks people or turns on their own (no relation to someone's turn)."""
    m = _FROM_END.search(plain)
    if m is None or q.rel or q.until or q.find not in ("who", "what", "when", "where"):
        return q
    word = (m.group(1) or "second").lower()
    pick = str(-ORDINAL_WORDS[word])
    if q.pick != pick:
        added.append(f"pick={pick}: the question counts from the end ({m.group(0)!r})")
        q = replace(q, pick=pick, times=None)
    return q


_SAYER = r"(?:(?:the\s+)?(?:person|man|woman|one|someone|somebody|speaker|guy|lady)\s+(?:who|that)\s+" \
         r"(?:had\s+|has\s+)?(?:said|says|told\s+me|asked)\s+)?"
# "more often than <quote>", "fewer times than <quote>", "as often as <quote>": a count compared with that person's
_THAN_PERSON = re.compile(r"\b(?:(more)|(fewer|less))\s+(?:often\s+|times\s+|frequently\s+|)than\s+" + _SAYER
                          + r"\x00(\d+)\x00|\bas\s+(?:often|many\s+(?:times|turns)|frequently)\s+as\s+" + _SAYER
                          + r"\x00(\d+)\x00|\bthe\s+same\s+number\s+of\s+(?:times|turns)\s+as\s+" + _SAYER
                          + r"\x00(\d+)\x00", re.IGNORECASE)


def than_person(q: Query, question: str, quoted: list[str], yes_no: bool, added: list[str]) -> Query:
    """"How many people spoke more often than the person who said X?" / "who talked as often as X?": people whose
    turns compare with X's count (``other=X times>other``), not X's own turns nor a fixed number of times. A yes / no
    question about two people ("did A speak more than B before 1:00?") is a comparison of the two (``find=more``
    who=A other=B, the window and place kept), whatever the frame wrote."""
    if not quoted:
        return q
    marked, i = [], 0
    for m in QUOTED.finditer(question):
        marked.append(question[i:m.start()] + f"\x00{len(marked)}\x00")
        i = m.end()
    m = _THAN_PERSON.search("".join(marked) + question[i:])
    if m is None:
        return q
    op = ">" if m.group(1) else "<" if m.group(2) else "="
    x = quoted[int(next(g for g in m.groups()[2:] if g is not None))]
    if yes_no:
        if len(set(quoted)) != 2 or op == "=" or q.find in ("more", "less"):
            return q
        find = "more" if op == ">" else "less"
        new = replace(q, find=find, who=next(r for r in quoted if r != x), other=x, rel=None, until=None,
                      times=None, pick=None, count=None, act=q.act or "spoke")
        added.append(f"find={find}: the question compares the two people's counts")
        return new
    counted = re.search(r"\bhow\s+many\b|\bnumber\s+of\s+(?:people|speakers)\b", question, re.IGNORECASE)
    find = "count_people" if counted else "who"
    new = replace(q, find=find, who=None, other=x, rel=None, until=None, times=f"{op}other", pick=None)
    if new != q:
        added.append(f"other={x!r} times{op}other: the question compares people's counts with theirs")
    return new


# "in the same room", "a room where I heard both A and B", "which room did both A and B talk in?", "one shared
# room": the places the two have in common (at any time: "together" / "with" is company, rel=with)
_SAME_PLACE = re.compile(r"\b(?:same|one|a\s+single|shared|common)\s+(?:room|place|part\s+of\s+the\s+house)\b|"
                         r"\b(?:room|place)s?\b[^?]*\bboth\b|\bboth\b[^?]*\b(?:room|place)s?\b", re.IGNORECASE)
_TOGETHER_WORDS = re.compile(r"\b(?:together|with|alongside|beside|at\s+the\s+same\s+time)\b", re.IGNORECASE)


def same_place_pair(q: Query, plain: str, quoted: list[str], yes_no: bool, added: list[str]) -> Query:
    """Two quoted people and "the same room" (or "a room where both ..."): A's turns in a place where B was too
    (``rel=same_place``), whatever in-time relation, comparison or place the frame wrote."""
    if len(quoted) != 2 or not _SAME_PLACE.search(plain) or _TOGETHER_WORDS.search(plain):
        return q      # "were A and B ever in the same room together?" is company (rel=with)
    find = "yes" if yes_no else "count_places" if re.search(r"\bhow\s+many\b", plain, re.IGNORECASE) else \
        "where" if re.search(r"\b(?:where|which|what)\b", plain, re.IGNORECASE) else q.find
    who = q.who if q.who in quoted else quoted[0]
    other = next(x for x in quoted if x != who)
    new = replace(q, find=find, who=who, other=other, rel="same_place", until=None, place=None, pick=None, times=None)
    if new != q:
        added.append(f"rel=same_place: the question asks about a place both were in ({new.compact()})")
    return new


# "how many times did A and B speak together?", "how often did A and B talk in total?": two people's turns added up
_SUMMED = re.compile(r"^\W*(?:how\s+many\s+(?:times|turns)|how\s+often)\b[^?]*\b(?:together|combined|altogether|in\s+"
                     r"total|in\s+all|between\s+them)\b", re.IGNORECASE)


def summed_pair(q: Query, plain: str, quoted: list[str], added: list[str]) -> tuple[Query, bool]:
    """(the frame, whether it applies): two quoted people's turns added up ("how many times did A and B speak in the
    office together?" is no company: ``find=count_times who=A other=B``, the place and window kept)."""
    if len(set(quoted)) != 2 or not _SUMMED.search(plain):
        return q, False
    new = replace(q, find="count_times", who=quoted[0], other=quoted[1], rel=None, until=None, pick=None, times=None,
                  count=None, act="spoke")
    if new != q:
        added.append("find=count_times who= other=: the question adds up the two people's turns")
    return new, True
