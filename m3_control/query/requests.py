"""A question asked as a request, or in a few words, is the full question it stands for.

A request is the question it wraps: "Can you tell me who spoke first?", "Do you remember
where I was when ...?", "Tell me how many times ...". By its first words such a question reads as a yes / no
question ("can you ...?" -> yes, I can), and the small model then writes a yes / no frame for a question that asks
who, where or how many. The wrapped question is what the model, the checks and the answer's form see; the trace
keeps the words as asked.

- a wh-clause comes out as the question: "Can you tell me who spoke first after 1:15?" -> "Who spoke first after
  1:15?"; "where I was" becomes "where was I", otherwise the clause's word order stays ("Tell me how many times
  someone spoke." -> "How many times someone spoke?");
- "whether" / "if" asks yes or no: "Do you remember whether A spoke again?" -> "Is it true that A spoke again?";
- "tell me" / "remind me" with a thing asks what it was: "Tell me the first thing anybody said." -> "What was the
  first thing anybody said?";
- "name" / "list" everyone who ... asks who: "Name everyone who spoke in the garden." -> "Who spoke in the
  garden?".

Only a request about something said, seen or known is unwrapped: "Can you see the red folder?" or "Do you remember
the person who said X?" ask yes or no themselves and stay as they are.

A terse question (a noun phrase and a question mark, as people type or say to a robot) gets the words it leaves out:
"First speaker after 1:02?" -> "Who was the first speaker after 1:02?", "Number of turns between A and B?" -> "How
many turns between A and B?", "Room I was in when A first spoke?" -> "Which room was I in when A first spoke?",
"Time someone first spoke in the lab?" -> "At what time someone first spoke in the lab?", "What is the total number of
times A spoke?" -> "How many times A spoke in total?", "Seconds between A and B?"
-> "How many seconds passed between A and B?", "Any words from A before
1:02?" -> "Were there any words from A before 1:02?". Read as they stand, their first words ask nothing, and the
model answered "Number of different people ...?" with a count of something else and "Any words from A ...?" with
what A said instead of yes or no.

A hedge before the question word is dropped ("Roughly how many seconds did A speak?" -> "How many seconds did A
speak?": read as it stands, the form checks saw no "how many" and the words were given). A moment given as a time
into the recording is that clock: "Was anyone talking 10 seconds into the recording?" ->
"Was anyone talking at 0:10?" (the model had written a window from 0:10 to 0:20).
"""

from __future__ import annotations

import re

from .words import NUMBER_WORDS, WHERE_ASKED

_TELL = r"(?:tell|remind|show)\s+me|let\s+me\s+know|say"
_KNOW = r"(?:remember|recall|know|find\s+out|check|work\s+out|figure\s+out)"
_REQUEST = re.compile(
    r"^\W*(?:(?:hey|ok(?:ay)?|so|and|robot)\W+)*(?:please\s+)?"
    rf"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:(?P<tell1>{_TELL})|{_KNOW})"
    rf"|(?:do|did)\s+you\s+(?:happen\s+to\s+|still\s+)?{_KNOW}"
    rf"|(?P<tell2>{_TELL})"
    r"|i(?:\s+want|\s+need|\s+would\s+like|'d\s+like)\s+to\s+know|i(?:\s+wonder|\s+am\s+wondering|'m\s+wondering"
    r"|\s+was\s+wondering)|(?:do\s+you\s+have\s+)?any\s+idea)"
    r"(?:\s+(?:please|again))?\s*[,:]?\s+", re.IGNORECASE)
# "Who spoke first, do you remember?": a request put after the question asks the question before it
_TAG = re.compile(rf"\s*,\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:{_TELL}|{_KNOW})(?:\s+me)?"
                  rf"|(?:do|did)\s+you\s+(?:{_KNOW})|please|any\s+idea)\s*([?.!]*)\s*$", re.IGNORECASE)
