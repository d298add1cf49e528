"""Does the frame ask what the question asked? A small model sometimes drops a field: the quoted words that name
a person, a clock time, the place. Executed as written, such a frame answers another question (about everyone
instead of the person in the porch), so before it runs, the frame is checked against the question:

* every quote of the question must be a ``who`` or ``other`` of the frame, and every clock time one of its
  ``from`` / ``to`` / ``at``: otherwise the frame goes back to the model with what it left out;
* a place the question names ("in the porch", "while I was in the living room") and the frame lacks is added,
  whether or not the memory knows it (the executor then says it knows no such place, rather than answering about
  everywhere); so is the "first" / "last" of a who / what / when / where question without a pick ("when did she
  last speak?" is one time, not every time; "the first minute" is a window, not a pick);
* a count condition (``times``) the question gives no number for is dropped ("who did I hear most often?" does not
  ask who spoke exactly twice; ``times=0`` stays where it says "never" or "silent"), and "most" / "least" ("most
  often", "fewest times") without a pick becomes one;
* a relation in time (``rel``) the question has no word for is not the question's: two people and "more" / "less"
  is a comparison, anything else goes back to the model;
* a person the question names by how they looked ("the woman who smiled") is put in the frame where the question's
  form says (:func:`_by_looks`), and a question about company is never "the same person" (``find=same``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from m3_memory.timeline import Timeline, recording_halves

from . import ranking
from .each_of_two import each_of_two
from .frame import TIMED_REL, Query, compares_with_other, pick_ordinal, rel_base
from .moves import Stays, move_moments, robot_room_forms, without_moves
from .named_people import name_as_who
from .people import LOOK_WORDS, is_role, look_of, look_ref, looks_named
from .place_forms import place_choice
from .polarity import EITHER_PLACE, YES_NO_QUESTION
from .question_forms import beyond_language, compared_with_nobody, forms, opening_window, times_of_day
from .question_place import place_of_question
from .quotes import quote_score
from .ranking import _RELATION, nth_anchor, own_nth_time, rank_by_count, rank_of_turn, recent_is_last, unasked_rank
from .repair import time_of
from .short_refs import rank_of_role, short_refs
from .sight_anchor import anchor_there
from .spans import last_as_verb, people_count, time_between
from .talk_edges import edge_picks
from .turn_forms import late_forms
from .wording import (
    CLOCK,
    QUOTED,
    anchor_order,
    between_people,
    clock_bounds,
    clock_fields,
    clock_refs,
    count_as_person,
    counted_people,
    grounded_refs,
    invented_times,
    place_named,
    place_not_person,
    rank_from_end,
    rank_not_count,
    rank_of_person,
    same_place_pair,
    second_person,
    self_relation,
    single_anchor,
    summed_pair,
    than_person,
    when_or_where,
)
from .words import ORD, SPAN_OF_TIME, bounds_out

_QUOTE = QUOTED   # one definition of what a question quotes (wording.py)
_ACT_WORDS = re.compile(r"^\W*(?:(?:spoke|speak|speaking|talked|talk|talking|said|say|heard|hear)\s*)+"
                        r"(?:again|more|too|also|once\s+more|later|there)?\W*$", re.IGNORECASE)   # a verb phrase
_CLOCK = CLOCK   # m:ss, h:mm or h:mm:ss as the question wrote it (one pattern with wording.py's)
_ORDINAL = re.compile(r"\b(first|earliest|last|final|latest|most\s+recent(?:ly)?)\b"
                      r"(?!\s+(?:\d|one\s+(?:minute|second|hour)|two|three|four|five|ten|twenty|thirty|half|few|minute|"
                      r"minutes|second|seconds|hour|third|quarter))", re.IGNORECASE)
# the robot itself moving: "when did I get to the hallway?", "how long was I in the kitchen?"
_ROBOT_MOVES = re.compile(r"\b(?:get|got|gotten|arrive|arrived|reach|reached|enter|entered|come|came|go|went|"
                          r"stay|stayed|spend|spent|visit|visited|move|moved|been|walked|was I|were we|am I)\b",
                          re.IGNORECASE)
# a number of times: digits or number words, once / twice / thrice ("exactly 4 times", "more than three times")
_COUNT_WORDS = re.compile(r"\b(?:\d+|zero|(?:one|single)(?=\s+(?:times?|turns?|utterances?)\b)|two|three|four|five|"
                          r"six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                          r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|twice|thrice|"
                          r"once(?!\s+(?:it|he|she|they|i|we|you|the|that|this|someone|somebody|everyone)\b))\b",
                          re.IGNORECASE)
_HEARING = re.compile(r"\b(?:hear|heard|hearing|speak|speaks|spoke|spoken|speaking|talk|talks|talked|talking|"
                      r"say|says|said|saying|voice|voices|speakers|turns?|sentences?|words|speech|utterances?|remarks?|"
                      r"conversations?|chat|chatted|chatting|chatter)\b", re.IGNORECASE)
_SEEING = re.compile(r"\b(?:see|sees|saw|seen|seeing|view|appear|appears|appeared|visible|watch|watched|looked|"
                     r"silent|quiet|on\s+(?:camera|screen))\b", re.IGNORECASE)
# "what happened right after I got to the lab?": what was said then (a face is no answer to "what")
_HAPPENED = re.compile(r"^\W*what\s+(?:happened|happens|went\s+on|was\s+going\s+on|occurred|took\s+place)\b", re.I)
# "the person who said ...": a description of someone, which asks nothing about speaking ("who spoke last?" does)
_DESCRIPTOR = re.compile(r"\b(?:person|one|man|woman|people|persons|someone|anyone|somebody|anybody|speaker|voice|guy|"
                         r"lady|individual)\s+(?:who|that)\s+(?:had\s+|has\s+)?(?:said|says|spoke|speaks|talked|asked)\b",
                         re.IGNORECASE)
_TIME_UNITS = frozenset(("second", "seconds", "minute", "minutes", "hour", "hours"))
_TIME_PHRASE = re.compile(r"\b(?:(?:the|a|an)\s+)?(?:first\s+)?(?:[a-z]+|\d+(?:\.\d+)?)[ -](?:seconds?|minutes?|hours?)"
                          r"(?:[ -]mark|\s+point)?\b", re.IGNORECASE)
_MEETING = re.compile(r"\b(?:meet|met|meeting|encounter|encountered|run into|ran into)\b", re.IGNORECASE)
_SILENT = re.compile(r"\b(?:never|silent|quiet|nothing|without|not|didn't|did not)\b", re.IGNORECASE)
_ANYONE = r"than (?:anyone|anybody|everyone|everybody|the others)\b"
_MOST = re.compile(rf"(?<!\bat )\bmost\b(?!\s+recent)|\bmore (?:often |times )?{_ANYONE}|"
                   r"\b(?:greatest|largest|highest|biggest)\s+number\b|\b(?:busiest|liveliest|noisiest)\b",
                   re.IGNORECASE)
_LEAST = re.compile(rf"(?<!\bat )\b(?:least|fewest)\b|\b(?:less|fewer) (?:often |times )?{_ANYONE}|"
                    r"\b(?:smallest|lowest)\s+number\b|\bquietest\b", re.IGNORECASE)
# words that ask about order in time: a frame may only relate two people in time (rel=) when the question does
_ORDER = re.compile(r"\b(?:before|after|earlier|later|next|previous|preceding|prior|following|followed|preceded|"
                    r"then|until|till|since|when|again|still|afterwards?|beforehand|anymore|by\s+the\s+time|"
                    r"once|ahead\s+of|up\s+to\s+the\s+(?:moment|time|point))\b", re.IGNORECASE)
# a relation word bound to a clock ("after 1:01", "before the clock reached 0:36"): a window, not a relation to
# the person a quote names
_TO_A_CLOCK = re.compile(r"\b(?:before|after|until|since|later\s+than|earlier\s+than)\s+(?:\w+\s+){0,4}?"
                         r"\d{1,2}:[0-5]\d\b", re.IGNORECASE)
# where the question's relation starts: the words before it pick among the people on its side
_REL_SPLIT = re.compile(r"\b(?:before|after|until|till|since|once|following|preceding|prior\s+to|by\s+the\s+time|"
                        r"up\s+(?:to|until|till))\b", re.IGNORECASE)
_BEFORE_AFTER = re.compile(r"\b(?:before|after|next|previous|preceding|following|earlier|later|until|since)\b",
                           re.IGNORECASE)
# words that place a relation at someone's last turn ("right before the last time she spoke", "after he had spoken
# for the final time"): rel=..._last, the anchor is that person's last turn instead of their first
_LAST_TURN = re.compile(r"\b(?:(?:the|their|his|her|one)\s+(?:very\s+)?(?:last|final)\s+time|last\s+(?:spoke|talked|"
                        r"said|speaks|talks)|(?:last|final)\s+(?:turn|words)\s+of|(?:their|his|her)\s+(?:very\s+)?(?:last|final)\s+(?:words|"
                        r"say|turn)|'s?\s+(?:very\s+)?(?:last|final)\s+(?:words|say|turn)|(?:finished|stopped)\s+(?:speaking|"
                        r"talking)|for\s+good)\b", re.IGNORECASE)
# "the person who said 'X''s final turn": the possessive left after the quote is taken out of the question
_QUOTE_LAST_TURN = re.compile(r"(?<!\w)'s?\s+(?:very\s+)?(?:last|final)\s+(?:words|say|turn|time)\b", re.IGNORECASE)
# words that ask who was in view together with someone: the only questions a frame may answer with rel=with
_NEXT_TO = r"next to(?!\s+(?:speak|talk|say|arrive|come|go|leave)\b)"    # "the next to speak" is order, not company
# "were A and B ever on camera at the same time?": in view together (a time in common said with seeing)
_IN_VIEW = r"(?:on camera|on screen|in view|in (?:the )?(?:picture|frame|shot)|visible|seen|see|saw)"
# ("was A on camera while B was speaking?": B was in view saying it)
_AT_ONCE = r"(?:at the same time|at one time|simultaneously|at once|" \
           r"while\b[^.?!]*?\b(?:was|were)\s+(?:speaking|talking|on camera|in view|visible))"
_SEEN_AT_ONCE = rf"{_IN_VIEW}\b[^.?!]*\b{_AT_ONCE}|{_AT_ONCE}\b[^.?!]*\b{_IN_VIEW}"
_TOGETHER = re.compile(rf"\b(?:with|who else|together|alongside|accompan\w*|company|beside|{_NEXT_TO}|"
                       rf"{_SEEN_AT_ONCE})\b",
                       re.IGNORECASE)
# ... and those that can only mean that: a question with these is about company, whatever the frame says
_COMPANY = re.compile(rf"\b(?:together|alongside|accompan\w*|in (?:the )?company of|in view with|seen with|who else|"
                      rf"{_SEEN_AT_ONCE}|"
                      rf"(?:was|were|is|are|been|stood|standing|sat|sitting) (?:\w+ )?(?:with|beside|{_NEXT_TO}))\b",
                      re.IGNORECASE)
_COMPARE = re.compile(r"\b(?:more|less|fewer|most|least|fewest)\b", re.IGNORECASE)


def quotes_of(question: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTE.finditer(question)]


# a quote that follows a verb of speech is words someone said
_SPOKEN_BEFORE = re.compile(r"\b(?:say|says|said|saying|tell|tells|told|telling|ask|asks|asked|heard|hear|hears|"
                            r"mention|mentioned|shout|shouted|whisper|whispered)\s+(?:to\s+|me\s+|us\s+|that\s+)?"
                            r"(?:the\s+(?:words?|sentence|phrase|line)\s+)?$", re.IGNORECASE)


# "in which room were the words 'X' said?", "the sentence 'X' was spoken": speech said of the quote after it
_SPOKEN_AFTER = re.compile(r"^\W*(?:(?:was|were|had\s+been|has\s+been|being|got)\s+)?(?:first\s+|last\s+)?(?:said|"
                           r"spoken|uttered|heard|voiced|shouted|whispered|mentioned)\b", re.IGNORECASE)


def spoken_quotes(question: str) -> list[str]:
    """The question's quotes that are words someone said (after a verb of speech, or with one after them: "were
    the words 'X' said"), not written words ("the sign reading 'EXIT 12'")."""
    return [next(g for g in m.groups() if g) for m in _QUOTE.finditer(question)
            if _SPOKEN_BEFORE.search(question[:m.start()]) or _SPOKEN_AFTER.search(question[m.end():])]


