"""What someone said about a topic: "what did A say about the weather?", "did A say anything about lunch?", "what
did A tell B about the meeting?" (A and B named by words they said).

A frame selects A's voice turns (``find=what``); only the turns whose words share a content word with the topic
are about it ("blue" is in "set blue with e five now"). None: the answer says A said nothing about it, never A's
other words as if they were ("what did A say about the weather?" was answered with A's only sentence). The topic
is matched by words, not by meaning: a turn about the weather that never says a word of "the weather" is missed,
and the answer then says no more than that A's words never mention it. Turns, times and quotes in the answer are
checked against the executed result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from m3_memory.perception.wer import HOMOPHONES
from m3_memory.store.retrieval import character_name

from .execute import QueryExecutor, same_sentence
from .fidelity import quotes_of
from .frame import Query
from .phrase import REFUSAL, check, phrase
from .polarity import YES_NO_QUESTION
from .result import QueryResult
from .wording import NAME_IN_QUESTION, QUOTED
from .words import cap, times_word
from .words import join as _join

# a topic runs to the question's end or a comma; a dot after a one-letter word is an abbreviation's ("3 a.m.", "the
# U.S. election"), not the end
_TEXT, _END = r"(?:[^?.!,;]|(?<=\b\w)\.)", r"(?:[?!,;]|(?<!\b\w)\.|$)"
_ABOUT = re.compile(r"\b(?:say|said|saying|says|tell|told|telling|mention|mentioned|talk|talked|talking|speak|spoke|"
                    r"speaking|ask|asked|asking)\b[^?]*?\b(?:about|regarding|concerning|on\s+the\s+subject\s+of)\s+"
                    rf"(?P<topic>{_TEXT}+?)\s*{_END}", re.IGNORECASE)
# "what did A think of the food?", "how did A feel about the move?": an opinion on a topic, as said
_OPINION = re.compile(rf"\b(?:think|thinks|thought|feel|feels|felt)\s+(?:of|about|regarding)\s+(?P<topic>{_TEXT}+?)\s*"
                      rf"{_END}", re.IGNORECASE)
# "what did A promise B?", "did A offer anything?": a kind of saying, found by its word (a promise made without the
# word "promise" is not found: the answer says it does not remember one, and what A did say is one question away)
_ACTS = {"promise": "promising", "offer": "offering", "suggest": "suggesting", "recommend": "recommending",
         "propose": "proposing", "decide": "deciding", "plan": "planning", "agree": "agreeing to",
         "request": "requesting", "warn": "warning about", "complain": "complaining about",
         "apologize": "apologizing for"}
_ACT = re.compile(r"^\W*(?:what|did|has|had)\b[^?]*?\b(?P<act>" + "|".join(_ACTS) + r")(?:e?d|s)?\b", re.IGNORECASE)
# "what is A's favorite color?", "what was A's job?", "who is A's sister?", "where is A's office?": something about A
# no record of who spoke when holds; what A said about it is all the memory can tell (not A's words as if they were
# the answer, nor a person the question did not name); A's turns and words are not it
# (or "what is the middle name of A?": the thing, then whose)
_POSSESSED = re.compile(r"^\W*(?:what|who|where)(?:['\u2019]s|\s+(?:is|was|are|were))\s+(?:[^?]*?QUOTED\W*['\u2019]s\s+"
                        r"(?P<topic>[^?.!]+?)|the\s+(?P<topic2>[a-z'\u2019]+(?:\s+[a-z'\u2019]+){0,2}?)\s+of\s+[^?]*?"
                        r"QUOTED\W*)\s*[?.!]?\s*$", re.IGNORECASE)
# "is A's favourite colour blue?", "was B's dog a poodle?": whether a thing of theirs is something (yes or no), which
# only what they said could tell
_POSSESSED_IS = re.compile(r"^\W*(?:is|was|are|were)\s+[^?]*?QUOTED\W*['\u2019]s\s+(?P<thing>[a-z][a-z'\u2019-]*"
                           r"(?:\s+[a-z][a-z'\u2019-]*){0,2}?)\s+(?P<value>(?:(?:an?|the)\s+)?[a-z][a-z-]*)\s*[?.!]?\s*$",
                           re.IGNORECASE)
# their own name, which the memory may hold (_SELF), not a thing of theirs asked about ("their middle name")
_OWN_NAME = re.compile(r"(?:(?:first|last|full)\s+)?name", re.IGNORECASE)
_ASKED_AFTER = re.compile(r"\s+(?:called|named|like)$", re.IGNORECASE)


def _a_thing_of_theirs(text: str) -> bool:
    """Words after "A's" that name a thing of their life, not their turns, voice or place, nor their own name."""
    return not _TURN_WORDS.search(text) and not _OWN_NAME.fullmatch(text.strip())


def _thing_words(text: str) -> frozenset[str]:
    """The content words of a thing of theirs, possessives dropped ("their dog's name": dog, name)."""
    return content_words(re.sub(r"['\u2019]s\b", "", text))
NAME_TOPIC = "their name"
# "how old is A?", "where does A live?", "what does A like?": about A's life, which only what A said could tell
# nouns a record's question asks for ("what time", "which room", "what word"): no thing of someone's life
_RECORD_NOUN = (r"(?!(?:time|times|room|rooms|place|places|part|area|word|words|sentences?|things?|questions?|language|"
                r"colou?rs?|numbers?|letters?|turns?|name|phrases?|ones?|person|people|moment|minute|second|order|kind|"
                r"sort|day|hour|speakers?|voices?|faces?|minutes|seconds|silences?|gaps?|pauses?)\b)")
# the same, as the second of two words ("what phone number", "which user name" are things of someone's life)
_RECORD_HEAD = (r"(?!(?:time|times|room|rooms|place|places|part|area|words?|sentences?|turns?|phrases?|moment|minutes?|"
                r"seconds?|order|day|hour|speakers?|voices?|faces?|silences?|gaps?|pauses?)\b)")
_SELF = (
    (re.compile(r"^\W*how\s+old\s+(?:is|was)\b[^?]*?QUOTED", re.IGNORECASE), "their age", "age old years"),
    (re.compile(r"^\W*(?:where|what)\s+(?:does|do|did)\b[^?]*?QUOTED\W*\s+(?P<verb>live|work|come\s+from|study|"
                r"grow\s+up|do\s+for\s+(?:a\s+)?(?:living|work|fun)|do\s+(?:at|on|over|during)\s+(?:the\s+)?weekends?|"
                r"do\s+in\s+(?:their|his|her)\s+(?:free|spare)\s+time|do\s+after\s+work)\b", re.IGNORECASE),
     "{wh} they {verb}", ""),
    (re.compile(r"^\W*what\s+(?:does|do|did)\b[^?]*?QUOTED\W*\s+(?P<verb>like|love|hate|want|need|prefer|enjoy)\b",
                re.IGNORECASE), "{wh} they {verb}", ""),
    # "who does A work for?", "who is B married to?", "which company does C work for?": people and places of A's life,
    # not anyone the records hold (held-out 836 had answered "A spoke")
    (re.compile(r"^\W*(?P<wh2>who|whom|which\s+(?:company|firm|team|employer|school|university)|what\s+(?:company|"
                r"firm|team|employer|school|university))\s+(?:does|do|did|is|was|are|were)\b[^?]*?QUOTED\W*\s+"
                r"(?P<verb>work\s+(?:for|with|at)|report\s+to|live\s+with|date|love|study\s+(?:at|with)|play\s+for|"
                r"vote\s+for|root\s+for|support|look\s+up\s+to)\b", re.IGNORECASE), "{wh} they {verb}", ""),
    (re.compile(r"^\W*(?P<wh2>who|whom)\s+(?:is|was|are|were)\b[^?]*?QUOTED\W*\s+(?P<verb>married\s+to|engaged\s+to|"
                r"related\s+to|dating|in\s+love\s+with)\b", re.IGNORECASE), "{wh} they are {verb}", ""),
    # "what did A eat?", "what does A drink?": what someone did is in no record, only what they said about it
    (re.compile(r"^\W*what\s+(?:does|do|did)\b[^?]*?QUOTED\W*\s+(?P<verb>eat|drink|cook|buy|read|watch|play|wear|"
                r"have\s+for\s+(?:breakfast|lunch|dinner))\b", re.IGNORECASE), "{wh} they {verb}", ""),
    # "what is A's name?", "what's the name of A?", "what is A called?": a name known for them, else what they said
    (re.compile(r"^\W*(?:what(?:'s|\s+is|\s+was)\s+the\s+name\s+of\s+(?!(?:the|that|this)\s+(?:room|place|area|spot|part)\b)[^?]*?QUOTED|what(?:'s|\s+is|\s+was)\b[^?]*?"
                r"QUOTED\W*'s\s+(?:first\s+|last\s+|full\s+)?name\b|(?:what|how)\s+(?:is|was)\b[^?]*?QUOTED\W*\s+"
                r"called\b|(?:do|did)\s+(?:you|i)\s+know\b[^?]*?QUOTED\W*'s\s+name\b)", re.IGNORECASE),
     NAME_TOPIC, "name called named"),
    (re.compile(r"^\W*where\s+(?:is|was|are|were)\b[^?]*?QUOTED\W*\s+from\b", re.IGNORECASE), "where they are from",
     "come born grew home live"),
    # "where was A born?", "when was B born?": their birth, in no record but what they said
    (re.compile(r"^\W*(?:where|when)\s+(?:is|was|are|were)\b[^?]*?QUOTED\W*\s+(?P<verb>born|raised)\b",
                re.IGNORECASE), "{wh} they were {verb}", "born birth birthday raised grew"),
    # "is A married?", "does A have children?": about A's life, yes or no, which only what A said could tell
    (re.compile(r"^\W*(?:is|was|are|were)\b[^?]*?QUOTED\W*\s+(?P<verb>married|single|divorced|engaged|retired|"
                r"pregnant|a\s+(?:student|doctor|nurse|teacher|parent|mother|father|vegetarian))\b", re.IGNORECASE),
     "whether they are {verb}", ""),
    # "is A left-handed?", "was B a good cook?": any trait of A's in one or two words ending the question, but what
    # the records hold (speaking, seen, where, when, rank, company, looks: "was A happy?" is a face's expression)
    (re.compile(r"^\W*(?:is|was|are|were)\b[^?]*?QUOTED\W*\s+(?P<verb>(?:an?\s+|(?!an?\s))(?!(?:speaking|talking|saying|"
                r"heard|seen|visible|audible|there|here|present|around|in|at|on|inside|outside|near|nearby|with|still|"
                r"also|ever|never|not|silent|quiet|quieter|loud|louder|talkative|chatty|first|last|second|third|"
                r"fourth|fifth|final|next|same|different|distinct|identical|two|both|the|one|only|among|before|"
                r"after|alone|together|back|gone|away|home|left|person|speaker|voice|face|man|woman|people|happy|sad|angry|surprised|afraid|scared|"
                r"fearful|disgusted|neutral|smiling|upset|calm|really|someone|somebody|anyone|me|you|us|them|"
                r"him|her|it)(?![-\w]))[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s*[?.!]?\s*$", re.IGNORECASE),
     "whether they are {verb}", ""),
    (re.compile(r"^\W*(?:does|do|did)\b[^?]*?QUOTED\W*\s+have\s+(?P<verb>(?:any\s+|a\s+)?(?:children|kids|pets?|dogs?|"
                r"cats?|car|job|family|siblings|brothers?|sisters?|partner|husband|wife))\b", re.IGNORECASE),
     "whether they have {verb}", ""),
    # "does A like cats?", "did B own a car?": yes or no about A's life, by a verb no record holds (not "did A speak")
    (re.compile(r"^\W*(?:does|do|did)\b[^?]*?QUOTED\W*\s+(?P<verb>(?:like|love|hate|enjoy|prefer|own|drive|smoke|"
                r"drink|eat|cook|play|collect|support|believe\s+in|ride)\s+[^?.!]+?)\s*[?.!]?\s*$", re.IGNORECASE),
     "whether they {verb}", ""),
    # "what languages does A speak?", "how many languages can B speak?": their life, not what was heard
    (re.compile(r"^\W*(?:(?:what|which)\s+languages?|how\s+many\s+languages)\s+(?:does|do|can|could)\b[^?]*?QUOTED\W*"
                r"\s+speak\b", re.IGNORECASE), "the languages they speak", "language languages"),
    # "what job does A have?", "what does A do for a living?" (the second: _SELF's "do for a living" above)
    (re.compile(r"^\W*what\s+(?:job|work|profession|occupation)\s+(?:does|do|did)\b[^?]*?QUOTED", re.IGNORECASE),
     "their job", "job work profession occupation"),
    # "what colour does A like?", "which number does B prefer?": a liking no record holds (not "what colour did A
    # mention?", which their words answer: held-out 708 had quoted A's command with "blue" in it)
    (re.compile(r"^\W*(?:what|which)\s+(?P<noun>colou?rs?|numbers?|letters?)\s+(?:does|do|did)\b[^?]*?QUOTED\W*\s+"
                r"(?P<verb>like|love|hate|prefer|want|enjoy|need)\b", re.IGNORECASE), "{wh} {noun} they {verb}", ""),
    # "what car does A drive?", "which team does A support?": a thing of A's life, by any noun and verb that are no
    # record's (not "what room did A speak in?", "what time did A arrive?", "which word did A say first?")
    # (a noun in two words too: "which musical instrument does A play?", "what email address does B use?")
    (re.compile(rf"^\W*(?:what|which)\s+(?P<noun>{_RECORD_NOUN}[a-z]+(?:\s+{_RECORD_HEAD}[a-z]+)?)\s+(?:does|do|did)\b[^?]*?"
                r"QUOTED\W*\s+(?P<verb>(?!(?:say|said|tell|speak|talk|ask|mention|hear|see|repeat|mean|answer|reply|"
                r"enter|leave|go|visit|come(?!\s+from)|arrive|sit|stand|look|start|begin|end|finish|stop|pick|choose|name|"
                r"call|spend|stay|appear|sound|seem|first|last|in|at|on|with|to|while|when|after|before)\b)[a-z]+"
                r"(?:\s+(?:from|for|with|to|at|on|in|about))?)\b",
                re.IGNORECASE), "{wh} {noun} they {verb}", ""),
)
_TURN_WORDS = re.compile(r"\b(?:turns?|words?|sentences?|remarks?|times?|first|last|final|second|third|fourth|fifth|"
                         r"\d+(?:st|nd|rd|th)|voice|face|room|place)\b", re.IGNORECASE)
_STOP = frozenset(re.split(r"\s+", """a an the this that these those my your our their his her its of to in on at for
with by from and or any anything something some thing things what which who whom it them him me us you i we they there
here then now tomorrow today yesterday later soon again""".strip()))


# words after "about" that start a place, a time or company, not a topic
_NOT_A_TOPIC = re.compile(r"^(?:in|at|on|inside|before|after|when|while|during|between|to|with|from|since|until|till|"
                          r"by|first|last|then|there|here|earlier|later|yesterday|today|tonight|now|once|it|that|this|"
                          r"them|him|her|\d{1,2}:[0-5]\d|\d{1,2}\s*(?:am|pm|a\.m|p\.m|o'clock))\b", re.IGNORECASE)
# (a clock after "about" is a moment given loosely, not a topic: "who spoke at about 0:33?")


@dataclass(frozen=True)
class AboutAsk:
    topic: str                 # the topic in the question's words ("the weather")
    words: frozenset[str]      # its content words, stemmed
    act: str = ""              # a kind of saying instead ("promising": "what did A promise B?")
    speaker: str | None = None  # the person by a name ("what colour did Ann mention?"), where no quote names them


def _stem(word: str) -> str:
    """A rough stem, so "machines" meets "machine" and "talked" meets "talk"."""
    w = word.lower()
    if len(w) <= 4:
        return w
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP)


_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


# words a transcriber writes for another that sounds the same ("Been read by K7 now" for "bin red by k seven now"):
# the speech-recognition homophones of m3_memory.perception.wer, less the everyday words ("to", "for", "you", "see",
# ...) that would make every sentence say a number or a letter
_SOUNDS_LIKE = {k: v for k, v in HOMOPHONES.items()
                if k not in ("to", "too", "for", "are", "you", "see", "why", "been", "eye")}


def spoken_words(text: str, every: bool = False) -> frozenset[str]:
    """The words of a transcript as they were said: "K7" is "k" and "seven", "X4" is "x" and "four" (a transcriber
    writes spoken letters and numbers either way), "read" may be "red" (:data:`_SOUNDS_LIKE`); single letters are
    kept, and with ``every`` the small words too ("the word 'again'")."""
    out = set()
    for w in re.findall(r"[a-z]+|\d+", text.lower()):
        if w.isdigit():
            out.add(_DIGITS[int(w)] if int(w) < len(_DIGITS) else w)
        elif every or w not in _STOP or len(w) == 1:
            out.add(_stem(w))
        if w in _SOUNDS_LIKE:
            out.add(_SOUNDS_LIKE[w])
    return frozenset(out)


def _said_list(turns: list, res: QueryResult, words: frozenset[str], sep: str = ", ") -> str:
    """Each different sentence once, with the times it was said: '"Bin red by K7 now" (00:02, 00:20)'."""
    groups: dict[str, list] = {}
    for e in turns:
        groups.setdefault(e.text.strip().rstrip(".!?"), []).append(e)
    return sep.join(f"\"{t}\" ({', '.join(res.say(e.start) for e in g)}{heard_as(t, words)})"
                    for t, g in groups.items())


def _with(topic: str) -> str:
    """"with the letter x", "with a number", "about the weather", "about the colour green"."""
    if re.search(r"\bcolou?rs?\b", topic, re.IGNORECASE):
        return "about"
    return "with" if _CLASS.match(topic) or _NUMBERS.match(topic) or _KIND_VALUE.match(topic) else "about"


def heard_as(text: str, words: frozenset[str]) -> str:
    """", heard as read (it sounds like red)" when a transcript has the words asked about only through a word that
    sounds like them; else ""."""
    said = [w for w in re.findall(r"[a-z]+", text.lower()) if _SOUNDS_LIKE.get(w) in words]
    if not said or {_stem(w) for w in re.findall(r"[a-z]+", text.lower())} & words:
        return ""
    return f"; heard as {said[0]}, which sounds like {_SOUNDS_LIKE[said[0]]}"


# "the number seven", "the letter x", "the colour blue", "the word 'soon'": the value is the topic, not the kind
_KIND_VALUE = re.compile(r"\b(?:the\s+)?(?:number|digit|numeral|letter|colou?r|word)\s+(?P<value>[a-z0-9]+)\b",
                         re.IGNORECASE)


_CLASSES = {
    "colour": frozenset(("red", "green", "blue", "white", "black", "yellow", "orange", "purple", "pink", "brown",
                         "grey", "gray")),
    "number": frozenset(_DIGITS),
    "letter": frozenset("bcdefghjklmnopqrstuvwxyz"),    # (not "a" and "i": words as often as letters)
}
_CLASS = re.compile(r"^(?:a|an|any|some)\s+(?:(?P<colour>colou?r)|(?P<number>number|digit|numeral)|"
                    r"(?P<letter>letter))s?$", re.IGNORECASE)


def _in_order(text: str) -> list[str]:
    """A transcript's spoken words in order (as :func:`spoken_words`, without stems)."""
    return [(_DIGITS[int(w)] if int(w) < len(_DIGITS) else w) if w.isdigit() else _SOUNDS_LIKE.get(w, w)
            for w in re.findall(r"[a-z]+|\d+", text.lower())]