_WH = re.compile(r"(?:who|whom|whose|what|which|when|where|why|how)\b", re.IGNORECASE)
_WHETHER = re.compile(r"(?:whether|if)\s+", re.IGNORECASE)
_THING = re.compile(r"(?:the|a|an)\s+", re.IGNORECASE)
# "where I was" -> "where was I", "which room I was in" -> "which room was I in" (the checks read the direct form)
_SUBJECT_BE = re.compile(r"^((?:where|when|(?:which|what)(?:\s+(?!i\b|you\b|we\b|they\b|he\b|she\b|it\b)\w+){1,3}))"
                         r"\s+(i|you|we|they|he|she|it)\s+(was|were|am|is|are)\b", re.IGNORECASE)


# "who the second person to talk in the lab was" -> "who was the second person to talk in the lab"
_WH_THING_BE = re.compile(r"^(who|what|which\s+\w+)\s+((?:the|a|an)\s+.+?)\s+(was|were|is|are)$", re.IGNORECASE)


def _direct_order(text: str) -> str:
    """"where I was ..." -> "where was I ..." (see :data:`_SUBJECT_BE`), "who the last speaker was" -> "who was the
    last speaker"."""
    text = _WH_THING_BE.sub(lambda b: f"{b.group(1)} {b.group(3)} {b.group(2)}", text, count=1)
    return _SUBJECT_BE.sub(lambda b: f"{b.group(1)} {b.group(3)} {b.group(2)}", text, count=1)


# "Name everyone who spoke in the garden.", "List the people that I heard after 1:00": who they were
_NAME_PEOPLE = re.compile(
    r"^\W*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:name|list|identify|enumerate|give\s+me|mention)\s+"
    r"(?:(?:to\s+me\s+)?)(?:everyone|everybody|anyone|anybody|every\s+(?:person|one|speaker)|each\s+(?:person|one|speaker)"
    r"|all\s+(?:of\s+)?(?:the\s+)?(?:people|persons|speakers|voices|those)|the\s+(?:people|persons|speakers|ones))"
    r"\s+(?:(?:who|that)\s+|(?=(?:i|we|you)\s))", re.IGNORECASE)


_IN_ORDER = re.compile(r",?\s*\b(?:in\s+(?:the\s+)?order\s+of\s+(?:(?:first\s+)?appearance|their\s+first\s+"
                       r"(?:words|turns?|appearance)|speaking)|in\s+(?:the\s+)?order(?:\s+(?:that\s+|in\s+which\s+)?"
                       r"(?:they|he|she)\s+(?:first\s+)?(?:spoke|talked|appeared|were\s+(?:heard|seen)|came(?:\s+in)?))?|"
                       r"one\s+(?:by|after)\s+(?:one|another|the\s+other))\b", re.IGNORECASE)
# "... in the order of their last words": not the order people are listed in anyway (turn_order.py orders them)
_BY_LAST = re.compile(r",?\s*\bin\s+(?:the\s+)?order\s+of\s+their\s+(?:last|final)\s+(?:words|turns?)\b", re.IGNORECASE)
_BASE = {"heard": "hear", "saw": "see", "met": "meet", "noticed": "notice", "spotted": "spot", "watched": "watch",
         "recorded": "record", "listened": "listen"}
_SUBJECT_VERB = re.compile(rf"^(i|we|you)\s+({'|'.join(_BASE)})\b", re.IGNORECASE)


# "Name the rooms I went to.", "List all the places we visited": which places the robot was in
_NAME_PLACES = re.compile(
    r"^\W*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:name|list|tell\s+me|give\s+me|enumerate)\s+"
    r"(?:all\s+)?(?:of\s+)?the\s+(rooms|places|locations)\s+(?:that\s+|which\s+)?(?:i|we|you)\s+(?:have\s+|had\s+)?"
    r"(?:went\s+(?:to|into|through)|go\s+(?:to|into|through)|visited|been\s+(?:to|in)|was\s+in|were\s+in|passed\s+through|"
    r"entered)\W*$", re.IGNORECASE)


