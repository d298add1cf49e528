"""Question forms found by stop 86's blind probes (held-out scenes 761-766), and forms noticed at stop 85.

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35, Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55 (TECH)
    lab     1:00-1:30: Ann 1:05, Ann 1:10, Cy 1:20-1:21.9
"""

from __future__ import annotations

import pytest

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH
from .test_query_held_forms_83 import RED, sx  # noqa: F401  (the fixture)

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
