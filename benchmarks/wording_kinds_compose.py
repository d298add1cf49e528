"""Question kinds first asked by wording sets i-j of ``wording_probe.py`` (and again by sets k-l): the span and count
operators of sets a-h composed with the rest of the frame, in kinds no set had asked. Every wording of these kinds
(sets i-j, and now k-l) was written by a helper agent that had not seen the code (only each kind's meaning), after the
code they test was committed, and each set is run once held out before anything is fixed from it.

- ``gap_after_enter``: the time from one of the robot's own moves (entering a room it entered once) to the next words;
- ``gap_own_again``: the time from someone's first turn to their own second one;
- ``count_between_times``: a yes / no about the number of people who spoke between two clock times;
- ``gap_after_enter_unknown``: the same as ``gap_after_enter`` about a room the robot never went to (to decline).

References come from the scene definition (its path and events), as in ``wording_kinds_gap.py``: spans from the
start of one moment to the start of the other's speech, whole seconds; a room's entry is asked only where no speech
starts or ends within 1.2 s of it (the pose track crosses the room's edge during the 1 s drive).
"""

from __future__ import annotations

import random

from wording_kinds_gap import MIN_GAP_S, seconds

from m3_agent_ros.bags.procedural import PLACE_POOL
from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts, clock

COMPOSE_SETS = "ijkl"   # i-j and k-l: all wordings written by helpers that never saw the code
COMPOSE_WORDINGS: dict[str, tuple[str, ...]] = {
    "gap_after_enter": (
        "How many seconds after you went into the {pl} did somebody start talking?",
        "Once I got into the {pl}, how long was it until anyone said something?",
        "How long after you entered the {pl} did someone first speak?",
        "When I came into the {pl}, how many seconds passed before anyone talked?"),
    "gap_own_again": (
        "How long after {p1} first spoke did they speak again?",
        "Can you tell me how many seconds went by between the first and second time {p1} talked?",
        "After {p1} first spoke, how many seconds passed before they spoke a second time?",
        "How soon did {p1} talk again after their first words?"),
    "count_between_times": (
        "Did more than {n} people speak between {t1} and {t2}?",
        "Between {t1} and {t2}, did you hear more than {n} people talking?",
        "Were more than {n} people talking between {t1} and {t2}?",
        "From {t1} to {t2}, did I hear over {n} different people speak?"),
    "gap_after_enter_unknown": (
        "How many seconds after you went into the {pl} did somebody start talking?",
        "Once I got into the {pl}, how long was it until anyone said something?",
        "How long after you entered the {pl} did someone first speak?",
        "When I came into the {pl}, how many seconds passed before anyone talked?"),
}
MARGIN_S = 1.2


def compose_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`COMPOSE_WORDINGS` in wording ``which`` of :data:`COMPOSE_SETS`."""
    f, out = Facts(scene), []
    turns, r = f.turns, random.Random(scene.seed * 43 + 17)

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": COMPOSE_WORDINGS[kind][which].format(**fields), "a": ref,
                    "answerable": answerable})

    def said(e) -> tuple[float, float]:  # noqa: ANN001
        return e.speech or (e.start, e.end)

    stays = scene.stays()
    once = [s for s in stays if sum(x[2] == s[2] for x in stays) == 1 and s[0] > 0]
    clear = [s for s in once if all(abs(x - s[0]) >= MARGIN_S for e in turns for x in said(e))]
    for t0, _, pl in r.sample(clear, min(2, len(clear))):
        nxt = next((said(e)[0] for e in turns if said(e)[0] > t0), None)
        if nxt is not None and nxt - t0 >= MIN_GAP_S:
            add("gap_after_enter", seconds(nxt - t0), pl=pl)
    again = [p for p in f.speakers if f.count[p] >= 2]
    for p in r.sample(again, min(2, len(again))):
        mine = [said(e)[0] for e in turns if e.person == p]
        if mine[1] - mine[0] >= MIN_GAP_S:
            add("gap_own_again", seconds(mine[1] - mine[0]), p1=f.who(p))
    wins = f.windows(lambda ts: len({e.person for e in ts}) >= 1)
    for a, b in r.sample(wins, min(2, len(wins))):
        k = len({e.person for e in turns if a <= e.start and e.end <= b})
        n = max(k if r.random() < 0.5 else k - 1, 2)   # (a question about "more than 1 people" reads badly)
        add("count_between_times", "Yes" if k > n else "No", n=str(n), t1=clock(a), t2=clock(b))
    never = [p for p in PLACE_POOL if p not in {x["name"] for x in scene.places}]
    if never:
        add("gap_after_enter_unknown", NOT_SAID, False, pl=r.choice(never))
    return out
