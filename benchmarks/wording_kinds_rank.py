"""Question kinds first asked by wording sets S-V of ``wording_probe.py`` (written before their first run).

Nine kinds no earlier set (nor ``scene_bench.py``) asks: ranks by how often people spoke beyond the most and the
least (the second most, overall and in a room; the second fewest), the n-th *thing heard* as opposed to the n-th
person (who said it, what it was, the second to last words), the time of someone's second turn, how many turns came
before someone's first, and one about a person nobody heard (to decline). Sets S and T ask the first and second
wording (written with the kinds), U and V the third and fourth (written by a helper agent that had not seen the code,
only the kinds' meanings and one example each). References come from the scene definition
(:class:`m3_agent_ros.bags.procedural_questions.Facts`); a kind is asked only where its answer differs from the
nearest other reading (the n-th turn's speaker is not the n-th person; ranks are not tied).
"""

from __future__ import annotations

import random
from collections import Counter

from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts, mmss

RANK_SETS = "STUV"   # U and V: wordings written by a helper that never saw the code
RANK_WORDINGS: dict[str, tuple[str, ...]] = {
    "second_most_speaker": ("Who spoke the second most?",
                            "Which person did I hear talking the second most often?",
                            "Which person talked the second most overall?",
                            "Of everyone you heard, who said things the second greatest number of times?"),
    "second_most_in_place": ("In the {pl}, who spoke the second most?",
                             "Who had the second highest number of turns in the {pl}?",
                             "Who talked the second most in the {pl}?",
                             "Of the people you heard in the {pl}, which one spoke there the second most often?"),
    "second_least_speaker": ("Who spoke the second fewest times?",
                             "Among the people who talked, who had the second lowest number of turns?",
                             "Of the people who spoke, who talked the second least often?",
                             "Which person said something the second fewest number of times?"),
    "nth_turn_who": ("Who said the {nth} thing I heard?",
                     "The {nth} time I heard someone speak, who was it?",
                     "Whose words were the {nth} thing you heard?",
                     "Which person spoke the {nth} utterance you heard?"),
    "nth_turn_what": ("What was the {nth} thing anyone said?",
                      "What were the words of the {nth} utterance I heard?",
                      "What did you hear said {nth}?",
                      "Tell me the words of the {nth} utterance you heard."),
    "second_to_last_words": ("What were the second to last words I heard?",
                             "What was the next-to-last thing anyone said?",
                             "What was said just before the last thing you heard?",
                             "Which words did I hear second to last?"),
    "person_second_time_when": ("When did {p} speak for the second time?",
                                "At what time did I hear {p} talk again after their first turn?",
                                "At what time did {p} say something for the second time?",
                                "When did you hear {p} talk for the second time?"),
    "turns_before_first": ("How many times had people spoken before {p} first spoke?",
                           "Before {p} said anything, how many turns had I heard?",
                           "How many utterances did you hear before {p} said anything?",
                           "Before {p} first talked, how many things had people said?"),
    "second_most_after_unknown": ("After {p} first spoke, who spoke the second most?",
                                  "Since the first words of {p}, who has talked the second most often?",
                                  "Once {p} had first spoken, who talked the second most?",
                                  "Who said things the second most often after {p} spoke for the first time?"),
}
NTH = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def ranked(counts: Counter, k: int, most: bool) -> str | None:
    """The one person at rank ``k`` (1-based) by count, most first (fewest first with ``most`` False); None where
    a tie touches that rank (the question would have no single answer)."""
    order = sorted(counts.items(), key=lambda pc: -pc[1] if most else pc[1])
    if len(order) < k:
        return None
    c = order[k - 1][1]
    return order[k - 1][0] if sum(v == c for _, v in order) == 1 else None


def rank_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`RANK_WORDINGS` in wording ``which`` of :data:`RANK_SETS`."""
    f, out = Facts(scene), []
    turns, r = f.turns, random.Random(scene.seed * 31 + 5)

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": RANK_WORDINGS[kind][which].format(**fields), "a": ref,
                    "answerable": answerable})

    p = ranked(f.count, 2, True)
    if p:
        add("second_most_speaker", f.who(p))
    for pl in f.spoken_places:
        p = ranked(Counter(e.person for e in f.in_place(pl)), 2, True)
        if p:
            add("second_most_in_place", f.who(p), pl=pl)
    p = ranked(f.count, 2, False)
    if p:
        add("second_least_speaker", f.who(p))
    nths = [n for n in range(2, min(len(turns), len(NTH)) + 1)
            if n > len(f.speakers) or turns[n - 1].person != f.speakers[n - 1]]
    for n in r.sample(nths, min(2, len(nths))):
        add("nth_turn_who", f.who(turns[n - 1].person), nth=NTH[n - 1])
    for n in r.sample(nths, min(2, len(nths))):
        if turns[n - 1].text != scene.sentences[f.speakers[min(n, len(f.speakers)) - 1]]:
            add("nth_turn_what", turns[n - 1].text, nth=NTH[n - 1])
    if len(turns) >= 2 and turns[-2].text != turns[-1].text:
        add("second_to_last_words", turns[-2].text)
    twice = [p for p in f.speakers if f.count[p] >= 2]
    for p in r.sample(twice, min(2, len(twice))):
        add("person_second_time_when", mmss([e for e in turns if e.person == p][1].start), p=f.who(p))
    for p in r.sample(f.speakers[1:], min(2, len(f.speakers) - 1)):
        first = next(i for i, e in enumerate(turns) if e.person == p)
        add("turns_before_first", str(first), p=f.who(p))
    add("second_most_after_unknown", NOT_SAID, False, p=f"the person who said '{f.fake_sentence(r)}'")
    return out