# "a number larger than five", "an even number", "any digit under 3": the numbers that fit
_CMP = r"(?:larger|bigger|greater|higher|more|over|above|smaller|lower|less|under|below)"
_NUMBERS = re.compile(rf"^(?:a|an|any|some)\s+(?:(?P<parity>even|odd)\s+)?(?:number|digit|numeral)s?(?:\s+(?:that\s+"
                      rf"(?:is|was|were|are)\s+)?(?P<cmp>{_CMP})\s+(?:than\s+)?(?P<n>[a-z0-9]+))?$", re.IGNORECASE)


def _numbers(m: re.Match) -> frozenset[str]:
    n = m.group("n")
    bound = None if n is None else int(n) if n.isdigit() else _DIGITS.index(n.lower()) if n.lower() in _DIGITS \
        else None
    if n is not None and bound is None:
        return frozenset()
    up = (m.group("cmp") or "").lower() in ("larger", "bigger", "greater", "higher", "more", "over", "above")
    parity = (m.group("parity") or "").lower()
    return frozenset(w for v, w in enumerate(_DIGITS)
                     if (bound is None or (v > bound if up else v < bound))
                     and (not parity or v % 2 == (parity == "odd")))


def topic_words(topic: str) -> frozenset[str]:
    """A topic's words to look for in what was said: the values of "the number seven" / "the letter x" (a letter
    alone is a word here), every colour / number / letter for "a colour" / "a number" / "a letter" (the numbers
    that fit "a number larger than five", "an even number"), else its content words."""
    if (num := _NUMBERS.match(topic.strip())) is not None:
        return _numbers(num)
    cls = _CLASS.match(topic.strip())
    if cls is not None:
        return _CLASSES[next(k for k, v in cls.groupdict().items() if v)]
    values = [m.group("value") for m in _KIND_VALUE.finditer(topic)]
    rest = _KIND_VALUE.sub(" ", topic)
    return spoken_words(" ".join(values)) | content_words(rest) if values else content_words(topic)


