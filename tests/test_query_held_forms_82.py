"""Question forms noticed at stop 81 or found by stop 82's blind probes, fixed at stop 82, on the hand-built meeting of
tests/test_query_executor.py (``ex``; asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02 (RED), Bo 0:10 (COFFEE), Ann 0:20 (RED)
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40 (COFFEE); Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10 (TECH), Cy 1:20, Ann 1:25
"""

from __future__ import annotations

import pytest

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

RED = "Put the red folder on the desk"


# ---- noticed at 81 (held-out 736): "the second thing said after I entered the X" written rel=after with no pick
# listed every turn after the move without naming the second; the n-th turn is counted from the move or the turn ----

@pytest.mark.parametrize("question, frame, named, absent", [
    ("What was the second thing said after I entered the lab?", 'find=what other="I entered the lab" rel=after',
     ["second thing", TECH, "01:10"], ["Thanks for the help", "Bye everyone"]),
    ("Who said the second thing after I left the kitchen?", 'find=who other="I left the kitchen" rel=after',
     ["coffee machine is broken", "00:40"], [TECH]),
    ("What was the third thing I heard after I got to the office?", 'find=what other="I got to the office" rel=after',
     ["third thing", "Thanks for the help", "01:05"], [COFFEE]),
    (f"What was the second thing said after the person who said '{COFFEE}' first spoke?",
     f'find=what other="{COFFEE}" rel=after', [TECH], [RED, "Thanks for the help"]),
])
def test_the_nth_thing_said_after_a_move_or_a_turn(ex, question, frame, named, absent):  # noqa: F811
    got = answer(ex, question, frame, frame).answer
    assert all(n in got for n in named) and not any(x in got for x in absent), got


# ---- found by CI at 82 (tests/test_reasoning_real.py): "are A and B different people?" read by 735's trait pattern
# as a thing of A's life ("whether they are different people"); whether two references are one person is the memory's
# to answer ----

@pytest.mark.parametrize("question, frame, start", [
    (f"Are the person who said '{TECH}' and the person who said '{COFFEE}' different people?",
     f'find=same who="{TECH}" other="{COFFEE}"', "Yes, they are two different people"),
    (f"Are the person who said '{TECH}' and the person who said 'see you tomorrow' distinct people?",
     f'find=same who="{TECH}" other="see you tomorrow"', "No, that is the same person"),
    (f"Are the person who said '{RED}' and the person who said 'bye everyone' two different speakers?",
     f'find=same who="{RED}" other="bye everyone"', "No, that is the same person"),
])
def test_whether_two_references_are_different_people_is_no_trait(ex, question, frame, start):  # noqa: F811
    got = answer(ex, question, frame, frame).answer
    assert got.startswith(start), got


@pytest.mark.parametrize("question, topic", [
    (f"Is the person who said '{TECH}' left-handed?", "whether they are left-handed"),
    (f"Was the person who said '{TECH}' a good cook?", "whether they are a good cook"),
])
def test_a_trait_in_a_word_or_two_is_still_a_thing_of_their_life(question, topic):
    from m3_control.query.said_about import asks_about
    got = asks_about(question)
    assert got is not None and got.topic == topic, got
