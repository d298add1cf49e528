"""Question kinds first asked by wording sets a-d of ``wording_probe.py`` (written before their first run).

Eight kinds no earlier set (nor ``scene_bench.py``) asks: the time *between* two moments (from one person's first
turn to another's, from someone's last turn to the next turn of another, from a clock time to the next words), a
number of people compared with a number in a yes / no question (more than n overall, at least n in a room, fewer
than n after a time, exactly n before someone first spoke), and one about a person nobody heard (to decline). Sets
a and b ask the first and second wording (written with the kinds), c and d the third and fourth (written by a helper
agent that had not seen the code, only the kinds' meanings and one example each, which it was told not to copy), e
and f the fifth and sixth (written by a second helper that saw only the existing wordings' placeholders and meanings),
g and h the seventh and eighth (written by a third helper that saw only the earlier wordings' placeholders and
meanings), i and j the ninth and tenth (written by a fourth helper that saw only the earlier wordings' placeholders
and meanings), k and l the eleventh and twelfth (written by a fifth helper that saw only the earlier wordings'
placeholders and meanings).
References come from the scene definition (:class:`m3_agent_ros.bags.procedural_questions.Facts`): a time between
two moments is from the start of one's speech to the start of the other's, in whole seconds ("14 seconds"; the
judge allows its clock tolerance either way); a yes / no about a count asks one more or one fewer than the true
count about as often as the true count itself.
"""

from __future__ import annotations

import random

from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts, clock