# "did anyone say something about the number seven?", "who mentioned the letter x?": everyone's words
_SAYING = r"(?:ever\s+)?(?:say|said|mention|mentioned|talk|talked|speak|spoke|ask|asked|tell|told)\b"
# "how many sentences had the word 'now' in them?", "which turns contained the letter x?": turns, not people
_TURNS_WITH = r"(?:how\s+many|which|what)\s+(?:sentences|turns|lines|remarks|utterances|things\s+(?:said|i\s+" \
    r"heard))\s+(?:had|have|has|contained|contain|contains|included|include|includes|used|use|with|mentioned|" \
    r"containing)\b(?!\s+(?:been|being|taken|made|there|happened)\b)"   # ("turns had been taken by 0:50": a count)
_NAMED_SPEAKER = re.compile(r"^\W*(?:did|has|had|does)\s+(?!(?:I|The)\b)((?-i:[A-Z][a-z]+))\s+(?:ever\s+)?(?:say|said|"
                            r"mention|mentioned|talk|speak|use|utter)\b", re.IGNORECASE)
_TURNS_TOPIC = re.compile(rf"{_TURNS_WITH}\s+(?P<topic>{_TEXT}+?)(?:\s+in\s+(?:them|it))?\s*{_END}",
                          re.IGNORECASE)
