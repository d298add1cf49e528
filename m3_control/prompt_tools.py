"""The tool-using prompt of the embedded default: M3-Agent-Control's search-then-answer rounds plus compositional
queries over who-said-what-when records, taught by a system prompt and few-shot turns and enforced by a GBNF grammar
(llama.cpp), so every reply parses.

Replies are one line in a compact form: ``find=...`` (a query frame), ``Search: ...`` or ``Answer: ...``. On this
CPU every generated token costs ~50 ms, and M3's ``Action: [Query]\nContent: `` is seven tokens the grammar
forces anyway; :func:`parse_tools_reply` reads the compact form into the same :class:`ParsedReply` as
M3's two-line form, which it still reads (models without a grammar, older transcripts).

The prompt's static part (system + few-shot turns) is the same for every question: the backend keeps it in its
KV cache, and a question costs only its own tokens. The few-shot scenes are unrelated to any bundled data.
"""

from __future__ import annotations

import json
import re

from .protocol import ParsedReply, parse_reply, reply_of
from .query.frame import FIND, gbnf_rules
from .query.frame import parse as parse_query

TOOL_NAMES = ("count_people", "people", "times_spoke", "said_by", "spoke_before", "spoke_after", "same_person",
              "different_people", "spoke_more", "spoke_less", "most_talkative", "least_talkative", "first_speaker",
              "last_speaker", "last_seen", "last_place", "first_place", "places_discussed", "place_at")
# argument shapes, enforced by the grammar: a window of times, one person, or two people
WINDOW_TOOLS = ("count_people", "people", "most_talkative", "least_talkative", "first_speaker", "last_speaker")
PERSON_TOOLS = ("times_spoke", "said_by", "last_seen", "last_place", "first_place", "places_discussed")
TIME_TOOLS = ("place_at",)
PAIR_TOOLS = ("spoke_before", "spoke_after", "same_person", "different_people", "spoke_more", "spoke_less")

SYSTEM = """You are the memory of a robot. You answer a question about what the robot saw and heard, using its \
memory. Every reply is one line: a query (find=...), or Search: ..., or Answer: ...

A query (find=...) asks the robot's records of people: who spoke or was seen, when, where, in which order, how \
often. Code runs it exactly, so use it for every question about people, counts, order, times or places. Write only the \
fields the question needs, in this order:
  find=   who | what | when | where | count_people | count_times | count_places | yes | same | more | less | \
how_long
  who="..."    the person asked about: the words they said (copied from the question), their name, or how \
they looked ("the person who looked sad")
  other="..."  a second person (for same, more, less), or the person rel= is relative to
  rel=         right_before | right_after | before | after   (relative to other's first turn)
               | right_before_last | right_after_last | before_last | after_last   (relative to other's last turn)
               | with   (in view at the same time as other)
               | same_place   (in a room where other was too, at any time)
  pick=        first | last | most | least | 2 | 3 ... | -2 ...   (the n-th person; -2: second to last; with who=, \
their n-th time) | second_most | third_most | second_least   (by how often they spoke)
  by=turn      pick counts the things said, not the people ("the third thing I heard": pick=3 by=turn)
  from= to=    a time window, m:ss ("in the first minute": from=0:00 to=1:00)
  at=          a moment, m:ss
  place="..."  the room or place the robot was in
  act=         spoke | seen | any   (spoke: people talking; seen: people in view)
  times        =0 | =2 | >3 | <2 ... | >other | <other   keeps the people who spoke that many times (=0: never \
spoke; >other: more often than other)
Search: looks up memories by meaning; write a short query after it. Use it for what was said about a topic, objects, \
actions, and what was written on signs, labels or screens.
Answer: picks the memory that answers the question: its number in brackets, e.g. Answer: [12]; the answer sentence is \
made from that memory. Memories of speech are transcripts: words may be spelled differently (X4 is "x four", B2 \
is "b two"). Pick the memory that matches the question best. Only if no memory is about the question at all, \
answer "I have no memory of that." Never invent facts."""

def _q(frame: str) -> str:
    """A few-shot query reply, in the grammar's field order (written through the parser, so they cannot differ)."""
    return parse_query(frame).compact()


