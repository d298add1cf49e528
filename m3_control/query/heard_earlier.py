"""Whether the speaker of one ranked turn in a room had been heard before it: "was the first turn in the lab by
someone I had heard before?", "did the first person to speak in the bedroom speak earlier too?", "had I heard the
second speaker in the office before?", "was the last voice in the garden a new one?".

The room's turns are those the executor puts there (a frame with ``place=``); the rank picks one of them (first,
second, ..., last), and its speaker's earlier turns, anywhere, answer the question: yes with the first of them (time
and room), no with the turn itself as their first words. A question asking whether the speaker was new is answered the
other way round. The answer is checked against the executed result like any frame's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .phrase import REFUSAL, _cap, check, phrase
from .result import QueryResult
from .wording import ORDINAL_WORDS
from .words import ordinal_word

_ORD = r"first|second|third|fourth|fifth|sixth|last|final|latest"
# "the first turn in the lab", "the first person to speak in the bedroom", "the second speaker I heard in the office"
_RANKED = re.compile(rf"\bthe\s+(?:very\s+)?(?P<ord>{_ORD})\s+(?:(?P<turn>turn|utterance|sentence|thing\s+(?:said|I\s+"
                     r"heard)|words)|voice|speaker|person|one)(?:\s+(?:(?:that|who|whom)\s+)?(?:I|we)\s+heard(?:\s+(?:speak|"
                     r"talk))?|\s+to\s+(?:speak|talk|be\s+heard)|\s+(?:who|that)\s+(?:spoke|talked))?\s+(?:in|at|inside)"
                     r"\s+the\s+(?P<place>[a-z]+(?:\s+room)?)\b", re.IGNORECASE)
_HEARD = re.compile(r"\b(?:heard|met)\s+(?:(?:them|him|her|that\s+person|it)\s+)?(?:before|earlier|previously|already)|"
                    r"\b(?:already|previously|earlier)\s+(?:heard|met)\b|\b(?:speak|spoke|spoken|talk|talked)\s+"
                    r"(?:earlier|before|previously|already)\b|\b(?:already|previously)\s+(?:spoken|talked|spoke)\b|"
                    r"\bbeen\s+heard\s+(?:before|earlier|already)\b", re.IGNORECASE)
_NEW = re.compile(r"\bnew\b|\bfor\s+the\s+first\s+time\b|\bnever\s+(?:heard|spoken|talked)\s+before\b", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(?:was|were|did|had|has|have|is)\b", re.IGNORECASE)


@dataclass(frozen=True)
class HeardEarlierAsk:
    rank: int          # 1, 2, ...; -1 for the last
    place: str         # as the question writes it
    new: bool          # asked whether the speaker was new (yes when they had not been heard before)
    person: bool       # ranked among the people speaking there ("the second speaker"), not the turns
    said: str          # the question's words for the turn


def asks_heard_earlier(question: str) -> HeardEarlierAsk | None:
    """A yes / no question whether a room's ranked turn came from someone heard before (see the module), else None."""
    if not _YES_NO.match(question):
        return None
    refs = list(_RANKED.finditer(question))
    if len(refs) != 1:
        return None
    m = refs[0]
    rest = question[:m.start()] + " them " + question[m.end():]
    heard, new = _HEARD.search(rest), _NEW.search(question[m.end():])
    if heard is None and new is None:
        return None
    word = m.group("ord").lower()
    rank = -1 if word in ("last", "final", "latest") else ORDINAL_WORDS[word]
    return HeardEarlierAsk(rank, m.group("place"), new is not None and heard is None, not m.group("turn"), m.group(0))


def prepare(q: Query) -> Query:
    """Everyone's voice turns (the room's are read by a frame of their own)."""
    return Query(find="who", act="spoke")


def answer(executor: QueryExecutor, q: Query, ask: HeardEarlierAsk,
           before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    there = executor.run(Query(find="who", place=ask.place, act="spoke"), before_time)
    for r in (res, there):
        if r.status != "ok":
            return phrase(r), r
    room = sorted((e for e in there.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    where = f"the {ask.place}"
    word = "last" if ask.rank == -1 else ordinal_word(ask.rank)
    ranked = room
    if ask.person and ask.rank > 0:   # "the second speaker": each person's first turn there, in order
        firsts: dict[int, object] = {}
        for e in room:
            firsts.setdefault(e.character_id, e)
        ranked = list(firsts.values())
    noun = "person" if ask.person and ask.rank > 0 else "turn"
    if not ranked or (ask.rank > 0 and ask.rank > len(ranked)):
        res.value = (len(ranked),)
        n = len(ranked)
        return f"There was no {word} {noun} in {where}: I heard {n} {noun if n == 1 else noun + 's'} there." \
            .replace("persons", "people"), res
    turn = ranked[-1] if ask.rank == -1 else ranked[ask.rank - 1]
    cid = turn.character_id
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.id))
    earlier = [e for e in turns if e.character_id == cid and (e.start, e.id) < (turn.start, turn.id)]
    who = res.describe.get(cid) or there.describe.get(cid) or f"<character_{cid}>"
    res.describe.setdefault(cid, who)
    res.events = [turn] + earlier + [e for e in res.events if e is not turn and e not in earlier]
    res.value = (len(earlier),)
    res.steps.append({"step": f"the {word} turn in {where}, its speaker's turns before it", "turn_id": turn.id,
                      "earlier": len(earlier), "frames": [there.query.compact()]})
    lead = f"the {word} {'person to speak' if noun == 'person' else 'turn'} in {where} (at {res.say(turn.start)}) " \
        f"was {'' if noun == 'person' else 'by '}{who}"
    if earlier:
        executor.place_turns(res, [earlier[0]])
        room_of = res.places.get(earlier[0].id)
        first = f"first at {res.say(earlier[0].start)}" + (f" in the {room_of}" if room_of else "")
        many = f"{len(earlier)} turn{'s' if len(earlier) != 1 else ''} before it"
        text = f"{'No' if ask.new else 'Yes'}: {lead}, whom I had heard before ({first}; {many})."
    else:
        text = f"{'Yes' if ask.new else 'No'}: {lead}, the first time I heard them."
    text = _cap(text)
    return (REFUSAL if check(text, res) else text), res
