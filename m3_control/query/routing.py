"""Which questions only the records can answer: the routing predicates the tool loop reads before the first round.

A question that quotes someone and asks about order or company, names a person by how they looked or by rank, counts
turns, asks who spoke when or where, or asks about the robot's own moves, starts with a query over the turn and pose
records (m3_control.tool_loop): a search by meaning cannot know order, counts or places.
"""

from __future__ import annotations

import re

from .fidelity import _COMPANY, _HEARING, _ORDER, _QUOTE, look_of_question, quotes_of
from .place_forms import BUSY_PLACE as _BUSY_PLACE
from .place_forms import PLACE_PEOPLE as _PLACE_PEOPLE


def asks_order_of_quote(question: str) -> bool:
    """The question quotes someone and asks about order in time ("who spoke right before the person who said
    X?"): an order no search by meaning can find, only the turn records."""
    return bool(quotes_of(question)) and bool(_ORDER.search(_QUOTE.sub(" ", question)))


def asks_company_of_quote(question: str) -> bool:
    """The question quotes someone and asks who was in view with them ("who was with the person who said X?"):
    the face records know, a search by meaning does not."""
    return bool(quotes_of(question)) and bool(_COMPANY.search(_QUOTE.sub(" ", question)))


def asks_about_looks(question: str) -> bool:
    """The question names a person by how they looked: only the face records know (a search by meaning finds the
    "looks happy" memory, not who was with her or whether she spoke)."""
    return look_of_question(question) is not None


_RANKED = re.compile(r"\b(?:first|second|third|fourth|fifth|sixth|last|\d+(?:st|nd|rd|th))\s+(?:(?:different|new)\s+)?"
                     r"(?:person|one|speaker|voice|man|woman|to (?:speak|talk))\b"
                     r"|\b(?:spoke|talked|speaking|talking)\s+(?:first|second|third|fourth|fifth|last)\b"
                     r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th)|"
                     r"earliest|last|final|latest|most\s+recent|opening|closing|penultimate)\s+(?:words?|things?|"
                     r"sentences?|remarks?|utterances?|time\s+(?:that\s+)?(?:i|you|we)\s+heard)\b"
                     # "what was heard last?", "what was said first?"
                     r"|\b(?:hear|heard|said|spoken|uttered)\s+(?:said\s+|spoken\s+)?(?:first|second|third|fourth|fifth|"
                     r"sixth|seventh|eighth|"
                     r"ninth|tenth|\d+(?:st|nd|rd|th)|last)\b"
                     r"|\b(?:second|third)[\s-]+(?:most|least|fewest|highest|lowest|greatest)\b"
                     # "the person who spoke the least", "the most talkative", "the one who talked the longest"
                     r"|\b(?:spoke|talked|speaking|talking)\s+(?:the\s+)?(?:most|least|fewest|longest|shortest)\b"
                     # "who said the most in the office?", "who did I hear the least?"
                     r"|\b(?:said|say|says|hear|heard)\s+the\s+(?:most|least|fewest)\b"
                     r"|\b(?:most|least)\s+(?:talkative|often|recently)\b"
                     # "who was the quietest person?", "the chattiest one": the least (most) talkative
                     r"|\b(?:quietest|chattiest|most\s+silent|least\s+chatty|most\s+chatty)\b(?!\s+(?:room|place|area|"
                     r"spot|part|minute|time))",
                     re.IGNORECASE)


_TURN_COUNT = re.compile(r"\b(?:once|twice|thrice|(?:\d+|[a-z]+)\s+times)\b|"
                         r"\bhow\s+many\s+(?:turns|utterances|sentences|remarks)\b", re.IGNORECASE)
_HOW_OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b", re.IGNORECASE)   # "how often did someone talk?"


_WHO_SPOKE = re.compile(r"^(?:[^?]*,\s*)?\W*(?:who|whose|which\s+(?:(?:two|three|four|five|\d)\s+)?"
                        r"(?:person|people|one|ones|speakers?|of\s+(?:the|them))|"
                        r"when|"
                        r"(?:at\s+)?what\s+time|where|(?:in\s+)?(?:which|what)\s+(?:room|place))\b"
                        r"[^?]*\b(?:speak|spoke|spoken|speaking|speaker|talk|talked|"
                        r"talking|voice|hear|heard|turns?|said\s+(?:something|anything)|say\s+(?:something|anything)|"
                        r"conversation|discussion|chat|chatting)\b",
                        re.IGNORECASE)


def asks_who_spoke(question: str) -> bool:
    """"Whose voice did I hear last in the library?", "who opened the talking?", "which of the people I heard
    never spoke in the kitchen?", "at what time did someone first talk in the bathroom?", "which room had the most
    talking?": a person, a time or a place by who spoke when or where, which the turn records hold (not "who talked
    about the umbrella?": a topic is a search)."""
    plain = _QUOTE.sub(" ", question)
    return bool(_WHO_SPOKE.search(plain) or _BUSY_PLACE.search(plain) or _PLACE_PEOPLE.match(plain)) and \
        not re.search(r"\babout\b", plain, re.IGNORECASE)