FEW_SHOT: list[tuple[str, str]] = [
    ("Question: How many different people came into the kitchen?", _q('find=count_people place="kitchen"')),
    ("Question: How many times did the person who said 'the oven is still hot' speak?",
     _q('find=count_times who="the oven is still hot"')),
    ("Question: Did the woman who said 'grab two plates' talk before the man who said 'dinner is ready'?",
     _q('find=yes who="grab two plates" other="dinner is ready" rel=before')),
    ("Question: Is the person who said 'I left my keys here' the same one who later said 'found them'?",
     _q('find=same who="I left my keys here" other="found them"')),
    ("Question: Did the person who said 'where is my phone' talk more than the person who said 'lunch is ready'?",
     _q('find=more who="where is my phone" other="lunch is ready"')),
    ("Question: Who spoke less often, the person who said 'hello there' or the person who said 'shut the door'?",
     _q('find=less who="hello there" other="shut the door"')),
    ("Question: When did I last see the man who said 'see you at six'?",
     _q('find=when who="see you at six" pick=last')),
    ("Question: Where did I last see the woman who said 'the milk is gone'?",
     _q('find=where who="the milk is gone" pick=last')),
    ("Question: In which room did I first meet the person who said 'call me later'?",
     _q('find=where who="call me later" pick=first')),
    ("Question: Where was I at 4:10?", _q("find=where at=4:10")),
    ("Question: How many people had spoken by the three-minute mark?",
     _q("find=count_people to=3:00")),
    ("Question: How many different people talked between 2:00 and 2:30?",
     _q("find=count_people from=2:00 to=2:30")),
    ("Question: Who spoke least often during the first minute?", _q("find=who pick=least from=0:00 to=1:00")),
    ("Question: Who talked the most?", _q("find=who pick=most")),
    ("Question: Who was the first to speak?", _q("find=who pick=first")),
    ("Question: Who talked first after the two-minute mark?", _q("find=who pick=first from=2:00 act=spoke")),
    ("Question: Which people did I meet between 1:00 and 1:30?", _q("find=who from=1:00 to=1:30")),
    ("Question: What did Maria say?", _q('find=what who="Maria"')),
    ("Question: What did the third person I heard say?", _q("find=what pick=3")),
    ("Question: Who talked right after the man who said 'the taxi is here'?",
     _q('find=who other="the taxi is here" rel=right_after')),
    ("Question: How many people spoke exactly three times?", _q("find=count_people times=3")),
    ("Question: Which person talked exactly four times?", _q("find=who times=4")),
    ("Question: Who was in view together with the woman who said 'the bus is late'?",
     _q('find=who other="the bus is late" rel=with')),
    ("Question: Who was standing with the man who looked angry?",
     _q('find=who other="the person who looked angry" rel=with')),
    ("Question: Did anyone say 'close the gate'?", _q('find=yes who="close the gate"')),
    ("Question: How many times did someone talk while I was in the garden?",
     _q('find=count_times place="garden"')),
    ("Question: Who did I see but never hear?", _q("find=who act=seen times=0")),
    ("Question: Who was talking at 3:25?", _q("find=who at=3:25")),
    ("Question: Did the woman who said 'I need a pen' speak in the hall?",
     _q('find=yes who="I need a pen" place="hall"')),
    ("Question: Did someone say 'the stove is still on'?", _q('find=yes who="the stove is still on"')),
    ("Question: Did somebody tell me 'lock the back door'?", _q('find=yes who="lock the back door"')),
    ("Question: Did the man who said 'the bus is late' speak more than four times?",
     _q('find=yes who="the bus is late" times>4')),
    ("Question: Did the woman who said 'I need a pen' talk fewer than three times?",
     _q('find=yes who="I need a pen" times<3')),
    ("Question: Who talked the most in the garage?", _q('find=who pick=most place="garage"')),
    ("Question: Who spoke the fewest times?", _q("find=who pick=least")),
    ("Question: Who talked the second most in the workshop?",
     _q('find=who pick=second_most place="workshop" act=spoke')),
    ("Question: What was the fourth thing anyone said?", _q("find=what pick=4 by=turn")),
    ("Question: Who said the second to last thing I heard?", _q("find=who pick=-2 by=turn")),
    ("Question: Who was the second to last person to talk in the study?",
     _q('find=who pick=-2 place="study"')),
    ("Question: How many people talked more often than the man who said 'the car is ready'?",
     _q('find=count_people other="the car is ready" times>other')),
    ("Question: Did the woman who said 'nice hat' and the man who said 'thanks a lot' ever talk in the same room?",
     _q('find=yes who="nice hat" other="thanks a lot" rel=same_place')),
    ("Question: In which room did the woman who said 'the tap is dripping' talk the most?",
     _q('find=where who="the tap is dripping" pick=most')),
    ("Question: Who had talked the most before the man who said 'the dog is out' first spoke?",
     _q('find=who other="the dog is out" rel=before pick=most')),
    ("Question: Is the man who said 'open the box' the one who spoke first?",
     _q('find=same who="open the box" other="spoke first"')),
    ("Question: How many people did I see who never said a word?", _q("find=count_people act=seen times=0")),
    ("Question: How many times did people talk between 1:00 and 1:40?", _q("find=count_times from=1:00 to=1:40")),
    ("Question: At what time did I last hear the woman who said 'good night'?",
     _q('find=when who="good night" pick=last')),
    ("Question: When did Tom first talk?", _q('find=when who="Tom" pick=first')),
    ("Question: Who was talking just before the man who said 'here is the key'?",
     _q('find=who other="here is the key" rel=right_before')),
    ("Question: What was said just after the woman who said 'the tea is ready' first spoke?",
     _q('find=what other="the tea is ready" rel=right_after')),
    ("Question: What were the words of the second person who talked?", _q("find=what pick=2 act=spoke")),
    ("Question: Who talked right before the woman who said 'the soup is cold' spoke for the last time?",
     _q('find=who other="the soup is cold" rel=right_before_last')),
    ("Question: Did the man who said 'turn on the lamp' talk again after the woman who said 'good morning' last "
     "spoke?", _q('find=yes who="turn on the lamp" other="good morning" rel=after_last act=spoke')),
    ("Question: Who was the last to speak before 2:40?", _q("find=who pick=last to=2:40")),
    ("Question: Who spoke first while I was in the study?", _q('find=who pick=first place="study" act=spoke')),
    ("Question: What did I hear at 2:15?", _q("find=what at=2:15")),
    ("Question: Which room was I in at the start?", _q("find=where pick=first")),
    ("Question: In which room did I finish?", _q("find=where pick=last")),
    ("Question: How many rooms did I go to?", _q("find=count_places")),
    ("Question: How many different people talked in the attic?", _q('find=count_people place="attic"')),
    ("Question: How long did the man who said 'pass the salt' talk in total?",
     _q('find=how_long who="pass the salt"')),
    ("Question: How much time did I spend in the cellar?", _q('find=how_long place="cellar"')),
    ("Question: How long after the man who said 'the door is open' first spoke did the woman who said 'I am cold' "
     "first speak?", _q('find=gap who="I am cold" other="the door is open" rel=after act=spoke')),
    ("Question: How many seconds after 2:10 did someone first talk?", _q("find=gap from=2:10")),
    ("Question: Were more than two different people talking in the lounge?",
     _q('find=yes place="lounge" count>2')),
    ("Question: Where did the guest put the blue cup?",
     "Search: blue cup"),
    ("Memories (best first):\n[12] 00:20 <character_2> appears in the scene.\n"
     "[15] 00:26 <character_2> says: \"see you tomorrow\"",
     "Answer: I have no memory of that."),
    ("Question: What did someone say about the green umbrella?",
     "Search: green umbrella"),
    ("Memories (best first):\n[31] 00:41 <character_3> says: \"the green umbrella is by the door\"\n"
     "[29] 00:38 <character_3> appears in the scene.\n[7] 00:05 <character_1> says: \"close the window please\"",
     "Answer: [31]"),
    ("Question: What did the sign with the word LIFT say?",
     "Search: sign reading LIFT"),
    ("Memories (best first):\n[44] 01:02 Text reading \"LIFT 3\" is in view.\n"
     "[40] 00:58 <character_4> says: \"the lift is slow today\"\n[45] 01:02 Text reading \"EXIT\" is in view.",
     "Answer: [44]"),
    ("Question: What did the visitor say about the letter b and the number four?",
     "Search: b four"),
    ("Memories (best first):\n[58] 02:14 <character_5> says: \"Meet me in room B4 at noon.\"\n"
     "[55] 02:10 <character_2> says: \"The printer is out of paper.\"\n[57] 02:12 <character_5> appears in the scene.",
     "Answer: [58]"),
]