# a feeling someone spoke of ("did anyone say they were happy?") is what was said, not how anybody looked
_SAID_FEELING = re.compile(r"\b(?:say|said|says|mention(?:ed|s)?|tell|told|talk(?:ed|s)? about)\s+(?:that\s+)?"
                           r"(?:(?:they|he|she|i|we|you|someone|everyone|it)\s+)?(?:(?:was|were|is|are|felt|feels?|"
                           r"being)\s+)?(?:very\s+)?(?:" + "|".join(LOOK_WORDS.values()) + r")\b", re.IGNORECASE)


def look_of_question(question: str) -> str | None:
    """The one expression the question describes a person by, outside quoted speech ("who was with the woman who
    smiled?" -> happy), else None (also where the feeling is something said: "did anyone say they were sad?")."""
    plain = _QUOTE.sub(" ", question)
    if _SAID_FEELING.search(plain):
        return None
    labels = looks_named(plain)
    return labels[0] if len(labels) == 1 else None


_NEVER_SPOKE = re.compile(r"(?:\bnever|\bnot|n't|\bno\s+longer)\s+(?:\w+\s+)?(?:speak|spoke|spoken|talk|talked|say|"
                          r"said)\b|\b(?:was|were|stayed|remained|kept|been)\s+(?:completely\s+)?(?:silent|quiet)\b|"
                          r"\bsaid\s+nothing\b", re.IGNORECASE)   # ("who was silent in the bedroom?")
