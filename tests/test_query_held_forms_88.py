"""Question forms found by stop 88's blind probes (held-out scenes 779-782).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9, Cy 1:20-1:21.9

Seconds in all: Ann 5.9 (3 turns), Bo 5.8 (3 turns), Cy 6.3 (4 turns). Office: Cy 4.4, Bo 3.8.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from m3_control.query import QueryExecutor
from m3_control.query.fidelity import act_of_question
from m3_control.query.requests import direct_question
from m3_control.query.routing import asks_talk_seconds
from m3_control.query.speech_places import asks_speech_places
from m3_control.query.turn_average import asks_average
from m3_control.query.turn_stats import asks_stats
from m3_memory.poses import Pose

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, _poses
from .test_query_held_forms_83 import RED, seconds_meeting, sx  # noqa: F401  (the fixture)

ANN = f'the person who said "{RED}"'
BO = f'the person who said "{COFFEE}"'
CY = f'the person who said "{TECH}"'


# ---- held-out 779: "whose total speaking time was the longest?" listed everyone who spoke: the superlative after
# "speaking time was the" was not read as ranking people by their seconds ----

@pytest.mark.parametrize("question, named, absent", [
    ("Whose total speaking time was the longest?", CY, [ANN, BO]),
    ("Whose speaking time was the shortest?", BO, [ANN, CY]),
    ("Whose speech time in the office was the greatest?", CY, [ANN, BO]),
    ("Who had the largest total talking time?", CY, [ANN, BO]),
    ("Whose talking time is the smallest?", BO, [ANN, CY]),
])
def test_speaking_time_was_the_longest_ranks_people_by_seconds(sx, question, named, absent):  # noqa: F811
    got = answer(sx, question, "find=who times>0").answer.lower()
    assert named.lower() in got and not any(a.lower() in got for a in absent), got


# ---- held-out 779: "how long was the pause after B's last turn?" said "nobody spoke for 3 seconds after B (01:02 to
# 01:04)": the span in brackets is B's turn, but read as the pause's ----

def test_the_pause_after_a_turn_says_whose_turn_the_bracketed_span_is(sx):  # noqa: F811
    got = answer(sx, f"How long was the pause after {BO}'s last turn?", f'find=gap who="{COFFEE}" act=spoke').answer
    assert got.startswith(f"Nobody spoke for 3 seconds after {BO} (who spoke from 00:50 to 00:52); then {CY} spoke "
                          "at 00:55"), got


# ---- noticed at stop 86, fixed at 88: "how many people spoke at least twice?" was answered "3 people did." without
# saying who: a count of people under a condition on their turns names the people it counted ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # (Ann has a name in this meeting: the answers call her Ann)
    ("How many people spoke at least four times?", "find=count_people times>=4", "1 person did: ", [CY], ["Ann", BO]),
    ("How many people spoke more than twice in the office?", 'find=count_people place="office" times>2',
     "1 person did in the office: ", [CY], ["Ann", BO]),
    ("How many people spoke exactly three times?", "find=count_people times=3", "2 people did: ", ["Ann", BO], [CY]),
    ("How many people spoke more than five times?", "find=count_people times>5", "Nobody did", [], ["Ann", BO, CY]),
])
def test_a_count_of_people_by_their_turns_names_them(sx, question, frame, start, named, absent):  # noqa: F811
    got = answer(sx, question, frame).answer
    low = got.lower()
    assert got.startswith(start) and all(n.lower() in low for n in named), got
    assert not any(a.lower() in low for a in absent), got


# ---- noticed at stop 87, fixed at 88: a crossing from one room to the next in under a second read "on my way from the
# workshop (left at 00:50) to the lab (there at 00:50)": one clock for both ends is said once ----

def _quick_poses(clip: int) -> list[Pose]:
    """The meeting's track, the robot crossing from the kitchen (x 0) to the office (x 8) between 30.6 s and 31.4 s."""
    if clip != 1:
        return _poses(clip)
    crossing = [Pose(30.0, 0.0, 0.0, 0.0, 0.0, "map"), Pose(30.6, 0.0, 0.0, 0.0, 0.0, "map")]
    crossing += [Pose(t, 4.0, 0.0, 0.0, 0.0, "map") for t in (30.8, 31.0, 31.2)]
    return crossing + [Pose(31.4, 8.0, 0.0, 0.0, 0.0, "map")] + [p for p in _poses(clip) if p.t >= 31.5]


@pytest.fixture
def quick(db_at) -> Iterator[QueryExecutor]:
    with seconds_meeting(db_at("quick.db"), _quick_poses) as meeting:
        yield meeting


def test_a_crossing_within_one_second_says_its_clock_once(quick):
    got = answer(quick, "Which room was I in at 0:31?", "find=where at=0:31").answer
    assert got == "At 00:31 I was on my way from the kitchen to the office (I left the one and got to the other at " \
        "00:31).", got