_ANYONE = re.compile(rf"^\W*(?:(?:did|has|had)\s+(?:anyone|anybody|someone|somebody|any\s+one|people)\s+{_SAYING}|"
                     rf"(?:who|(?:which|what)\s+(?:person|one|people|speakers?|voices?))(?:\s+else)?\s+{_SAYING}|"
                     rf"who\s+was\s+the\s+(?:first|last)\s+(?:person\s+|one\s+)?to\s+{_SAYING}|"
                     # "how many times was the word 'now' said?", "was the word 'soon' ever heard?" (passive)
                     r"^\W*(?:how\s+many\s+times\s+|how\s+often\s+)?(?:was|were|has|had)\s+(?:the\s+)?(?:word|words|"
                     r"phrase|name)\s+QUOTED\s+(?:ever\s+)?(?:been\s+)?(?:said|heard|used|spoken|mentioned|uttered)\b|"
                     rf"how\s+many\s+(?:people|times)\s+(?:did\s+(?:anyone|anybody|someone|somebody|people)\s+)?"
                     rf"{_SAYING}|{_TURNS_WITH})", re.IGNORECASE)
_WHICH_KIND = re.compile(r"^\W*(?:what|which)\s+(?:(?P<number>numbers?|digits?)|(?P<letter>letters?)|"
                         r"(?P<colour>colou?rs?))\s+(?:did|does|has|had)\s+(?:[^?]*?QUOTED\W*|(?P<name>(?-i:[A-Z][a-z]+)))"
                         r"\s+(?:say|said|mention|use|speak)", re.IGNORECASE)