def question_turn(question: str) -> str:
    return f"Question: {' '.join(question.split())}"


def initial_messages(question: str) -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": SYSTEM}]
    for user, assistant in FEW_SHOT:
        msgs += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    msgs.append({"role": "user", "content": question_turn(question)})
    return msgs


def memories_turn(lines: list[str]) -> dict[str, str]:
    body = "\n".join(lines) if lines else "(no memory matches)"
    return {"role": "user", "content": f"Memories (best first):\n{body}"}


def tool_error_turn(error: str) -> dict[str, str]:
    return {"role": "user", "content": f"Tool error: {error}\nFix the query, or use Search: ..."}


def _alts(names: tuple[str, ...]) -> str:
    return " | ".join(json.dumps(n) for n in names)


_CALL = ('call ::= window-tool "(" window? ")" | person-tool "(" person ")" | pair-tool "(" person ", " person ")"'
         ' | time-tool "(" time ")"')
_COMMON = "\n" + _CALL + r"""
text ::= [^\n\[\]]+
window ::= time (", " time)?
time ::= "\"" [0-9]+ ":" [0-5] [0-9] "\"" | [0-9]+ ("." [0-9]+)?
person ::= "\"" [^"\n0-9] [^"\n]* "\""
"""


NO_MEMORY = "I have no memory of that."


