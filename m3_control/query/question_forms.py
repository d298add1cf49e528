"""Forms of a question a frame must follow, whatever the model wrote: a span from the start of the recording
("after the first minute"), how long someone talked (a duration, not the time between two moments), ranks by time,
the silence after someone, exact and compared counts, and more; the forms about places are place_forms.py. Each
found by a blind probe of question kinds written before the scene was built (docs/benchmarks.md, stops 59-73)."""

from __future__ import annotations

import re
from dataclasses import replace

from m3_memory.timeline import wall_clock_words

from .frame import Query, compares_with_other, noted
from .people import is_role
from .place_forms import busiest_place, place_difference, place_neither, ranked_in_place, room_of_person
from .polarity import YES_NO_QUESTION
from .repair import mss, time_of
from .talk_time import compared_by_time
from .wording import _FIELD_NAME, CLOCK
from .words import COUNT_WORDS, HOW_LONG

# "after the first minute", "in the first 30 seconds", "by the end of the first two minutes": a span from the
# start of the recording, which no clock in the question says
_OPENING = re.compile(r"\b(?:(after|past|beyond|following|since|once)|(in|during|within|over|throughout|inside|"
                      r"before|by|until|till))\s+(?:the\s+end\s+of\s+)?the\s+(?:very\s+)?first\s+"
                      r"(?:(\d+(?:\.\d+)?|[a-z]+)[\s-]+)?(second|minute|hour)s?\b", re.IGNORECASE)


def times_of_day(plain: str) -> list[str]:
    """On a memory timed from the recording's start: the times of day the question names, which it cannot place ("who
    spoke at 3 a.m.?" is not 3:00 into the recording), as the tool loop's "unsupported: ..." reason (one or none)."""
    said = wall_clock_words(plain)
    return [f"unsupported: my memory of this recording keeps times from its start (00:00 on), not times of day like "
            f"\"{said[0]}\""] if said else []


def opening_window(q: Query, plain: str, added: list[str]) -> Query:
    """The question's span from the start of the recording ("how many people spoke after the first minute?":
    from=1:00; "who spoke in the first 30 seconds?": to=0:30), whatever times the model wrote for it."""
    found = list(_OPENING.finditer(plain))
    if len(found) != 1 or CLOCK.search(plain):
        return q
    m = found[0]
    secs = time_of(f"{m.group(3) or 'one'} {m.group(4)}s")
    if secs is None:
        return q
    clock = mss(secs)
    field = "from_" if m.group(1) else "to"
    if getattr(q, field) == clock and q.at is None and getattr(q, "to" if field == "from_" else "from_") is None:
        return q
    added.append(f"{_FIELD_NAME[field]}={clock}: the question's {m.group(0)!r} (from the start of the recording)")
    return replace(q, **({"from_": None, "to": None, "at": None} | {field: clock}))


# "how many seconds did A talk in the bedroom?" is a duration; a gap is between two moments
_GAP_WORDS = re.compile(r"\b(?:after|before|between|since|until|till|passed|elapsed|went\s+by|gone\s+by|later|earlier|"
                        r"gap|wait|waited|apart|from|then)\b", re.IGNORECASE)
_HEAR_FROM = re.compile(r"\b(?:hear|heard|hearing)\s+from\b", re.IGNORECASE)   # "talk I heard from A": no moment
# ... "how many seconds of speech did I hear in the hallway?", "how much talking was there?"
_HOW_MUCH_TALK = re.compile(r"^\W*(?:how\s+many\s+(?:seconds|minutes)|how\s+long|how\s+much\s+time|how\s+much(?=\s+"
                            r"(?:speech|talk|talking|speaking)\b))\b[^?]*\b(?:talk|talked|speak|spoke|speaking|talking|"
                            r"speech|in\s+view|seen|visible|on\s+camera|on\s+screen)\b", re.IGNORECASE)


def duration_not_gap(q: Query, plain: str, added: list[str]) -> Query:
    """find=gap for a question about how long someone talked (or was in view), with no second moment: how_long."""
    if q.find != "gap" or q.other or q.until or _GAP_WORDS.search(_HEAR_FROM.sub(" ", plain)) or \
            not _HOW_MUCH_TALK.search(plain):
        return q
    added.append("find=how_long: the question asks how long someone talked, not the time between two moments")
    return replace(q, find="how_long", from_=None, to=None, at=None, rel=None)


_ANYONE = re.compile(r"\b(?:anyone|anybody|someone|somebody|any\s+(?:one|person|other)|people|who|which)\b",
                     re.IGNORECASE)


def anyone_than(q: Query, plain: str, added: list[str]) -> Query:
    """"Did anyone speak more often than A?" written ``who=A times>other`` with no other: A is the one compared
    with (``other=A``), the people asked about are everyone else."""
    if not compares_with_other(q.times) or not q.who or q.other or not _ANYONE.search(plain):
        return q
    added.append(f"other={q.who!r}: the person compared with (who= is anyone)")
    return replace(q, who=None, other=q.who)


