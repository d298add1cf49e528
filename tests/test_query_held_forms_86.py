"""Question forms found by stop 86's blind probes (held-out scenes 761-766), and forms noticed at stop 85.

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35, Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55 (TECH)
    lab     1:00-1:30: Ann 1:05, Ann 1:10, Cy 1:20-1:21.9
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from m3_control.query import QueryExecutor
from m3_control.query.before_move import asks_before_move
from m3_control.query.polarity import finds_for
from m3_control.query.quiet import asks_hush
from m3_control.query.requests import direct_question
from m3_control.query.robot_track import visits
from m3_memory.poses import Pose

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, _poses
from .test_query_held_forms_83 import RED, seconds_meeting, sx  # noqa: F401  (the fixture)

ANN = f'the person who said "{RED}"'
BO = f'the person who said "{COFFEE}"'


# ---- noticed at 85: a time asked before a turn that nobody spoke before said "... anyone speaking after that" when the
# relation came as right_before (only "before" was read as looking back) ----

@pytest.mark.parametrize("question, frame", [
    (f"How long before {ANN}'s first turn did anyone speak?", f'find=gap who="{RED}" rel=right_before pick=first'),
    (f"How long before {ANN}'s first turn did anyone speak?", f'find=gap other="{RED}" rel=before'),
    (f"How many seconds passed between the previous turn and the first turn of {ANN}?",
     f'find=gap who="{RED}" act=spoke rel=right_before pick=first'),
])
def test_no_turn_before_the_first_one_is_said_to_be_before(sx, question, frame):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith(("I don't remember anyone speaking before that", "Nobody spoke before")), got


# ---- noticed at 85 (757): "was A ever the next speaker after B?" answered yes with the first time only: "the next
# speaker after", "the previous speaker before" are read as "right after (before)", over all of B's turns ----

CY = f'the person who said "{TECH}"'


@pytest.mark.parametrize("question, frame, said", [
    (f"Was {CY} ever the next speaker after {BO}?", f'find=yes who="{TECH}" other="{COFFEE}" rel=right_after',
     "Yes, the person who said \"I will call the technician\" spoke right after"),
    (f"Was {BO} ever the previous speaker before {CY}?", f'find=yes who="{COFFEE}" other="{TECH}" rel=right_before',
     "Yes, the person who said \"the coffee machine is broken\" spoke right before"),
    (f"Was {CY} ever the next person to speak after {BO}?", f'find=yes who="{TECH}" other="{COFFEE}" rel=after',
     "Yes, the person who said \"I will call the technician\" spoke right after"),
])
def test_ever_the_next_speaker_lists_every_time(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    # Bo 0:10 -> Cy 0:35, Bo 0:40 -> Cy 0:45, Bo 0:50 -> Cy 0:55
    times = ("00:35", "00:45", "00:55") if "after" in said else ("00:10", "00:40", "00:50")
    assert got.startswith(said) and all(t in got for t in times), got


def test_never_the_next_speaker_is_no(sx):  # noqa: F811
    got = answer(sx, f"Was {ANN} ever the next speaker after {BO}?",
                 f'find=yes who="{RED}" other="{COFFEE}" rel=right_after').answer
    assert got.startswith("No,") and "never spoke right after" in got, got


# ---- noticed at 85 (759): "who spoke first in the bedroom, and what did they say?" gave all of that person's words:
# a second ask of a person picked by their first (last) turn is about that turn ----

@pytest.mark.parametrize("question, frame, said, absent", [
    ("Who spoke first in the lab, and what did they say?", 'find=who place="lab" pick=first',
     'Ann said "Thanks for the help".', "Bye everyone"),
    ("Who spoke first, and what did they say?", "find=who pick=first",
     'Ann said "Put the red folder on the desk".', "Thanks"),
    ("Who spoke last in the office, and when?", 'find=who place="office" pick=last', "at 00:55.", "00:35"),
])
def test_a_second_ask_of_a_first_or_last_speaker_is_about_that_turn(sx, question, frame, said, absent):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.endswith(said) and absent not in got, got


def test_a_second_ask_of_how_often_still_counts_every_turn(sx):  # noqa: F811
    got = answer(sx, "Who spoke first, and how many times?", "find=who pick=first").answer
    assert got.endswith("Ann spoke 3 times."), got


# ---- held-out 763: "how long, in seconds, did C talk in total?" was read as a yes or no question (the aside between
# commas left "did C talk in total?") and answered "Yes, C spoke 5 times" ----

@pytest.mark.parametrize("question, finds", [
    (f"How long, in seconds, did {BO} talk in total?", "how_long"),
    (f"How many times, in total, did {BO} speak?", "count_times"),
    ("Who, in the end, spoke last?", "who"),
])
def test_an_aside_between_commas_keeps_the_question_word(question, finds):
    assert finds in finds_for(question) and "yes" not in finds_for(question), finds_for(question)


@pytest.mark.parametrize("question", [
    "When she spoke for the last time, did anyone answer?", "In the office, did anyone speak twice?",
    "Fewer than 3 speakers after 1:10, right?",
])
def test_a_leading_clause_before_a_yes_or_no_question_is_still_one(question):
    assert finds_for(question)[0] == "yes", finds_for(question)


def test_an_aside_in_a_duration_question_is_answered_in_seconds(sx):  # noqa: F811
    got = answer(sx, f"How long, in seconds, did {BO} talk in total?", f'find=how_long who="{COFFEE}"').answer
    assert got.startswith(f"{BO[0].upper()}{BO[1:]} spoke for 6 seconds"), got


# ---- held-out 763: "was it quiet at 0:33?" was answered "Yes, C was seen at 00:33" (C was speaking then): whether
# nobody spoke is the other way round from whether anyone did, and asks about hearing ----

@pytest.mark.parametrize("question, frame, start, named", [
    ("Was it quiet at 0:36?", "find=yes at=0:36", "No, the person who said \"I will call the technician\" was speaking",
     ["00:35"]),
    ("Was it quiet at 0:33?", "find=yes at=0:33", "Yes, nobody spoke at 00:33", ["the nearest"]),
    ("Was there silence at 0:45?", "find=yes at=0:45", "No,", ["was speaking at 00:45"]),
    ("Was nobody speaking at 0:36?", "find=yes at=0:36", "No,", ["was speaking at 00:36"]),
    ("Did nobody speak between 0:20 and 0:30?", "find=yes from=0:20 to=0:30", "Yes, nobody spoke between 00:20 and "
     "00:30", []),
    ("Was it silent between 0:05 and 0:15?", "find=yes from=0:05 to=0:15", "No, the person who said \"The coffee "
     "machine is broken\" spoke between 00:05 and 00:15: at 00:10", []),
    ("Was the office quiet at 0:45?", 'find=yes at=0:45 place="office"', "No,", ["in the office at 00:45"]),
    ("Was it quiet in the lab after 1:15?", 'find=yes place="lab" from=1:15', "No,", ["in the lab after 01:15",
                                                                                     "01:20"]),
    ("Was the room quiet at 0:33?", "find=yes at=0:33", "Yes, nobody spoke at 00:33", []),
    # a frame that says nothing of the question: the time is read from it
    ("Was it quiet at 0:36?", 'find=more who="the person who looked sad" other="the person who looked happy"',
     "No,", ["was speaking at 00:36"]),
])
def test_whether_nobody_spoke_is_answered_from_who_did(sx, question, frame, start, named):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith(start) and all(n in got for n in named) and "seen" not in got, got


@pytest.mark.parametrize("question", [
    "Was there a silence longer than 10 seconds?", f"Was {BO} quiet in the office?", "Was it quiet in the kitchen, "
    f"when {BO} spoke?",
])
def test_other_quiet_questions_are_not_whether_nobody_spoke(question):
    assert not asks_hush(question)


# ---- held-out 763: "which rooms did I visit, in order?" written act=seen was answered with the people seen in each
# room: visiting (moving, having been) is the robot's own track ----

@pytest.mark.parametrize("question, frame", [
    ("Which rooms did I visit, in order?", 'find=where place="living room" act=seen times=1'),
    ("Where have I been?", "find=where act=spoke"),
    ("Which rooms did I move through?", "find=where act=seen"),
])
def test_the_rooms_the_robot_visited_are_its_own_track(sx, question, frame):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == "I was in the kitchen, then the office, then the lab.", got


# ---- held-out 764: "was anyone talking 10 seconds into the recording?" was written as the window 0:10-0:20 and
# answered with two people who began later, not the one speaking at 0:10: a time into the recording is that clock ----

@pytest.mark.parametrize("question, direct", [
    ("Was anyone talking 10 seconds into the recording?", "Was anyone talking at 0:10?"),
    ("Who spoke two minutes and 5 seconds into the video?", "Who spoke at 2:05?"),
    ("Did anyone speak after one minute into the recording?", "Did anyone speak after 1:00?"),
    ("How many seconds into the recording did she first speak?",
     "How many seconds into the recording did she first speak?"),     # a time asked, not given
])
def test_a_time_into_the_recording_is_its_clock(question, direct):
    assert direct_question(question) == direct


def test_who_was_talking_some_seconds_into_the_recording(sx):  # noqa: F811
    got = answer(sx, "Was anyone talking 11 seconds into the recording?", "find=yes from=0:11 to=0:20").answer
    # Bo 0:10-0:12
    assert got.lower().startswith(f"yes, {BO.lower()}") and "00:11" in got, got


# ---- held-out 765: "how long was it from B's first turn to B's last turn?" was answered with B's last two turns
# (the model wrote right_before_last): "from X to Y" is the time between them, as "between X and Y" ----

@pytest.mark.parametrize("question, said", [
    (f"How long was it from {BO}'s first turn to {BO}'s last turn?", "40 seconds passed between"),
    (f"How much time passed from {BO}'s first turn until {BO}'s second turn?", "30 seconds passed between"),
    (f"How long was it from {ANN}'s first turn to {BO}'s last turn?", "48 seconds passed between"),
])
def test_the_time_from_one_turn_to_another(sx, question, said):  # noqa: F811
    got = answer(sx, question, f'find=gap who="{COFFEE}" other="{COFFEE}" rel=right_before_last act=spoke').answer
    assert got.startswith(said), got


# ---- held-out 765: "how long was I in the house before I went into the hallway?" was answered with people's talk
# before then: the robot's own time from the start of its track to its arrival ----

@pytest.mark.parametrize("question, place, secs", [
    ("How long was I in the house before I went into the office?", "office", "30 seconds"),
    ("How long had I been here before I entered the lab?", "lab", "60 seconds"),
    ("How long did I spend around before I got to the lab?", "lab", "60 seconds"),
])
def test_the_robots_time_before_it_went_into_a_room(sx, question, place, secs):  # noqa: F811
    got = answer(sx, question, "find=gap from=0:00 to=0:10")
    assert got.answer.startswith(f"{secs[0]}{secs[1:]}: my record of where I was begins at 00:00") and \
        f"got to the {place} at" in got.answer and "kitchen (30 seconds)" in got.answer, got.answer
    # the frame the trace records is the one that ran
    assert got.trace["rounds"][0]["query"] == f'find=when pick=first place="{place}"', got.trace["rounds"]


def test_the_robots_time_before_a_room_it_never_entered_is_declined(sx):  # noqa: F811
    got = answer(sx, "How long was I in the house before I went into the attic?", "find=how_long").answer
    assert got.startswith("I don't know") and "attic" in got, got


@pytest.mark.parametrize("question", [
    "How long was I in the kitchen before I went into the office?",     # a stay in a room: the frame's
    "How long was it before anyone spoke?",
])
def test_other_before_questions_are_not_the_robots_time_before_a_move(question):
    assert asks_before_move(question) is None


# ---- held-out 766: "when did I leave the lab for the bedroom?" was declined ("I don't know a place called 'lab for
# the bedroom'"): where the robot went is no part of the place it left ----

@pytest.mark.parametrize("question, said", [
    ("When did I leave the kitchen for the office?", "I left the kitchen at 00:30."),
    ("When did I go from the office into the lab?", "I left the office at 01:00."),
    ("When did I leave the office for the first time?", "I left the office at 01:00."),
    ("When did I walk out of the kitchen towards the office?", "I left the kitchen at 00:30."),
])
def test_leaving_a_room_for_another_is_leaving_the_first(sx, question, said):  # noqa: F811
    assert answer(sx, question, "find=when act=seen times=0").answer == said


# ---- held-out 767: "who was the first voice I heard after entering the garage?" was answered from 0:22, when the
# robot's way from the workshop to the bathroom crossed the garage for a second: a crossing is no visit ----

def _passing_poses(clip: int) -> list[Pose]:
    """The meeting's track, but at 0:20 the robot crosses the lab for one second and comes back to the kitchen."""
    poses = _poses(clip)
    return [Pose(p.t, 8.0, 6.0, 0.0, 0.0, "map") if 20.0 <= p.t <= 21.0 else p for p in poses]


