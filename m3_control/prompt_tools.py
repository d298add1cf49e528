"""The tool-using prompt of the embedded default: M3-Agent-Control's ``Action: [..]`` / ``Content: ..`` turns,
plus ``[Tool]`` calls over who-said-what-when facts, taught by a system prompt and few-shot turns and enforced
by a GBNF grammar (llama.cpp), so every reply parses.

The prompt's static part (system + few-shot turns) is the same for every question: the backend keeps it in its
KV cache, and a question costs only its own tokens. The few-shot scenes are unrelated to any bundled data.
"""

from __future__ import annotations

import json

TOOL_NAMES = ("count_people", "people", "times_spoke", "said_by", "spoke_before", "spoke_after", "same_person",
              "different_people", "spoke_more", "spoke_less", "most_talkative", "least_talkative", "first_speaker",
              "last_speaker", "last_seen", "last_place", "first_place", "places_discussed", "place_at")
# argument shapes, enforced by the grammar: a window of times, one person, or two people
WINDOW_TOOLS = ("count_people", "people", "most_talkative", "least_talkative", "first_speaker", "last_speaker")
PERSON_TOOLS = ("times_spoke", "said_by", "last_seen", "last_place", "first_place", "places_discussed")
TIME_TOOLS = ("place_at",)
PAIR_TOOLS = ("spoke_before", "spoke_after", "same_person", "different_people", "spoke_more", "spoke_less")

SYSTEM = """You are the memory of a robot. You answer a question about what the robot saw and heard, using its \
memory. Every reply is exactly two lines:
Action: [Search] or [Tool] or [Answer]
Content: ...

[Tool] runs one exact operation over the people the robot met (counting, order and identity are computed for \
you, so use a tool for any question about how many, how often, who first/last/most, before/after, or whether \
two people are the same). A person is given as quoted text: a name, or what they said. Times are written as \
in the question, quoted: "1:30", "0:45".
  count_people(t1, t2)        how many different people were there (t1, t2 optional, both or neither)
  people(t1, t2)              who was there, in order
  times_spoke("person")       how many times a person spoke
  said_by("person")           everything one known person said (not for finding what was said about a topic)
  spoke_before("a", "b")      did a speak before b
  spoke_after("a", "b")       did a speak after b
  same_person("a", "b")       are a and b the same person
  different_people("a", "b")  are a and b different people
  spoke_more("a", "b")        did a speak more often than b (also: who spoke more often, a or b)
  spoke_less("a", "b")        did a speak less often than b (also: who spoke less often, a or b)
  most_talkative(t1, t2)      who spoke most often
  least_talkative(t1, t2)     who spoke least often
  first_speaker(t1, t2)       who spoke first
  last_speaker(t1, t2)        who spoke last
  last_seen("person")         at what time a given person was last seen or heard
  last_place("person")        where (which place) a person was last seen or heard
  first_place("person")       where a person was first seen or heard (where I met them)
  places_discussed("topic")   where something was talked about
  place_at(t)                 where I was at a time
[Search] looks up memories by meaning; write a short query. Use it for what was said or done, objects and places.
[Answer] picks the memory that answers the question: its number in brackets, e.g. [12]; the answer sentence is \
made from that memory. Memories of speech are transcripts: words may be spelled differently (X4 is "x four", B2 \
is "b two"). Pick the memory that matches the question best. Only if no memory is about the question at all, \
answer "I have no memory of that." Never invent facts."""

