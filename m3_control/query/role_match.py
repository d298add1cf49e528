"""Two roles among the speakers compared: whether one person held both ("was the second speaker also the last one?",
"was the first speaker also the one who spoke most?", "is the person who talked longest the same as the last
speaker?", "did the third speaker also speak the most?", "who was both the first speaker and the most frequent
one?").

A role is a rank by first words ("the second speaker", "the first person I heard"), the last turn ("the last one",
"the one who spoke last"), or a rank by turns or by seconds ("the one who spoke most", "the least talkative person",
"the one with the most speaking time"). Code takes the voice turns in the frame's place and window, finds who holds
each role (a tie: everyone tied), and answers whether one person held both, naming who held each and on what
figures. Also one such role's own figure ("how many turns did the least frequent speaker take?", "how long did the
one who spoke most talk?": ``asks_role_figure``). Not a person against a rank ("was A the last speaker?":
question_forms), not "who spoke both first and last?" (turn_sequence), not two ranks compared by counts ("did the
first speaker speak more than the last?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .execute import QueryExecutor
from .frame import Query
from .named_ids import named_into
from .phrase import REFUSAL, _cap, check, conditions, phrase
from .result import QueryResult
from .turn_sequence import people_in
from .wording import QUOTED
from .words import ordinal_word, seconds_word, tenths, times_word

_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "2nd": 2, "3rd": 3, "4th": 4,
        "5th": 5, "6th": 6, "last": -1, "final": -1, "latest": -1}
_NOUN = r"(?:speaker|person|one|voice|man|woman|talker)"
_SPEAK = r"(?:spoke|speak|talked|talk|was\s+heard|(?:i|we)\s+heard(?:\s+(?:speak|talk))?)"
_MOST = r"(?P<m>most|least|fewest|longest|shortest|most\s+often|least\s+often|the\s+most|the\s+least|the\s+fewest|" \
        r"the\s+longest|the\s+shortest)"
_ROLES = [
    # "the second speaker", "the last one", "the first person I heard", "the third person to speak"
    re.compile(rf"\bthe\s+(?:very\s+)?(?P<o>{'|'.join(_ORD)})\s+(?:(?:different\s+)?{_NOUN}(?:\s+(?:(?:that|who)\s+)?"
               rf"(?:(?:i|we)\s+heard(?:\s+(?:speak|talk))?|to\s+(?:speak|talk|be\s+heard)))?|"
               r"to\s+(?:speak|talk|be\s+heard))\b", re.IGNORECASE),
    # "the one who spoke most (often)", "the person who talked the longest", "the one who spoke last"
    re.compile(rf"\bthe\s+{_NOUN}\s+(?:(?:who|that|whom)\s+)?{_SPEAK}\s+(?:(?P<o>first|last)\b|{_MOST}\b"
               rf"(?:\s+(?:often|times|in\s+total|in\s+all|of\s+all))?)", re.IGNORECASE),
    # "the most frequent speaker", "the least talkative person", "the most talkative one"
    re.compile(r"\bthe\s+(?:(?P<nth>second|third|fourth|2nd|3rd|4th)[\s-]+)?(?P<m>most|least)\s+(?P<k>frequent|"
               r"talkative|active)\s+(?:speaker|person|one|voice)\b", re.IGNORECASE),
    # "the one with the most turns", "the person with the most speaking time", "the one who took the fewest turns"
    re.compile(rf"\bthe\s+{_NOUN}\s+(?:with|who\s+(?:took|had)|that\s+(?:took|had))\s+the\s+"
               rf"(?:(?P<nth>second|third|fourth|2nd|3rd|4th)[\s-]+)?(?P<m>most|fewest|least|"
               r"longest|shortest)\s+(?P<k>turns|speaking\s+time|talking\s+time|talk\s+time|time|seconds|speech)\b",
               re.IGNORECASE),
    # "did the first speaker also speak (the) most / last?" (the role as what the person did)
    # "was the last speaker also the first?", "... the same as the second?" (the noun left out: the other role's)
    re.compile(rf"\b(?:also|too|as)\s+the\s+(?P<o>{'|'.join(_ORD)})\b(?!\s+(?:{_NOUN[3:-1]}|to|time|turn|words|thing))",
               re.IGNORECASE),
    re.compile(rf"(?<=\s)(?:also\s+|too\s+)?(?:speak|talk)\s+(?:(?P<o>first|last)\b|{_MOST}\b(?:\s+(?:often|times|"
               r"in\s+total|in\s+all|of\s+all))?)", re.IGNORECASE),
]
# what is left of the question once its two roles are "R": asking whether one person held both
_SHAPES = [
    re.compile(r"^\W*(?:was|is|were)\s+R\s+(?:[^?]*?\b(?:also|too|likewise)\s+|[^?]*?\bthe\s+same\s+(?:(?:person|one|"
               r"speaker|voice)\s+)?(?:as\s+)?)?R\b(?![^?]*\bthan\b)", re.IGNORECASE),
    re.compile(r"^\W*(?:were|are|was)\s+R\s+and\s+R\s+(?:one\s+and\s+)?the\s+same\s+(?:person|one|speaker|voice)\b",
               re.IGNORECASE),
    re.compile(r"^\W*(?:did|does)\s+R\s+(?:also\s+)?R(?![^?]*\bthan\b)", re.IGNORECASE),
    re.compile(r"^\W*who\s+(?:was|is)\s+(?:both\s+)?R\s+and\s+(?:also\s+)?R\b", re.IGNORECASE),
]


@dataclass(frozen=True)
class Role:
    kind: str       # rank (by first words) | last (the last turn) | turns | seconds
    n: int = 0      # rank: 1, 2, ...
    most: bool = True
    nth: int = 1    # turns / seconds: the n-th most ("the second most frequent speaker"), by place in the ranking


@dataclass(frozen=True)
class RolesAsk:
    roles: tuple[Role, Role]
    yes_no: bool


def _role(m: re.Match) -> Role:
    d = m.groupdict()
    if d.get("o"):
        n = _ORD[d["o"].lower()]
        return Role("last") if n == -1 else Role("rank", n)
    word = re.sub(r"^the\s+|\s+often$", "", (d.get("m") or "most").lower())
    most = word in ("most", "longest")
    kind = (d.get("k") or "").lower()
    by_seconds = word in ("longest", "shortest") or bool(re.search(r"time|seconds|speech", kind))
    nth = _ORD.get((d.get("nth") or "first").lower(), 1)
    return Role("seconds" if by_seconds else "turns", most=most, nth=nth)


def asks_roles(question: str) -> RolesAsk | None:
    """Two roles the question asks whether one person held, else None."""
    if people_in(question):
        return None
    found: list[re.Match] = []
    for rx in _ROLES:
        for m in rx.finditer(question):
            if not any(m.start() < f.end() and f.start() < m.end() for f in found):
                found.append(m)
    if len(found) != 2:
        return None
    found.sort(key=lambda m: m.start())
    rest = question[:found[0].start()] + " R " + question[found[0].end():found[1].start()] + " R " + \
        question[found[1].end():]
    if not any(rx.match(re.sub(r"\s+", " ", rest)) for rx in _SHAPES):
        return None
    roles = (_role(found[0]), _role(found[1]))
    if roles[0] == roles[1]:
        return None
    return RolesAsk(roles, not re.match(r"^\W*who\b", question, re.IGNORECASE))


@dataclass(frozen=True)
class RoleFigureAsk:
    role: Role          # by turns or by seconds (a rank by first words is person_refs')
    seconds: bool       # "how long ...?" (else "how many times ...?")


_FIGURE = re.compile(r"^\W*(?:how\s+many\s+(?:times|turns|utterances)|how\s+often|(?P<s>how\s+long|how\s+many\s+"
                     r"seconds|for\s+how\s+long|for\s+how\s+many\s+seconds))\b", re.IGNORECASE)


def asks_role_figure(question: str) -> RoleFigureAsk | None:
    """"How many turns did the least frequent speaker take?": one role by turns or seconds, and its figure."""
    m = _FIGURE.match(question)
    if m is None or people_in(question):
        return None
    found = [f for rx in _ROLES[1:4] for f in rx.finditer(question)]
    if len(found) != 1:
        return None
    role = _role(found[0])
    return RoleFigureAsk(role, bool(m.group("s"))) if role.kind in ("turns", "seconds") else None


def answer_figure(executor: QueryExecutor, q: Query, ask: RoleFigureAsk,
                  before_time: float | None) -> tuple[str, QueryResult]:
    """"The person who said X spoke least often: twice." (tied: "3 people spoke least often, twice each: ...")."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = [e for e in res.events if e.kind == "voice"]
    cond = conditions(res)
    if not turns:
        return f"I heard nobody speak{cond}.", res
    counts, secs = tally(turns)
    seconds = {c: tenths(s) for c, s in secs.items()}
    holders = _ranked(ask.role, counts, secs)
    res.value = tuple(sorted(set(counts.values()))) + (len(holders),)
    res.seconds = {**res.seconds, **seconds}
    res.events = [e for e in turns if e.character_id in holders] + [e for e in turns if e.character_id not in holders]
    res.steps.append({"step": "a role's figure", "holders": holders})
    word = f"{'most' if ask.role.most else 'least'} often" if ask.role.kind == "turns" else \
        f"{'longest' if ask.role.most else 'shortest'} in all"
    if ask.role.nth > 1:
        if ask.role.nth > len(counts):
            return f"I heard only {len(counts)} {'person' if len(counts) == 1 else 'people'}{cond}: there is no " \
                   f"{ordinal_word(ask.role.nth)} place.", res
        word = f"{ordinal_word(ask.role.nth)} {word}"

    def said(c: int) -> str:
        return f"for {seconds_word(seconds[c])}" if ask.seconds else times_word(counts[c])

    if len(holders) == 1:     # "Ann spoke most often (4 times)", and the figure asked where the role is the other's
        c = holders[0]
        own = times_word(counts[c]) if ask.role.kind == "turns" else seconds_word(seconds[c])
        asked = "" if ask.seconds == (ask.role.kind == "seconds") else f", {said(c)}"
        text = f"{_cap(res.describe[c])} spoke {word}{cond} ({own}){asked}."
    elif len({said(c) for c in holders}) == 1:
        names = ", ".join(res.describe[c] for c in holders[:-1]) + f" and {res.describe[holders[-1]]}"
        text = f"{len(holders)} people spoke {word}{cond}, {said(holders[0])} each: {names}."
    else:
        each = "; ".join(f"{res.describe[c]} {said(c)}" for c in holders)
        text = f"{len(holders)} people spoke {word}{cond}: {each}."
    return (REFUSAL if check(text, res) else text), res