_NEVER_A_WORD = re.compile(r"\b(?:never|not|n't)\s+(?:once\s+)?(?:said|say|spoke|speak|talked|talk|uttered|utter)\s+"
                           r"(?:a\s+(?:single\s+)?word|anything|a\s+thing|at\s+all)\b", re.IGNORECASE)
# what a frame finds about one person's own turns ("how many times did A ...", "where was A when ...")
_OF_SOMEONE = ("count_times", "when", "where", "what", "yes", "how_long")
_ASKS_WHO = re.compile(r"^\W*(?:who|whose|which\s+(?:person|people|ones?|speakers?|of))\b", re.IGNORECASE)

def _likeness(a: str, b: str) -> float:
    """How alike two quotes are, either way round (quotes.quote_score is the share of the first one's words)."""
    return max(quote_score(a, b), quote_score(b, a))


def _same_words(a: str, b: str) -> bool:
    return _likeness(a, b) >= 0.5


def quoted_in(ref: str, quoted: list[str]) -> bool:
    return any(_same_words(x, ref) for x in quoted)


def _last_turn(q: Query, plain: str, added: list[str]) -> Query:
    """rel relative to other's last turn exactly when the question says so ("the last time she spoke"); a time
    between two people's turns has its own reading of that (spans.time_between)."""
    if not q.rel or q.rel == "with" or q.find == "gap":
        return q
    says_last = bool(_LAST_TURN.search(plain) or _QUOTE_LAST_TURN.search(plain))
    if says_last and not q.rel.endswith("_last"):
        q = replace(q, rel=q.rel + "_last")
        added.append(f"rel={q.rel}: the question relates to someone's last turn")
    elif not says_last and q.rel.endswith("_last"):
        # "the last person to speak before X first spoke": last picks the person, X's turn is the first
        q = replace(q, rel=rel_base(q.rel))
        added.append(f"rel={q.rel}: the question names nobody's last turn")
    return q