def unwrap_request(question: str) -> str:
    """The question a request wraps (see the module), or ``question`` itself when it is not such a request."""
    places = _NAME_PLACES.match(question)
    if places is not None:
        return f"Which {places.group(1).lower()} did I go to?"
    named = _NAME_PEOPLE.match(question)
    if named is not None and question[named.end():].strip(" .!?"):
        # "... in the order they first spoke": people are listed by their first turn anyway (the order clause's
        # "first" is no pick)
        tail = question[named.end():]
        by_last = _BY_LAST.search(tail) is not None
        clause = _IN_ORDER.search(tail)
        ordered = by_last or (clause is not None and "order" in clause.group(0).lower()
                              and not re.search(r"\b(?:saw|see|seen|appear\w*)\b", tail, re.IGNORECASE))
        rest = _IN_ORDER.sub("", _BY_LAST.sub("", tail)).strip().rstrip(" .!?,")
        # "... that I heard after 1:00" -> "Who did I hear after 1:00?"
        rest = _SUBJECT_VERB.sub(lambda v: f"did {v.group(1)} {_BASE[v.group(2).lower()]}", rest, count=1)
        # an order asked for: everyone by their first (last) words, with the times (turn_order.py)
        return "Who " + rest + (f", in the order of their {'last' if by_last else 'first'} words?" if ordered else "?")
    m = _REQUEST.match(question)
    if m is None:
        tag = _TAG.search(question)
        if tag is None or not _WH.match(question.lstrip(" \"'")):
            return question
        return question[:tag.start()].rstrip(" ,") + "?"
    rest = question[m.end():].strip()
    body = rest.rstrip(" .!?")
    if not body:
        return question
    if _WH.match(body):
        body = _direct_order(body)
        out = body[0].upper() + body[1:]
    elif (w := _WHETHER.match(body)) is not None:
        out = "Is it true that " + body[w.end():]
    elif _THING.match(body) and ((full := expand_terse(body + "?")) != body + "?" or m.group("tell1")
                                 or m.group("tell2")):
        # "Tell me the room where ...", "do you remember the very first words someone said?": the terse forms below
        # say which question; "tell me" with any other thing asks what it was, "do you remember the person who
        # said X?" asks yes or no and stays
        out = full[:-1] if full != body + "?" else "What was " + body
    else:
        return question
    return out + "?"


_ORDINAL = r"first|second|third|fourth|fifth|sixth|last|final|next|previous|latest|most\s+recent"
_TERSE: tuple[tuple[re.Pattern, object], ...] = (
    (re.compile(r"^\W*(?:the\s+)?(?:number\s+of\s+)?(seconds|minutes)\s+(?=between\b|from\b)", re.IGNORECASE),
     lambda m: f"How many {m.group(1).lower()} passed "),
    (re.compile(r"^\W*(?:the\s+)?time\s+(?=between\b|from\b)", re.IGNORECASE), "How much time passed "),
    (re.compile(r"^\W*(?:the\s+)?number\s+of\s+", re.IGNORECASE), "How many "),
    (re.compile(r"^\W*(?:the\s+)?(room|place|location)\b", re.IGNORECASE), lambda m: f"Which {m.group(1).lower()}"),
    (re.compile(r"^\W*(?:the\s+)?time\s+(?=(?:someone|somebody|anyone|anybody|i|we|the|a|people)\b)", re.IGNORECASE),
     "At what time "),
    (re.compile(rf"^\W*(?:the\s+)?({_ORDINAL})\s+(person|people|speakers?|ones?|voices?)\b", re.IGNORECASE),
     lambda m: f"Who was the {m.group(1).lower()} {m.group(2).lower()}"),
    (re.compile(rf"^\W*(?:the\s+)?(?:very\s+)?(?:({_ORDINAL}|opening)\s+)?(words?|things?\s+said|sentences?)\b",
                re.IGNORECASE),
     lambda m: "What " + ("were" if m.group(2).lower().endswith("s") else "was") + " the "
     + " ".join(w.lower() for w in m.groups() if w)),
    (re.compile(r"^\W*any\s+(?=(?:words?|turns?|talk|talking|speech|sound|one\s+else)\b)", re.IGNORECASE),
     "Were there any "),
    (re.compile(r"^\W*any(one|body)\b", re.IGNORECASE), lambda m: f"Was there any{m.group(1).lower()}"),
)