_A_WORD = "the word "
_WORD_QUOTE = re.compile(r"\bthe\s+(?:word|words|phrase|name)\s+QUOTED", re.IGNORECASE)
_MENTION = re.compile(r"\b(?:mention|mentions|mentioned|mentioning|say|said|says|saying)\s+(?:(?:something|anything)\s+"
                      r"(?:with|containing|including|having|that\s+(?:contained|had|included|has|contains))\s+)?"
                      r"(?P<topic>(?:the\s+)?(?:number|digit|numeral|letter|colou?r|word)\s+"
                      r"[a-z0-9]+|(?:a|an|any|some)\s+(?:(?:even|odd)\s+)?(?:colou?r|number|digit|numeral|letter)s?"
                      rf"(?:\s+(?:that\s+(?:is|was|were|are)\s+)?{_CMP}\s+(?:than\s+)?[a-z0-9]+)?)\b|"
                      rf"\bmention(?:s|ed|ing)?\s+(?P<any>{_TEXT}+?)\s*{_END}", re.IGNORECASE)


_NAME = NAME_IN_QUESTION


def _life_of(plain: str) -> AboutAsk | None:
    """A thing of the life of the person ``QUOTED`` stands for (:data:`_SELF`), or None."""
    for pattern, topic, words in _SELF:
        if (own := pattern.search(plain)) is not None:
            verb = " ".join((own.groupdict().get("verb") or "").lower().split())
            noun = (own.groupdict().get("noun") or "").lower()
            wh = (own.groupdict().get("wh2") or re.sub(r"\W", "", plain.split()[0])).lower()
            return AboutAsk(topic.format(verb=verb, wh=wh, noun=noun), content_words(words or f"{noun} {verb}"))
    return None


