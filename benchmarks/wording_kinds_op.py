"""Question kinds first asked by wording sets O and P of ``wording_probe.py`` (written before their first run).

Twelve kinds no earlier set (nor ``scene_bench.py``) asks: someone's turns after a clock time or between two,
the least talkative in a room, the room where someone spoke most, where the first words were heard, the second to
last speaker, how many people spoke more often than someone, in how many rooms anyone spoke, whether two people
ever spoke in the same room, who had spoken most before someone's first turn, when anyone first spoke, and one
about words nobody said (to decline). Set O asks the first wording of each, set P the second (both written with the
kinds), Q and R the third and fourth (written by a helper agent that had not seen the code, only the kinds' meanings
and one example each); references come from the scene definition
(:class:`m3_agent_ros.bags.procedural_questions.Facts`).
"""

from __future__ import annotations

import random
from collections import Counter

from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts, clock, mmss

OP_SETS = "OPQR"   # Q and R: wordings written by a helper that never saw the code
OP_WORDINGS: dict[str, tuple[str, ...]] = {
    "count_person_after_t": ("How many times did {p} speak after {t}?",
                             "After {t}, how often did I hear {p}?",
                             "Tell me how many times {p} talked after {t}.",
                             "After {t}, how often did you hear {p} say something?"),
    "count_person_between_t": ("How many times did {p} talk between {t1} and {t2}?",
                               "From {t1} to {t2}, how many turns did {p} take?",
                               "Count the times {p} said something between {t1} and {t2}.",
                               "From {t1} to {t2}, how many times did {p} speak up?"),
    "least_in_place": ("Who spoke the least in the {pl}?",
                       "In the {pl}, who talked the fewest times?",
                       "Of everyone who talked in the {pl}, who talked there the fewest times?",
                       "Which speaker in the {pl} spoke there least often?"),
    "place_most_person": ("In which room did {p} speak the most?",
                          "Where did I hear {p} most often?",
                          "Which room did {p} talk in most often?",
                          "Tell me the room where you heard {p} speak the greatest number of times."),
    "where_first_words": ("Where was I when the first person spoke?",
                          "Which room was I in when I heard the very first words?",
                          "Which room was I in when the very first words were spoken?",
                          "Do you know what room you were in when you heard the first words from anyone?"),
    "second_to_last_speaker": ("Who was the second to last person to speak?",
                               "Who spoke just before the final speaker?",
                               "Tell me who was the next-to-last person to say something.",
                               "Whose voice did you hear just before the final speaker?"),
    "people_more_than_person": ("How many people spoke more often than {p}?",
                                "How many of the people I heard talked more times than {p}?",
                                "Count the people who talked more times than {p}.",
                                "Do you know how many people spoke more frequently than {p}?"),
    "rooms_with_talk": ("In how many rooms did anyone speak?",
                        "How many different rooms did I hear people talking in?",
                        "How many different rooms did you hear someone talking in?",
                        "Tell me the number of rooms where anybody said something."),
    "same_room_pair": ("Did {p1} and {p2} ever speak in the same room?",
                       "Was there a room where I heard both {p1} and {p2}?",
                       "Is there any room where both {p1} and {p2} spoke, even if at different times?",
                       "Did {p1} and {p2} each say something in at least one shared room?"),
    "most_before_first": ("Before {p} first spoke, who had spoken the most?",
                          "Up to the first time {p} talked, who had talked most often?",
                          "Up until {p} said something for the first time, who had talked the most?",
                          "Who had spoken most often by the time {p} first spoke?"),
    "when_first_anyone": ("When did I first hear anyone speak?",
                          "At what time did the first person talk?",
                          "At what time did someone first say something?",
                          "Tell me when the first words were spoken."),
    "unknown_count_in_place": ("How many times did the person who said '{s}' speak in the {pl}?",
                               "In the {pl}, how often did I hear the person who said '{s}'?",
                               "Tell me how often the person who said '{s}' talked in the {pl}.",
                               "In the {pl}, how many times did the person who said '{s}' say something?"),
}


def op_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`OP_WORDINGS` in wording ``which`` of :data:`OP_SETS`."""
    f, out = Facts(scene), []
    turns, r = f.turns, random.Random(scene.seed * 29 + 17)

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": OP_WORDINGS[kind][which].format(**fields), "a": ref,
                    "answerable": answerable})

    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        p = r.choice(f.speakers)
        add("count_person_after_t", str(sum(e.person == p and e.start > t for e in turns)), p=f.who(p), t=clock(t))
    pairs = [(a, b) for a in edges for b in edges if 10 <= b - a <= 40]
    for a, b in r.sample(pairs, min(2, len(pairs))):
        p = r.choice(f.speakers)
        n = sum(e.person == p and a <= e.start and e.end <= b for e in turns)
        add("count_person_between_t", str(n), p=f.who(p), t1=clock(a), t2=clock(b))
    for pl in f.spoken_places:
        here = Counter(e.person for e in f.in_place(pl))
        low = f.unique(here, False) if len(here) >= 2 else None
        if low:
            add("least_in_place", f.who(low), pl=pl)
    for p in f.speakers:
        rooms = Counter(e.place for e in turns if e.person == p)
        if len(rooms) >= 2:
            best = f.unique(rooms, True)
            if best:
                add("place_most_person", f"in the {best}", p=f.who(p))
    for p in r.sample(f.speakers, min(2, len(f.speakers))):
        add("people_more_than_person", str(sum(c > f.count[p] for c in f.count.values())), p=f.who(p))
    add("where_first_words", f"in the {turns[0].place}")
    if len(turns) >= 2 and turns[-2].person != turns[-1].person:
        add("second_to_last_speaker", f.who(turns[-2].person))
    add("rooms_with_talk", str(len(f.spoken_places)))
    two = [(a, b) for i, a in enumerate(f.speakers) for b in f.speakers[i + 1:]]
    for a, b in r.sample(two, min(2, len(two))):
        shared = {e.place for e in turns if e.person == a} & {e.place for e in turns if e.person == b}
        add("same_room_pair", "Yes" if shared else "No", p1=f.who(a), p2=f.who(b))
    for p in f.speakers[2:]:
        first = next(i for i, e in enumerate(turns) if e.person == p)
        best = f.unique(Counter(e.person for e in turns[:first]), True)
        if best:
            add("most_before_first", f.who(best), p=f.who(p))
    add("when_first_anyone", mmss(turns[0].start))
    add("unknown_count_in_place", NOT_SAID, False, s=f.fake_sentence(r), pl=r.choice(f.spoken_places))
    return out