@dataclass(frozen=True)
class PersonRoleAsk:
    who: str            # the person the question names (their words, or a name)
    role: Role          # by turns or by seconds


def asks_person_role(question: str) -> PersonRoleAsk | None:
    """"Was A the most frequent speaker in the library?": one person against a role by turns or seconds (a tie
    counts: "yes, jointly"), else None."""
    people = people_in(question)
    if len(people) != 1:
        return None
    plain = QUOTED.sub(" P ", question)
    found = [f for rx in _ROLES[1:4] for f in rx.finditer(plain)]
    if len(found) != 1:
        return None
    rest = re.sub(r"\s+", " ", plain[:found[0].start()] + " R " + plain[found[0].end():])
    person = r"(?:(?:the\s+(?:person|one|man|woman|speaker)\s+(?:who|that)\s+said\s+)?P|[A-Z][a-z]+)"
    if not re.match(rf"^\W*(?:[Ww]as|[Ii]s)\s+{person}\s+(?:also\s+|really\s+|indeed\s+)?R\b", rest) and \
            not re.match(rf"^\W*(?:[Ww]as|[Ii]s)\s+R\s+{person}\b", rest):
        return None
    role = _role(found[0])
    return PersonRoleAsk(people[0], role) if role.kind in ("turns", "seconds") else None


