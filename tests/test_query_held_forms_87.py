"""Question forms found by stop 87's blind probes (held-out scenes 771-774).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9, Cy 1:20-1:21.9

Seconds in all: Ann 5.9 (3 turns), Bo 5.8 (3 turns), Cy 6.3 (4 turns).
"""

from __future__ import annotations

import pytest

from m3_control.query.quiet import asks_hush, asks_pause

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH
from .test_query_held_forms_83 import RED, sx  # noqa: F401  (the fixture)

ANN = f'the person who said "{RED}"'
BO = f'the person who said "{COFFEE}"'
CY = f'the person who said "{TECH}"'


# ---- held-out 773: "was there any silence between 0:40 and 0:45?" was answered "no, C spoke at 0:42" (the window was
# read as quiet all through): "any / a / some silence (pause, gap, break)" in a window asks whether nobody spoke for a
# second or more somewhere in it ----

@pytest.mark.parametrize("question, frame, start, stretches", [
    # (the frame 773's model wrote: nothing of it but the window is read)
    ("Was there any silence between 0:35 and 0:41?", 'find=same who="spoke first" other="spoke last" rel=after to=0:41',
     "Yes, nobody spoke", ["from 00:36 to 00:40"]),
    ("Was there a pause between 0:44 and 0:57?", "find=more from=0:44 to=0:57", "Yes, nobody spoke",
     ["from 00:44 to 00:45", "from 00:46 to 00:50", "from 00:52 to 00:55"]),
    ("Was there any break in the talking between 0:40 and 0:42?", "find=yes from=0:40 to=0:42",
     "No, there was no silence of a second or more between 00:40 and 00:42: " + BO, ["from 00:40 to 00:42"]),
    ("Was there a moment of silence between 1:00 and 1:04?", "find=yes from=1:00 to=1:04", "Yes, nobody spoke",
     ["between 01:00 and 01:04"]),
])
def test_some_silence_in_a_window_is_the_stretches_nobody_spoke(sx, question, frame, start, stretches):  # noqa: F811
    assert asks_hush(question) and asks_pause(question)
    got = answer(sx, question, frame).answer
    assert got.lower().startswith(start.lower()) and all(s in got for s in stretches), got


@pytest.mark.parametrize("question", ["Was there silence between 0:35 and 0:41?", "Was it quiet at 0:33?",
                                      "Was there a silence longer than 10 seconds?"])
def test_silence_without_any_is_still_the_whole_window(question):
    assert not asks_pause(question) or not asks_hush(question)


def test_silence_all_through_a_window_is_still_quiet_throughout(sx):  # noqa: F811
    got = answer(sx, "Was there silence between 0:35 and 0:41?", "find=yes from=0:35 to=0:41").answer
    assert got.startswith("No,") and "00:35" in got, got


# ---- held-out 774: "who talked the least in the living room, by time?" ranked turns (right by chance): "by time",
# "in seconds", "in terms of time" after most / least rank the seconds talked ----

@pytest.mark.parametrize("question, frame", [
    ("Who talked the least overall, by time?", "find=who pick=least act=spoke"),
    ("Who spoke the least in terms of time?", "find=who pick=least"),
    # (a window the question never says, written by the model for "in seconds", is dropped)
    ("Who spoke the least, in seconds?", "find=less from=0:00 to=1:00 act=spoke"),
])
def test_least_by_time_ranks_seconds_not_turns(sx, question, frame):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.lower().startswith(BO.lower()) and "second" in got and RED not in got, got  # Ann, Bo: 3 turns each


def test_by_the_time_is_no_unit(sx):  # noqa: F811
    got = answer(sx, "Who spoke the most by the time I left the kitchen?", "find=who pick=most act=spoke").answer
    assert "second" not in got, got


# ---- held-out 773: "was C talking 30 seconds into the recording?" was answered "yes, C spoke at 00:29 at 00:30": a
# yes at a moment says the moment, then the turn's span ----

def test_a_yes_at_a_moment_gives_the_span_once(sx):  # noqa: F811
    got = answer(sx, f"Was {CY} talking at 0:46?", f'find=yes who="{TECH}" at=0:46').answer
    assert got == f"Yes, {CY} spoke at 00:46 (from 00:45 to 00:46).", got