@pytest.fixture
def passing(db_at) -> Iterator[QueryExecutor]:  # noqa: ANN001
    with seconds_meeting(db_at("passing.db"), _passing_poses) as meeting:
        yield meeting


def test_a_room_crossed_on_the_way_is_not_entered_then(passing):
    got = answer(passing, "Who spoke first after I entered the lab?", "find=who pick=first act=spoke")
    assert got.answer.startswith("Ann spoke first after 01:00 (01:05)"), got.answer


def test_a_crossing_is_no_room_change(passing):
    got = answer(passing, "How many times did I change rooms?", "find=count_places").answer
    assert got.startswith("Twice: from the kitchen to the office at 00:30; from the office to the lab at 01:00"), got


def test_the_visits_keep_a_place_only_crossed(passing):
    # the lab's crossing is dropped (the lab has a real stay), the kitchen's two stays either side of it are one
    stays = visits(passing.store)
    assert [(p, round(a)) for p, a, _ in stays] == [("kitchen", 0), ("office", 30), ("lab", 60)], stays


# ---- held-out 767: "roughly how many seconds did A speak in the workshop?" was answered with A's words: a hedge before
# the question word hid "how many seconds" from the form checks ----

@pytest.mark.parametrize("question, direct", [
    ("Roughly how many seconds did A speak in the workshop?", "How many seconds did A speak in the workshop?"),
    ("About what time did I get to the lab?", "What time did I get to the lab?"),
    ("So, who spoke last?", "Who spoke last?"),
    ("Now tell me who spoke first.", "Who spoke first?"),
    ("About the red folder, what did A say?", "About the red folder, what did A say?"),   # a topic, no hedge
])
def test_a_hedge_before_the_question_word_is_dropped(question, direct):
    assert direct_question(question) == direct