# "at what time did I leave the garage?", "when did I last walk out of the kitchen?": the robot's departure
_DEPART = re.compile(r"^\W*(?:at\s+)?(?:what\s+time|when|what\s+moment)\s+(?:did|do|have|had)\s+(?:i|we|you)\s+"
                     r"(?P<which>first\s+|last\s+|finally\s+)?(?:leave|left|exit(?:ed)?|depart(?:ed)?(?:\s+from)?|"
                     r"(?:walk|go|get|drive|roll|move|step|head)\s+(?:out\s+of|away\s+from|from))\s+(?:the\s+|my\s+)?"
                     r"(?P<place>[a-z][a-z ]*?)(?:\s+(?:for\s+)?the\s+(?P<which2>first|last)\s+time)?"
                     # "... the lab for the bedroom", "from the office into the lab": where it went is no place to leave
                     r"(?:\s+(?:for|to|into|towards?)\s+(?:the\s+|my\s+)?[a-z][a-z ]*?)?\s*\??\s*$",
                     re.IGNORECASE)


def robot_departure(q: Query, plain: str, added: list[str]) -> Query:
    """"When did I leave the garage?": the times the robot left the place (``move=left``), not when it got there
    nor the people it met there."""
    m = _DEPART.match(plain)
    if m is None:
        return q
    which = (m.group("which") or m.group("which2") or "").strip().lower()
    pick = {"first": "first", "last": "last", "finally": "last"}.get(which)
    new = Query(find="when", place=m.group("place").strip(), pick=pick, move="left", from_=q.from_, to=q.to)
    return noted(q, new, added, f"find=when place={new.place!r} move=left: the question asks when I left it")


# "who spoke for the longest time in total?", "whose talking took the least time?", "who spoke least in total time?",
# "who had the most speaking time?", "who talked the fewest seconds?", "whose speaking time was the longest?": seconds
_LONGEST_TALK = re.compile(r"\b(?:(?:spoke|talked|speaking|talking|spoken|talk|speak)\s+(?:for\s+)?(?:the\s+)?"
                           r"(longest|shortest|most\s+time|least\s+time)|(longest|shortest)\s+(?:time\s+)?"
                           r"(?:talking|speaking)|(most|least)\s+time\s+(?:talking|speaking)|(?:spoke|talked|spoken|talk|"
                           r"speak)\s+(?:the\s+)?(most|least)\s*,?\s+(?:in\s+(?:total\s+|all\s+|overall\s+)?|in\s+terms\s+"
                           r"of\s+|by\s+(?:total\s+)?)(?:time|seconds)|(most|least)\s+(?:total\s+)?(?:speaking|talking|talk|"
                           r"speech)\s+time|(most|least|fewest)\s+seconds|(longest|shortest|greatest|largest|biggest|highest|smallest|"
                           r"lowest)\s+(?:total\s+)?(?:speaking|talking|talk|speech)\s+time|"
                           # "whose total speaking time was the longest?", "whose speech time in the lab is the least?"
                           r"(?:speaking|talking|talk|speech)\s+time\s+(?:[^?]{0,40}?\s)?(?:was|is|has\s+been)\s+(?:the\s+)?(longest|shortest|"
                           r"greatest|largest|biggest|highest|smallest|lowest|most|least)|"
                           # "who talked the least in the lab, by time?", "who spoke the most, in seconds, ...?"
                           r"(?:spoke|talked|spoken|talk|speak)\s+(?:the\s+)?(most|least)\b[^?]*?(?:\bby\s+(?:total\s+)?"
                           r"(?:time|seconds|duration)|\bin\s+terms\s+of\s+(?:time|seconds|duration)|,\s*in\s+seconds|"
                           r"\b(?:measured|counted|reckoned)\s+(?:in|by)\s+(?:time|seconds)))\b",
                           re.IGNORECASE)
# "which room did I spend the most time in?", "where did I stay the longest?": the robot's own stays
# ... "which of the rooms did I spend more time in?", "in which room was I longest?"
_LONGEST_STAY = re.compile(r"^\W*(?:(?:in\s+)?(?:which|what)\s+(?:of\s+the\s+(?:two\s+)?)?(?:rooms?|places?)|where)\s+"
                           r"(?:(?:did|have|had)\s+(?:i|we)\s+(?:spend|spent|stay|stayed|been|be)\b[^?]*\b|(?:was|were)"
                           r"\s+(?:i|we)\s+(?:(?:in|at)\s+)?(?:(?:the|for\s+the)\s+)?)(most|least|longest|shortest|more|"
                           r"less|longer|shorter)\b(?!\s+(?:often|times|people|turns|speakers|words))",
                           re.IGNORECASE)
_TOP = re.compile(r"^\W*(?:which|who\s+(?:are|were)\s+the|name\s+the|list\s+the|what\s+(?:are|were)\s+the)\s+"
                  r"(two|three|four|five|[2-5])\s+(?:people|persons|speakers|voices|ones)?\b[^?]*\b(most|least|fewest)\b",
                  re.IGNORECASE)
_NUMBER = {"two": "2", "three": "3", "four": "4", "five": "5"}
_FIRST_K = re.compile(r"\bthe\s+(first|last)\s+(two|three|four|five|[2-5])\s+(?:people|persons|speakers|voices|ones)\b|"
                      # "which two people did I hear first?"
                      r"^\W*(?:which|who\s+(?:are|were)\s+the)\s+(?P<k>two|three|four|five|[2-5])\s+(?:people|persons|"
                      r"speakers|voices|ones)\b[^?]*\b(?P<edge>first|last)\s*\??\s*$",
                      re.IGNORECASE)


