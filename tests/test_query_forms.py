"""Question forms a frame must follow that the query language could not say before (gaps known from stop 59's
blind probes), on the hand-built meeting of tests/test_query_executor.py (a scripted model writes the frame a small
model wrote there):

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25 (each turn 2 s)

- the time between two people's *last* turns (it measured to the second person's next turn);
- when the robot left a room (it answered when it got there);
- people in one room and never in another (it answered everyone in the first).
"""

from __future__ import annotations

import pytest

from m3_control.query.fidelity import check as fit_question
from m3_control.query.frame import parse

from .test_query_also import BO, CY, KNOWN, answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)


@pytest.mark.parametrize("question, other, who, rel, pick", [
    (f"How long was it between {CY}'s last words and {BO}'s last words?", TECH, COFFEE, "after_last", "last"),
    (f"How much time passed between {BO}'s first words and {CY}'s last words?", COFFEE, TECH, "after", "last"),
    (f"How long after {CY} spoke for the last time did {BO} speak?", TECH, COFFEE, "after_last", None),
])
def test_the_time_to_someones_last_turn(question, other, who, rel, pick):
    frame, added, missing = fit_question(question, parse(f'find=gap other="{other}" who="{who}"'), KNOWN)
    assert (frame.other, frame.who, frame.rel, frame.pick) == (other, who, rel, pick) and not missing, added


def test_the_time_between_two_last_turns_is_measured_to_the_last_turn(ex):  # noqa: F811
    # Cy's last words 1:20, Bo's last 0:40: 40 s, Bo before (his next turn after 1:20 does not exist)
    a = answer(ex, f"How long was it between {CY}'s last words and {BO}'s last words?",
               f'find=gap other="{TECH}" who="{COFFEE}"')
    assert "40 seconds" in a.answer and "01:20" in a.answer and "00:40" in a.answer, a.answer
    # Bo's first words 0:10 to Cy's last 1:20: 70 s (not to Cy's first, 0:35)
    a = answer(ex, f"How much time passed between {BO}'s first words and {CY}'s last words?",
               f'find=gap other="{COFFEE}" who="{TECH}"')
    assert "70 seconds" in a.answer and "for the last time" in a.answer, a.answer


@pytest.mark.parametrize("question, pick", [
    ("At what time did I leave the kitchen?", None),
    ("When did I last walk out of the office?", "last"),
    ("When did I leave the office for the first time?", "first"),
])
def test_when_the_robot_left_a_room_is_its_departure(question, pick):
    frame, added, missing = fit_question(question, parse('find=when place="kitchen" act=spoke'), KNOWN)
    assert (frame.find, frame.move, frame.pick, frame.act, frame.who) == ("when", "left", pick, None, None), added
    assert frame.place in ("kitchen", "office") and not missing
    assert parse(frame.compact()) == frame          # a trace's frame reads back with the hidden field


def test_the_robot_departure_is_answered_from_its_track(ex):  # noqa: F811
    a = answer(ex, "At what time did I leave the kitchen?", 'find=when place="kitchen"')
    assert a.answer == "I left the kitchen at 00:30.", a.answer
    a = answer(ex, "When did I leave the lab?", 'find=when place="lab"')      # still there at the question
    assert a.answer == "I have not left the lab: I got there at 01:00.", a.answer
    a = answer(ex, "When did I leave the attic?", 'find=when place="attic"')  # no such place: declined
    assert "attic" in a.answer and "left" not in a.answer, a.answer


@pytest.mark.parametrize("question, names, absent", [
    ("Who spoke in the kitchen but not in the lab?", ["coffee machine"], ["Ann"]),     # Ann spoke in both
    ("Who spoke in the lab but never in the kitchen?", ["technician"], ["Ann"]),
    ("Who spoke in the office and not in the kitchen?", ["technician"], ["coffee"]),
])
def test_people_in_one_room_and_never_in_another(ex, question, names, absent):  # noqa: F811
    a = answer(ex, question, f'find=who place="{question.split("the ")[1].split()[0]}" act=spoke')
    for n in names:
        assert n in a.answer, a.answer
    for n in absent:
        assert n not in a.answer, a.answer
    assert "never in the" in a.answer, a.answer


def test_a_room_the_robot_never_entered_is_declined_not_ignored(ex):  # noqa: F811
    a = answer(ex, "Who spoke in the kitchen but not in the garage?", 'find=who place="kitchen" act=spoke')
    assert "garage" in a.answer and "Ann" not in a.answer, a.answer
    n = answer(ex, "How many people spoke in the kitchen but not in the office?",
               'find=count_people place="kitchen" act=spoke')
    assert n.answer.startswith("1 ") or " 1 " in n.answer, n.answer                  # Ann (Bo spoke in the office)