def _by_looks(q: Query, label: str, question: str, plain: str, quoted: list[str], added: list[str]) -> Query:
    """A question that names a person by how they looked gets that person in the frame, in the place the
    question's form says: in view together (company words), the same person as a quoted one ("did the man who said
    X look happy?"), anyone at all (yes / no), else the person the frame's who / what / when / where is about.
    The model's frames for these were often about somebody else (``find=same who="look happy" other="spoke"``)."""
    ref, yes_no = look_ref(label), bool(YES_NO_QUESTION.match(question))
    if _COMPANY.search(plain) or (q.rel == "with" and _TOGETHER.search(plain)):
        how_many = re.search(r"\bhow many\b", plain, re.IGNORECASE)
        new = replace(q, find="yes" if yes_no else "count_people" if how_many else "who",
                      who=quoted[0] if yes_no and quoted else None, other=ref, rel="with", pick=None, times=None)
    elif quoted and yes_no:
        new = replace(q, find="same", who=quoted[0], other=ref, rel=None, pick=None, times=None, act=None)
    elif yes_no:
        new = replace(q, find="yes", who=ref, other=None, rel=None, pick=None, times=None, act=None)
    else:
        keep = q.find if q.find in ("who", "when", "where", "what", "count_times", "how_long") else "who"
        timed = q.rel in TIMED_REL and q.other and look_of(q.other) is None
        new = replace(q, find=keep, who=ref, other=q.other if timed else None, rel=q.rel if timed else None,
                      times=None)
    if new != q:
        added.append(f"{ref!r}: the question names a person by how they looked ({new.compact()})")
    return new


def act_of_question(question: str) -> str | None:
    """spoke where the question only asks about hearing or speaking ("did I hear her in the hall?"), seen where it
    only asks about seeing ("did I see him?"); None where it asks both or neither ("where did I meet her?"). Quoted
    speech and "the person who said ..." name a person; they ask nothing."""
    words = _DESCRIPTOR.sub(" ", _QUOTE.sub(" ", question))
    # "did I meet anyone who never said a word?": people seen, who never spoke (not a question about hearing)
    silent = bool(_NEVER_A_WORD.search(words))
    words = _NEVER_A_WORD.sub(" ", words)
    hear, see = bool(_HEARING.search(words) or _HAPPENED.match(words)), bool(_SEEING.search(words)) or silent
    return "spoke" if hear and not see else "seen" if see and not hear else None


def _unasked_times(q: Query, plain: str, added: list[str]) -> Query:
    """times= where the question names no number of times (a clock's digits, "how many times" read as a count)."""
    asked = SPAN_OF_TIME.sub(" ", _CLOCK.sub(" ", plain))     # ("in the last 30 seconds" names no count)
    if compares_with_other(q.times) and (not q.other or time_of(q.other) is not None):
        # "who spoke more times than anyone else?" written times>other: compared with nobody (the most is a pick);
        # "how many times did A talk after 0:50?" written other="0:50" times>other: the clock is a time, no person
        added.append(f"times{q.times} dropped: nobody to compare with")
        return replace(q, times=None)
    silent = q.times in ("=0", "<1", "<=0") and _SILENT.search(asked)   # "never spoke", "stayed silent": zero times
    if q.times is not None and not compares_with_other(q.times) and not _COUNT_WORDS.search(asked) and not silent:
        added.append(f"times{q.times} dropped: the question names no number of times")
        q = replace(q, times=None)
    return q