# ---- held-out 781: "list the people in the order I first heard them" named only the first speaker: the order clause
# after "the people" ("in the order I first heard them") asks for everyone by their first words ----

@pytest.mark.parametrize("question", ["List the people in the order I first heard them.",
                                      "Name everyone in the order that we heard them.",
                                      "In what order did I hear the people?"])
def test_people_in_the_order_i_heard_them(sx, question):  # noqa: F811
    got = answer(sx, question, "find=who act=spoke").answer
    assert "in the order of their first words" in got, got
    low = got.lower()
    assert low.index("ann") < low.index(BO.lower()) < low.index(CY.lower()), got


# ---- held-out 781/782: "what was B's average turn length?" quoted B's words and "on average, how long were A's
# turns?" gave A's total: the average is the detected speech over the number of turns ----

_AVERAGES = [
    (f"What was {BO}'s average turn length?", f'find=what who="{COFFEE}" act=spoke',
     f"{BO[0].upper()}{BO[1:]} spoke 3 times, 1.9 seconds a turn on average (5.8 seconds in all)."),
    (f"On average, how long were {BO}'s turns?", f'find=how_long who="{COFFEE}"',
     f"{BO[0].upper()}{BO[1:]} spoke 3 times, 1.9 seconds a turn on average (5.8 seconds in all)."),
    ("What was the average length of the turns in the office?", 'find=what place="office"',
     "I heard 5 turns in the office, 1.6 seconds long on average (8.2 seconds in all)."),
    ("How long did Ann speak per turn in the kitchen?", 'find=how_long who="Ann" place="kitchen"',
     "Ann spoke once in the kitchen, for 2 seconds."),
]


@pytest.mark.parametrize("question", ["How many times on average did people speak?", "How long did Ann talk in all?",
                                      "What was Ann's longest turn?"])
def test_not_an_average_turn_length(question):
    assert asks_average(question) is None


# ---- held-out 781/782: "which room was quieter, the workshop or the office?" (a search: "no memory") and "in which
# room did I hear more speech?" (everyone heard, listed): rooms compared by their seconds of detected speech ----

_ROOMS_BY_SPEECH = [
    ("Which room was quieter, the kitchen or the lab?", 'find=where pick=least place="kitchen"',
     "I heard less speech in the kitchen (seconds of speech: the kitchen 4 seconds; the lab 6 seconds)."),
    ("In which room did I hear the most speech?", "find=where count=3",
     "I heard the most speech in the office (seconds of speech: the kitchen 4 seconds; the office 8 seconds; the lab "
     "6 seconds)."),
    ("Was the lab noisier than the office?", 'find=yes place="lab"',
     "No: I heard 6 seconds of speech in the lab and 8 seconds in the office."),
    ("Was there more talking in the office than in the kitchen?", 'find=more place="office"',
     "Yes: I heard 8 seconds of speech in the office and 4 seconds in the kitchen."),
]




# ---- held-out 782: "for how many seconds in total was someone talking?" went to a search ("no memory"): seconds of
# speech are the turn records' durations added up; "how many speakers" asks about voices ----

@pytest.mark.parametrize("question", ["For how many seconds in total was someone talking?",
                                      "How much speech was there in the lab?",
                                      "How many seconds of conversation did I hear after 0:30?"])
def test_seconds_of_talk_go_to_the_records(question):
    assert asks_talk_seconds(question)


def test_seconds_of_talk_is_a_total(sx):  # noqa: F811
    got = answer(sx, "For how many seconds in total was someone talking?", "find=gap").answer
    assert got == "People spoke for 18 seconds in all.", got


def test_speakers_are_people_heard():
    assert act_of_question("How many speakers were there in all?") == "spoke"
    assert not asks_talk_seconds("What did Ann say about the coffee?")


# ---- held-out 781: "did A speak within 5 seconds of entering the office?" was read as a window of 0:00-0:05: "of
# entering (leaving) the X" is the robot's move, like "of my arrival in the X" ----

@pytest.mark.parametrize("question, said", [
    ("Did anyone speak within 5 seconds of entering the office?", "Yes, "),
    (f"Did {BO} speak within 5 seconds of entering the office?", f"No, {BO} did not speak within 5 seconds of my "
     "arrival in the office."),
    ("Did anyone speak within 3 seconds of leaving the kitchen?", "No, nobody spoke within 3 seconds of my leaving the "
     "kitchen."),
])
def test_within_seconds_of_entering_or_leaving(sx, question, said):  # noqa: F811
    got = answer(sx, question, "find=yes from=0:00 to=0:05 act=spoke").answer
    assert got.startswith(said), got


# ---- held-out 783/784: figures no frame field holds ("how much longer did A talk than B?", "how many turns more than B
# did A take?", "what share of the turns were B's?", "how many turns per minute?", "what percentage of the recording
# had someone speaking?") were answered by a neighbouring frame ("A spoke more often", "I heard 16 turns") or a search:
# code computes each from everyone's voice turns (turn_stats.py). The meeting is recorded from 0:00 to 1:30 ----

