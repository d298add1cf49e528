"""Question forms stop 71's held-out probes (seeds 661, 663-664) found answered wrong, on the hand-built meeting of
tests/test_query_executor.py (Ann in the kitchen and the lab, Bo in the kitchen and the office, Cy in the office and
the lab; a scripted model writes the frame the small model wrote there). Asked at 1:31.
"""

from __future__ import annotations

import pytest

from .test_query_also import BO, CY
from .test_query_also import check_frame as _check
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

# ---- "was C heard in P before B?" where B never spoke in P: that, and C's turns there (or none) ----

@pytest.mark.parametrize("question, frame, named, absent", [
    # Bo never spoke in the lab; Cy did, at 1:10 and 1:20: both facts, not the first alone
    (f"Was {CY} heard in the lab before {BO}?", f'find=yes who="{TECH}" other="{COFFEE}" rel=before',
     [f'I did not hear the person who said "{COFFEE}" in the lab', "spoke there at 01:10 and 01:20"], ["01:05"]),
    # Ann never spoke in the office; Cy did, at 0:35
    (f"Was {CY} heard in the office before Ann?", f'find=yes who="{TECH}" other="Ann" rel=before',
     ["I did not hear Ann in the office", "spoke there at 00:35"], ["00:40"]),
])
def test_before_someone_never_there(ex, question, frame, named, absent):  # noqa: F811
    _check(ex, question, frame, "I did not hear", named, absent)


# ---- "who spoke last (second to last)?" says when that turn began, as "when did A last speak?" does ----

@pytest.mark.parametrize("question, frame, start, at, ended", [
    ("Who spoke last in the lab?", 'find=who pick=last place="lab" act=spoke', "Ann spoke last in the lab",
     "(01:25)", "01:27"),
    ("Who spoke second to last in the lab?", 'find=who pick=-2 place="lab" act=spoke',
     f'The person who said "{TECH}" was the second to last person to speak in the lab', "(01:20)", "01:22"),
])
def test_last_speaker_says_when_the_turn_began(ex, question, frame, start, at, ended):  # noqa: F811
    _check(ex, question, frame, start, [at], [ended])


# ---- a birth place or year is a thing of their life: what they said about it, never where they were seen ----

@pytest.mark.parametrize("question, frame", [
    (f"Where was {CY} born?", f'find=where who="{TECH}" act=seen'),
    ("When was Ann born?", 'find=when who="Ann"'),
])
def test_where_born_is_their_life(ex, question, frame):  # noqa: F811
    _check(ex, question, frame, "I don't remember", ["where they were born" if "Where" in question else
                                                     "when they were born"], ["office", "lab", "00:"])


# ---- "how many different people spoke right after A?": over all of A's turns, each person with when ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # after Ann: Bo (0:10), Cy (0:35 and 1:10); nobody after Ann's last turn (1:25)
    ("How many different people spoke right after Ann?", 'find=count_people other="Ann" rel=right_after',
     "2 different people spoke right after Ann", [f'"{COFFEE.capitalize()}" (at 00:10)', "(at 00:35 and 01:10)"],
     ["01:20"]),
    # right before Cy: Ann (0:20 before 0:35, 1:05 before 1:10); Cy's 1:20 came after Cy's own turn
    (f"How many people spoke right before {CY}?", f'find=count_people other="{TECH}" rel=right_before',
     "1 different person spoke right before", ["Ann (at 00:20 and 01:05)"], ["01:10 and", "00:40"]),
])
def test_different_people_right_after(ex, question, frame, start, named, absent):  # noqa: F811
    _check(ex, question, frame, start, named, absent)


# ---- "did anyone speak more often than A in P?": against A's count there, both counts said ----

@pytest.mark.parametrize("question, start, named, absent", [
    # the lab: Ann twice, Cy twice: nobody more (it was "nobody spoke in the lab")
    ("Did anyone speak more often than Ann in the lab?", "No, nobody spoke more often than Ann in the lab",
     ["(Ann spoke twice)"], ["nobody spoke in the lab"]),
    # the office: Ann never; Bo and Cy once each
    ("Did anyone speak more often than Ann in the office?", "Yes,", ["(once)", "Ann did not speak"], []),
])
def test_anyone_more_often_than_them_in_a_place(ex, question, start, named, absent):  # noqa: F811
    _check(ex, question, 'find=yes who="Ann" times>other', start, named, absent)


# ---- "was I in P when A (last) spoke?": the robot's place at that turn, not a second person "spoke last" ----

@pytest.mark.parametrize("question, start, named", [
    (f"Was I in the office when {CY} last spoke?", "No: when", ["(01:20) I was in the lab, not in the office"]),
    (f"Was I in the lab when {CY} last spoke?", "Yes, I was in the lab when", ["(01:20)"]),
    (f"Were we in the office when {BO} first spoke?", "No: when", ["(00:10) I was in the kitchen"]),
    ("Was I in the office when Ann spoke for the third time?", "No: when Ann spoke for the third time (01:05)",
     ["in the lab"]),
    ("Was I in the kitchen when Ann spoke?", "Only sometimes", ["00:02 (in the kitchen)", "01:25 (in the lab)"]),
])
def test_robot_place_when_someone_spoke(ex, question, start, named):  # noqa: F811
    _check(ex, question, 'find=yes who="Ann" other="spoke last" place="office" act=spoke', start, named, [])