def grammar(allow: tuple[str, ...], shown: list[int] | None = None, finds: tuple[str, ...] = FIND) -> str:
    """GBNF for one reply. ``allow``: the actions allowed this round (Search, Query, Tool, Answer). ``shown``: the
    ids of the memories shown so far; an answer must pick one of them (or say there is no memory), so it can cite
    nothing else. Without shown memories the only answer is the no-memory one."""
    alts = []
    if "Query" in allow:
        alts.append("query")
    if "Search" in allow:
        alts.append('"Search: " text')
    if "Tool" in allow:
        alts.append('"Tool: " call')
    if "Answer" in allow:
        picks = " | ".join(f'"[{i}]"' for i in dict.fromkeys(shown or []))
        alts.append(f'"Answer: " ({picks + " | " if picks else ""}{json.dumps(NO_MEMORY)})')
    if not alts:
        raise ValueError("grammar: no action allowed")
    return (f'root ::= {" | ".join(alts)}\n' + f"window-tool ::= {_alts(WINDOW_TOOLS)}\n"
            f"person-tool ::= {_alts(PERSON_TOOLS)}\npair-tool ::= {_alts(PAIR_TOOLS)}\n"
            f"time-tool ::= {_alts(TIME_TOOLS)}" + _COMMON + gbnf_rules(finds=finds))


_COMPACT = re.compile(r"\s*(Search|Answer|Query|Tool):[ \t]*(.*)", re.DOTALL | re.IGNORECASE)


def parse_tools_reply(text: str | None) -> ParsedReply:
    """A reply of this prompt: the compact form (``find=...``, ``Search: ...``, ``Answer: ...``, ``Tool: ...``), or
    M3-Agent-Control's ``Action: [...]`` / ``Content: ...`` (a model without a grammar may write either)."""
    raw = text or ""
    tail = raw.split("</think>")[-1].strip()
    if "Action:" in tail:
        return parse_reply(raw)
    if tail.startswith("find="):
        return reply_of("Query", tail.splitlines()[0], raw)
    m = _COMPACT.match(tail)
    if not m:
        return ParsedReply("invalid", "", raw, "neither find=..., Search: ... nor Answer: ...")
    return reply_of(m.group(1).capitalize(), m.group(2), raw)