_FIGURES = [
    (f"How many more times did {CY} speak than Ann?", f'find=count_times who="{TECH}" other="Ann"',
     f"{CY[0].upper()}{CY[1:]} spoke once more: 4 times, Ann 3 times."),
    (f"How many more times did Ann speak than {CY}?", f'find=more who="Ann" other="{TECH}"',
     f"The other way round: {CY} spoke once more: 4 times, Ann 3 times."),
    (f"How many turns more than {BO} did {CY} take?", f'find=count_times who="{COFFEE}" other="{TECH}"',
     f"{CY[0].upper()}{CY[1:]} spoke once more: 4 times, {BO} 3 times."),
    (f"How much longer did Ann talk than {CY} in the lab?", f'find=more who="Ann" other="{TECH}" place="lab"',
     f"Ann spoke for 2 seconds longer in the lab: 4 seconds in all, {CY} 2 seconds."),
    (f"What share of the turns were {CY}'s?", f'find=what who="{TECH}"',
     f"{CY[0].upper()}{CY[1:]} took 4 of the 10 turns I heard (40 %)."),
    (f"What fraction of the speaking time was {BO}'s?", f'find=how_long who="{COFFEE}"',
     f"{BO[0].upper()}{BO[1:]} spoke for 6 of the 18 seconds of speech I heard (32 %)."),
    ("How many turns per minute did I hear?", "find=count_times from=0:00 to=1:00",
     "I heard 10 turns in 90 seconds of recording: 6.7 a minute."),
    ("What percentage of the recording had someone speaking?", "find=how_long",
     "Someone was speaking for 18 of the 90 seconds recorded (20 %); nobody for the other 72 (80 %)."),
    ("For what percentage of the time was nobody speaking?", "find=what times=0",
     "Nobody was speaking for 72 of the 90 seconds recorded (80 %); someone was, for 18 (20 %)."),
    # ... people ranked by their average turn: Ann 2.0 s (3 turns), Bo 1.9 s (3), Cy 1.6 s (4)
    # (the ranked people are named as heard: "The coffee machine is broken.")
    ("Who had the longest average turn?", "find=who by=turn times>0",
     'Ann had the longest turns on average (2 seconds over 3 turns); the others: the person who said "The coffee '
     f'machine is broken" 1.9 seconds over 3 turns; {CY} 1.6 seconds over 4 turns.'),
    ("Whose turns were the shortest on average?", "find=who by=turn times=0", f"{CY[0].upper()}{CY[1:]} had the "
     'shortest turns on average (1.6 seconds over 4 turns); the others: Ann 2 seconds over 3 turns; the person who '
     'said "The coffee machine is broken" 1.9 seconds over 3 turns.'),
    # ... the first and the last speaker compared (783's "did the first speaker also speak last?" was right already)
    ("Was the last speaker the same person as the first speaker?", "find=same",
     f"No: Ann spoke first (at 00:02), {CY} last (at 01:20)."),
]


@pytest.mark.parametrize("question, frame, said", _AVERAGES + _ROOMS_BY_SPEECH + _FIGURES)
def test_averages_rooms_by_speech_and_figures_over_the_turns(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


@pytest.mark.parametrize("asks, question", [
    *((asks_speech_places, q) for q in ("Which room had the most people?", "Which room did I spend the most time in?",
                                        "Was Ann quieter than Bo?", "Which room had the most turns?")),
    *((asks_stats, q) for q in ("How many times did Ann speak?", "What did Ann say more than Bo?",
                                "How long did Ann talk in all?", "Which room was I in for most of the time?")),
])
def test_not_rooms_by_speech_nor_figures(asks, question):
    assert asks(question) is None


# ---- held-out 784: "between A and C, whose total speaking time was greater?" was read as a window between their
# turns and named a third person; 783: "which of B and C spoke more in total, in seconds?" was answered by turns ----

def test_between_two_people_is_a_choice_of_them():
    assert direct_question("Between Ann and Bo, whose total speaking time was greater?") == \
        "Whose total speaking time was greater, Ann or Bo?"
    assert direct_question(f"Between {BO} and {CY}, who spoke last?") == f"Who spoke last, {BO} or {CY}?"
    kept = "Between Ann's first turn and Bo's, who spoke?"
    assert direct_question(kept) == kept


@pytest.mark.parametrize("question, frame", [
    (f"Between {BO} and {CY}, whose total speaking time in the office was greater?",
     f'find=who other="{TECH}" rel=right_before_last pick=most'),
    (f"Which of {BO} and {CY} spoke more in total, in seconds?", f'find=more who="{COFFEE}" other="{TECH}"'),
])
def test_two_people_compared_by_seconds(sx, question, frame):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert "second" in got and "often" not in got and "between" not in got, got
