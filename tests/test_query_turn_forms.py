"""Question forms stop 61's blind probes found (m3_control/query/turn_forms.py, the window rule of
m3_memory.people.in_window), on the hand-built meeting of tests/test_query_executor.py (a scripted model writes the
frame a small model wrote there):

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25 (each turn 2 s)
"""

from __future__ import annotations

import pytest

from m3_control.query import routing
from m3_control.query.fidelity import check as fit_question
from m3_control.query.frame import parse
from m3_memory.people import Turn, in_window

from .test_query_also import BO, CY, KNOWN, answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)


def _turn(start: float, end: float, kind: str = "voice") -> Turn:
    return Turn(1, 1, kind, 1, 1, start, end)


@pytest.mark.parametrize("turn, t1, t2, inside", [
    (_turn(38.0, 41.0), 40.0, None, False),     # finishing a sentence at 0:41 is not speaking after 0:40
    (_turn(40.5, 43.0), 40.0, None, True),
    (_turn(40.3, 42.0), 40.0, None, False),     # detected at 0:40.3: the speaker began before 0:40
    (_turn(25.0, 45.0), 30.0, 40.0, True),      # a monologue from 0:25 to 0:45 spoke between 0:30 and 0:40
    (_turn(60.3, 62.0), 20.0, 60.0, True),      # detected 0.3 s after the end: begun before it
    (_turn(60.8, 62.0), 20.0, 60.0, False),     # ("who spoke right before I arrived at 0:48?": not one at 0:48.7)
    (_turn(38.0, 41.0, "face"), 40.0, None, True),   # someone in view at 0:40.5 was seen after 0:40
])
def test_a_turn_belongs_to_a_window_if_it_began_there(turn, t1, t2, inside):
    assert in_window(turn, t1, t2) is inside


def test_the_first_to_speak_after_a_moment_is_not_someone_finishing(ex):  # noqa: F811
    a = answer(ex, "Who was the first person to speak after 0:41?", "find=who pick=first from=0:41")
    assert a.answer.startswith("Ann") and "01:05" in a.answer and "coffee" not in a.answer, a.answer  # Bo 0:40-0:42


@pytest.mark.parametrize("question, frame, who, turn", [
    ("Who was the first person to speak twice?", "find=who pick=2 by=turn", "Ann", "00:20"),      # Bo 0:40, Cy 1:20
    ("Who was the second person to speak twice?", "find=who pick=2", "coffee", "00:40"),
    ("Who was the first to talk three times?", "find=who pick=first times=3", "Ann", "01:05"),   # Cy's third 1:20
])
def test_people_ranked_by_the_moment_of_their_kth_turn(ex, question, frame, who, turn):  # noqa: F811
    a = answer(ex, question, frame)
    assert a.answer.lower().startswith(("the person who said" if who == "coffee" else who).lower()), a.answer
    assert who in a.answer and f"turn at {turn}" in a.answer, a.answer


def test_nobody_reached_the_count(ex):  # noqa: F811
    a = answer(ex, "Who was the first person to speak five times?", "find=who pick=first")
    assert a.answer == "Nobody spoke 5 times.", a.answer


def test_between_two_turns_of_one_person(ex):  # noqa: F811
    q = f"Who spoke between {BO}'s first and second turns?"
    frame, added, missing = fit_question(q, parse(f'find=who other="{COFFEE}" rel=right_before pick=2 by=turn'), KNOWN)
    assert (frame.other, frame.until, frame.until_turn, frame.rel, frame.pick) == (COFFEE, COFFEE, "2", None, None)
    assert parse(frame.compact()) == frame, frame.compact()
    a = answer(ex, q, f'find=who other="{COFFEE}" rel=right_before')
    assert "Ann" in a.answer and "technician" in a.answer and "00:10 and 00:40" in a.answer, a.answer  # 0:20, 0:35
    a = answer(ex, f"How many different people spoke between the first and last time {CY} spoke?",
               f'find=count_people other="{TECH}"')          # 0:35 .. 1:20: Bo 0:40, Ann 1:05
    assert a.answer.startswith("I heard 2 different people"), a.answer


@pytest.mark.parametrize("question, frame, start, names, absent", [
    ("Was Ann the only one who spoke in the lab?", 'find=yes who="Ann" place="lab"', "No:", ["technician"], []),
    (f"Was {CY} the only person I heard in the kitchen?", f'find=yes who="{TECH}" place="kitchen"', "No:",
     ["Ann", "did not"], []),
    (f"Was {BO} the only one who spoke between 0:38 and 0:45?", f'find=same who="{COFFEE}" other="only one"', "Yes",
     ["coffee"], ["Ann", "technician"]),
])
def test_the_only_one(ex, question, frame, start, names, absent):  # noqa: F811
    a = answer(ex, question, frame)
    assert a.answer.startswith(start), a.answer
    for n in names:
        assert n in a.answer, a.answer
    for n in absent:
        assert n not in a.answer, a.answer
    if start == "No:" and "did not" not in a.answer:   # the others who spoke there are the evidence
        assert len(a.trace["provenance"]) >= 2, a.trace["provenance"]