def asks_about(question: str) -> AboutAsk | None:
    """The topic of "what did A say about ...?" when the question names the speaker by their words (or asks about
    anyone's words: "did anyone mention the number seven?"), else None."""
    plain = QUOTED.sub(" QUOTED ", question)
    if len(quotes_of(question)) >= 2 and re.search(r"\b(?:heard|spoke|speak|talk(?:ed)?)\b[^?]*\b(?:before|after)\b",
                                                   plain, re.IGNORECASE):
        return None     # ("was A heard in the office before B was?": the order of two people, not words)
    which = _WHICH_KIND.match(plain)
    if which is not None and (len(quotes_of(question)) == 1 or which.group("name")):
        # "what number did A say?": the numbers (letters, colours) in A's words
        kind = next(k for k in ("number", "letter", "colour") if which.group(k))
        return AboutAsk(f"a {kind}", _CLASSES[kind], speaker=which.group("name"))
    word = _WORD_QUOTE.search(plain)
    if word is not None and len(quotes_of(question)) == 1 and _ANYONE.search(plain):
        # "who said the word 'again'?", "did anyone say the word 'soon'?": a word inside anyone's words
        quote = quotes_of(question)[0]
        return AboutAsk(f'{_A_WORD}"{quote}"', spoken_words(quote, every=True))
    if not quotes_of(question):
        # "what does Ann drink?", "which city does Bo come from?": a thing of a named person's life
        name = _NAME.search(plain)
        if name is not None and not (_ABOUT.search(plain) or _OPINION.search(plain)) and \
                (life := _life_of(plain[:name.start()] + "QUOTED" + plain[name.end():])) is not None:
            return replace(life, speaker=name.group(0))
        anyone = _ANYONE.search(plain)
        named = _NAMED_SPEAKER.match(plain)
        if anyone is None and named is not None and (kind := _MENTION.search(plain)) and kind.group("topic"):
            # "did Ann say anything containing the letter x?": a named speaker's words
            words = topic_words(kind.group("topic"))
            return AboutAsk(kind.group("topic").strip(), words, speaker=named.group(1)) if words else None
        if anyone is None:
            return None
        m = _ABOUT.search(plain) or _MENTION.search(plain) or _TURNS_TOPIC.search(plain)
        if m is not None and re.search(r"\b(?:who|that|after|before|when|while|than|whom)\b",
                                       plain[anyone.end():m.start()], re.IGNORECASE):
            return None      # "who spoke after the person who mentioned X?": someone else's words
        topic = "" if m is None else (m.groupdict().get("topic") or m.groupdict().get("any") or "").strip()
        if not topic or _NOT_A_TOPIC.match(topic):
            return None
        words = topic_words(topic)
        return AboutAsk(topic, words) if words else None
    m = _ABOUT.search(plain) or _OPINION.search(plain)
    own = _POSSESSED.match(plain) if m is None else None
    asked = "" if own is None else (own.group("topic") or own.group("topic2")).strip()
    if asked and _a_thing_of_theirs(asked):
        # "what is A's dog called?", "what is A's car like?": the thing asked about, without the verb after it
        thing = _ASKED_AFTER.sub("", asked)
        topic = "their " + thing
        words = _thing_words(thing)
        return AboutAsk(topic, words) if words else None
    if m is None and (own := _POSSESSED_IS.match(plain)) is not None and _a_thing_of_theirs(own.group("thing")):
        thing, value = (" ".join(own.group(g).split()) for g in ("thing", "value"))
        return AboutAsk(f"whether their {thing} is {value}", _thing_words(f"{thing} {value}"))
    if m is None and (life := _life_of(plain)) is not None:
        return life
    if m is None and (act := _ACT.search(plain)) is not None:
        word = act.group("act").lower()
        return AboutAsk(word, content_words(word), _ACTS[word])
    if m is None and (kind := _MENTION.search(plain)) is not None and kind.group("topic"):
        m = kind        # "did A mention the number seven?" (a plain "did A mention X?": the frame's own)
    topic = "" if m is None else (m.groupdict().get("topic") or "").strip()
    if not topic or "QUOTED" in topic:
        return None
    if _NOT_A_TOPIC.match(topic):   # "what did A talk about in the kitchen?": what A talked about, there
        return None
    words = topic_words(topic)
    return AboutAsk(topic, words) if words else None