def check(question: str, q: Query, known_places: list[str], timeline: Timeline | None = None,
          now: float | None = None, stays: Callable[[], Stays] | None = None,
          recorded: Callable[[], float | None] | None = None,
          names: Callable[[], list[str]] | None = None) -> tuple[Query, list[str], list[str]]:
    """(frame, what was added, what the frame leaves out of the question). ``timeline`` and ``now`` (the question's
    moment, stream seconds) resolve the times a question names in words ("ten minutes ago", "this morning", "at
    3 pm": :meth:`m3_memory.timeline.Timeline.spans`): code sets the frame's window from them, whatever the model
    wrote, since calendar arithmetic is not a small model's job; ``stays`` (the robot's stays in places, read only
    when the question names one of its moves) does the same for "after I entered the lab" (moves.py); ``recorded``
    (the last input the memory holds, read only when the question names a half of the recording) ends the recording;
    ``names`` (the names the memory knows people by) puts back a name the frame left out (named_people.py)."""
    timeline = timeline or Timeline()
    added: list[str] = []
    missing: list[str] = []
    quoted = quotes_of(question)
    plain = _QUOTE.sub(" ", question)   # the question's own words (quoted speech asks nothing)
    plain = last_as_verb(plain)   # "how long did the silence ... last?": a length, not anyone's last turn
    spaced = " ".join(plain.split())    # the same, one space between words (for "words before a clock")
    named_place = place_of_question(question, known_places)
    q = place_not_person(q, quoted, named_place, _same_words, added, bool(YES_NO_QUESTION.match(question)))
    if q.find in ("more", "less") and q.who is None and q.other is None and not YES_NO_QUESTION.match(question) \
            and _ASKS_WHO.match(plain):
        # "Which people spoke more than five times?" written find=more times>5: nobody is compared, it asks who
        q = replace(q, find="who")
        added.append("find=who: the question asks who, and the frame compares nobody")
    q = clock_refs(q, spaced, added)
    q = short_refs(count_as_person(q, quoted, _same_words, added), question, quoted,
                   q.place or named_place, _same_words,
                   bool(_HEARING.search(plain)), added)
    q = grounded_refs(q, question, look_of, added)
    q = when_or_where(q, plain, added)
    q = place_choice(place_named(q, plain, named_place, added), plain, known_places, added)
    q = forms(q, plain, quoted, known_places, bool(YES_NO_QUESTION.match(question)), added)
    q = _unasked_times(rank_not_count(ranking.count_not_rank(q, plain, added), plain, added), plain, added)
    q = counted_people(compared_with_nobody(each_of_two(q, plain, added), plain, added), added)
    q = people_count(q, plain, bool(YES_NO_QUESTION.match(question)), added)
    q = time_between(q, question, plain, quoted, added)
    if q.find in ("same", "more", "less") and q.who is None and q.other is None:
        # nobody to compare: "who spoke more times than anyone else?" asks for the one who spoke most, "was anyone
        # seen but not heard?" for a yes or no (with the question's place and time)
        if q.find in ("more", "less") and not YES_NO_QUESTION.match(question):
            q = replace(q, find="who", pick="most" if q.find == "more" else "least")
        elif q.find == "same" and not YES_NO_QUESTION.match(question):
            q = replace(q, find="who")     # "whose voice was the last one in the office?" asks for a person
        else:
            q = replace(q, find="yes")
        added.append(f"find={q.find}: the frame compares nobody")
    if q.find in ("same", "more", "less") and q.who and q.other and len(quoted) <= 1 and \
            _same_words(q.who, q.other) and rank_of_role(q.who) == rank_of_role(q.other):
        # one person compared with themselves ("was A talking while I was in the hallway?" written as find=same
        # who=A other=<A's words cut short>): the question names one person; a yes / no asks whether they did it
        if YES_NO_QUESTION.match(question):
            q = replace(q, find="yes", other=None, rel=None)
            added.append("find=yes: the frame compared one person with themselves, the question names one")
        else:
            missing.append("one person compared with themselves (the question names one person)")
    look = look_of_question(question)
    if look is not None:
        q = _by_looks(q, look, question, plain, quoted, added)
    q, summed = summed_pair(q, plain, quoted, added)    # ("... speak in the office together?": turns added up)
    if not summed and (q.rel != "with" or q.find == "same") and quoted and _COMPANY.search(plain) and look is None:
        # "was A ever in view together with B?" written as find=same (with or without rel=with: in view together
        # is never "the same person"), "who was with A?" as a search for A's words: the question asks who was in
        # view together, and only rel=with answers that
        if len(quoted) >= 2 and YES_NO_QUESTION.match(question):
            q = replace(q, find="yes", who=quoted[0], other=quoted[1], rel="with", pick=None, times=None)
        elif q.find in ("who", "count_people", "yes", "same", "what") and len(quoted) == 1:
            q = replace(q, find="yes" if YES_NO_QUESTION.match(question) else
                        "count_people" if re.search(r"\bhow many\b", plain, re.IGNORECASE) else "who",
                        who=None, other=quoted[0], rel="with", pick=None, times=None)
        added.append(f"rel=with: the question asks who was in view together ({q.compact()})")
    q = second_person(self_relation(q, quoted, _likeness, added), question, quoted, _likeness, added)
    q = anchor_order(q, question, quoted, _likeness, added)
    q = single_anchor(q, question, quoted, _likeness, added)
    yes_no = bool(YES_NO_QUESTION.match(question))
    q = between_people(q, question, quoted, _likeness, yes_no, added)
    q = same_place_pair(q, plain, quoted, yes_no, added)
    q = than_person(q, question, quoted, yes_no, added)
    if q.rel == "same_place":
        pass      # a place in common, not an order in time nor company
    elif q.rel == "with":
        if not _TOGETHER.search(plain):
            missing.append("nobody in view together in the question (rel=with is not in the question)")
    elif q.rel and q.find in ("where", "when") and q.who is None and q.other and len(quoted) <= 1 and \
            not _ORDER.search(re.sub(r"\bwhen\b", " ", plain, flags=re.IGNORECASE)):
        # "Where was I when X spoke for the last time?" written as where someone spoke right before X's last turn:
        # "when" is the time of X's own turn
        pick = q.pick or ("last" if q.rel.endswith("_last") else None)
        added.append(f"who={q.other!r}{' pick=' + pick if pick else ''}: the question asks about their own turn "
                     f"(rel={q.rel} dropped)")
        q = replace(q, who=q.other, other=None, rel=None, pick=pick)
    elif (q.rel and q.rel != "same_place" and q.who is None and q.other and len(quoted) == 1
          and q.find in ("what", "when", "where") and not _RELATION.search(without_moves(plain, known_places))):
        # "what was the last thing A said before I entered the office?": the order is to the robot's move
        # (moves.py sets the window), the turn asked about is A's own
        added.append(f"who={q.other!r}: the question's order is to the robot's move (rel={q.rel} dropped)")
        q = replace(q, who=q.other, other=None, rel=None)
    elif q.rel and q.find == "gap":
        pass      # the time between other's turn and the next: the relation says which side, "between" included
    elif q.rel and not _ORDER.search(plain):
        # "Between A and B, who spoke more?" written as who spoke right after B: the question asks nothing about
        # order. Two people and more / less is a comparison; anything else goes back to the model.
        if len(quoted) == 2 and _COMPARE.search(plain):
            less = bool(re.search(r"\b(?:less|fewer|least|fewest)\b", plain, re.IGNORECASE))
            q = replace(q, find="less" if less else "more", who=quoted[0], other=quoted[1], rel=None, pick=None,
                        times=None)
            added.append(f"find={q.find} from the question: it compares two people, it asks nothing about order")
        else:
            missing.append(f"nothing about order in time (rel={q.rel} is not in the question)")
    if q.find in ("count_times", "count_people") and (k := abs(pick_ordinal(q) or 0) or 99 * (q.pick == "last")) \
            and not re.search(rf"\b(?:{ORD.get(k, 'last|final')}|{k}(?:st|nd|rd|th))\b", plain, re.IGNORECASE):
        # "how many times did B speak before C first spoke?" written pick=2 (pick=first): a count of no n-th turn
        added.append(f"pick={q.pick} dropped: the question counts and names no n-th")
        q = replace(q, pick=None)
    q = _last_turn(q, plain, added)
    for key in ("who", "other"):
        ref = getattr(q, key)
        if ref and look_of(ref) is not None and look is None and not quoted_in(ref, quoted):
            # "the person who looked sad" in a question that describes nobody by looks: nobody it asks about
            q = replace(q, **{key: None}, **({"rel": None} if key == "other" else {}))
            added.append(f"{key}={ref!r} dropped: the question describes nobody by how they looked")
    if q.other and not q.rel and not q.until and q.find not in ("same", "more", "less", "gap") and \
            _ACT_WORDS.search(q.other) and not quoted_in(q.other, quoted) and not is_role(q.other):
        # "did A speak again in the hallway?" written other="spoke again": words of the question's verb, no person
        added.append(f"other={q.other!r} dropped: no person the question names, and nothing relates to it")
        q = replace(q, other=None)
    q = _time_words_back(q, quoted, plain, added)
    refs = [r for r in (q.who, q.other, q.until) if r]
    for quote in quoted:
        if not any(_same_words(quote, r) for r in refs):
            if len(quoted) == 1 and not refs and q.find not in ("same", "more", "less") and (q.find == "gap" or not
                    _BEFORE_AFTER.search(without_moves(_TO_A_CLOCK.sub(" ", plain), known_places))) and \
                    spoken_quotes(question):
                # the one person the question names, left out of a frame that names nobody: it is who= (a time
                # between a moment and someone's words runs to theirs)
                q = replace(q, who=quote)
                refs = [quote]
                added.append(f"who={quote!r}: the person the question names")
                continue
            if q.who is None and q.other and q.rel and q.rel != "with" and not q.until and \
                    q.find in _OF_SOMEONE and len(quoted) == 2:
                # "how many times did A speak after B spoke for the last time?" written with B and the relation
                # only: the other person the question names is the one it counts (places, times) the turns of
                q = replace(q, who=quote)
                refs.append(quote)
                added.append(f"who={quote!r}: the other person the question names, beside other=")
                continue
            missing.append(f"the words '{quote}' (who= or other=)")
    if known_names := (names() if names is not None else []):
        relates = bool(_BEFORE_AFTER.search(without_moves(_TO_A_CLOCK.sub(" ", plain), known_places)))
        q = name_as_who(q, plain, known_names, quoted, relates, _same_words, added)
    read = lambda t: _read(timeline, t, now)   # noqa: E731
    q = clock_fields(invented_times(q, spaced, read, added), spaced, read, added)
    if not timeline.is_wall:      # stream clocks (on a wall clock "the first minute" of what is not said)
        q = opening_window(q, spaced, added)
        missing += times_of_day(plain)     # "who spoke at 3 a.m.?": no time of day to place it at
    spans = timeline.spans(plain, now, recorded() if recorded is not None and recording_halves(plain) else None)
    if spans:
        starts = [s.start for s in spans if s.start is not None]
        ends = [s.end for s in spans if s.end is not None]
        q = replace(q, at=None, from_=_secs(max(starts)) if starts else None, to=_secs(min(ends)) if ends else None)
        added.append("time from the question: " + ", ".join(s.text for s in spans))
    covered = [(m.start(), m.end()) for s in spans for m in re.finditer(re.escape(s.text), plain)]
    # a clock written as the person a relation is to (other="0:32" rel=after) is a window bound (repair.py)
    times = {_read(timeline, t, now) for t in (q.from_, q.to, q.at, q.other if q.rel and q.other and
                                                 CLOCK.fullmatch(q.other.strip()) else None) if t}
    q = clock_bounds(q, spaced, times, read, added)
    for m in _CLOCK.finditer(plain):
        if any(a <= m.start() < b for a, b in covered):
            continue
        if _read(timeline, m.group(0), now) not in times:
            missing.append(f"the time {m.group(0)} (from=, to= or at=)")
    # after / before a moment ("the first to speak after the one-minute mark") is a window (repair.py), not a
    # relation to somebody's turn: the question's first / last picks in it as in any window
    to_a_moment = q.rel in ("after", "before") and q.other is not None and time_of(q.other) is not None
    if q.pick is None and (q.rel is None or to_a_moment) and q.find in ("who", "what", "when", "where"):
        said = _first_or_last(without_moves(bounds_out(plain) if q.until else plain, known_places))
        said |= edge_picks(plain)   # ("when I first arrived": the move's; "after A's first turn": until='s bound)
        if len(said) == 1:      # "when did she last speak?": the last time, not every time
            q = replace(q, pick=said.pop())
            added.append(f"pick={q.pick} from the question")
    if q.pick is None and q.rel in _SPAN_RELS and q.other and not to_a_moment and \
            q.find in ("who", "what", "when", "where"):
        # "who was the first to speak after A first spoke?", "after A first spoke, who spoke first?": a first /
        # last outside the relation's clause picks among the people after (before) A's turn; one inside it ("A
        # first spoke") is the anchor's, which rel= gives
        said = _first_or_last(_outside_relation(plain))
        if len(said) == 1:
            q = replace(q, pick=said.pop())
            added.append(f"pick={q.pick}: the question's {q.pick} outside its relation's clause")
    q = rank_from_end(rank_of_person(q, plain, added, to_a_moment), plain, added)
    q = ranking.exact_count(q, plain, added)   # ("how many people had only one turn?": times=1)
    q = own_nth_time(recent_is_last(rank_by_count(q, plain, added), plain, added), plain, quoted, added)
    if q.rel is None:   # a relation read as the person's own n-th turn is no complaint any more
        missing = [m for m in missing if not m.startswith("nothing about order in time")]
    q = unasked_rank(rank_of_turn(q, plain, quoted, added), plain, added)
    q = late_forms(nth_anchor(q, plain, added), plain, quoted, bool(YES_NO_QUESTION.match(question)), added, missing,
                   known_places, question)
    beyond = beyond_language(plain)
    if beyond is not None:
        missing.append(f"unsupported: I cannot tell {beyond} from my records")
    asked = _CLOCK.sub(" ", plain)
    if q.pick is None and q.find == "where" and q.rel is None and not q.until and not _most_or_least(q.who or ""):
        # "in which room did I hear the least talking?", "where did A talk most often?": most / least of the places
        # (executor: the busiest place)
        pick = _most_or_least(asked)
        if pick:
            q = replace(q, pick=pick, times=None)
            added.append(f"pick={q.pick} from the question: the place with the {q.pick} talk")
    if q.pick is None and q.find == "who" and (q.rel is None or q.rel in _SPAN_RELS) and \
            not compares_with_other(q.times):
        # "who talked the most?", "before A first spoke, who had spoken the most?" (among the turns before A's)
        pick = _most_or_least(asked)
        if pick:
            q = replace(q, pick=pick)
            added.append(f"pick={q.pick} from the question")
    if q.act in (None, "any") and q.find != "same":     # "in how many rooms did anyone speak?": rooms with talk
        act = act_of_question(question)
        if act is not None:
            q = replace(q, act=act)
            added.append(f"act={act} from the question")
    elif q.act in ("spoke", "seen") and q.find not in ("count_places", "same") and act_of_question(question) not in (
            None, q.act):
        # "where did I see her last?" written act=spoke: the question asks about seeing only (or hearing only)
        act = act_of_question(question)
        added.append(f"act={q.act} is act={act}: the question asks about {'hearing' if act == 'spoke' else 'seeing'}")
        q = replace(q, act=act)
    elif q.act is not None and q.find == "count_places" and q.who is None and q.other is None and \
            act_of_question(question) is None:
        # "how many rooms did I visit?": the robot's own rooms, nobody heard or seen in them
        added.append(f"act={q.act} dropped: the question counts the robot's own places")
        q = replace(q, act=None)
    elif (q.act is not None and q.find in ("how_long", "when", "where") and q.who is None
          and q.other is None
          and act_of_question(question) is None and not _HEARING.search(_DESCRIPTOR.sub(" ", plain))
          and not _SEEING.search(plain) and _ROBOT_MOVES.search(plain)):
        # the robot's own comings and goings: nobody was heard or seen, the frame's act asks about people
        added.append(f"act={q.act} dropped: the question asks where the robot itself was")
        q = replace(q, act=None)
    elif q.act in ("spoke", "seen") and act_of_question(question) is None and _MEETING.search(plain):
        # "where did I first meet her?": seen or heard, whichever came first
        added.append(f"act={q.act} dropped: meeting someone is seeing or hearing them")
        q = replace(q, act=None)
    if q.place is None and q.find != "same" and not q.not_place and not (  # (neither the one nor the other: none)
            q.find == "where" and EITHER_PLACE.search(plain)) and \
            (place := place_of_question(question, known_places)) is not None:   # (a choice of places is none)
        q = replace(q, place=place)
        added.append(f"place={place!r} from the question")
    q = anchor_there(q, plain, added)   # (with the place the question names: "after A's last turn there")
    q = move_moments(q, plain, known_places, stays, added, missing)
    q = robot_room_forms(q, plain, known_places, stays, added, missing,
                         quoted[0] if len(quoted) == 1 else q.who if not quoted and q.who and not q.other else None)
    q = rank_of_person(q, plain, added)   # "the second person to talk after I entered the office": in that window
    if q.find in ("who", "count_people") and q.times in (None, "=0") and not q.rel and not q.until and \
            not q.not_place and (q.place or q.from_ or q.to or q.at) and _NEVER_SPOKE.search(plain):
        # "which of the people I heard never spoke in the bathroom?": the people heard with no turn there, not
        # the ones who spoke there
        q = replace(q, times="=0", act="spoke", pick=None)
        added.append("times=0 act=spoke: the question asks who never spoke there or then")
    return q, added, missing


