"""Question forms noticed at stops 77-78 and answered wrong on held-out scene 701 (the frame's nearest form: "whose
first turn was longer?" answered with who spoke first, "more than 20 seconds after" read as a count of turns).
On a meeting whose turns differ in length, written through the production turn-recording path, asked at 1:31:

    kitchen 0:00-0:30: Ann 0:02-0:07 (5 s), Bo 0:10-0:12 (COFFEE, 2 s), Ann 0:20-0:21 (1 s)
    office  0:30-1:00: Cy 0:35-0:41 (TECH, 6 s), Bo 0:45-0:48 (3 s)
    lab     1:00-1:30: Ann 1:05-1:07, Cy 1:10-1:11 (1 s), Cy 1:20-1:22, Ann 1:25-1:27
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from m3_control.query import QueryExecutor, anchored, turn_lengths
from m3_control.query.plans import plan_for
from m3_memory.poses import Place
from m3_memory.store.where import save_places

from .people_helpers import meeting_store
from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, _poses

BO, CY = f'the person who said "{COFFEE}"', f'the person who said "{TECH}"'
SCRIPT = [
    (0, "ann", 2.0, 7.0, "Put the red folder on the desk."),
    (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
    (0, "ann", 20.0, 21.0, "Put the red folder on the desk."),
    (1, "cy", 35.0, 41.0, "I will call the technician."),
    (1, "bo", 45.0, 48.0, "The coffee machine is broken."),
    (2, "ann", 65.0, 67.0, "Thanks for the help."),
    (2, "cy", 70.0, 71.0, "I will call the technician."),
    (2, "cy", 80.0, 82.0, "See you tomorrow."),
    (2, "ann", 85.0, 87.0, "Bye everyone."),
]


@contextmanager
def lengths_meeting(path, poses=_poses) -> Iterator[QueryExecutor]:  # noqa: ANN001
    """The meeting above written to ``path``, the robot's track given by ``poses(clip)``, its three places saved."""
    store, _ = meeting_store(path, poses, script=SCRIPT, silent=[])
    save_places(store, [Place("kitchen", 0, 0, 2.0, ""), Place("office", 8, 0, 2.0, ""), Place("lab", 8, 6, 2.0, "")])
    try:
        yield QueryExecutor(store)
    finally:
        store.close()


@pytest.fixture
def lx(db_at):
    with lengths_meeting(db_at("lengths.db")) as ex:
        yield ex