GAP_SETS = "abcdefghijkl"   # c and d: wordings written by a helper that never saw the code; e and f by a second
#                           helper that saw only the kinds' existing wordings' placeholders and meanings; g and h by a
#                           third helper that saw only the earlier wordings' placeholders and meanings; i and j by a
#                           fourth helper that saw only the earlier wordings' placeholders and meanings; k and l
#                           by a fifth helper that saw only the earlier wordings' placeholders and meanings
GAP_WORDINGS: dict[str, tuple[str, ...]] = {
    "gap_first_turns": (
        "How long after {p1} first spoke did {p2} first speak?",
        "How many seconds passed between the first words of {p1} and the first words of {p2}?",
        "How many seconds went by between the first time {p1} said anything and the first time {p2} did?",
        "I heard {p1} speak for the first time; how much later did I first hear {p2}?",
        "So, counting from when {p1} first piped up, how long was it till {p2} piped up for the first time?",
        "First words from {p1}, then first words from {p2}: how far apart, in seconds?",
        "How much time went by from the first time {p1} talked to the first time {p2} talked?",
        "Could you tell me how long it was between {p1} first speaking and {p2} first speaking?",
        "How long was it from the first time {p1} spoke until the first time {p2} spoke?",
        "Can you tell me how soon after {p1} first talked {p2} said their first words?",
        "How long did it take {p2} to say their first words after {p1} said theirs?",
        "Please tell me the time from {p1} first talking to {p2} first talking."),
    "gap_after_last": (
        "How long after {p1} spoke for the last time did {p2} talk next?",
        "After {p1} last said something, how many seconds was it until {p2} spoke again?",
        "Once {p1} had said their final words, how many seconds passed before you next heard {p2}?",
        "After the last thing I heard from {p1}, how long did it take until {p2} spoke next?",
        "So {p1} said one last thing; how soon after that did {p2} start talking again?",
        "Seconds between the final remark of {p1} and the next remark of {p2}?",
        "How much time passed between the last thing {p1} said and the next thing {p2} said?",
        "Could you tell me how long it took {p2} to speak after {p1} said their last words?",
        "How long was it from the last words of {p1} until {p2} next spoke?",
        "After {p1} stopped talking for good, how many seconds went by before {p2} said something?",
        "How long was it between the final time {p1} spoke and the next time {p2} spoke?",
        "After {p1} was done talking for the last time, how soon did I next hear {p2}?"),
    "gap_from_clock": (
        "How long after {t} did someone first speak?",
        "From {t}, how many seconds did it take until I heard anyone talk?",
        "Starting from {t}, how many seconds did you wait before the next person said something?",
        "Counting from {t} on the clock, how long was it until I first heard anyone talk?",
        "So the clock hits {t}; how long till somebody says something?",
        "Until somebody next talked, how much time had gone by since {t}?",
        "How much time passed after {t} before anyone spoke?",
        "Could you tell me how long it was from {t} until somebody next talked?",
        "How long was it from {t} until the next time anyone spoke?",
        "After {t}, how soon did somebody speak?",
        "How many seconds after {t} did the next person talk?",
        "Please tell me how long it stayed quiet after {t} before someone spoke."),
    "more_than_n_people": (
        "Did more than {n} different people speak?",
        "Were there more than {n} people talking in all?",
        "Over the whole recording, did you hear over {n} different people talking?",
        "Did I hear speech from more than {n} separate people in total?",
        "Count up every distinct voice you heard: does that number go above {n}?",
        "More than {n} speakers overall, yes or no?",
        "Have more than {n} different people spoken?",
        "Have you heard more than {n} different voices?",
        "Were more than {n} people speaking overall?",
        "Can you tell me if over {n} people talked?",
        "Was the number of people who spoke greater than {n}?",
        "Altogether, did I hear from more than {n} people?"),
    "at_least_n_in_place": (
        "Did at least {n} different people talk in the {pl}?",
        "In the {pl}, did I hear {n} or more different people?",
        "When you were in the {pl}, did you hear {n} or more different people say something?",
        "Were there at least {n} distinct speakers that I heard in the {pl}?",
        "So counting only the {pl}, does the number of different voices reach {n}?",
        "Talking in the {pl}: {n} different people at minimum, yes or no?",
        "Did {n} or more different people speak in the {pl}?",
        "Could you tell me if at least {n} different people spoke in the {pl}?",
        "Did at least {n} people speak in the {pl}?",
        "In the {pl}, can you tell me if you heard at least {n} people talking?",
        "Did the {pl} have at least {n} different people speaking?",
        "Please tell me whether you heard no fewer than {n} people speak in the {pl}."),
    "fewer_than_n_after_t": (
        "Did fewer than {n} people speak after {t}?",
        "After {t}, were there fewer than {n} different people talking?",
        "Once it was past {t}, did you hear fewer than {n} different people speak?",
        "Did I hear speech from under {n} distinct people after the clock read {t}?",
        "Less than {n} different speakers after {t}, right?",
        "If you only count what came after {t}, is the number of people who talked smaller than {n}?",
        "Did you hear fewer than {n} different people after {t}?",
        "Could you tell me if fewer than {n} people said anything after {t}?",
        "Were fewer than {n} people talking after {t}?",
        "Once the clock passed {t}, did fewer than {n} people speak?",
        "Between {t} and the end, did fewer than {n} people speak?",
        "Past {t}, did I hear from under {n} people?"),
    "exactly_n_people_before_other": (
        "Had exactly {n} people spoken before {p1} first spoke?",
        "Before {p1} said anything, had I heard exactly {n} different people?",
        "By the time {p1} said something for the first time, had you heard exactly {n} other people talk?",
        "Before I first heard {p1}, had exactly {n} different people already spoken?",
        "So up to the moment {p1} opened their mouth for the first time, you'd heard precisely {n} voices, true?",
        "Precisely {n} distinct speakers ahead of the first words from {p1}, correct?",
        "Did exactly {n} different people talk before {p1} said their first words?",
        "Could you tell me whether exactly {n} people had spoken before you first heard {p1}?",
        "Did exactly {n} people speak before {p1} spoke for the first time?",
        "Can you tell me whether exactly {n} people talked before {p1} first said something?",
        "Before {p1} first spoke, had exactly {n} people already talked?",
        "Please tell me if I'd heard exactly {n} people before {p1} first said anything."),
}
# the first-turns question about a person nobody heard (to decline)
GAP_WORDINGS["gap_unknown"] = GAP_WORDINGS["gap_first_turns"]
MIN_GAP_S = 4   # a time between two moments shorter than this is within the judge's tolerance of zero: not asked


