"""Wall-clock time: a live robot's memory (ROS-time stamps) keeps stream seconds less its wall origin, says and
reads wall times in the robot's zone, and still reads times into a replayed recording (m3_memory.timeline)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from m3_control.evaluation.judge import StrictMatchJudge
from m3_control.query import QueryExecutor, answer_query, fidelity, parse
from m3_memory import MemoryStore
from m3_memory.store import StoreError
from m3_memory.timeline import StampAnchor, Timeline

from .people_helpers import meeting_store

ZONE = "Europe/Berlin"
NINE = datetime(2026, 11, 26, 9, 0, 0, tzinfo=ZoneInfo(ZONE)).timestamp()   # the meeting starts at 09:00:00


def test_say_and_read_wall_times_and_times_into_the_recording():
    tl = Timeline(NINE, ZONE)
    now = 100.0
    assert tl.say(40.0, now) == "09:00:40" and tl.say(40.0, now, into_recording=True) == "00:40"
    assert tl.say(40.0 - 86400, now) == "09:00:40 yesterday"
    assert tl.say(40.0 - 3 * 86400, now) == "09:00:40 on Mon 23 Nov"
    assert tl.reading("9:01", now) == (60.0, "wall")             # a moment the memory covers
    assert tl.reading("1:10", now) == (70.0, "recording")        # 01:10 am is before it: 1 min 10 s in
    assert tl.reading("0:40", now) == (40.0, "recording")
    assert tl.reading("9:00:30", now) == (30.0, "wall")
    assert tl.read("9:02", 30.0) < 0                             # not yet 9:02 at 9:00:30: yesterday's 9:02
    assert tl.read("3pm", 7 * 3600) == 6 * 3600 and tl.read("noon", 7 * 3600) == 3 * 3600
    assert tl.read("75.5") == 75.5
    with pytest.raises(ValueError):
        tl.read("half past nine")
    rec = Timeline()   # a converted recording: stream time only
    assert rec.say(70.0) == "01:10" and rec.read("1:10") == 70.0 and rec.read("9:01") == 541.0
    with pytest.raises(ValueError, match="time of day"):
        rec.read("3pm")


@pytest.mark.parametrize("question, start, end", [
    ("Who was here an hour ago?", 3 * 3600 - 3600 - 360, 3 * 3600 - 3600 + 360),
    ("What did she say ten minutes ago?", 3 * 3600 - 660, 3 * 3600 - 540),
    ("Who came in this morning?", -4 * 3600, 3 * 3600),                    # 05:00 .. now (12:00)
    ("What did the visitor say at 10 am?", 3600, 3660),
    ("Who spoke since 9:30 am?", 1800, None),
    ("Who was there before noon?", None, 3 * 3600),
    ("What happened yesterday afternoon?", -21 * 3600, -15 * 3600),
    ("In the last hour, who spoke?", 2 * 3600, 3 * 3600),
])
def test_times_in_words_resolve_against_the_question_moment(question, start, end):
    (span,) = Timeline(NINE, ZONE).spans(question, 3 * 3600.0)     # asked at 12:00
    assert (span.start, span.end) == (start, end), span


def test_relative_times_work_on_a_recording_too_but_times_of_day_do_not():
    rec = Timeline()
    (span,) = rec.spans("What did she say a minute ago?", 200.0)
    assert (span.start, span.end) == (110.0, 170.0)
    assert rec.spans("Who was here this morning?", 200.0) == []


def test_the_first_ros_stamp_anchors_the_memory_and_a_memory_never_mixes_clocks(db_at):
    with MemoryStore(db_at("robot.db")) as store:
        anchor = StampAnchor(store.timeline(), lambda s: store.anchor_wall_clock(s, ZONE))
        assert anchor.to_stream(NINE + 0.25) == 0.0 and store.timeline() == Timeline(NINE + 0.25, ZONE)
        assert anchor.to_stream(NINE + 30.25) == 30.0
        assert anchor.watermark(NINE + 60.25) == 60.0 and anchor.watermark(12.0) == 12.0
        with pytest.raises(ValueError, match="stream time, but this memory keeps wall-clock"):
            anchor.to_stream(12.0)
        # a restart continues the same stream time (the origin is kept, never moved)
        again = StampAnchor(store.timeline(), lambda s: store.anchor_wall_clock(s, ZONE))
        assert again.to_stream(NINE + 3600.25) == 3600.0
        assert store.anchor_wall_clock(NINE + 999, "UTC").origin == NINE + 0.25
    with MemoryStore(db_at("bag.db")) as store:   # a converted recording: stream stamps, then a ROS stamp
        with store.begin_clip(0, 0.0, 30.0) as w:
            w.add_memory("something happened", "episodic")
        with pytest.raises(StoreError, match="stream time"):
            store.anchor_wall_clock(NINE, ZONE)
        anchor = StampAnchor(store.timeline(), lambda s: store.anchor_wall_clock(s, ZONE))
        assert anchor.to_stream(5.0) == 5.0
        for _ in range(2):   # refused, and asked once only
            with pytest.raises(ValueError, match="wall-clock"):
                anchor.to_stream(NINE)
        assert store.timeline().origin is None
    with pytest.raises(ValueError, match="unknown time zone"), MemoryStore(db_at("z.db")) as store:
        store.anchor_wall_clock(NINE, "Mars/Olympus")


@pytest.fixture
def robot(db_at):
    """The people_helpers meeting, held by a live robot from 09:00:00 Berlin time."""
    store, _ = meeting_store(db_at("m.db"), wall_origin=NINE, zone=ZONE)
    yield store
    store.close()


def _ask(store: MemoryStore, question: str, frame: str, before: float) -> tuple[str, object]:
    timeline = store.timeline()
    q, _, missing = fidelity.check(question, parse(frame), [], timeline, timeline.now(before))
    assert not missing, missing
    return answer_query(QueryExecutor(store), q.compact(), before)


def test_answers_say_wall_times_and_questions_in_wall_time_are_answered(robot):
    text, _ = _ask(robot, "When did Cy last speak?", 'find=when who="I will call the technician" pick=last', 91.0)
    assert "09:01:20" in text and "01:20" not in text.replace("09:01:20", ""), text   # "see you tomorrow", 80 s
    # the model copied "9:01" from the question: read as the wall minute 09:01:00-09:01:59
    text, res = _ask(robot, "What did the person say at 9:01?", "find=what at=9:01", 91.0)
    assert "Thanks for the help" in text and "Bye everyone" in text and "09:01:00" in text, text
    assert "coffee" not in text and "red folder" not in text and not res.into_recording, text
    # asked at 09:01:31 about "a minute ago" (give or take 30 s): 09:00:01-09:01:01, the first two clips
    text, _ = _ask(robot, "Who spoke a minute ago?", "find=who act=spoke", 91.0)
    assert "between 09:00:01 and 09:01:01" in text and "technician" in text and "coffee" in text, text
    assert "Thanks" not in text and "Bye" not in text, text
    # asked in times into the recording (a replayed bag's question): answered in the same terms
    text, res = _ask(robot, "Who spoke between 0:30 and 0:45?", "find=who act=spoke from=0:30 to=0:45", 91.0)
    assert res.into_recording and "between 00:30 and 00:45" in text, text
    assert "I will call the technician" in text and "coffee" in text, text


def test_a_time_of_day_before_the_memory_is_no_memory_then_not_someone_else(robot):
    text, res = _ask(robot, "Who spoke at 8 am?", "find=who act=spoke", 91.0)
    assert res.value in (None, []) and "red folder" not in text and "coffee" not in text, text


def test_the_judge_takes_a_wall_time_as_the_same_instant_of_the_recording():
    strict = StrictMatchJudge()
    robot = StrictMatchJudge(Timeline(NINE, ZONE))
    assert not strict.judge("When?", "0:40", "At 09:00:40.").correct
    assert robot.judge("When?", "0:40", "At 09:00:40.").correct
    assert robot.judge("When?", "0:40", "At 00:40.").correct
    assert not robot.judge("When?", "0:40", "At 09:01:40.").correct
    assert robot.judge("When?", "1:35", "between 09:01:33 and 09:01:37").correct


def test_a_clock_time_with_seconds_is_copied_whole(robot):
    """"at 9:01:10" is a second, not the minute 9:01: a frame that copied only "9:01" has the question's time put
    back (the minute is a time the question never says; "at" makes 9:01:10 the moment)."""
    tl = robot.timeline()
    now = tl.now(91.0)
    q, added, missing = fidelity.check("Where was I at 9:01:10?", parse("find=where at=9:01"), [], tl, now)
    assert q.at == "9:01:10" and not missing, (q, added, missing)
    # where the words do not place it, the left-out second goes back to the model
    _, _, missing = fidelity.check("Where was I, 9:01:10?", parse("find=where at=9:01"), [], tl, now)
    assert missing == ["the time 9:01:10 (from=, to= or at=)"]
    _, _, missing = fidelity.check("Where was I at 9:01:10?", parse("find=where at=9:01:10"), [], tl, now)
    assert not missing
    text, res = _ask(robot, "Who spoke between 9:00:34 and 9:00:41?",
                     "find=who act=spoke from=9:00:34 to=9:00:41", 91.0)
    assert "technician" in text and "coffee" in text and "red folder" not in text, text
