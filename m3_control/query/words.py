"""Words the answers are made of (ordinals, counts, seconds, lists): one set for every answer builder (phrase.py,
turn_forms.py, also.py, ...), so the same result is said the same way."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

ORD = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
       9: "ninth", 10: "tenth"}


# "once", "twice", "three (times)": the number of turns a question says
# "where ...?", "in which room(s) ...?", "what place ...?": a question asking for a place
WHERE_ASKED = re.compile(r"^\W*(?:(?:in\s+)?(?:which|what)\s+(?:room|place)s?|where)\b", re.IGNORECASE)
# "30 seconds", "ten minutes": a span of time, no count of turns
SPAN_OF_TIME = re.compile(r"\b(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                          r"fifteen|twenty|thirty|forty|fifty|sixty|ninety)[\s-]*"
                          r"(?:seconds?|secs?|minutes?|mins?)\b", re.IGNORECASE)
# "how long", "how many seconds", "how much time": a question asking for a duration
HOW_LONG = r"how\s+(?:long|many\s+seconds|much\s+time)"
# the numbers a question writes in words ("two minutes", "forty-five seconds", "a minute")
ONE_TO_TWENTY = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                  "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
NUMBER_WORDS: dict[str, int] = {"zero": 0, **{w: i for i, w in enumerate(ONE_TO_TWENTY, 1)}, "a": 1, "an": 1,
                                "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90}
COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3, **{w: NUMBER_WORDS[w] for w in ONE_TO_TWENTY[:10]}}

# a condition on a count of people or turns: "only one", "just two", "more than three", "at least 3", "a single"
COUNT_N = r"(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+single|a|single)"
COUNT_CMP = r"(?P<cmp>only|just|exactly|precisely|solely|more\s+than|over|fewer\s+than|less\s+than|under|at\s+least|" \
    r"at\s+most|no\s+more\s+than|no\s+fewer\s+than)"
COUNT_OPS: dict[str, Callable[[float, float], bool]] = {
    **dict.fromkeys(("only", "just", "exactly", "precisely", "solely"), operator.eq),
    **dict.fromkeys(("more than", "over"), operator.gt),
    **dict.fromkeys(("fewer than", "less than", "under"), operator.lt),
    **dict.fromkeys(("at least", "no fewer than"), operator.ge),
    **dict.fromkeys(("at most", "no more than"), operator.le)}


def count_condition(cmp: str | None, n: str | None) -> tuple[str, int] | None:
    """A match's comparison and number as (a key of COUNT_OPS, the number): ("only", 1) for "a single" (no
    comparison); None for a number it does not know."""
    if not cmp:
        return "only", 1
    word = re.sub(r"\s+", " ", (n or "").lower())
    k = int(word) if word.isdigit() else 1 if word in ("a", "single", "a single") else NUMBER_WORDS.get(word, -1)
    return (re.sub(r"\s+", " ", cmp.lower()), k) if k >= 0 else None


def ordinal_word(n: int) -> str:
    """3 -> "third", -2 -> "second to last"."""
    if n < 0:
        return f"{ORD.get(-n, f'{-n}th')} to last"
    return ORD.get(n, f"{n}th")


def seconds_word(n: float) -> str:
    """"1 second", "4 seconds", "4.4 seconds" (tenths where a figure keeps them: talk_seconds.figures)."""
    if not float(n).is_integer():
        return f"{n:.1f} seconds"
    return f"{int(n)} second{'s' if int(n) != 1 else ''}"


def tenths(x: float) -> float | int:
    """A figure as said: rounded to tenths, whole ones as an int (2.04 -> 2, 1.94 -> 1.9)."""
    x = round(float(x), 1)
    return int(x) if x.is_integer() else x


def fine_seconds(best: float, others: list[float]) -> bool:
    """Whether figures must be said in hundredths: one of ``others`` reads as ``best`` in tenths but not in
    hundredths (2.96 and 3.03 seconds are both "3 seconds"; said so, the larger looks like a tie)."""
    return any(round(x, 1) == round(best, 1) and round(x, 2) != round(best, 2) for x in others)


def seconds_said(x: float, fine: bool) -> str:
    """"2.96 seconds" where hundredths are needed (:func:`fine_seconds`), else :func:`seconds_word` in tenths."""
    return f"{x:.2f} seconds" if fine else seconds_word(tenths(x))


def times_word(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def spoke_times(n: int) -> str:
    """"spoke twice", "never spoke" (not "spoke never")."""
    return f"spoke {times_word(n)}" if n else "never spoke"


def how_often(spec: str) -> str:
    """A number of turns a frame's ``times`` compares with, in words: ">2" -> "more than twice", "=1" -> "exactly
    once" (not ``times>other``: the other person's name is the phrase's)."""
    k = spec.lstrip("<>=")
    how = {"=": "exactly ", ">": "more than ", "<": "fewer than ", ">=": "at least ", "<=": "at most "}[
        spec[: len(spec) - len(k)]]
    return how + times_word(int(k))


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def join(items: list[str], word: str = "and") -> str:
    """"A", "A and B", "A, B and C" (each once; ``word``: "or" for "A, B or C")."""
    items = list(dict.fromkeys(items))
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def said(ref: str) -> str:
    """What a question quotes, without its quotation marks and end stop."""
    return ref.strip().strip("\"'“”‘’").rstrip(".!?")


def the_place(place: str) -> str:
    """"the kitchen"; a place named by its position ("x 3.0 y 1.0") without an article."""
    return place if place.startswith("x ") else f"the {place}"


# a length of time as a question says it ("ten seconds", "2 minutes", "a minute"): read with repair.time_of
AMOUNT = r"(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|" \
         r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|ninety)\s+(?:seconds?|minutes?)"

# a window the question itself says (a clock time, "the first minute", "after I left"): "within five seconds of the
# previous one", "longer than two seconds" are no window, whatever a model wrote for them ("from=5:00 to=5:05")
_WINDOW_SAID = re.compile(r"\b\d{1,2}:[0-5]\d\b|\b(?:first|last|final|opening|closing)\s+(?:\w+\s+)?"
                          r"(?:minutes?|seconds?|half)\b|\b(?:before|after|since|until|while)\s+(?:I|we)\b",
                          re.IGNORECASE)


def says_window(question: str) -> bool:
    """Whether the question names a window of time (else a plan drops the one its frame was written with)."""
    return bool(_WINDOW_SAID.search(question))


def same_quote(a: str, b: str) -> bool:
    """The same words quoted twice (one person named twice: "after A's first turn but before A's second")."""
    return re.findall(r"[a-z0-9]+", a.lower()) == re.findall(r"[a-z0-9]+", b.lower())


def then_at(cond: str, when: str) -> str:
    """The conditions, then the time of the answer's turn: "(00:01)", or ", at 00:01" after conditions that end
    with a time of their own ("before B (00:06), at 00:01", not "before B (00:06) (00:01)")."""
    return f"{cond}, at {when}" if cond.endswith(")") else f"{cond} ({when})"


# "after A's first turn but before B's first turn": the first / last of a window's bounds, not a pick in it
_BOUND_WORDS = re.compile(r"(?:'s|’s)\s+(?:very\s+)?(?:first|last|final|opening)\s+(?:turns?|words?|time|sentences?)\b|"
                          r"\b(?:first|last)\s+(?:spoke|speaks|talked|said|spoken)\b", re.IGNORECASE)


def bounds_out(text: str) -> str:
    """The text without the first / last that name which of a person's turns bounds a window ("A's first turn")."""
    return _BOUND_WORDS.sub(" ", text)