# "First words from A, then from B: how far apart?": a later clause asks the question, the opening words set it up
_LATER_ASKS = re.compile(r"[,:;]\s*(?:who|whose|what|when|where|which|how)\b", re.IGNORECASE)


def expand_terse(question: str) -> str:
    """The full question a terse one stands for (see the module), or ``question`` itself."""
    if not question.rstrip().endswith("?") or _LATER_ASKS.search(question):
        return question
    for form, full in _TERSE:
        m = form.match(question)
        if m is not None:
            lead = full(m) if callable(full) else full
            out = lead + question[m.end():]
            return _direct_order(out)
    return question


# "What is the total number of times A and B spoke?" -> "How many times A and B spoke in total?" (read as it stands,
# "what" asked for words and the model wrote find=what; "what was the number of people ...?" went to a search)
_WHAT_NUMBER = re.compile(r"^\W*(?:what|which)(?:\s+(?:is|was|were|are)|'s)\s+the\s+"
                          r"(?:(total|overall|combined|whole)\s+)?(?:number|count|amount)\s+of\s+", re.IGNORECASE)
# "... people I heard in the office" -> "... people did I hear in the office"
_THINGS_SUBJECT_VERB = re.compile(rf"^((?:different\s+)?\w+)\s+(i|we|you)\s+({'|'.join(_BASE)})\b", re.IGNORECASE)


def number_of(question: str) -> str:
    """"What is the number of X ...?" as the "How many X ...?" it asks (see above), or ``question`` itself."""
    m = _WHAT_NUMBER.match(question)
    if m is None or not question[m.end():].strip(" ?.!"):
        return question
    rest = question[m.end():].rstrip().rstrip("?.! ")
    rest = _THINGS_SUBJECT_VERB.sub(lambda v: f"{v.group(1)} did {v.group(2)} {_BASE[v.group(3).lower()]}", rest,
                                    count=1)
    return "How many " + rest + (" in total" if m.group(1) and not re.search(r"\bin\s+(?:total|all)\b", rest,
                                                                             re.IGNORECASE) else "") + "?"


_AMOUNT = r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty-five|forty|fifty)"
# "was anyone talking 10 seconds into the recording?": the moment 0:10 (a clock the frame and its checks read)
_INTO = re.compile(rf"\b(?:(at|after|before|since|until|till|by|from|around)\s+)?(?:about\s+)?{_AMOUNT}\s+"
                   rf"(second|minute)s?(?:\s+and\s+{_AMOUNT}\s+seconds?)?\s+into\s+(?:the|my|this|our)\s+"
                   r"(?:recording|video|conversation|session|stream|memory|visit|tour)\b", re.IGNORECASE)


# "at the 45-second mark": the moment 0:45; "when the recording began", "at the very start": 0:00
_MARK = re.compile(rf"\b(?:(at|after|before|since|until|till|by|from|around)\s+)?(?:about\s+)?the\s+{_AMOUNT}[-\s]"
                   r"(second|minute)\s+mark\b", re.IGNORECASE)
_RECORDING = r"(?:the|my|this|our)\s+(?:recording|video|session|stream|tour|conversation)"
_BEGAN = re.compile(rf"\b(?:when|as)\s+{_RECORDING}\s+(?:began|started|begun|start|begin)\b|\bat\s+the\s+(?:very\s+)?"
                    rf"(?:start|beginning|outset)(?:\s+of\s+{_RECORDING})?(?=\s*[?.!]?\s*$)", re.IGNORECASE)