def ranked_by_time_or_top(q: Query, plain: str, added: list[str]) -> Query:
    """Most / least by seconds and the k most: "who spoke for the longest time?" (``measure=time``: the seconds
    of their turns), "which room did I spend the most time in?" (the robot's stays by seconds), "which two people
    spoke the most?" (``top=2``)."""
    stay = _LONGEST_STAY.match(plain)
    if stay is not None:
        pick = "most" if stay.group(1).lower() in ("most", "longest", "more", "longer") else "least"
        new = Query(find="where", pick=pick, measure="time", from_=q.from_, to=q.to)
        if new != q:
            added.append(f"find=where pick={pick} measure=time: the place the robot stayed the {stay.group(1)}")
        return new
    new = q
    talk = _LONGEST_TALK.search(plain)
    if talk is not None and not q.who and q.find in ("who", "count_people", "how_long", "when", "what"):
        word = next(g for g in talk.groups() if g).lower()
        pick = "most" if word.startswith(("longest", "most", "greatest", "largest", "biggest", "highest")) else "least"
        new = replace(new, find="who" if q.find in ("count_people", "how_long", "when") else q.find, pick=pick,
                      measure="time", times=None, count=None, by=None, act=q.act or "spoke")
    top = _TOP.match(plain)
    if top is not None and not q.who and not q.other:
        pick = "most" if top.group(2).lower() == "most" else "least"
        k = _NUMBER.get(top.group(1).lower(), top.group(1))
        new = replace(new, find="who", pick=new.pick if new.measure else pick, top=k, times=None, count=None, by=None)
    first_k = _FIRST_K.search(plain)
    if first_k is not None and not q.who and not q.other and q.find in ("who", "what", "when"):
        # "who were the first two people to speak?": the first k people by their first turns (last: by their last)
        edge, k = (first_k.group(1) or first_k.group("edge")).lower(), (first_k.group(2) or first_k.group("k")).lower()
        new = replace(new, pick=edge, top=_NUMBER.get(k, k),
                      times=None, count=None, by=None)
    fields = f"pick={new.pick}{' measure=time' if new.measure else ''}{f' top={new.top}' if new.top else ''}"
    by = "by the time they talked" if new.measure else "by their turns"
    return noted(q, new, added, f"{fields}: the question ranks people {by}")


# "for how long did nobody speak after A's first words?", "how long was it quiet after A spoke?"
_SILENCE = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\b[^?]*\b(?:nobody|no\s*one|no\s+body|"
                      r"silence|silent|quiet|pause|gap|break)\b[^?]*\b(?:after|following|once|(before|until|till|preceding))\b",
                      re.IGNORECASE)
# "how long was the pause between A's last turn and the next turn?", "... between the previous words and A's first
# turn?": the same silence, the other side named as whoever spoke next (before)
_SILENCE_NEXT = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\b[^?]*\bbetween\b(?:[^?]*?\band\s+(?:the\s+|whoever\s+)?"
                           r"(?:next|following)\b|\s+(?:the\s+)?(?P<before>previous|preceding)\s+(?:turn|one|words|"
                           r"sentence|speaker|person|voice)s?\s+and\b)", re.IGNORECASE)
# "was there a long pause before A first spoke?", "was there any silence after A's last words?": the same silence
_SILENCE_YES = re.compile(r"^\W*(?:was|were|is)\s+there\s+(?:a|any)\s+(?:long(?:er)?\s+|short\s+|big\s+)?"
                          r"(?:silence|pause|gap|break)\s+(?:right\s+|just\s+)?(?:after|following|(before|preceding))\b",
                          re.IGNORECASE)


