"""Question checks for two operators that read like others: a number of people compared with a number
(``find=yes count>3``: "did more than three people speak?", not ``times>3``: "did someone speak more than three
times?") and the time between two moments (``find=gap``: "how long after A spoke did B speak?", not ``how_long``:
"how long did B talk?"). Each reads what the question states, never which kind of question it is: a number of
*people* next to a comparison word, a duration asked *between* two moments.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .frame import TIMED_REL, Query, compares_with_other
from .wording import NUM_WORDS as _NUM_WORDS
from .wording import QUOTED, REL_FILLER
from .words import HOW_LONG

_NUM = r"(\d{1,2}|" + "|".join(_NUM_WORDS) + r")"
_WHO = r"(?:different\s+|distinct\s+|separate\s+|other\s+|individual\s+|unique\s+)?" \
       r"(?:people|persons|speakers|voices|individuals|others|talkers)\b"
_OPS = {"more than": ">", "over": ">", "at least": ">=", "fewer than": "<", "less than": "<", "under": "<",
        "at most": "<=", "no more than": "<=", "exactly": "=", "only": "=", "above": ">", "below": "<",
        "greater than": ">", "higher than": ">", "lower than": "<", "precisely": "=", "smaller than": "<",
        "larger than": ">", "bigger than": ">", "exceed": ">", "exceeds": ">", "exceeded": ">", "reach": ">=",
        "reaches": ">=", "reached": ">=", "no fewer than": ">=", "not fewer than": ">=", "no less than": ">=",
        "not less than": ">=", "not more than": "<="}
_OP_WORDS = "|".join(sorted((re.escape(k).replace("\\ ", r"\s+") for k in _OPS), key=len, reverse=True))
_BEFORE_NUM = re.compile(r"\b(" + _OP_WORDS + r")\s+" + _NUM + r"\s+" + _WHO, re.IGNORECASE)
# "3 different people at minimum", "two speakers at most"
_NUM_AT = re.compile(r"\b" + _NUM + r"\s+" + _WHO + r"\s+at\s+(?:the\s+)?(minimum|least|most|maximum)\b", re.IGNORECASE)
# "is the number of people who talked smaller than 2?", "does that number go above 4?" (people named anywhere)
_NUMBER_OF = re.compile(r"\b(?:number|count|total)\b[^?.!]*?\b(" + _OP_WORDS + r")\s+" + _NUM + r"\b", re.IGNORECASE)
_PEOPLE_WORD = re.compile(r"\b(?:people|persons?|speakers?|voices?|individuals?|talkers?)\b", re.IGNORECASE)
_NUM_OR = re.compile(r"\b" + _NUM + r"\s+or\s+(more|fewer|less)\s+" + _WHO, re.IGNORECASE)
_PLAIN_NUM = re.compile(r"\b(?:were there|was there|had|did)\s+" + _NUM + r"\s+" + _WHO, re.IGNORECASE)


_SPEECH = re.compile(r"\b(?:speak|speaks|spoke|spoken|speaking|talk|talks|talked|talking|say|says|said|saying|"
                     r"speakers?|voices?|talkers?|hear|heard|hearing|words?)\b", re.IGNORECASE)
_BEFORE = re.compile(r"\b(?:before|by\s+the\s+time|until|till|up\s+to|prior\s+to|ahead\s+of|earlier\s+than|"
                     r"preceding)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|once|since|following|later\s+than)\b", re.IGNORECASE)


def number(word: str) -> int:
    return int(word) if word.isdigit() else _NUM_WORDS[word.lower()]


def people_compared(plain: str) -> str | None:
    """The number of people a question compares with, as a ``count`` value (">3", ">=2", "=2"), or None."""
    m = _BEFORE_NUM.search(plain)
    if m:
        return f"{_OPS[' '.join(m.group(1).lower().split())]}{number(m.group(2))}"
    m = _NUM_OR.search(plain)
    if m:
        return f"{'>=' if m.group(2).lower() == 'more' else '<='}{number(m.group(1))}"
    m = _NUM_AT.search(plain)
    if m:
        return f"{'>=' if m.group(2).lower() in ('minimum', 'least') else '<='}{number(m.group(1))}"
    m = _NUMBER_OF.search(plain)
    if m and _PEOPLE_WORD.search(plain):
        return f"{_OPS[' '.join(m.group(1).lower().split())]}{number(m.group(2))}"
    m = _PLAIN_NUM.search(plain)
    if m:
        return f"={number(m.group(1))}"
    return None


def people_count(q: Query, plain: str, yes_no: bool, added: list[str]) -> Query:
    """``count`` as the question states it: set for "did more than 3 people speak?" (the model may have written
    ``times>3``, a number of turns per person, or nothing), dropped where the question compares no number of
    people."""
    said = people_compared(plain) if yes_no else None
    if said is None:
        if q.count is not None:
            added.append(f"count{q.count} dropped: the question compares no number of people")
            return replace(q, count=None)
        return q
    if q.find in ("same", "more", "less") and q.who and q.other:
        return q         # two people compared: no number of people
    times = q.times
    if times is not None and not compares_with_other(times) and times == said:
        times = None     # the model's times>3 was this number of people
    # (a pick would single out one person of those counted; "speakers", "talked": the people heard)
    act = "spoke" if q.act is None and _SPEECH.search(plain) else q.act
    if q.count == said and q.find == "yes" and times == q.times and act == q.act and q.pick is None:
        return q
    added.append(f"count{said}: the question compares the number of people with {said.lstrip('<>=')}")
    q = replace(q, find="yes", count=said, times=times, pick=None, by=None, act=act)
    if q.who and not q.other:
        # "had 3 people spoken before A first spoke?" written who=A: the people are counted, A is the moment
        rel = "before" if _BEFORE.search(plain) else "after" if _AFTER.search(plain) else None
        if rel is not None:
            added.append(f"other={q.who!r} rel={rel}: the people are counted relative to the person named")
            q = replace(q, other=q.who, who=None, rel=rel)
    return q


_GAP = re.compile(
    r"\bhow\s+(?:long|much\s+(?:time|later|earlier|sooner)|many\s+(?:seconds|minutes))\s+"
    r"(?:after|before|later|earlier|passed|went\s+by|elapsed|had\s+passed|did\s+it\s+take|was\s+it|between|apart|"
    r"did\s+(?:you|i)\s+(?:have\s+to\s+)?wait)\b"
    r"|\b(?:passed|went\s+by|elapsed|gone\s+by)\s+(?:between|from|after|before|until|till)\b"
    r"|\bhow\s+(?:much\s+later|soon|quickly|far\s+apart)\b|^\W*(?:the|how\s+much)\s+time\s+(?:passed\s+)?(?:from|between)\b"
    r"|\bhow\s+(?:long|much\s+time)\s+it\s+(?:was|had\s+been|has\s+been)\s+(?:between|from|after|before|until|"
    r"till|since|for)\b|\bhow\s+(?:long|much\s+time)\s+(?:did\s+)?it\s+(?:took|take)\b|\bhow\s+(?:long|much\s+time)\s+(?:was\s+it\s+|did\s+it\s+take\s+)?(?:until|till)\b",
    re.IGNORECASE)


def asks_time_between(plain: str) -> bool:
    """"How long after A spoke did B speak?", "how many seconds passed between ...", "how much later ...", "how
    long was it until ...": the time between two moments, not how long something lasted."""
    return bool(_GAP.search(plain))