def prepare(q: Query) -> Query:
    """The speaker's voice turns (the model's window and place kept)."""
    return replace(q, find="what", other=None, rel=None, until=None, pick=None, by=None, times=None, count=None,
                   act="spoke", top=None, measure=None, only=None)


def answer(executor: QueryExecutor, q: Query, ask: AboutAsk, question: str,
           before_time: float | None) -> tuple[str, QueryResult]:
    """(the answer, the speaker's turns that were read: provenance)."""
    quoted = quotes_of(question) or ([ask.speaker] if ask.speaker else [])
    if not quoted or ask.topic.startswith(_A_WORD):
        return _anyone_about(executor, q, ask, question, before_time)
    res = executor.run(replace(prepare(q), who=quoted[0]), before_time)
    if res.status != "ok" or "who" not in res.who:
        return phrase(res), res
    cid = res.who["who"].character_id
    d = res.describe[cid]  # type: ignore[index]
    name = character_name(executor.store, cid, before_time) if ask.topic == NAME_TOPIC and cid is not None else None
    if name and name != d:   # a name the memory holds for them (told, or corrected by someone)
        return f"{cap(d)} is called {name}.", res
    mine = sorted((e for e in res.events if e.character_id == cid and e.kind == "voice"),
                  key=lambda e: (e.start, e.end, e.id))
    about = [e for e in mine if spoken_words(e.text) & ask.words]
    # "did A mention X?" is yes or no; "is A married?" is not answered by what A said or did not say
    fact = ask.topic.startswith("whether ")
    yes_no = bool(YES_NO_QUESTION.match(question)) and not fact
    res.steps.append({"step": f"about {ask.topic!r}", "words": sorted(ask.words), "turns": len(mine),
                      "about": len(about)})
    if not about:
        heard = "" if mine else f" (I did not hear {d} at all)"
        text = f"I don't remember {d} {ask.act} anything{heard}." if ask.act else \
            f"I don't remember {d} saying anything {_with(ask.topic)} {ask.topic}{heard}."
        return ("No, " + text if yes_no else "I can't tell: " + text if fact else text), res
    said = _said_list(about, res, ask.words, "; ")
    text = f"{cap(d)} said {said}."
    if fact:    # "is A's favourite colour blue?": their words near it are no yes or no
        text = f"I can't tell {ask.topic} from my memory; {d} said {said}."
    if ask.topic.startswith(("a number", "an even number", "an odd number", "a letter", "a colour")):   # which ones
        found = list(dict.fromkeys(w for e in about for w in _in_order(e.text) if w in ask.words))
        text = f"{cap(d)} said {_join(found)}: {said}."
    if yes_no:
        text = "Yes, " + text[0].lower() + text[1:]
    res.events = about + [e for e in res.events if e not in about]
    return (REFUSAL if check(text, res) else text), res