def test_a_hedged_duration_is_asked_and_answered_in_seconds(sx):  # noqa: F811
    q = f"Roughly how many seconds did {BO} speak in the office?"
    # the grammar offers the finds of the question's form: a duration, no words
    assert "how_long" in finds_for(direct_question(q)) and "what" not in finds_for(direct_question(q))
    got = answer(sx, q, f'find=how_long who="{COFFEE}" place="office"').answer
    assert got.lower().startswith(f"{BO.lower()} spoke for 4 seconds in the office"), got


# ---- held-out 769: "how long had I been in the porch when I left it?" was answered with both of the robot's stays in
# the porch (55 s, the second after it had left): the time up to the move, not at it ----

def _back_poses(clip: int) -> list[Pose]:
    """Kitchen, office, then the kitchen again."""
    x, y = ((0.0, 0.0), (8.0, 0.0), (0.0, 0.0))[clip]
    return [Pose(30.0 * clip + 0.5 * i, x, y, 0.0, 0.0, "map") for i in range(61)]


@pytest.fixture
def back(db_at) -> Iterator[QueryExecutor]:  # noqa: ANN001
    with seconds_meeting(db_at("back.db"), _back_poses) as meeting:
        yield meeting


@pytest.mark.parametrize("frame", ["find=gap from=0:00 to=0:00", 'find=how_long place="kitchen"'])
def test_the_time_in_a_room_when_the_robot_left_it_is_up_to_then(back, frame):
    got = answer(back, "How long had I been in the kitchen when I left it?", frame).answer
    assert got.startswith("I was in the kitchen for 30 seconds before 00:30"), got