_HOW_LONG_DID = re.compile(rf"^\W*(?:for\s+)?{HOW_LONG}\s+(?:did|does|do|will|would)\b",
                           re.IGNORECASE)


def last_as_verb(plain: str) -> str:
    """"How long did the silence before A's first words last?": the closing "last" is the verb (a length), not
    anyone's last turn; taken out."""
    return re.sub(r"\s+last\s*(?=[?.!]*\s*$)", " ", plain, flags=re.IGNORECASE) if _HOW_LONG_DID.match(plain) \
        else plain


# how long something lasted: "how long did A talk (in total)?", "how much time did I spend in the lab?", seconds of
# speech
_LASTED = re.compile(r"\bhow\s+(?:long|much\s+time|many\s+(?:seconds|minutes))\s+(?:did|was|were|have|has|had)\s+"
                     r"(?:\w+\s+){0,8}?(?:talk|talked|"
                     r"speak|spoke|spend|spent|stay|stayed|last|lasted|in\s+(?:the|my)\b)|\b(?:in\s+total|in\s+all|"
                     r"altogether)\b"
                     # "how many seconds of conversation did I hear?", "how much speech was there after 0:30?"
                     r"|\bhow\s+(?:many\s+(?:seconds|minutes)\s+of|much)\s+(?:speech|talk|talking|speaking|"
                     r"conversation|chatter)\b", re.IGNORECASE)
# a word that starts a time, then the words that may stand before the quote ("after the last thing I heard from ...")
_START = re.compile(rf"\b(?:after|since|following|once|from)\b"
                    rf"(?:\s+(?:{REL_FILLER}|word|you|thing|things|remark|from))*\s*$", re.IGNORECASE)