_BEFORE_OR_AFTER_ALL = re.compile(r"\b(before|after)\s+(?:everyone|everybody|anyone|anybody|all\s+the\s+others?|"
                                  r"all\s+of\s+them)(?:\s+else)?\b", re.IGNORECASE)


def _outside_relation(plain: str) -> str:
    """The question without its relation clause: from its first relation word ("after", "once", ...) to the next
    comma, or to the end."""
    m = _REL_SPLIT.search(plain)
    if m is None:
        return plain
    comma = plain.find(",", m.end())
    return plain[:m.start()] + " " + (plain[comma:] if comma >= 0 else "")


_STOPPED = re.compile(r"\b(?:stop(?:ped)?|finish(?:ed)?|quit)\s+(?:talking|speaking)\b|\bfor\s+good\b|"
                      r"\bnever\s+(?:spoke|talked)\s+again\b", re.IGNORECASE)


def _first_or_last(text: str) -> set[str]:
    """The picks the text's order words give: first / earliest -> first; last, final, latest, most recent -> last;
    "before everyone else" -> first, "after everyone else" -> last."""
    picks = {"first" if m.group(1).lower() in ("first", "earliest") else "last" for m in _ORDINAL.finditer(text)}
    picks |= {"last"} if _STOPPED.search(text) else set()      # "when did A stop talking for good?": A's last turn
    return picks | {"first" if m.group(1).lower() == "before" else "last" for m in _BEFORE_OR_AFTER_ALL.finditer(text)}