def test_the_turn_nearest_a_moment(ex):  # noqa: F811
    a = answer(ex, "Who spoke closest to 0:45?", "find=who pick=first from=0:45")     # Bo ended 0:42
    assert "coffee" in a.answer and "closest to 00:45" in a.answer and "Ann" not in a.answer, a.answer
    a = answer(ex, "What was said closest to 0:30?", "find=what at=0:30")            # Cy 0:35 against Ann 0:22
    assert TECH.lower() in a.answer.lower() and "closest to 00:30" in a.answer, a.answer


def test_how_long_someone_spoke_the_nth_time(ex):  # noqa: F811
    a = answer(ex, "How long did Ann speak the first time?", 'find=how_long who="Ann"')
    assert a.answer == "Ann spoke for 2 seconds the first time (00:02).", a.answer


def test_an_nth_person_past_the_people_there(ex):  # noqa: F811
    a = answer(ex, "Who did I hear third in the office?", "find=who pick=3 act=spoke")     # Cy, Bo
    assert a.answer.startswith("Only") and "no third person" in a.answer and "coffee" in a.answer, a.answer


def test_who_said_the_most_goes_to_the_records():
    assert routing.asks_by_rank("Who said the most in the office?")
    assert routing.asks_by_rank("Who did I hear the least?")
    assert not routing.asks_by_rank("What did she say about the most expensive car?")


@pytest.mark.parametrize("question, frame, start, name", [
    (f"Did {BO} speak before anyone else?", f'find=yes who="{COFFEE}" other="spoke first"', "No", "Ann"),
    ("Did Ann speak after everyone else did?", 'find=yes who="Ann"', "Yes", ""),             # 1:25, the last
])
def test_before_or_after_everyone_else_is_the_first_or_last_speaker(ex, question, frame, start, name):  # noqa: F811
    a = answer(ex, question, frame)
    assert a.answer.startswith(start) and name in a.answer, a.answer


def test_the_length_of_one_turn_and_the_time_from_first_to_last_words(ex):  # noqa: F811
    a = answer(ex, f"How long was {CY}'s last turn?", f'find=gap who="{TECH}" act=spoke')
    assert "2 seconds the last time (01:20)" in a.answer, a.answer
    a = answer(ex, "How much time passed between Ann's first and last words?", 'find=gap who="Ann" act=spoke')
    # 0:02 (to 0:04) -> 1:25: start to start, end to start, and the turns of others between (stop 84)
    assert "83 seconds passed between Ann's first turn (00:02" in a.answer and "81 seconds from the end" in a.answer \
        and "7 turns between" in a.answer, a.answer


@pytest.mark.parametrize("question, start, names", [
    ("Did everyone who spoke in the kitchen also speak in the lab?", "No:", ["coffee"]),            # Bo never there
    ("Did everyone who spoke in the lab after 1:22 also speak in the kitchen?", "Yes", []),      # Ann 1:25 (0:02)
])
def test_everyone_in_one_room_also_in_another(ex, question, start, names):  # noqa: F811
    a = answer(ex, question, 'find=yes place="kitchen" act=spoke')
    assert a.answer.startswith(start), a.answer
    assert all(n in a.answer for n in names) and "Ann" not in a.answer, a.answer


def test_an_nth_time_past_someones_turns(ex):  # noqa: F811
    a = answer(ex, f"Where was {BO} the third time they spoke?", f'find=where who="{COFFEE}" pick=3')
    assert a.answer.endswith("spoke only twice: there was no third time."), a.answer


def test_turn_counts_and_the_first_k_people(ex):  # noqa: F811
    assert routing.asks_turn_count("How many turns were taken in the bedroom?")
    a = answer(ex, "Which two people did I hear first?", "find=who pick=first by=turn")
    assert "Ann" in a.answer and "coffee" in a.answer and "technician" not in a.answer, a.answer


def test_a_rank_in_a_place_is_ranked_there(ex):  # noqa: F811
    # Ann spoke first of all (0:02); Cy first in the office (0:35)
    a = answer(ex, f"Was {CY} the first person to speak in the office?", f'find=same who="{TECH}" other="spoke first"')
    assert a.answer.startswith("Yes"), a.answer
    a = answer(ex, f"Was {BO} the first person to speak in the office?",
               f'find=same who="{COFFEE}" other="spoke first"')
    assert a.answer.startswith("No") and "technician" in a.answer, a.answer


@pytest.mark.parametrize("question, when, absent", [
    ("When did the talking in the lab start?", "01:05", "01:25"),           # Ann 1:05, the first words there
    ("At what time did the conversation in the kitchen end?", "00:20", "00:02"),   # Ann 0:20, the last there
])
def test_when_the_talk_in_a_room_started_or_ended(ex, question, when, absent):  # noqa: F811
    a = answer(ex, question, "find=when act=spoke")
    assert when in a.answer and absent not in a.answer, a.answer




def test_nobody_seen_who_never_spoke_is_said_plainly(ex):  # noqa: F811
    a = answer(ex, "Did you see anyone in the lab who didn't speak?", 'find=yes place="lab" act=seen times=0')
    assert a.answer == "No: everyone I saw in the lab also spoke.", a.answer      # Ann, Cy seen and heard there


def test_the_silence_before_someones_words(ex):  # noqa: F811
    a = answer(ex, f"How long was the silence before {CY}'s first words?", f'find=gap other="{TECH}" rel=before')
    assert a.answer.startswith("Nobody spoke for 13 seconds before") and "Ann had stopped at 00:22" in a.answer, \
        a.answer                                                  # Ann 0:20-0:22, Cy 0:35
    assert a.trace["provenance"], a.trace