# ---- held-out 769: "between A and B, who spoke last?" was answered with who spoke right before B: two people after
# "between" are the choices, as "which of A and B" ----

@pytest.mark.parametrize("question, start", [
    (f"Between {ANN} and {BO}, who spoke last?", f"{ANN[0].upper()}{ANN[1:]} spoke last (01:10)"),
    (f"Between {ANN} and {BO}, who spoke first?", f"{ANN[0].upper()}{ANN[1:]} spoke first (00:02)"),
])
def test_two_people_after_between_are_the_choices(sx, question, start):  # noqa: F811
    got = answer(sx, question, f'find=who other="{COFFEE}" rel=right_before').answer
    assert got.startswith(start), got


def test_between_two_turns_is_no_choice_of_two_people():
    from m3_control.query.choice import order_choice
    assert order_choice(f"Between {ANN}'s first turn and {BO}'s last turn, who spoke first?") is None
    assert order_choice(f"Between {ANN} and {BO}, who spoke first?") == "first"


# ---- held-out 770: "was it quiet between 0:12 and 0:14?" was answered yes while a turn begun at 0:11 went on: words
# still going in the window break its quiet ----

@pytest.mark.parametrize("question, frame, start", [
    ("Was it quiet between 0:11 and 0:12?", "find=yes from=0:11 to=0:12", "No, the person who said \"The coffee"),
    ("Was it silent between 0:03 and 0:05?", "find=yes from=0:03 to=0:05", "No, Ann"),     # Ann 0:02-0:04
    ("Was it quiet between 0:05 and 0:09?", "find=yes from=0:05 to=0:09", "Yes, nobody spoke between 00:05 and 00:09"),
])
def test_words_going_on_in_a_window_break_its_quiet(sx, question, frame, start):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith(start), got


# ---- held-out 770: "what did C say right after I entered the workshop?" was answered "I heard X after 00:25", C's
# words at 1:18, with neither their time nor that someone else spoke right after the robot came in ----

def test_a_persons_first_words_after_a_moment_say_when_and_who_spoke_first_then(sx):  # noqa: F811
    got = answer(sx, "What did Ann say right after I entered the office?", 'find=what who="Ann" act=spoke').answer
    assert got.startswith('Ann said "Thanks for the help" after 00:30 at 01:05;') and \
        "I will call the technician\" spoke right after 00:30, at 00:35" in got, got


def test_a_persons_first_words_right_after_a_moment_are_said_plainly(sx):  # noqa: F811
    got = answer(sx, "What did Ann say right after I entered the lab?", 'find=what who="Ann" act=spoke').answer
    assert got == 'Ann said "Thanks for the help" after 01:00.', got