# ---- two turns compared by their own length (not who spoke first, not all of their talk) ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    (f"Whose first turn was longer, Ann's or {BO}'s?", f'find=more who="Ann" other="{COFFEE}"',
     "Ann's first turn was longer", ["5 seconds", "2 seconds"], ["spoke first"]),
    (f"Was Ann's last turn longer than {CY}'s first turn?", f'find=more who="Ann" other="{TECH}" rel=right_before',
     "No", ["2 seconds", "6 seconds"], ["more often"]),
    (f"Was {CY}'s last turn shorter than {BO}'s first?", f'find=more who="{TECH}" other="{COFFEE}"',
     "No, they were as long as each other, 2 seconds each", ["00:10"], ["lasted"]),
    (f"Who spoke longer the first time, {BO} or {CY}?", f'find=more who="{COFFEE}" other="{TECH}"',
     f"{CY[0].upper() + CY[1:]}'s first turn was longer", ["6 seconds"], []),
    (f"Whose second turn was shorter, {CY}'s or {BO}'s?", f'find=more who="{TECH}" other="{COFFEE}"',
     f"{CY[0].upper() + CY[1:]}'s second turn was shorter", ["1 second", "3 seconds"], []),
    ("Was Ann's first turn longer than her last?", 'find=more who="Ann"', "Yes", ["5 seconds", "2 seconds"], []),
])
def test_two_turns_by_their_length(lx, question, frame, start, named, absent):
    a = answer(lx, question, frame, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, frame, start, named", [
    ("Was Ann's first turn longer than 4 seconds?", 'find=yes who="Ann" times>4', "Yes", ["5 seconds"]),
    (f"Was {BO}'s last turn longer than 5 seconds?", f'find=yes who="{COFFEE}" times>5', "No", ["3 seconds"]),
    (f"Was {CY}'s second turn shorter than 2 seconds?", f'find=yes who="{TECH}" times<2', "Yes", ["1 second"]),
])
def test_one_turn_against_a_length(lx, question, frame, start, named):
    a = answer(lx, question, frame, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and "spoke" not in a.split(":")[0], a


@pytest.mark.parametrize("question", [
    "Who talked longer in total, Ann or Bo?",      # all of their talk: talk_time
    "How long was Ann's first turn?",              # one turn's length: the frame
    "Who spoke first, Ann or Bo?",
    "Did Ann speak more often than Bo?",
])
def test_other_questions_are_not_two_turns(question):
    assert turn_lengths.asks_lengths(question) is None


# ---- "more than N seconds after a moment": the other side of "within", not a count of turns ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    (f"Did {BO} speak more than 30 seconds after Ann's first turn?", f'find=yes who="{COFFEE}" other="Ann" '
     "rel=after times>30", "Yes", ["00:45"], ["00:10"]),       # Ann's first turn ends 0:07; Bo at 0:45 (> 0:37)
    (f"Did {BO} speak more than 40 seconds after Ann's first turn?", f'find=yes who="{COFFEE}" other="Ann" '
     "rel=after times>40", "No", [], []),
    ("Who spoke more than 60 seconds after the start?", "find=who rel=after times=60", "",
     ["Ann", CY], [BO]),
    (f"Did Ann speak at least 30 seconds before {CY}'s last turn?", f'find=yes who="Ann" other="{TECH}" rel=before '
     "times>30", "Yes", ["00:02"], []),                           # Cy's last turn 1:20; Ann's 0:02-0:07, 0:20-0:21
])
def test_more_than_n_seconds_after_a_moment(lx, question, frame, start, named, absent):
    a = answer(lx, question, frame, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a
    assert "more than" in a or "at least" in a, a


def test_beyond_is_read_only_with_a_moment():
    ask = anchored.asks_anchored("Did Bo speak more than 20 seconds after Ann's first turn?")
    assert ask is not None and ask.kind == "beyond" and ask.seconds == 20 and ask.side == "after"
    assert anchored.asks_anchored("Did Ann speak for more than 20 seconds in total?") is None
    assert anchored.asks_anchored("Did Ann speak more than 2 times after Bo?") is None
    assert plan_for("Did Ann speak within 10 seconds after Bo's first turn?").kind == "within"  # type: ignore[union-attr]


# ---- held-out 708: nobody at the moment asked about is said with the turn nearest it; a colour someone likes is not
# a colour their words hold ----

@pytest.mark.parametrize("question, frame, named, absent", [
    ("What was said at 0:23?", "find=what at=0:23", ["the nearest", "Ann", "00:20"], []),   # Ann until 0:21
    ("Who was speaking at 0:43?", "find=who at=0:43", ["the nearest", CY, "00:41"], []),     # Cy until 0:41, Bo 0:45
    ("Who was speaking at 0:30?", "find=who at=0:30", [], ["the nearest"]),                  # 9 s after, 5 s before
])
def test_nobody_at_the_moment_names_the_nearest_turn(lx, question, frame, named, absent):
    a = answer(lx, question, frame, frame).answer
    assert a.startswith("I don't remember anyone") and all(n in a for n in named), a
    assert not any(x in a for x in absent), a


@pytest.mark.parametrize("question, start, absent", [
    ("What colour does Ann like?", "I don't remember Ann saying anything about what colour they like", ["red"]),
    ("Which number does Ann prefer?", "I don't remember Ann saying anything", ["folder"]),
    ("What colour did Ann mention?", "Ann said red", []),
])
def test_a_colour_someone_likes_is_not_a_colour_they_said(lx, question, start, absent):
    a = answer(lx, question, 'find=what who="Ann"', 'find=what who="Ann"').answer
    assert a.startswith(start) and not any(x in a.lower() for x in absent), a


# ---- held-out 709: between one person's first and second turns when they spoke once: said, not "I did not hear B"

@pytest.mark.parametrize("question, start", [
    (f"Did Ann speak between {BO}'s first and second turns?", "Yes"),                    # Ann 0:20, Bo 0:10 and 0:45
    (f"Did Ann speak between {BO}'s first and third turns?", f"{BO[0].upper() + BO[1:]} spoke twice in all: there "
     "was no third time"),
    (f"Did {CY} speak between {BO}'s second and fourth turns?", f"{BO[0].upper() + BO[1:]} spoke twice in all"),
])
def test_between_a_persons_turns_they_never_took(lx, question, start):
    frame = f'find=yes who="Ann" other="{COFFEE}" rel=right_before'
    a = answer(lx, question, frame, frame).answer
    assert a.startswith(start), a


# ---- held-out 710: a moment after the robot's track ends is said with where the track last had it ----

def test_after_the_track_ends_says_the_last_place_known(db_at):
    store, _ = meeting_store(db_at("short.db"), lambda clip: _poses(clip) if clip < 2 else [], script=SCRIPT, silent=[])
    save_places(store, [Place("kitchen", 0, 0, 2.0, ""), Place("office", 8, 0, 2.0, ""), Place("lab", 8, 6, 2.0, "")])
    try:
        ex = QueryExecutor(store)
        a = answer(ex, "Was I in the lab at 1:10?", "find=yes at=1:10", "find=yes at=1:10").answer
        assert a.startswith("I have no record of where I was at 01:10") and "office (from 00:30)" in a, a
        a = answer(ex, "Was I in the office at 0:40?", "find=yes at=0:40", "find=yes at=0:40").answer
        assert a.startswith("Yes, I was in the office"), a
    finally:
        store.close()


# ---- held-out 715 (the landing code): two lengths said with figures that agree with the comparison (stop 97: compared
# to hundredths, no half-second tolerance) ----

def test_about_as_long_is_said_with_one_figure(db_at):
    script = [(0, "ann", 2.0, 3.45, "Put the red folder on the desk."),
              (0, "bo", 10.0, 11.9, "The coffee machine is broken.")]
    store, _ = meeting_store(db_at("near.db"), _poses, script=script, silent=[])
    try:
        ex = QueryExecutor(store)
        q = f"Whose first turn was longer, Ann's or {BO}'s?"
        a = answer(ex, q, f'find=more who="Ann" other="{COFFEE}"', f'find=more who="Ann" other="{COFFEE}"').answer
        # (compared to hundredths as every length is: 1.45 s against 1.90 s is no tie)
        assert a.startswith(f"{BO[0].upper()}{BO[1:]}'s first turn was longer") and "1.9 seconds" in a, a
    finally:
        store.close()