# the same person again: "did they speak again", "her second turn", "the first and second time A talked"
_OWN_AGAIN = re.compile(r"\b(?:they|he|she|them|him|her|their|his|that\s+(?:same\s+)?person|"
                        r"the\s+same\s+person)\b[^?]*?\b"
                        r"(?:again|once\s+more|a\s+second\s+time|next)\b"
                        r"|\b(?:their|his|her)\s+(?:second|next)\s+(?:turn|time|words)\b"
                        r"|\bagain\b[^?]*?\b(?:after|since)\s+(?:their|his|her)\s+(?:first|last|final)\b"
                        r"|\bfirst\s+and\s+(?:the\s+)?second\s+(?:time|turn)", re.IGNORECASE)
_LAST = re.compile(r"(?<!\bat )\b(?:last|final|latest)\b|\bfor\s+good\b|\bnever\s+(?:spoke|talked|said)\s+again\b",
                   re.IGNORECASE)


def time_between(q: Query, question: str, plain: str, quoted: list[str], added: list[str]) -> Query:
    """``find=gap`` for a question that asks the time between two moments (written ``how_long``, the length of the
    turns, or a count), and back to ``how_long`` where the question asks how long something lasted. Between two
    people the question names, the time runs from the one after "after / since / once / from", else from the first
    one it names ("how long after A did B speak?", "between A's first words and B's", "how long did it take B to
    speak after A's last words?"); one person "again" is measured to their own next turn."""
    if q.measure == "silence":
        return q      # the time nobody spoke after someone (question_forms.silence_after)
    between = asks_time_between(plain)
    spans = list(QUOTED.finditer(question))
    if q.find == "gap" and not between and _LASTED.search(plain):
        added.append("find=how_long: the question asks how long something lasted")
        return replace(q, find="how_long")
    if not between or q.find not in ("gap", "how_long", "count_times", "when"):
        return q
    if q.find != "gap":
        added.append(f"find=gap: the question asks the time between two moments (not find={q.find})")
        q = replace(q, find="gap")
    if len(quoted) == 2 and len(spans) == 2 and not q.until:
        # from the person after "after" / "since" / "once" / "from" ("how long did it take B to speak after A's last
        # words?"), else from the first one named ("between A's first words and B's", "how long after A did B ...?")
        starts = [i for i, m in enumerate(spans) if _START.search(question[(spans[i - 1].end() if i else 0):m.start()])]
        i = starts[0] if len(starts) == 1 else 0
        start, end = quoted[i], quoted[1 - i]
        # (to someone's next turn, not to whoever spoke right after: "right_" says nothing here)
        rel = q.rel.replace("right_", "") if q.rel in TIMED_REL else "after"
        # the words about the start person: all before the other's quote (or, when it comes second, after the first)
        about_start = question[:spans[1].start()] if i == 0 else question[spans[0].end():]
        if _LAST.search(about_start):
            # "after A spoke for the last time", "after the last thing I heard from A", "once A stopped for good"
            rel = rel if rel.endswith("_last") else f"{rel}_last"
        elif rel.endswith("_last") and not _LAST.search(question):
            rel = rel.removesuffix("_last")
        # the words about the end person: from their quote to the next one (or the end): "... and B's last words",
        # "... until B spoke for the last time": the time runs to B's last turn, not their first after the start
        j = 1 - i
        about_end = question[spans[j].end():spans[j + 1].start() if j + 1 < len(spans) else len(question)]
        pick = "last" if _LAST.search(about_end) else None if q.pick == "last" else q.pick
        if (q.other, q.who) != (start, end):
            added.append(f"other={start!r} who={end!r}: the time runs from {start!r}")
        if pick != q.pick:
            added.append(f"pick={pick}: the time runs to {end!r}'s {'last turn' if pick else 'next turn'}")
        q = replace(q, other=start, who=end, rel=rel, times=None, from_=None, to=None, at=None, pick=pick)
    elif len(quoted) == 1 and _OWN_AGAIN.search(plain):
        # "how long after A first spoke did they speak again?", "between the first and second time A talked": from
        # A's first (last) turn to A's own next one
        rel = "after_last" if _LAST.search(plain) and not re.search(r"\bfirst\b", plain, re.IGNORECASE) else "after"
        if (q.who, q.other, q.rel) != (quoted[0], quoted[0], rel):
            added.append(f"who=other={quoted[0]!r}: the time to the same person's next turn")
        q = replace(q, who=quoted[0], other=quoted[0], rel=rel, pick=None, from_=None, to=None, at=None)
    elif q.other and not q.rel and not q.until:
        q = replace(q, rel="after")
    return q
