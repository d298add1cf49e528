"""Question forms found by stop 83's blind probes (held-out scenes 737-740), fixed at stop 83.

Held-out 737: "who spoke for the longest time in the office?" answered that two people tied at 4 seconds, where one
talked 4.4 s (three short turns) and the other 3.8 s (two): seconds were rounded before people were ranked. On a
meeting written through the production turn-recording path whose office talk differs by less than a second, asked
at 1:31:

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35 1.45 s, Bo 0:40 1.9 s, Cy 0:45 1.45 s, Bo 0:50 1.9 s, Cy 0:55 1.5 s (TECH)
                       (Cy 4.4 s in three turns, Bo 3.8 s in two)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9 (3.9 s in all), Cy 1:20-1:21.9 (1.9 s)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from m3_control.query import QueryExecutor
from m3_control.query.talk_seconds import best, equal, figures
from m3_memory.poses import Place, Pose
from m3_memory.store.where import save_places

from .people_helpers import meeting_store
from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, _poses, ex  # noqa: F401  (ex: the fixture)

RED = "Put the red folder on the desk"
SCRIPT = [
    (0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
    (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
    (1, "cy", 35.0, 36.45, "I will call the technician."),
    (1, "bo", 40.0, 41.9, "The coffee machine is broken."),
    (1, "cy", 45.0, 46.45, "I will call the technician."),
    (1, "bo", 50.0, 51.9, "The coffee machine is broken."),
    (1, "cy", 55.0, 56.5, "I will call the technician."),
    (2, "ann", 65.0, 67.0, "Thanks for the help."),
    (2, "ann", 70.0, 71.9, "Bye everyone."),
    (2, "cy", 80.0, 81.9, "See you tomorrow."),
]


@contextmanager
def seconds_meeting(path: Path, poses: Callable[[int], list[Pose]] = _poses, script: list | None = None,
                    ) -> Iterator[QueryExecutor]:
    """The meeting of :data:`SCRIPT` (or ``script``) with the robot's track given by ``poses(clip)``, its three places
    saved."""
    store, _ = meeting_store(path, poses, script=script or SCRIPT, silent=[])
    save_places(store, [Place("kitchen", 0, 0, 2.0, ""), Place("office", 8, 0, 2.0, ""), Place("lab", 8, 6, 2.0, "")])
    try:
        yield QueryExecutor(store)
    finally:
        store.close()


@pytest.fixture
def sx(db_at) -> Iterator[QueryExecutor]:
    with seconds_meeting(db_at("seconds.db")) as meeting:
        yield meeting


def test_figures_keep_tenths_only_where_whole_seconds_would_hide_a_difference():
    assert figures({1: 4.35, 2: 3.8}) == {1: 4.3, 2: 3.8} or figures({1: 4.35, 2: 3.8}) == {1: 4.4, 2: 3.8}
    assert figures({1: 10.2, 2: 5.1}) == {1: 10, 2: 5}
    assert figures({1: 4.1, 2: 4.2}) == {1: 4, 2: 4}          # equal within what detection tells apart
    assert best({1: 4.35, 2: 3.8, 3: 1.0}, most=True) == [1]
    assert best({1: 4.1, 2: 4.2, 3: 1.0}, most=True) == [1, 2]
    assert best({1: 4.1, 2: 4.2, 3: 1.0}, most=False) == [3]
    assert equal(3.8, 3.9) and not equal(3.8, 4.35)


@pytest.mark.parametrize("question, frame, named, absent", [
    # one person talked longest, though both round to 4 seconds: the tenths are said
    ("Who spoke for the longest time in the office?", 'find=who pick=most measure=time place="office"',
     [f'"{TECH}" (4.', "the longest in the office"], [COFFEE, "(4 seconds)"]),
    ("Who talked the least in the office, in seconds?", 'find=who pick=least measure=time place="office"',
     [f'"{COFFEE}" (3.8 seconds)'], [TECH]),
    # in all: Cy 4.4 + 1.9 = 6.3 s, Ann 2 + 3.9 = 5.9 s, Bo 2 + 3.8 = 5.8 s: Ann and Bo are equal, Cy is ahead
    ("Who talked for the longest time?", "find=who pick=most measure=time", [f'"{TECH}" (6'], [RED, COFFEE]),
    ("Who talked for the shortest time in all?", "find=who pick=least measure=time",
     ["Ann (5.9 seconds)", f'"{COFFEE}" (5.8 seconds)'], [TECH]),
])
def test_who_talked_longest_ranks_exact_seconds(sx, question, frame, named, absent):
    got = answer(sx, question, frame, frame).answer
    low = got.lower()
    assert all(n.lower() in low for n in named) and not any(x.lower() in low for x in absent), got


@pytest.mark.parametrize("question, frame, start, named", [
    (f"Did the person who said '{TECH}' talk for longer than the person who said '{COFFEE}' in the office?",
     f'find=more who="{TECH}" other="{COFFEE}" measure=time place="office"', "Yes", ["3.8 seconds"]),
    (f"Did the person who said '{COFFEE}' spend more time talking than the person who said '{TECH}' in the office?",
     f'find=more who="{COFFEE}" other="{TECH}" measure=time place="office"', "No", ["3.8 seconds"]),
    # Ann 5.9 s and Bo 5.8 s in all: as long as each other, as measured
    (f"Did the person who said '{RED}' talk for longer than the person who said '{COFFEE}'?",
     f'find=more who="{RED}" other="{COFFEE}" measure=time', "No, they spoke for about as long", ["6 seconds"]),
])
def test_two_people_compared_by_seconds_decide_on_the_exact_figures(sx, question, frame, start, named):
    got = answer(sx, question, frame, frame).answer
    assert got.startswith(start) and all(n.lower() in got.lower() for n in named), got


@pytest.mark.parametrize("question", [
    f"Which of the person who said '{TECH}' and the person who said '{COFFEE}' spoke the longest in the office?",
    f"Out of the person who said '{RED}', the person who said '{TECH}' and the person who said '{COFFEE}', who "
    "talked for the most time in the office?",
])
def test_listed_people_ranked_by_seconds_say_tenths_where_needed(sx, question):
    frame = 'find=who pick=most measure=time place="office"'
    got = answer(sx, question, frame, frame).answer
    assert f'"{TECH}" spoke the longest in all in the office (4.'.lower() in got.lower() and "3.8 seconds" in got, got
    assert "equally" not in got, got


def test_talked_longer_of_two_stays_a_comparison(sx):
    from m3_control.query.choice import count_choice
    assert count_choice(f"Who talked longer, the person who said '{TECH}' or the person who said '{COFFEE}'?") is None
    assert count_choice(f"Which of the person who said '{TECH}' and the person who said '{COFFEE}' spoke the "
                        "shortest time?") == "least_time"
    assert count_choice(f"Which of the person who said '{TECH}' and the person who said '{COFFEE}' spoke the "
                        "least?") is None   # two people by turns: find=less


# ---- noticed on 740's standard questions: a time after conditions that end with a time read "(00:06) (00:01)" ----

@pytest.mark.parametrize("question, frame, named", [
    (f"Who was the last person to speak before the person who said '{COFFEE}' spoke for the first time?",
     f'find=who other="{COFFEE}" rel=before pick=last', ["Ann spoke last before", "(00:10), at 00:02."]),
    (f"Who spoke first after the person who said '{COFFEE}' first spoke?",
     f'find=who other="{COFFEE}" rel=after pick=first', ["spoke first after", "(00:10), at 00:20."]),
])
def test_the_answers_time_follows_a_time_in_its_conditions_readably(ex, question, frame, named):  # noqa: F811
    got = answer(ex, question, frame, frame).answer
    assert all(n in got for n in named) and ") (" not in got, got


# ---- noticed at 81 (held-out 736): "who spoke third in the office?" with two people taking three turns said only
# that there was no third person; the third turn is an equally fair reading, said and cited beside it ----

@pytest.mark.parametrize("question, frame, named, absent", [
    ("Who spoke third in the lab?", 'find=who pick=3 place="lab"',
     ["there was no third person", "By turns, the third turn in the lab was", "(01:20)"], []),
    ("Who spoke fourth?", "find=who pick=4", ["there was no fourth person", f'"{TECH}"', "(00:35)"], []),
    ("Who spoke third in the office?", 'find=who pick=3 place="office"', ["there was no third person"], ["By turns"]),
])
def test_no_nth_person_says_the_nth_turn_where_there_was_one(ex, question, frame, named, absent):  # noqa: F811
    r = answer(ex, question, frame, frame)
    got = r.answer
    assert all(n.lower() in got.lower() for n in named) and not any(x in got for x in absent), got
    if "By turns" in got:
        assert r.trace.get("provenance"), r.trace   # the turn it names is cited


# ---- noticed at 83 (737-740): "was I in the attic?" / "did anyone speak in the attic?" answered only "I don't know a
# place called 'attic'"; a yes / no question gets its "no", as far as memory goes ----

@pytest.mark.parametrize("question, frame, start", [
    ("Was I in the attic?", 'find=yes place="attic"', 'No, not that I know of: I don\'t know a place called "attic".'),
    ("Did anyone speak in the attic?", 'find=yes place="attic" act=spoke', "No, not that I know of:"),
    ("How many people did I hear in the attic?", 'find=count_people place="attic"',
     'I don\'t know a place called "attic".'),
])
def test_an_unknown_place_in_a_yes_no_question_is_a_hedged_no(ex, question, frame, start):  # noqa: F811
    got = answer(ex, question, frame, frame).answer
    assert got.startswith(start), got