def _amount(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def into_recording(question: str) -> str:
    """"N seconds (minutes) into the recording", "the N-second mark", "when the recording began" as the clock they
    name ("at 0:10"), or ``question`` itself."""
    def clock(m: re.Match) -> str:
        more = m.groups()[3] if len(m.groups()) > 3 else None
        secs = _amount(m.group(2)) * (60 if m.group(3).lower() == "minute" else 1) + (_amount(more) if more else 0)
        return f"{(m.group(1) or 'at').lower()} {secs // 60}:{secs % 60:02d}"
    question = _MARK.sub(clock, _INTO.sub(clock, question))
    # (where the robot was then: "who spoke at the start?" asks for the first words, not for 0:00 within a second)
    return _BEGAN.sub("at 0:00", question) if WHERE_ASKED.match(question) else question


# "what time was it when I left the porch?", "how many seconds after the start did I enter the lab?": when I did it
_WHEN_I = re.compile(r"^\W*(?:(?:what|which)\s+time\s+(?:was|is)\s+it\s+when\s+(?P<i>i|we)\s+(?P<adv>(?:first|last|"
                     r"finally)\s+)?(?P<past>\w+)|how\s+(?:many\s+seconds|many\s+minutes|long)\s+(?:after|from|into)\s+"
                     r"(?:the\s+(?:start|beginning)(?:\s+of\s+(?:the|my|this)\s+recording)?|the\s+recording\s+(?:began|"
                     r"started))\s+did\s+(?P<i2>i|we)\s+)", re.IGNORECASE)
_PAST_BASE = {"left": "leave", "got": "get", "went": "go", "came": "come", "drove": "drive", "ran": "run",
              "stopped": "stop", "entered": "enter", "arrived": "arrive", "reached": "reach", "walked": "walk",
              "moved": "move", "returned": "return", "exited": "exit", "headed": "head", "stepped": "step",
              "rolled": "roll", "visited": "visit", "heard": "hear", "saw": "see", "met": "meet"}


def when_i(question: str) -> str:
    """"What time was it when I left X?" as "When did I leave X?" (the robot's own move), or ``question``."""
    m = _WHEN_I.match(question)
    if m is None:
        return question
    if m.group("i2"):
        return f"When did {m.group('i2')} " + question[m.end():]
    base = _PAST_BASE.get(m.group("past").lower())
    if base is None:
        return question
    return f"When did {m.group('i')} {m.group('adv') or ''}{base}" + question[m.end():]


# "Roughly how many seconds did A speak?", "So, who spoke last?": a hedge before the question word asks nothing
_HEDGE = re.compile(r"^\W*(?:roughly|about|approximately|around|exactly|precisely|more\s+or\s+less|so|and|but|"
                    r"ok(?:ay)?|well|now|then)\b\s*,?\s*(?=(?:how|who|whom|whose|what|when|where|which|did|was|were|"
                    r"is|are|do|does|has|had|tell|can|could|would|please|name|list)\b)", re.IGNORECASE)


# "Between A and B, whose total speaking time was greater?": a choice of two people, asked as "..., A or B?" (not a
# window between their turns: "between A's first turn and B's, who ...?" keeps its words)
_PERSON = r"""(?:the\s+(?:person|one|man|woman)\s+(?:who|that)\s+said\s+(?:"[^"]+"|'[^']+')|[A-Z][a-z]+)"""
_BETWEEN_TWO = re.compile(rf"^\W*between\s+(?P<a>{_PERSON})\s+and\s+(?P<b>{_PERSON})\s*,\s*(?P<rest>(?:who|whose|"
                          rf"which)\b[^?]*?)\s*\?\s*$", re.IGNORECASE)


def without_hedge(question: str) -> str:
    """The question from its question word on ("Roughly how many ..." -> "How many ..."; "Between A and B, who ...?"
    -> "Who ..., A or B?")."""
    two = _BETWEEN_TWO.match(question)
    if two is not None:
        rest = two.group("rest")
        return f"{rest[:1].upper()}{rest[1:]}, {two.group('a')} or {two.group('b')}?"
    rest = _HEDGE.sub("", question, count=1)
    return rest[:1].upper() + rest[1:] if rest != question else question


def direct_question(question: str) -> str:
    """A request unwrapped, a terse question written out: what the model, the checks and the answer's form read."""
    return into_recording(when_i(number_of(expand_terse(unwrap_request(without_hedge(question))))))