def _most_or_least(text: str) -> str | None:
    """"most" or "least" where the text says exactly one of them, else None."""
    most, least = bool(_MOST.search(text)), bool(_LEAST.search(text))
    return None if most == least else "most" if most else "least"


_SPAN_RELS = ("after", "before", "after_last", "before_last")   # every turn on one side (not the one next to it)


def _time_words_back(q: Query, quoted: list[str], plain: str, added: list[str]) -> Query:
    """A person written as part of a time the question names (``other="the minute mark"`` for "after the
    one-minute mark"): the question's whole time phrase, which repair.py then moves to the time fields."""
    phrases = [m.group(0) for m in _TIME_PHRASE.finditer(plain) if time_of(m.group(0)) is not None]
    for field in ("who", "other"):
        ref = getattr(q, field)
        if not ref or time_of(ref) is not None or any(quote_score(x, ref) >= 0.5 for x in quoted):
            continue
        words = set(re.findall(r"[a-z]+", ref.lower())) & _TIME_UNITS
        same = [p for p in phrases if words & set(re.findall(r"[a-z]+", p.lower()))]
        if words and len(same) == 1:
            q = replace(q, **{field: same[0]})
            added.append(f"{field}={ref!r} is the question's {same[0]!r}")
    return q


def _read(timeline: Timeline, t: str, now: float | None) -> int | None:
    try:
        return int(timeline.read(t, now))
    except ValueError:
        return None


def _secs(t: float) -> str:
    return f"{t:.1f}"
