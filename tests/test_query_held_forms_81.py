"""Question forms noticed at stop 80 or found by stop 81's blind probes, fixed at stop 81, on the hand-built meeting of
tests/test_query_executor.py (``ex``; asked at 1:31; ``lx``: the same turns of different lengths, stop 79's):

    kitchen 0:00-0:30: Ann 0:02 (RED), Bo 0:10 (COFFEE), Ann 0:20 (RED)
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40 (COFFEE); Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10 (TECH), Cy 1:20, Ann 1:25
"""

from __future__ import annotations

import pytest

from m3_control.query.polarity import finds_for
from m3_control.query.said_about import asks_about

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)
from .test_query_held_forms_79 import lengths_meeting, lx  # noqa: F401  (lx: the fixture)

RED = "Put the red folder on the desk"


# ---- "did A and B ever speak one right after the other?": either order, each said (was one order only) ----

@pytest.mark.parametrize("question, named, absent", [
    (f"Did the person who said '{RED}' and the person who said '{TECH}' ever speak one right after the other?",
     ["Yes", f'"{RED}" spoke right after the person who said "{TECH}" at 01:25',
      f'"{TECH}" spoke right after the person who said "{RED}" at 00:35 and 01:10'], ["never"]),
    (f"Did the person who said '{COFFEE}' and the person who said '{TECH}' ever speak back to back?",
     ["Yes", f'"{COFFEE}" spoke right after the person who said "{TECH}" at 00:40',
      f'"{TECH}" never spoke right after'], []),
    (f"Did the person who said '{COFFEE}' and the person who said '{RED}' speak right after each other?",
     ["Yes", f'"{COFFEE}" spoke right after the person who said "{RED}" at 00:10',
      f'"{RED}" spoke right after the person who said "{COFFEE}" at 00:20'], []),
])
def test_two_people_one_right_after_the_other_in_either_order(ex, question, named, absent):  # noqa: F811
    a, b = (x for x in __import__("re").findall(r"'([^']+)'", question))
    frame = f'find=yes who="{a}" other="{b}" rel=right_after'
    got = answer(ex, question, frame, frame).answer
    assert all(n in got for n in named) and not any(x in got for x in absent), got


# ---- "how many people spoke both before and after 1:00?": the number, then who (was who only) ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    ("How many people spoke both before and after 1:00?", "find=count_people from=1:00 to=1:00",
     "2 people spoke both before and after 01:00", ["Ann", f'"{TECH}"'], [COFFEE]),
    ("How many people talked both before and after 1:22?", "find=count_people from=1:22",
     "1 person spoke both before and after 01:22", ["Ann"], [TECH, COFFEE]),
    ("Who spoke both before and after 1:00?", "find=who from=1:00", "Ann", [f'"{TECH}"'], ["2 people"]),
])
def test_how_many_on_both_sides_of_a_moment_is_a_number(ex, question, frame, start, named, absent):  # noqa: F811
    got = answer(ex, question, frame, frame).answer
    assert got.startswith(start) and all(n in got for n in named) and not any(x in got for x in absent), got


# ---- a topic with an abbreviation's dots is read whole ("the U.S. election" was "the U") ----

@pytest.mark.parametrize("question, topic", [
    ("Did anyone talk about the U.S. election?", "the U.S. election"),
    ("Did anyone mention the B.B.C. news, at all?", "the B.B.C. news"),
    ("Did anyone talk about the dog.", "the dog"),
])
def test_a_topic_keeps_an_abbreviations_dots(question, topic):
    got = asks_about(question)
    assert got is not None and got.topic == topic, got


# ---- held-out 731: "which of A and B spoke for longer in the X?" is their seconds of speech (was their turns
# counted, with no answer to which); of three or more, the longest in all ----

@pytest.mark.parametrize("question, frame, named, absent", [
    (f"Which of the person who said '{RED}' and the person who said '{TECH}' spoke for longer in the lab?",
     f'find=more who="{RED}" other="{TECH}" place="lab"', [f'"{RED}" spoke for longer (4 seconds in all)',
                                                         "(3 seconds) in the lab"], ["twice"]),
    (f"Which of the person who said '{RED}' and the person who said '{COFFEE}' talked for a shorter time?",
     f'find=less who="{RED}" other="{COFFEE}"', [f'"{COFFEE}" spoke for less time (5 seconds in all)'], ["times"]),
    (f"Which of the person who said '{RED}', the person who said '{TECH}' and the person who said '{COFFEE}' spoke "
     "the longest in total?", "find=who pick=most measure=time",
     [f'"{RED}" spoke the longest in all (10 seconds)', f'"{TECH}" 9 seconds', f'"{COFFEE}" 5 seconds'], ["times"]),
    (f"Out of the person who said '{RED}', the person who said '{TECH}' and the person who said '{COFFEE}', who "
     "talked for the least time in the office?", 'find=who pick=least place="office"',
     [f'"{RED}": I did not hear them speak in the office (0 seconds)', f'"{TECH}" 6 seconds'], ["times"]),
])
def test_listed_people_compared_by_their_seconds_of_speech(lx, question, frame, named, absent):  # noqa: F811
    got = answer(lx, question, frame, frame).answer
    assert all(n in got for n in named) and not any(x in got for x in absent), got