FEW_SHOT: list[tuple[str, str]] = [
    ("Question: How many different people came into the kitchen?",
     "Action: [Tool]\nContent: count_people()"),
    ("Question: How many times did the person who said 'the oven is still hot' speak?",
     "Action: [Tool]\nContent: times_spoke(\"the oven is still hot\")"),
    ("Question: Did the woman who said 'grab two plates' talk before the man who said 'dinner is ready'?",
     "Action: [Tool]\nContent: spoke_before(\"grab two plates\", \"dinner is ready\")"),
    ("Question: Is the person who said 'I left my keys here' the same one who later said 'found them'?",
     "Action: [Tool]\nContent: same_person(\"I left my keys here\", \"found them\")"),
    ("Question: Did the man who said 'the bus is late' arrive after the woman who said 'good morning all'?",
     "Action: [Tool]\nContent: spoke_after(\"the bus is late\", \"good morning all\")"),
    ("Question: Are the one who said 'pass the salt' and the one who said 'it is raining' different people?",
     "Action: [Tool]\nContent: different_people(\"pass the salt\", \"it is raining\")"),
    ("Question: Did the person who said 'where is my phone' talk more than the person who said 'lunch is ready'?",
     "Action: [Tool]\nContent: spoke_more(\"where is my phone\", \"lunch is ready\")"),
    ("Question: Who spoke less often, the person who said 'hello there' or the person who said 'shut the door'?",
     "Action: [Tool]\nContent: spoke_less(\"hello there\", \"shut the door\")"),
    ("Question: When did I last see the man who said 'see you at six'?",
     "Action: [Tool]\nContent: last_seen(\"see you at six\")"),
    ("Question: Where did I last see the woman who said 'the milk is gone'?",
     "Action: [Tool]\nContent: last_place(\"the milk is gone\")"),
    ("Question: In which room did I first meet the person who said 'call me later'?",
     "Action: [Tool]\nContent: first_place(\"call me later\")"),
    ("Question: Where were we when someone talked about the broken window?",
     "Action: [Tool]\nContent: places_discussed(\"broken window\")"),
    ("Question: Where was I at 4:10?",
     "Action: [Tool]\nContent: place_at(\"4:10\")"),
    ("Question: How many people had spoken by the three-minute mark?",
     "Action: [Tool]\nContent: count_people(\"0:00\", \"3:00\")"),
    ("Question: How many different people talked between 2:00 and 2:30?",
     "Action: [Tool]\nContent: count_people(\"2:00\", \"2:30\")"),
    ("Question: Who spoke least often during the first minute?",
     "Action: [Tool]\nContent: least_talkative(\"0:00\", \"1:00\")"),
    ("Question: Who talked the most during the first two minutes?",
     "Action: [Tool]\nContent: most_talkative(\"0:00\", \"2:00\")"),
    ("Question: Who was the first to speak?",
     "Action: [Tool]\nContent: first_speaker()"),
    ("Question: Which people did I meet between 1:00 and 1:30, in order?",
     "Action: [Tool]\nContent: people(\"1:00\", \"1:30\")"),
    ("Question: What did Maria say?",
     "Action: [Tool]\nContent: said_by(\"Maria\")"),
    ("Question: Where did the guest put the blue cup?",
     "Action: [Search]\nContent: blue cup"),
    ("Memories (best first):\n[12] 00:20 <character_2> appears in the scene.\n"
     "[15] 00:26 <character_2> says: \"see you tomorrow\"",
     "Action: [Answer]\nContent: I have no memory of that."),
    ("Question: What did someone say about the green umbrella?",
     "Action: [Search]\nContent: green umbrella"),
    ("Memories (best first):\n[31] 00:41 <character_3> says: \"the green umbrella is by the door\"\n"
     "[29] 00:38 <character_3> appears in the scene.\n[7] 00:05 <character_1> says: \"close the window please\"",
     "Action: [Answer]\nContent: [31]"),
    ("Question: What did the visitor say about the letter b and the number four?",
     "Action: [Search]\nContent: b four"),
    ("Memories (best first):\n[58] 02:14 <character_5> says: \"Meet me in room B4 at noon.\"\n"
     "[55] 02:10 <character_2> says: \"The printer is out of paper.\"\n[57] 02:12 <character_5> appears in the scene.",
     "Action: [Answer]\nContent: [58]"),
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
    return {"role": "user", "content": f"Tool error: {error}\nFix the call, or use [Search]."}


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


def grammar(allow: tuple[str, ...], shown: list[int] | None = None) -> str:
    """GBNF for one reply. ``allow``: the actions allowed this round (Search, Tool, Answer). ``shown``: the ids of
    the memories shown so far; an answer must pick one of them (or say there is no memory), so it can cite
    nothing else. Without shown memories the only answer is the no-memory one."""
    alts = []
    if "Search" in allow:
        alts.append('"Search]\\nContent: " text')
    if "Tool" in allow:
        alts.append('"Tool]\\nContent: " call')
    if "Answer" in allow:
        picks = " | ".join(f'"[{i}]"' for i in dict.fromkeys(shown or []))
        alts.append(f'"Answer]\\nContent: " ({picks + " | " if picks else ""}{json.dumps(NO_MEMORY)})')
    if not alts:
        raise ValueError("grammar: no action allowed")
    return (f'root ::= "Action: [" ({" | ".join(alts)})\n' + f"window-tool ::= {_alts(WINDOW_TOOLS)}\n"
            f"person-tool ::= {_alts(PERSON_TOOLS)}\npair-tool ::= {_alts(PAIR_TOOLS)}\n"
            f"time-tool ::= {_alts(TIME_TOOLS)}" + _COMMON)