def _anyone_about(executor: QueryExecutor, q: Query, ask: AboutAsk, question: str,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """"Did anyone mention the number seven?", "who said something about the letter x?": everyone's turns."""
    res = executor.run(replace(prepare(q), who=None), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    word = ask.topic.startswith(_A_WORD)     # the word asked about: all of its words in one turn
    about = [e for e in turns if (ask.words <= spoken_words(e.text, every=True) if word else
                                  spoken_words(e.text) & ask.words)]
    res.steps.append({"step": f"about {ask.topic!r}", "words": sorted(ask.words), "turns": len(turns),
                      "about": len(about)})
    where = f" in the {q.place}" if q.place else ""
    yes_no = bool(YES_NO_QUESTION.match(question))
    if not about:
        what = ask.topic if word else f"anything about {ask.topic}"
        return f"{'No, n' if yes_no else 'N'}obody said {what}{where} that I heard.", res
    people = list(dict.fromkeys(e.character_id for e in about))
    res.events = about + [e for e in res.events if e not in about]
    pick = _FIRST_TO.search(QUOTED.sub(" QUOTED ", question))
    if pick is not None:      # "who said the word 'blue' first?": the first (last) turn that said it
        side = (pick.group(1) or pick.group(2)).lower()
        e = about[0] if side == "first" else about[-1]
        res.events = [e] + [x for x in res.events if x is not e]
        res.value = len(about)
        what = ask.topic.replace('"', "") if word else f"something about {ask.topic}"   # (no quote to check)
        text = cap(f"{res.describe[e.character_id]} was the {side} to say {what}{where}: at {res.say(e.start)} "
                   f"(\"{e.text.strip().rstrip('.!?')}\"{heard_as(e.text, ask.words)}); said "
                   f"{times_word(len(about))} in all, by {_join([res.describe[c] for c in people])}.")
        return (REFUSAL if check(text, res) else text), res
    said = "; ".join(f"{res.describe[c]}: " + _said_list([e for e in about if e.character_id == c], res, ask.words)
                     for c in people)
    if re.match(r"^\W*how\s+many\s+(?:times|sentences|turns|lines|remarks|utterances|things)", question,
                re.IGNORECASE):
        res.value = len(about)
        text = f"{cap(times_word(len(about)))}{where}: {said}."
    elif re.match(r"^\W*how\s+many\b", question, re.IGNORECASE):
        res.value = len(people)
        text = f"{len(people)}{where}: {said}."
    else:
        text = f"{'Yes, ' if yes_no else ''}{said}."
        text = text if yes_no else cap(text)
    return (REFUSAL if check(text, res) else text), res


# "who said the word 'blue' first?", "who was the last to mention the number seven?": one turn of those about it
_FIRST_TO = re.compile(r"^\W*(?:who|which\s+(?:person|speaker|one))\b(?:[^?]*?\b(?:QUOTED|about|number|letter|colou?r|"
                       r"word\s+\S+)\W*\s+(first|last)\b|\s+was\s+the\s+(first|last)\s+(?:person\s+|one\s+)?to\b)",
                       re.IGNORECASE)
# "did A say the same thing every time?", "did A always say the same thing?", "did A ever say something different?"
_SAME_THING = re.compile(r"\b(?:(?:say|said|repeat|repeated)\s+the\s+same\s+(?:thing|words?|sentence|phrase)|"
                         r"always\s+(?:say|said)\s+the\s+same|(?:say|said)\s+(?:anything|something)\s+(?:different|"
                         r"else)|(?:say|said)\s+different\s+things)\b", re.IGNORECASE)


def asks_same_words(question: str) -> bool:
    """Whether a yes / no question asks if one quoted person always said the same thing."""
    return len(quotes_of(question)) == 1 and bool(YES_NO_QUESTION.match(question)) and \
        bool(_SAME_THING.search(QUOTED.sub(" ", question)))


def answer_same_words(executor: QueryExecutor, q: Query, question: str,
                      before_time: float | None) -> tuple[str, QueryResult]:
    """(yes or no with each different thing the person said and how often, the turns read: provenance)."""
    res = executor.run(replace(prepare(q), who=quotes_of(question)[0]), before_time)
    if res.status != "ok" or "who" not in res.who:
        return phrase(res), res
    cid = res.who["who"].character_id
    d = res.describe[cid]  # type: ignore[index]
    mine = sorted((e for e in res.events if e.character_id == cid and e.kind == "voice" and e.text.strip()),
                  key=lambda e: e.start)
    groups: list[list] = []
    for e in mine:
        g = next((g for g in groups if same_sentence(g[0].text, e.text)), None)
        g.append(e) if g is not None else groups.append([e])
    res.steps.append({"step": "the same words", "turns": len(mine), "different": len(groups)})
    res.events = mine + [e for e in res.events if e not in mine]
    said = [f"\"{g[0].text.strip().rstrip('.!?')}\" ({times_word(len(g))}: {_join([res.say(e.start) for e in g])})"
            for g in groups]
    asks_different = bool(re.search(r"\b(?:different|else)\b", question, re.IGNORECASE))
    if not mine:
        text = f"I don't remember {d} saying anything."
    elif len(mine) == 1:
        text = f"{cap(d)} spoke only once: {said[0]}."
    elif len(groups) == 1:
        text = f"{'No' if asks_different else 'Yes'}: {d} said the same thing every time, {said[0]}."
    else:
        text = f"{'Yes' if asks_different else 'No'}: {d} said {len(groups)} different things: {_join(said)}."
    return (REFUSAL if check(text, res) else text), res
