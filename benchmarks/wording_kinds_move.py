"""Question kinds first asked by wording sets W-Z of ``wording_probe.py`` (written before their first run).

Six kinds no earlier set (nor ``scene_bench.py``) asks, all relative to one of the robot's own moves rather than to
a person or a clock: who spoke first after it entered a room, who spoke last before it got there, how many people it
had heard by then, how many times anyone spoke after it left a room, the first words after it walked in, and one it
cannot answer (after it left the room it never left: to decline). Sets W and X ask the first and second wording
(written with the kinds), Y and Z the third and fourth (written by a helper agent that had not seen the code, only
the kinds' meanings and one example each). References come from the scene definition (its path and events); a room
is asked about only where the robot entered it once, and no speech starts or ends within 1.2 s of the move (the pose
track crosses a room's edge during the 1 s drive; the margin keeps the reference single).
"""

from __future__ import annotations

import random

from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts

MOVE_SETS = "WXYZ"   # Y and Z: wordings written by a helper that never saw the code
MOVE_WORDINGS: dict[str, tuple[str, ...]] = {
    "first_after_enter": ("Who was the first person to speak after I entered the {pl}?",
                          "After I got to the {pl}, who talked first?",
                          "Who spoke first after you came into the {pl}?",
                          "Once I walked into the {pl}, who was the first person to say something?"),
    "last_before_enter": ("Who spoke last before I got to the {pl}?",
                          "Who was the last person I heard before I arrived in the {pl}?",
                          "Who was the last person to talk before you arrived in the {pl}?",
                          "Right before I entered the {pl}, who was the last one to say something?"),
    "people_before_enter": ("How many different people had I heard by the time I reached the {pl}?",
                            "Before I walked into the {pl}, how many different people had spoken?",
                            "How many different people had spoken before you arrived in the {pl}?",
                            "Before I walked into the {pl}, how many different people had talked?"),
    "times_after_leave": ("How many times did anyone speak after I left the {pl}?",
                          "Once I had left the {pl}, how many times did I hear someone talk?",
                          "After you exited the {pl}, how many times did someone say something?",
                          "How many times did people talk after I went out of the {pl}?"),
    "first_words_after_enter": ("What was the first thing I heard after I walked into the {pl}?",
                                "What were the first words spoken after I came into the {pl}?",
                                "What were the first words spoken after you got to the {pl}?",
                                "After I came into the {pl}, what was the first thing anyone said?"),
    "after_leave_never_left": ("Who spoke after I left the {pl}?",
                               "After I exited the {pl}, who talked?",
                               "Who talked after you went out of the {pl}?",
                               "After I exited the {pl}, who said something?"),
}
MARGIN_S = 1.2   # the drive takes 1 s: the pose track enters / leaves a room within it


def move_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`MOVE_WORDINGS` in wording ``which`` of :data:`MOVE_SETS`."""
    f, out = Facts(scene), []
    turns, r = f.turns, random.Random(scene.seed * 37 + 11)
    stays = scene.stays()

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": MOVE_WORDINGS[kind][which].format(**fields), "a": ref,
                    "answerable": answerable})

    def said(e) -> tuple[float, float]:  # noqa: ANN001
        return e.speech or (e.start, e.end)

    def clear(t: float) -> bool:
        return all(abs(x - t) >= MARGIN_S for e in turns for x in said(e))

    once = [s for s in stays if sum(x[2] == s[2] for x in stays) == 1]
    entered = [s for s in once if s[0] > 0 and clear(s[0])]
    for t0, _, pl in r.sample(entered, min(2, len(entered))):
        after = [e for e in turns if said(e)[0] >= t0]
        before = [e for e in turns if said(e)[1] <= t0]
        if after:
            add("first_after_enter", f.who(after[0].person), pl=pl)
            add("first_words_after_enter", after[0].text, pl=pl)
        if before:
            add("last_before_enter", f.who(before[-1].person), pl=pl)
            add("people_before_enter", str(len({e.person for e in before})), pl=pl)
    left = [s for s in once if s[1] < scene.duration - 1 and clear(s[1])]
    for _, t1, pl in r.sample(left, min(2, len(left))):
        add("times_after_leave", str(sum(said(e)[0] >= t1 for e in turns)), pl=pl)
    final = stays[-1][2] if stays else None
    if final is not None and sum(s[2] == final for s in stays) == 1:
        add("after_leave_never_left", NOT_SAID, False, pl=final)
    return out
