"""Questions about a robot-view scene (:mod:`.robot_view`) with their answers derived from its definition: what the
signs in view said, and who was in view together with whom. Asked once the scene is over, through the real Query
service (the demo's second scene, ``rosbags/demo/robot_view``).

* text: "What did the sign with the word ZONE say?" for every sign that was wholly in view for at least
  ``MIN_SIGN_S`` seconds (the answer: its text);
* together, who: "Who was in view together with the person who said '...'?" for each person who was in view with
  exactly one other person (the answer: that person, by what they said);
* together, how many: for the person in view with the most others;
* together, yes / no: the first pair of speakers never in view at once (No) and the first pair that was (Yes).

* looks (a scene with a silent onlooker, :mod:`.onlooker`): how many people were in view with the person who
  looked happy (or "was smiling"), who (when exactly one), whether a given talker ever was (Yes and No), and
  whether a talker looked happy (No: every GRID talker is neutral).

People are named by what they said (GRID sentences, one per person), as the robot knows them; the onlooker by how
she looked.
"""

from __future__ import annotations

import math
from itertools import combinations

from .questions import Question
from .robot_view import RobotScene

MIN_SIGN_S = 3.0
LOOKS = {"happy": ("the person who looked happy", "the person who was smiling")}   # how a question names her
STEP_S = 0.2


def _mmss(t: float) -> str:
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def _truth(scene: RobotScene) -> tuple[dict[str, set[str]], dict[str, float]]:
    """(person -> the people ever in view at the same time, sign text -> seconds wholly in view)."""
    together: dict[str, set[str]] = {p: set() for p in scene.everyone}
    sign_s: dict[str, float] = {}
    for i in range(int(scene.duration / STEP_S)):
        t = i * STEP_S
        here = [p for p, _ in scene.in_view(t)]
        for p in here:
            together[p] |= set(here) - {p}
        for s in scene.signs_in_view(t):
            sign_s[s.text] = sign_s.get(s.text, 0.0) + STEP_S
    return together, sign_s


def robot_view_questions(scene: RobotScene, at: float | None = None) -> list[Question]:
    """The scene's questions, asked at ``at`` (default: the first whole 30 s clip boundary after the scene, plus
    a second, so every clip is in memory)."""
    at = at if at is not None else math.ceil(scene.duration / 30.0) * 30.0 + 1.0
    together, sign_s = _truth(scene)
    said = {p: scene.sentences[p] for p in sorted({u.person for u in scene.turns})}
    out: list[Question] = []
    asked: dict[str, int] = {}

    def ask(kind: str, q: str, a: str, types: list[str]) -> None:
        asked[kind] = asked.get(kind, 0) + 1
        out.append(Question(f"robot{scene.seed}_{kind}{asked[kind]:02d}", q, a, at, types, _mmss(at)))

    for s in scene.signs:
        if sign_s.get(s.text, 0.0) >= MIN_SIGN_S:
            word = s.text.split()[0]
            ask("T", f"What did the sign with the word {word} say?", s.text, ["Cross-Modal Reasoning"])
    for p, sentence in said.items():
        companions = together[p] & set(said)
        if len(together[p]) == 1 and companions:
            (c,) = companions
            ask("G", f"Who was in view together with the person who said '{sentence}'?",
                f"the person who said '{said[c]}'", ["Person Understanding", "Cross-Modal Reasoning"])
    most = max(said, key=lambda p: (len(together[p]), p))
    ask("G", f"How many people were in view together with the person who said '{said[most]}'?",
        str(len(together[most])), ["Person Understanding", "Multi-Detail Reasoning"])
    for p in scene.onlookers:
        look = scene.look_of(p)
        phrasings = LOOKS.get(look, (f"the person who looked {look}",))
        comp = sorted(together[p] & set(said))
        kinds = ["Person Understanding", "Cross-Modal Reasoning"]
        ask("E", f"How many people were in view together with {phrasings[0]}?", str(len(together[p])), kinds)
        if len(comp) == 1:
            ask("E", f"Who was in view together with {phrasings[-1]}?", f"the person who said '{said[comp[0]]}'", kinds)
        apart = [q for q in said if q not in together[p]]
        for q, want in ((comp[0] if comp else None, "Yes"), (apart[0] if apart else None, "No")):
            if q is not None:
                ask("E", f"Was the person who said '{said[q]}' ever in view together with {phrasings[-1]}?", want,
                    kinds)
        if said:
            talker = comp[-1] if comp else next(iter(said))
            ask("E", f"Did the person who said '{said[talker]}' look {look}?", "No", kinds)
    pairs = list(combinations(said, 2))
    for want in (False, True):
        pair = next(((a, b) for a, b in pairs if (b in together[a]) == want), None)
        if pair is not None:
            a, b = pair
            ask("G", f"Was the person who said '{said[a]}' ever in view together with the person who said "
                     f"'{said[b]}'?", "Yes" if want else "No", ["Person Understanding", "Cross-Modal Reasoning"])
    return out