def seconds(n: float) -> str:
    k = int(round(n))
    return f"{k} second{'s' if k != 1 else ''}"


def gap_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`GAP_WORDINGS` in wording ``which`` of :data:`GAP_SETS`."""
    f, out = Facts(scene), []
    turns, r = f.turns, random.Random(scene.seed * 41 + 13)

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": GAP_WORDINGS[kind][which].format(**fields), "a": ref,
                    "answerable": answerable})

    def said(e) -> float:  # noqa: ANN001
        return (e.speech or (e.start, e.end))[0]

    def yes_no(true: int, ask_more: bool, op: str) -> tuple[int, str]:
        """A number to ask about and the answer: the true count, or one past it on the side that flips the answer."""
        n = true if r.random() < 0.5 else (true - 1 if ask_more else true + 1)
        n = max(n, 2)   # ("1 people" reads badly, and a question about one person is another kind)
        holds = {">": true > n, ">=": true >= n, "<": true < n, "=": true == n}[op]
        return n, "Yes" if holds else "No"

    first = {p: said(next(e for e in turns if e.person == p)) for p in f.speakers}
    pairs = [(a, b) for i, a in enumerate(f.speakers) for b in f.speakers[i + 1:] if first[b] - first[a] >= MIN_GAP_S]
    for a, b in r.sample(pairs, min(2, len(pairs))):
        add("gap_first_turns", seconds(first[b] - first[a]), p1=f.who(a), p2=f.who(b))
    lasts = []
    for a in f.speakers:
        last = max((e for e in turns if e.person == a), key=said)
        for b in f.speakers:
            nxt = next((e for e in turns if e.person == b and said(e) > said(last)), None)
            if b != a and nxt is not None and said(nxt) - said(last) >= MIN_GAP_S:
                lasts.append((a, b, said(nxt) - said(last)))
    for a, b, gap in r.sample(lasts, min(2, len(lasts))):
        add("gap_after_last", seconds(gap), p1=f.who(a), p2=f.who(b))
    quiet = []   # a whole second at least MIN_GAP_S before someone's words, in silence (no words within 1 s of it)
    for i, e in enumerate(turns):
        ends = [(x.speech or (x.start, x.end))[1] for x in turns[:i]]
        quiet += [(t, said(e)) for t in range(max(1, int(said(e)) - 15), int(said(e) - MIN_GAP_S) + 1)
                  if all(x < t - 1 for x in ends) and all(said(x) > t + 1 for x in turns[i:])]
    for t, nxt in r.sample(quiet, min(2, len(quiet))):
        add("gap_from_clock", seconds(nxt - t), t=clock(t))
    n, ref = yes_no(len(f.speakers), True, ">")
    add("more_than_n_people", ref, n=str(n))
    for pl in r.sample(f.spoken_places, min(2, len(f.spoken_places))):
        n, ref = yes_no(len({e.person for e in f.in_place(pl)}), False, ">=")
        add("at_least_n_in_place", ref, n=str(n), pl=pl)
    edges = f.window_edges()
    for t in r.sample(edges, min(1, len(edges))):
        k = len({e.person for e in turns if said(e) > t})
        if k:
            n, ref = yes_no(k, False, "<")
            add("fewer_than_n_after_t", ref, n=str(n), t=clock(t))
    for p in r.sample(f.speakers[1:], min(2, len(f.speakers) - 1)):
        k = len({e.person for e in turns if said(e) < first[p]})
        n, ref = yes_no(k, r.random() < 0.5, "=")
        add("exactly_n_people_before_other", ref, n=str(n), p1=f.who(p))
    if f.speakers:
        add("gap_unknown", NOT_SAID, False, p1=f"the person who said '{f.fake_sentence(r)}'",
            p2=f.who(r.choice(f.speakers)))
    return out