def answer_person_role(executor: QueryExecutor, q: Query, ask: PersonRoleAsk,
                       before_time: float | None) -> tuple[str, QueryResult]:
    """"Yes, jointly: A, B and C spoke most often in the library, once each." / "No: B spoke most often (3 times);
    A twice."."""
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    # (the person is resolved over the whole recording: the place and window are the role's)
    named = named_into(executor, Query(find="who", act="spoke"), ask.who, res, before_time)
    if named.status != "ok":
        return phrase(named), named
    cid = named.who["who"].character_id
    turns = [e for e in res.events if e.kind == "voice"]
    cond = conditions(res)
    counts, secs = tally(turns)
    if not turns:
        return f"No: I heard nobody speak{cond}.", res
    holders = _ranked(ask.role, counts, secs)
    res.value = tuple(sorted(set(counts.values()))) + (len(holders),)
    res.seconds = {**res.seconds, **{c: tenths(x) for c, x in secs.items()}}
    res.events = [e for e in turns if e.character_id in holders or e.character_id == cid] + \
        [e for e in turns if e.character_id not in holders and e.character_id != cid]
    word = f"{'most' if ask.role.most else 'least'} often" if ask.role.kind == "turns" else \
        f"{'longest' if ask.role.most else 'shortest'} in all"
    if ask.role.nth > 1:
        if ask.role.nth > len(counts):
            return f"I heard only {len(counts)} {'person' if len(counts) == 1 else 'people'}{cond}: there is no " \
                   f"{ordinal_word(ask.role.nth)} place.", res
        word = f"{ordinal_word(ask.role.nth)} {word}"

    def fig(c: int) -> str:
        return times_word(counts.get(c, 0)) if ask.role.kind == "turns" else seconds_word(tenths(secs.get(c, 0.0)))

    who = res.describe[cid]
    if holders == [cid]:
        text = f"Yes, {who} spoke {word}{cond} ({fig(cid)})."
    elif cid in holders:
        names = ", ".join(res.describe[c] for c in holders[:-1]) + f" and {res.describe[holders[-1]]}"
        text = f"Yes, jointly: {names} spoke {word}{cond}, {fig(cid)} each."
    else:
        top = " and ".join(res.describe[c] for c in holders)
        theirs = "never spoke" if cid not in counts else f"spoke {fig(cid)}" if ask.role.kind == "turns" else \
            f"spoke for {fig(cid)}"
        text = f"No: {top} spoke {word}{cond} ({fig(holders[0])}{' each' if len(holders) > 1 else ''}); {who} {theirs}."
    return (REFUSAL if check(text, res) else text), res