# ---- held-out 733: "how much did B talk in total, in seconds?" is their seconds of speech (the model, free to write
# any frame, wrote find=what and the answer was B's words) ----

@pytest.mark.parametrize("question, finds", [
    (f"How much did the person who said '{TECH}' talk in total, in seconds?", ("how_long",)),
    ("How much did Ann speak in the lab?", ("how_long",)),
    ("How much talking did Ann do?", ("how_long",)),
    ("How much speech did I hear in the kitchen?", ("how_long",)),
])
def test_how_much_someone_talked_is_a_duration(question, finds):
    assert finds_for(question) == finds


@pytest.mark.parametrize("question", ["How much did Ann say?", "How much did Ann talk about the coffee machine?"])
def test_how_much_said_or_about_is_no_duration(question):
    assert "how_long" not in finds_for(question)


def test_how_much_someone_talked_answered_in_seconds(lx):  # noqa: F811
    frame = f'find=how_long who="{TECH}"'
    got = answer(lx, f"How much did the person who said '{TECH}' talk in total, in seconds?", frame, frame).answer
    assert "9 seconds" in got, got


# ---- held-out 733: "did C speak within 10 seconds of my arrival in the X?" says on which side of the arrival each
# turn was (a turn that ended before the robot arrived had been given as if heard there) ----

@pytest.mark.parametrize("question, named, absent", [
    (f"Did the person who said '{COFFEE}' speak within 25 seconds of my arrival in the lab?",
     ["Yes", "at 00:40 (ending 18 seconds before it)"], ["after it"]),
    (f"Did the person who said '{RED}' speak within 10 seconds of my arrival in the lab?",
     ["Yes", "at 01:05 (5 seconds after it)"], ["before it"]),
    (f"Did the person who said '{COFFEE}' speak within 25 seconds after my arrival in the lab?", ["No"], ["00:40"]),
])
def test_within_seconds_of_a_move_says_the_side(ex, question, named, absent):  # noqa: F811
    got = answer(ex, question, "find=who act=spoke", "find=who act=spoke").answer
    assert all(n in got for n in named) and not any(x in got for x in absent), got


# ---- held-out 735: "is B left-handed?" was answered "Yes, B was seen at 00:07" (the model's find=yes act=seen);
# any trait of a person's in a word or two is a thing of their life that only their words could tell ----

@pytest.mark.parametrize("question, topic", [
    (f"Is the person who said '{COFFEE}' left-handed?", "whether they are left-handed"),
    (f"Was the person who said '{COFFEE}' a good cook?", "whether they are a good cook"),
    ("Is Ann tall?", "whether they are tall"),
    (f"Is the person who said '{TECH}' an engineer?", "whether they are an engineer"),
])
def test_a_trait_of_a_person_is_about_their_life(question, topic):
    got = asks_about(question)
    assert got is not None and got.topic == topic, got


@pytest.mark.parametrize("question", [
    f"Was the person who said '{COFFEE}' speaking at 0:30?", f"Was the person who said '{COFFEE}' in the kitchen?",
    f"Was the person who said '{COFFEE}' the first person I heard?", f"Was the person who said '{COFFEE}' happy?",
    f"Was the person who said '{COFFEE}' silent?", f"Was the person who said '{COFFEE}' a speaker?",
    f"Was the person who said '{COFFEE}' heard?", f"Was the person who said '{COFFEE}' alone?",
])
def test_what_the_records_hold_is_no_trait(question):
    assert asks_about(question) is None


def test_a_trait_is_declined_not_answered_yes(ex):  # noqa: F811
    frame = f'find=yes who="{COFFEE}" act=seen'
    got = answer(ex, f"Is the person who said '{COFFEE}' left-handed?", frame, frame).answer
    assert not got.startswith("Yes") and "left-handed" in got, got


# ---- held-out 736: the time between two people's turns with others' turns between them is no silence ----

@pytest.mark.parametrize("question, named, absent", [
    (f'How much time passed between the person who said "{RED}"\'s first turn and the person who said "{TECH}"\'s last '
     'turn?', ["78 seconds passed between", "73 seconds from the end of the one", "with 6 turns between them"],
     ["silence"]),
    (f'How much time passed between the person who said "{RED}"\'s first turn and the person who said "{COFFEE}"\'s '
     'first turn?', ["3 seconds of silence between", "8 seconds from the start of one"], ["passed"]),
])
def test_time_between_two_turns_with_turns_between_is_no_silence(lx, question, named, absent):  # noqa: F811
    got = answer(lx, question, "find=gap", "find=gap").answer
    assert all(n in got for n in named) and not any(x in got for x in absent), got