_OWN_MOVES = re.compile(r"^\W*(?:when|(?:at\s+)?what\s+time|how\s+long|how\s+much\s+time|how\s+many\s+"
                        r"(?:seconds|minutes)|where|(?:in\s+)?(?:which|what)\s+(?:room|place))\b[^?]*\b"
                        r"(?:i|we|you)\s+(?:get|got|arrive|"
                        r"arrived|reach|reached|enter|entered|leave|left|go|went|come|came|stay|stayed|spend|spent|start|"
                        r"started|begin|began|finish|finished|end|ended)\b"
                        # "how long was I in the hallway?", "when were we in the lab?"
                        r"|^\W*(?:when|(?:at\s+)?what\s+time|how\s+long|how\s+many\s+(?:seconds|minutes))\b[^?]*\b"
                        r"(?:was|were|have|had)\s+(?:i|we|you)\s+(?:been\s+)?(?:in|at|inside)\s"
                        # "what was said right before I left the garden?": the turns next to a move of the robot's
                        r"|^\W*(?:what|who|whose|which|how\s+many)\b[^?]*\b(?:before|after|until|since|once|as\s+soon\s+as|"
                        r"when)\s+(?:i|we|you)\s+(?:had\s+)?(?:left|entered|arrived|reached|got\s+(?:to|into|there)|"
                        r"came\s+(?:in|into|to)|"
                        r"went\s+(?:in|into|to)|walked\s+(?:in|into|to))\b",
                        re.IGNORECASE)


# "who was in the kitchen with me?", "how many people did I see in the lab?": the whole question is who was there
_WHO_WAS_THERE = re.compile(r"^\W*(?:who|which\s+(?:\w+\s+)?(?:person|people)|how\s+many\s+(?:different\s+)?"
                            r"(?:people|persons))\s+(?:else\s+)?(?:was|were|did\s+(?:i|we)\s+(?:see|meet))\s+"
                            r"(?:(?:in|at|inside)\s+the\s+[a-z]+(?:\s+room)?|there)(?:\s+with\s+(?:me|us))?\s*\??\s*$",
                            re.IGNORECASE)


def asks_who_was_there(question: str) -> bool:
    """"Who was in the kitchen with me?", "how many people did I see in the lab?": people by place, which the
    face and voice records hold (a search finds a memory written there, not everyone)."""
    return bool(_WHO_WAS_THERE.match(_QUOTE.sub(" ", question)))


def asks_own_moves(question: str) -> bool:
    """"When did I get to the workshop?", "how long did I stay in the kitchen?", "where did I start out?": the robot's
    own path, which the pose records hold and no memory's text does."""
    plain = _QUOTE.sub(" ", question)
    return bool(_OWN_MOVES.search(plain)) and not re.search(r"\babout\b", plain, re.IGNORECASE)


def asks_turn_count(question: str) -> bool:
    """The question counts someone's turns ("who spoke exactly twice?", "how many times did she talk?"): counts are
    in the turn records, never in one memory's text."""
    plain = _QUOTE.sub(" ", question)
    return bool(_TURN_COUNT.search(plain)) or bool(_HOW_OFTEN.search(plain) and _HEARING.search(plain)
                                                   and not re.search(r"\babout\b", plain, re.IGNORECASE))


# "for how many seconds in total was someone talking?", "how much speech did I hear?", "how long was anyone talking
# in the lab?": seconds of speech, which the turn records add up (a search finds one memory's text)
_TALK_SECONDS = re.compile(r"^\W*(?:for\s+)?(?:how\s+many\s+(?:seconds|minutes)|how\s+long|how\s+much\s+time)\b[^?]*"
                           r"\b(?:speak|spoke|spoken|speaking|talk|talked|talking|speech|conversation|chatter|voices?)\b"
                           r"|^\W*how\s+much\s+(?:speech|talk|talking|speaking|conversation|chatter)\b", re.IGNORECASE)


def asks_talk_seconds(question: str) -> bool:
    """Seconds of talk in a place or window, anyone's or one person's ("for how many seconds in total was someone
    talking?"): the durations of the turn records, added up."""
    plain = _QUOTE.sub(" ", question)
    return bool(_TALK_SECONDS.search(plain)) and not re.search(r"\babout\b", plain, re.IGNORECASE)


def asks_by_rank(question: str) -> bool:
    """The question names a person or their words by rank among the speakers ("the third person who spoke", "who
    spoke second", "the last words I heard"): an order in time no memory's text holds, only the turn records."""
    return bool(_RANKED.search(_QUOTE.sub(" ", question)))