def tally(turns: list) -> tuple[dict[int, int], dict[int, float]]:
    """Each person's turns and seconds of speech."""
    counts: dict[int, int] = {}
    secs: dict[int, float] = {}
    for e in turns:
        counts[e.character_id] = counts.get(e.character_id, 0) + 1
        secs[e.character_id] = secs.get(e.character_id, 0.0) + e.end - e.start
    return counts, secs


def _ranked(role: Role, counts: dict[int, int], secs: dict[int, float], order: list[int] | None = None) -> list[int]:
    """Who holds a role by turns or by seconds (tenths): everyone tied, in ``order`` (else first heard)."""
    figure = counts if role.kind == "turns" else {c: tenths(x) for c, x in secs.items()}
    ranking = sorted(figure.values(), reverse=role.most)     # (the n-th place: people tied above it take places)
    best = ranking[min(role.nth, len(ranking)) - 1]
    return [c for c in (order or list(figure)) if figure[c] == best]


def prepare(q: Query) -> Query:
    """Everyone's voice turns in the frame's place and window."""
    return Query(find="who", act="spoke", place=q.place, from_=q.from_, to=q.to)


def answer(executor: QueryExecutor, q: Query, ask: RolesAsk, before_time: float | None) -> tuple[str, QueryResult]:
    res = executor.run(prepare(q), before_time)
    if res.status != "ok":
        return phrase(res), res
    turns = sorted((e for e in res.events if e.kind == "voice"), key=lambda e: (e.start, e.end, e.id))
    cond = conditions(res)
    if not turns:
        return f"I heard nobody speak{cond}.", res
    counts, secs = tally(turns)
    order = list(dict.fromkeys(e.character_id for e in turns))
    firsts = {c: next(e for e in turns if e.character_id == c) for c in order}
    holders: list[list[int]] = []
    titles: list[tuple[str, str]] = []    # (the role in words, the figure that gave it)
    for role in ask.roles:
        if role.kind == "rank":
            if role.n > len(order):
                text = f"I heard only {len(order)} {'person' if len(order) == 1 else 'people'}{cond}, so nobody " \
                       f"was the {ordinal_word(role.n)} speaker."
                res.value = len(order)
                return (REFUSAL if check(text, res) else text), res
            c = order[role.n - 1]
            holders.append([c])
            titles.append((f"the {ordinal_word(role.n)} person I heard", f"first at {res.say(firsts[c].start)}"))
        elif role.kind == "last":
            holders.append([turns[-1].character_id])
            titles.append(("the last to speak", f"at {res.say(turns[-1].start)}"))
        else:
            holders.append(_ranked(role, counts, secs, order))
            best = (counts if role.kind == "turns" else {c: tenths(x) for c, x in secs.items()})[holders[-1][0]]
            word = f"{'most' if role.most else 'least'} often" if role.kind == "turns" else \
                f"{'longest' if role.most else 'shortest'} in all"
            amount = times_word(int(best)) if role.kind == "turns" else seconds_word(best)
            titles.append((f"the one who spoke {word}", amount))
    res.value = tuple(sorted(set(counts.values())))
    res.seconds = {**res.seconds, **{c: tenths(s) for c, s in secs.items()}}
    both = [c for c in holders[0] if c in holders[1]]
    cited = [firsts[c] for h in holders for c in h]
    res.events = list(dict.fromkeys(cited + [turns[-1]])) + [e for e in turns if e not in cited and e is not turns[-1]]
    res.steps.append({"step": "roles compared", "holders": holders})

    def held(i: int, c: int) -> str:
        """Role i as held by c: "the one who spoke most often (4 times)", tied: "... (4 times each, with B)"."""
        title, fig = titles[i]
        others = [res.describe[o] for o in holders[i] if o != c]
        if not others:
            return f"{title} ({fig})"
        return f"{title.replace('the one who', 'one of those who')} ({fig} each, with {' and '.join(others)})"

    def holder(i: int) -> str:
        title, fig = titles[i]
        names = " and ".join(res.describe[c] for c in holders[i])
        if len(holders[i]) == 1:
            return f"{title} was {names} ({fig})"
        return f"{title.replace('the one who', 'those who')} were {names} ({fig} each)"

    if both:
        c = both[0]
        text = _cap(f"{'Yes, ' if ask.yes_no else ''}{res.describe[c]} was both {held(0, c)} and {held(1, c)}{cond}.")
    else:
        text = f"{'No' if ask.yes_no else 'Nobody'}{cond}: {holder(0)}; {holder(1)}."
    return (REFUSAL if check(text, res) else text), res