# ---- "was A ever the last (first) speaker in a room?": each room's end against A ----

@pytest.mark.parametrize("question, start, named", [
    (f"Was {CY} ever the last speaker in a room?", f'No, the person who said "{TECH}" spoke last in no room',
     ["the kitchen: Ann at 00:20", "the lab: Ann at 01:25"]),
    ("Was Ann ever the first person to speak in a room?", "Yes: Ann spoke first in the kitchen (at 00:02)",
     ["the lab (at 01:05)"]),
    (f"Did {BO} ever speak last in any room?", "Yes:", ["spoke last in the office (at 00:40)"]),
])
def test_ever_a_rooms_first_or_last(ex, question, start, named):  # noqa: F811
    _check(ex, question, 'find=yes who="Ann" other="spoke last" place="x four"', start, named, [])


# ---- the time between two people's turns, each by its place in time ("A's last turn and C's last turn") ----

@pytest.mark.parametrize("question, named", [
    # Cy's last turn 1:20 (to 1:22), Ann's last 1:25 (it was their first turns: 0:35 and 1:05)
    (f"How long was the gap between Ann's last turn and {CY}'s last turn?",
     [f"\"{TECH}\"'s last turn (01:20, ended at 01:22) and Ann's last turn (01:25)", "5 seconds from the start"]),
    (f"How many seconds passed between the first turn of {BO} and Ann's last turn?",
     [f"\"{COFFEE}\"'s first turn (00:10, ended at 00:12)", "Ann's last turn (01:25)", "75 seconds passed between"]),
    (f"How many seconds passed between Ann's first words and {BO}'s first words?",
     ["Ann's first turn (00:02", "first turn (00:10)", "8 seconds from the start"]),
])
def test_gap_between_two_peoples_turns(ex, question, named):  # noqa: F811
    _check(ex, question, f'find=gap who="Ann" other="{TECH}" rel=after act=spoke', "", named, ["00:35", "01:05)"])


# ---- "who spoke more often in P1 than in P2?": each person's two counts (the model wrote who="office") ----

@pytest.mark.parametrize("question, named, absent", [
    # the lab: Ann twice, Cy twice; the kitchen: Ann twice, Bo once: only Cy
    ("Who spoke more often in the lab than in the kitchen?", [f'"{TECH}" (twice in the lab, never in the kitchen)'],
     ["Ann", "coffee"]),
    ("Who spoke more often in the kitchen than in the office?", ["Ann (twice in the kitchen, never in the office)"],
     ["technician", "coffee"]),
])
def test_each_persons_counts_in_two_places(ex, question, named, absent):  # noqa: F811
    _check(ex, question, 'find=more who="lab" other="kitchen"', "", named, absent)


# ---- "did C speak after everyone else had spoken?": C's first words against everyone else's ----

@pytest.mark.parametrize("question, start, named", [
    (f"Did {CY} speak after everyone else had spoken?", "Yes: ", ["first spoke at 00:35", "Ann (00:02)"]),
    (f"Did {BO} speak after everyone else had spoken?", "No: ", ["first spoke at 00:10", "(00:35)"]),
    ("Did Ann talk before everybody else?", "Yes: Ann first spoke at 00:02, before everyone else's first words", []),
    (f"Did {BO} speak before all the others?", "No: ", ["after the first words of Ann (00:02)"]),
])
def test_first_words_against_everyone_elses(ex, question, start, named):  # noqa: F811
    _check(ex, question, f'find=yes who="{TECH}" other="spoke first"', start, named, [])


# ---- ... a person named by words the transcript holds a little differently is still said as the question said ----

def test_gap_between_two_peoples_turns_as_the_question_named_them(ex):  # noqa: F811
    # "the coffee machine was broken": Bo's "the coffee machine is broken" heard (it was refused by the check: the
    # question's words were in no result of the answer's)
    _check(ex, "How much time passed between the first turn of the person who said 'the coffee machine was broken' "
           "and Ann's last turn?", 'find=gap who="Ann" other="the coffee machine was broken" rel=after_last',
           "", ['"the coffee machine was broken"\'s first turn (00:10', "75 seconds passed between"], ["can't answer"])


# ---- a count with an n-th pick the question does not say ("... before C first spoke" written pick=2) ----

def test_a_count_drops_a_pick_the_question_does_not_rank(ex):  # noqa: F811
    # Ann in the lab before Cy first spoke there (1:10): her 1:05; a pick=2 left nothing to count ("never")
    _check(ex, f"How many times did Ann speak in the lab before {CY} first spoke?",
           f'find=count_times who="Ann" other="{TECH}" rel=before pick=2 place="lab"', "", ["once"], ["never"])