def silence_after(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"For how long did nobody speak after A's first words?": the silence from the end of A's turn to anyone's next
    words (``find=gap measure=silence``), not how long people talked after A; "... before A's first words?": from
    the end of the words before to A's."""
    m = _SILENCE.match(plain) or _SILENCE_YES.match(plain) or _SILENCE_NEXT.match(plain)
    named = [r for r in (q.who, q.other) if r] if not quoted else []   # one person by name ("before Ann spoke")
    if m is None or len(quoted) + len(set(named)) != 1:
        return q
    quoted = quoted or named[:1]
    last = re.search(r"\b(?:last|final)\b", plain, re.IGNORECASE)
    # (each form's one group: "how long was the silence before A spoke?", "... between the previous turn and A's")
    side = "before" if m.group(1) else "after"
    rel = f"{side}_last" if last else side
    new = Query(find="gap", other=quoted[0], rel=rel, measure="silence")
    return noted(q, new, added, "find=gap measure=silence: the time nobody spoke after their turn")


# what no frame says: declined with the reason (the tool loop's "unsupported: ..."), never answered as the nearest
# frame ("did A ever speak twice in a row?" was answered "yes, A spoke twice")
_BEYOND = (
    (re.compile(r"\b(?:in\s+a\s+row|consecutive(?:ly)?|back[\s-]to[\s-]back|without\s+anyone\s+(?:else\s+)?in\s+between)\b",
                re.IGNORECASE), "turns in a row"),
    (re.compile(r"\b(?:nobody|no\s*one|no\s+body)\s+(?:spoke|talked|said\s+anything|was\s+(?:speaking|talking))\s+for\s+"
                r"(?:more|longer|over)\b|\b(?:silence|pause|quiet)s?\s+(?:of\s+|that\s+lasted\s+|longer\s+than\s+|"
                r"over\s+|of\s+more\s+than\s+)", re.IGNORECASE), "how long the silences between turns were"),
    # reasons: the records hold who spoke when and where, not why anyone did anything ("why did A leave?" was
    # answered "A did not say anything I heard", A having spoken three times)
    (re.compile(r"^\W*(?:why|for\s+what\s+reason|what\s+(?:was|is)\s+the\s+reason)\b", re.IGNORECASE),
     "why someone did something"),
    # looks: the records hold faces as identities, not what a face or its clothes look like ("what colour are B's
    # eyes?" was answered "B did not say anything I heard")
    (re.compile(r"^\W*(?:what|which)\s+colou?rs?\s+(?:is|was|are|were)\b[^?]*\b(?:eyes?|hair|beard|shirt|t-shirt|"
                r"jacket|coat|dress|clothes|shoes|hat|skin|glasses|top|trousers|pants|jumper|sweater)\b|"
                r"^\W*(?:what|which)\b[^?]*\b(?:wearing|wear|wears|wore|holding|carrying)\b|"
                r"^\W*how\s+(?:old|young|tall|big|heavy)\s+(?:does|did|do)\b[^?]*\blooks?\b|^\W*what\s+(?:does|did|do)\b[^?]*\blooks?\s+"
                r"like\b|^\W*how\s+tall\b|^\W*(?:does|did|is|was)\b[^?]*\b(?:wear|wears|wearing)\s+(?:glasses|a\s+"
                r"hat|a\s+beard)\b|\b(?:a\s+)?(?:man|boy|male|guy)\s+or\s+(?:a\s+)?(?:woman|girl|female|lady)\b|"
                r"\b(?:a\s+)?(?:woman|girl|female|lady)\s+or\s+(?:a\s+)?(?:man|boy|male|guy)\b|\bgender\b",
                re.IGNORECASE), "what someone looks like"),
)


# two turns of one person with nobody between them: said by code over the turns (turn_sequence.py), not declined
IN_A_ROW = re.compile(r"\b(?:twice|thrice|(?:two|three|four|five|[2-5])\s+(?:times|turns))\s+in\s+a\s+row\b|"
                      r"\b(?:back\s+to\s+back|consecutively)\b|"
                      # "did C ever take two turns one after the other?", "... two consecutive turns?"
                      r"\b(?:twice|thrice|(?:two|three|four|five|[2-5])\s+(?:times|turns))\s+(?:one\s+after\s+(?:the\s+)?"
                      r"other|one\s+after\s+another|in\s+succession|straight|running)\b|"
                      r"\b(?:two|three|four|five|[2-5])\s+(?:consecutive|successive)\s+(?:turns|times)\b|"
                      # "were two of C's turns ever one right after the other?"
                      r"\b(?:two|three|[23])\s+of\s+[^?]*?\bturns\b[^?]*?\bone\s+(?:right\s+|directly\s+|immediately\s+|"
                      r"just\s+)?after\s+(?:the\s+)?other\b",
                      re.IGNORECASE)


# "how many times did A speak in a row at most?", "what is the most times B spoke in a row?", "who had the longest
# run of turns?": the longest run, not whether there was one of a given length
MOST_IN_A_ROW = re.compile(r"\b(?:at\s+most|the\s+most|most\s+times|longest|maximum|max|greatest|highest)\b[^?]*?\b"
                           r"(?:in\s+a\s+row|consecutive(?:ly)?|back[\s-]to[\s-]back|without\s+(?:anyone|anybody|someone)"
                           r"\s+else)|\bin\s+a\s+row\b[^?]*?\bat\s+most\b|^\W*how\s+many\s+times\b[^?]*?\bin\s+a\s+row\b|"
                           r"\blongest\s+(?:run|streak|series|stretch)\s+of\s+(?:turns|speaking|talking)\b|"
                           # "how many consecutive turns did B take (at most)?", "the most consecutive turns"
                           r"^\W*how\s+many\s+(?:consecutive|successive)\s+(?:turns|times)\b|\b(?:most|maximum|max|"
                           r"largest|greatest)\s+(?:number\s+of\s+)?(?:consecutive|successive)\s+(?:turns|times)\b",
                           re.IGNORECASE)


def beyond_language(plain: str) -> str | None:
    """What the question asks that the query language cannot say, in words; None when it asks nothing such."""
    plain = MOST_IN_A_ROW.sub(" ", IN_A_ROW.sub(" ", plain))
    return next((what for pattern, what in _BEYOND if pattern.search(plain)), None)


_COMPARES = re.compile(r"\b(?:more|less|fewer|often|than|as\s+many|as\s+much|same\s+number|equal(?:ly)?|most|least)\b",
                       re.IGNORECASE)


def compared_with_nobody(q: Query, plain: str, added: list[str]) -> Query:
    """``times>other`` in a question that compares no counts ("how many times had A spoken before B said anything?"
    written find=count_times other=B times>other): the comparison goes, the relation the question says stays for
    the other checks. find=more / less with a role ("did A speak last in the library?" written other="spoke last"):
    whether A is that person (find=same), not who spoke more often."""
    if q.find in ("more", "less") and q.other and is_role(q.other) and not _COMPARES.search(plain):
        added.append(f"find=same: the question compares no counts with {q.other!r}")
        return replace(q, find="same")
    if not compares_with_other(q.times) or _COMPARES.search(plain):
        return q
    added.append(f"times{q.times} dropped: the question compares nobody's count")
    return replace(q, times=None)


# "was the person who said X the last person I heard?": X against the speaker of that rank, not X's own last turn
_IS_RANK = re.compile(r"^\W*(?:was|is|were)\b[^?]*?\bthe\s+(?:very\s+)?(first|last|final|second|third|fourth|fifth)\s+"
                      r"(?:person|one|speaker|voice)(?:\s+(?:to\s+(?:speak|talk)|(?:that\s+|who\s+)?(?:i|we)\s+heard|"
                      r"(?:who|that)\s+spoke|i\s+heard\s+speak))?\s*\??\s*$", re.IGNORECASE)


# "is A the person who spoke most?", "did A talk the least?", "was A the most talkative?": A against the person of
# that count, not whether A spoke more than once ("more than anyone else": counts_of_two)
_IS_MOST = re.compile(r"^\W*(?:was|is|were)\b[^?]*?\bthe\s+(?:(?:person|one|speaker|voice)\s+(?:who|that|i\s+heard)\s+"
                      r"(?:(?:spoke|talked|said\s+(?:things|something))\s+)?(?:the\s+)?(most|least|fewest)\b|"
                      r"(most|least)\s+talkative\b)|"
                      r"^\W*did\b[^?]*?\b(?:speak|talk|say\s+(?:things|something|anything))\s+(?:the\s+)?"
                      r"(most|least|fewest)\b(?!\s+(?:of|about)\b)", re.IGNORECASE)


# "was the last thing said in the garage said by A?", "did A say the first thing I heard?": whether A was the speaker
# of that rank (a frame read it as whether A spoke there at all); first and last only, where the turn's rank is the
# speaker's
_RANK_THING = (r"the\s+(?:very\s+)?(first|last|final|second|third|fourth|fifth)\s+(?:thing|words?|sentence|line|"
               r"remark)s?\b(?:\s+(?:that\s+)?(?:(?:i|we)\s+heard|(?:was\s+|were\s+)?(?:said|heard|spoken|uttered)))?"
               r"(?:\s+(?:in|at|inside)\s+the\s+(?P<place>[a-z]+(?:\s+room)?))?")
_THING_BY = re.compile(r"^\W*(?:was|is|were)\s+" + _RANK_THING
                       + r"[^?]*?\b(?:said|spoken|uttered|heard)\s+(?:by|from)\b", re.IGNORECASE)
_SAID_THING = re.compile(r"^\W*(?:did|does|has|had)\b[^?]*?\b(?:say|said|speak|utter)\s+" + _RANK_THING, re.IGNORECASE)


def rank_identity(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"Was A the last person I heard?", "is A the second speaker?": A compared with the speaker of that rank
    (``find=same other="the last speaker"``), whatever pick the frame gave A's own turns; "is A the person who
    spoke most?": A compared with the person who spoke the most (a tie says so)."""
    ref = quoted[0] if len(quoted) == 1 else q.who if not quoted and q.who and not is_role(q.who) else None
    if ref and (s := _IS_MOST.search(plain)) is not None and YES_NO_QUESTION.match(plain):
        word = next(g for g in s.groups() if g).lower()
        most = word in ("most", "more")
        role = f"the one who spoke the {'most' if most else 'least'}"
        new = Query(find="same", who=ref, other=role, from_=q.from_, to=q.to, place=q.place)
        return noted(q, new, added, f"find=same other={role!r}: whether they spoke the {word}")
    thing = _THING_BY.match(plain) or _SAID_THING.match(plain)
    m = thing or _IS_RANK.match(plain)
    if m is None or ref is None or (thing is None and len(quoted) != 1):
        return q
    rank = "last" if m.group(1).lower() == "final" else m.group(1).lower()
    if thing is not None and rank not in ("first", "last"):   # the second thing said is a turn, not a person's rank
        return q
    place = (m.group("place") if thing is not None else None) or q.place
    new = Query(find="same", who=ref, other=f"the {rank} speaker", from_=q.from_, to=q.to, place=place)
    return noted(q, new, added, f"find=same other='the {rank} speaker': whether they were that speaker"
                 + (f" in the {place}" if place else ""))


_EVER_K = re.compile(r"\bever\b[^?]*\b(?:(twice|thrice)|(\d+|two|three|four|five)\s+times)\b", re.IGNORECASE)


def ever_k_times(q: Query, plain: str, added: list[str]) -> Query:
    """"Did A ever speak twice?": at least twice (``times>=2``), not exactly."""
    m = _EVER_K.search(plain)
    if m is None or q.find != "yes" or not q.times or not q.times.startswith("=") or \
            re.search(r"\b(?:exactly|only|just|precisely)\b", plain, re.IGNORECASE):
        return q
    added.append(f"times>={q.times[1:]}: 'ever ... {m.group(0).split()[-1]}' is at least that many")
    return replace(q, times=f">={q.times[1:]}")


# "did A speak exactly as often as B?": a yes or no about equal counts (not who spoke more)
_AS_OFTEN = re.compile(r"\b(?:exactly\s+|just\s+)?as\s+(?:often|many\s+times|much)\s+as\b|"
                       r"\bthe\s+same\s+number\s+of\s+times\b", re.IGNORECASE)
# "did A speak more often than everyone else?": A against the most (least) talkative
_THAN_ALL = re.compile(r"\b(more|most|less|fewer|least)\b[^?]*\bthan\s+(?:everyone|everybody|anyone|anybody|"
                       r"all\s+the\s+others?|the\s+others?|all\s+of\s+them)(?:\s+else)?\b", re.IGNORECASE)


_WHO = re.compile(r"^\W*(?:who|which\s+(?:person|one|speaker|voice))\b", re.IGNORECASE)


def counts_of_two(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """Yes / no about counts: "did A speak exactly as often as B?" (``times=other``: A's count equal to B's), "did A
    speak more often than everyone else?" (A against the person who spoke the most)."""
    if len(quoted) == 2 and _AS_OFTEN.search(plain):
        new = Query(find="yes", who=quoted[0], other=quoted[1], times="=other", act="spoke", from_=q.from_, to=q.to,
                    place=q.place)
        why = "times=other: the question asks whether the two counts are equal"
    elif len(quoted) == 1 and (m := _THAN_ALL.search(plain)) is not None:
        most = m.group(1).lower() in ("more", "most")
        new = Query(find="same", who=quoted[0], other=f"the person who spoke the {'most' if most else 'least'}",
                    from_=q.from_, to=q.to, place=q.place)
        why = f"find=same: the question compares them with the one who spoke the {'most' if most else 'least'}"
    else:
        return q
    return noted(q, new, added, why)


def most_of_all(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """"Who spoke more than anyone else before 0:30?": the one who spoke the most then (``pick=most``)."""
    if quoted or not _WHO.match(plain) or (m := _THAN_ALL.search(plain)) is None:
        return q
    pick = "most" if m.group(1).lower() in ("more", "most") else "least"
    new = Query(find="who", pick=pick, act="spoke", from_=q.from_, to=q.to, at=q.at, place=q.place)
    return noted(q, new, added, f"pick={pick}: who did it {m.group(1).lower()} than anyone else did it the {pick}")


# "how many times did the most talkative person speak?": a person named by a role (people.by_role), in a question
# about their own turns
_ROLE_PERSON = re.compile(r"\bthe\s+(?:most|least)\s+talkative(?:\s+(?:person|one|speaker))?\b|"
                          r"\bthe\s+(?:person|one|speaker)\s+who\s+(?:spoke|talked)\s+(?:the\s+)?(?:most|least)"
                          r"(?:\s+often)?\b", re.IGNORECASE)


# "what did the second speaker say last?": a speaker by rank, and which of their own turns (the model read the rank
# as the turn's: pick=-2)
_RANKED_SPEAKER = re.compile(r"\bthe\s+(?:very\s+)?(first|second|third|fourth|fifth|last|final)\s+(?:speaker|voice|"
                             r"(?:person|one)\s+to\s+(?:speak|talk))\s+(?:say|said|talk|speak)\s+(?:(?:the\s+)?(?:very\s+)?"
                             r"(?:first|last|final)|for\s+the\s+(?:first|last|final)\s+time|the\s+(?:first|last|final|"
                             r"second|third)\s+time)\b", re.IGNORECASE)


def ranked_speaker(q: Query, plain: str, added: list[str]) -> Query:
    """"What did the second speaker say last?": who= the speaker of that rank, the pick their own turn's."""
    m = _RANKED_SPEAKER.search(plain)
    if m is None or q.who or q.other or q.find not in ("what", "when", "where"):
        return q
    rank = "last" if m.group(1).lower() == "final" else m.group(1).lower()
    new = replace(q, who=f"the {rank} speaker", pick=None, by=None, times=None, rel=None)
    return noted(q, new, added, f"who='the {rank} speaker': the question names a speaker by rank")


def role_person(q: Query, plain: str, added: list[str]) -> Query:
    """The person a question names by a role, left out of a frame about someone's own turns: who= that role."""
    m = _ROLE_PERSON.search(plain)
    if m is None or q.who or q.other or q.find not in ("count_times", "when", "where", "how_long", "what"):
        return q
    if q.find == "count_times":
        # "how many turns did the most talkative person take?": the people with the most turns, and that count (two
        # tied for the most took as many each: no person to tell apart, as a role would need)
        pick = "least" if re.search(r"\bleast\b", m.group(0), re.IGNORECASE) else "most"
        return noted(q, replace(q, find="who", pick=pick, by=None, times=None, act="spoke"), added,
                      f"find=who pick={pick}: the count of the people the question names by a role")
    return noted(q, replace(q, who=m.group(0), pick=None, by=None, times=None), added,
                  f"who={m.group(0)!r}: the person the question names by a role")


# "did anyone speak only once?", "who spoke exactly twice?": a number of turns per person the frame left out
_EXACT_TIMES = re.compile(r"\b(?:only|exactly|just|precisely)\s+(?:(once|twice|thrice)|(\d+|one|two|three|four|five|"
                          r"six|seven|eight|nine|ten)\s+times)\b", re.IGNORECASE)


def exact_times(q: Query, plain: str, added: list[str]) -> Query:
    """times= the exact number of turns the question says ("only once": =1; the frame's own or a repair's ">1" for
    "did A speak only once?" written find=more is not what it asks)."""
    m = _EXACT_TIMES.search(plain)
    # (find=more / less with nobody to compare, in a question that compares nothing, is a yes or no)
    find = "yes" if q.find in ("more", "less") and not q.other and not _COMPARES.search(plain) else q.find
    if m is None or compares_with_other(q.times) or find not in ("yes", "who", "count_people") or q.pick or \
            q.other:
        return q
    word = (m.group(1) or m.group(2)).lower()
    k = COUNT_WORDS.get(word) or int(word)
    if q.times == f"={k}" and find == q.find:
        return q
    new = replace(q, find=find, times=f"={k}", count=None, act=q.act or "spoke")
    return noted(q, new, added, f"times={k}: the question's {m.group(0)!r} is a number of turns per person")


# "who spoke more than once in the hallway?", "how many people talked at least three times?": a number of turns per
# person compared with a number (not with another person: "more often than A" is times>other)
_COMPARED_TIMES = re.compile(r"\b(?:(no\s+more\s+than|not\s+more\s+than|at\s+most|up\s+to)|(more\s+than|over)|"
                             r"(at\s+least|no\s+fewer\s+than|no\s+less\s+than)|(fewer\s+than|less\s+than|under))\s+"
                             r"(?:(once|twice|thrice)|(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+times)\b",
                             re.IGNORECASE)
_HOW_MANY_PEOPLE = re.compile(r"^\W*how\s+many\s+(?:different\s+)?(?:people|persons|speakers|voices|of\s+them)\b",
                              re.IGNORECASE)


def compared_times(q: Query, plain: str, yes_no: bool, added: list[str]) -> Query:
    """times>k / >=k / <k / <=k for a number of turns per person the question compares with a number ("who spoke
    more than once in the hallway?"), written by the model as a person (``who="spoke more than once"``) or as a
    comparison with nobody (``find=more``)."""
    m = _COMPARED_TIMES.search(plain)
    if m is None or compares_with_other(q.times) or q.other or q.pick or len(_COMPARED_TIMES.findall(plain)) > 1:
        return q
    word = (m.group(5) or m.group(6)).lower()
    k = COUNT_WORDS.get(word) or int(word)
    op = "<=" if m.group(1) else ">" if m.group(2) else ">=" if m.group(3) else "<"
    # a person written from the count's own words is no person
    who = None if q.who and m.group(0).lower().split()[-1] in q.who.lower() and \
        re.search(r"\b(?:more|less|fewer|least|most|over|under)\b", q.who, re.IGNORECASE) else q.who
    people = bool(_HOW_MANY_PEOPLE.match(plain))
    find = q.find
    if find in ("more", "less") or (find == "yes" and not yes_no):
        find = "yes" if yes_no else "count_people" if people else "who"
    elif find == "count_times" and people:       # "how many people spoke more than once?" counts people
        find = "count_people"
    if find not in ("yes", "who", "count_people", "count_times", "what", "when"):
        return q
    new = replace(q, find=find, who=who, times=f"{op}{k}", count=None, act=q.act or "spoke")
    return noted(q, new, added, f"times{op}{k}: the question's {m.group(0)!r} is a number of turns per person")


# "who spoke in the second minute?": the minute's span of the recording (the first minute: _OPENING)
_NTH_MINUTE = re.compile(r"\b(?:in|during|within|over|throughout|inside)\s+(?:the\s+)?(second|third|fourth|fifth|"
                         r"sixth|2nd|3rd|4th|5th|6th)\s+minute\b", re.IGNORECASE)
_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
             "6th": 6}


def nth_minute(q: Query, plain: str, added: list[str]) -> Query:
    """"In the second minute": from=1:00 to=2:00, whatever window the model wrote for it."""
    found = list(_NTH_MINUTE.finditer(plain))
    if len(found) != 1 or CLOCK.search(plain):
        return q
    n = _ORDINALS[found[0].group(1).lower()]
    start, end = mss(60.0 * (n - 1)), mss(60.0 * n)
    if (q.from_, q.to, q.at) == (start, end, None):
        return q
    added.append(f"from={start} to={end}: the question's {found[0].group(0)!r}")
    return replace(q, from_=start, to=end, at=None)


# "when did A start talking?": their first turn ("stop talking": their last), not every time they spoke
_START_STOP = re.compile(r"\b(?:(start|starts|started|starting|begin|begins|began|beginning)\s+(?:speaking|talking|"
                         r"to\s+speak|to\s+talk)|(stop|stops|stopped|finish|finishes|finished)\s+(?:speaking|talking))\b",
                         re.IGNORECASE)
# "what did I hear right before 1:00?": the one turn next to the clock, not everything before it
_NEXT_TO_CLOCK = re.compile(r"\b(?:right|just|immediately|directly)\s+(before|after)\s+(?:the\s+)?(\d{1,2}:[0-5]\d)\b",
                            re.IGNORECASE)


def one_turn_forms(q: Query, plain: str, quoted: list[str], added: list[str]) -> Query:
    """A question about one turn the frame read as all of them: someone starting (stopping) to talk, and the words
    right before (after) a clock time."""
    m = _START_STOP.search(plain)
    if m is not None and q.find == "when" and q.who and not q.rel and (not q.pick or not m.group(1)) \
            and q.measure is None:
        # ("when did A finish speaking for the last time?": when that last turn ended)
        pick = q.pick or ("first" if m.group(1) else "last")
        return noted(q, replace(q, pick=pick, by=None, measure=None if m.group(1) else "end"), added,
                     f"pick={pick}: the question asks when they {'started' if m.group(1) else 'stopped'} talking")
    m = _NEXT_TO_CLOCK.search(plain)
    if m is None or q.find not in ("what", "who", "when") or (q.pick not in (None, "first", "last") and not q.rel):
        return q     # ("who spoke immediately before 0:30?" written pick=first: the last turn before it)
    before = m.group(1).lower() == "before"
    pick = "last" if before else "first"
    who = q.other if q.rel and q.other and not q.who and len(quoted) == 1 else q.who
    if q.rel and who is q.who:    # a relation to another person's turn is not the clock's
        return q
    # (the one person the question names, read as the anchor of a relation: "what did A say right before 0:45?")
    new = replace(q, who=who, other=None if q.rel else q.other, rel=None, pick=pick, by=None if who else "turn",
                  act=q.act or "spoke", at=None, **({"to": m.group(2), "from_": None} if before else
                                                     {"from_": m.group(2), "to": None}))
    return noted(q, new, added, f"pick={pick}: the turn {m.group(0)!r}")


# "who opened the conversation?", "who started the talking?", "who closed the discussion?": the first (last) to speak
_OPENED = re.compile(r"^\W*who\s+(?:(opened|started|began|kicked\s+off|initiated|got)|(closed|ended|finished|"
                     r"wrapped\s+up|had\s+the\s+last\s+word))\b(?:\s+(?:the\s+|our\s+)?(?:conversation|talking|talk|"
                     r"discussion|chat|chatting|chatter)(?:\s+(?:going|off))?)?", re.IGNORECASE)


def opened_talk(q: Query, plain: str, added: list[str]) -> Query:
    """"Who opened the conversation?": the first person to speak (the model may search the memory's text for
    it, where nobody "opened" anything)."""
    m = _OPENED.match(plain)
    if m is None or not re.search(r"conversation|talk|discussion|chat|last\s+word", m.group(0), re.IGNORECASE):
        return q     # "who opened the door?": no talk
    pick = "first" if m.group(1) else "last"
    new = replace(q, find="who", pick=pick, act="spoke", by=None, who=None, other=None, rel=None, times=None)
    return noted(q, new, added, f"pick={pick}: the question's {m.group(0).strip()!r} (the {pick} to speak)")


_FIRST_SPOKE = re.compile(r"\b(?:did|had|does)\b[^?]*?\bfirst\s+(?:speak|talk|say\s+anything|start\s+(?:speaking|"
                          r"talking))\b", re.IGNORECASE)


def first_spoke(q: Query, plain: str, added: list[str]) -> Query:
    """"How long after A's first words did B first speak?": the time to B's first turn after A's, and B's very first
    turn where it came before A's (``pick=first``: the answer says so; the records, not the question's assumption)."""
    if q.find != "gap" or not q.who or q.pick or q.until or not _FIRST_SPOKE.search(plain):
        return q
    added.append("pick=first: the person's first words (said where they came before the moment)")
    return replace(q, pick="first")


def forms(q: Query, plain: str, quoted: list[str], known: list[str], yes_no: bool, added: list[str]) -> Query:
    """The forms above a frame must follow, in order (the question check, fidelity.py, calls this once; the window
    from the start of the recording and the choice of two places are applied where their inputs are ready)."""
    q = anyone_than(duration_not_gap(busiest_place(q, plain, added), plain, added), plain, added)
    q = compared_by_time(q, plain, quoted, added)
    q = place_neither(place_difference(robot_departure(q, plain, added), plain, known, added), plain, known,
                      added)
    q = room_of_person(silence_after(ranked_by_time_or_top(q, plain, added), plain, quoted, added), plain, quoted,
                       added)
    q = one_turn_forms(exact_times(role_person(ranked_speaker(q, plain, added), plain, added), plain, added), plain,
                       quoted, added)
    q = ranked_in_place(nth_minute(compared_times(q, plain, yes_no, added), plain, added), added)
    q = first_spoke(opened_talk(q, plain, added), plain, added)
    if yes_no:
        return counts_of_two(ever_k_times(rank_identity(q, plain, quoted, added), plain, added), plain, quoted, added)
    return most_of_all(q, plain, quoted, added)
