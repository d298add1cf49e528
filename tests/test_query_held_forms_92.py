"""Question forms found by the blind probes 805-806 (held out, templates committed before their scenes were built).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31, 90 seconds recorded):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9, Cy 1:20-1:21.9

Turn lengths 2, 2, 1.45, 1.9, 1.45, 1.9, 1.5, 2, 1.9, 1.9: 18 seconds, 1.8 on average; the longest stretch without
speech 0:12-0:35 (23 seconds).
"""

from __future__ import annotations

import pytest

from m3_control.query import QueryExecutor
from m3_control.query.frame import Query
from m3_control.query.minutes_spoken import asks_minutes_spoken
from m3_control.query.place_forms import busiest_place, place_difference
from m3_control.query.plans import plan_for
from m3_control.query.sentences import asks_sentences
from m3_control.query.silences import asks_silence
from m3_control.query.talk_span import asks_ranked_span

from .people_helpers import meeting_store
from .test_query_also import answer
from .test_query_executor import TECH
from .test_query_held_forms_83 import seconds_meeting, sx  # noqa: F401  (the fixture)

BO = 'the person who said "The coffee machine is broken"'
CY = f'the person who said "{TECH}"'


def _kind(question: str) -> str | None:
    plan = plan_for(question)
    return plan.kind if plan else None


# ---- held-out 805 and 806: "how many turns were longer than the average turn?" was "I heard people speak 10
# times": the turns counted against the average of the same turns ----

@pytest.mark.parametrize("question, over", [
    ("How many turns were longer than the average turn?", True),
    ("How many turns lasted longer than the average turn?", True),
    ("How many turns were shorter than average?", False),
    ("How many of the turns were below the mean length?", False),
    ("How many of Ann's turns were longer than average?", True),
])
def test_turns_against_the_average_are_asked(question, over):
    ask = asks_sentences(question)
    assert ask is not None and ask.kind == ("count_over" if over else "count_under") and ask.seconds < 0, question


@pytest.mark.parametrize("question", [
    "How many turns were longer than 2 seconds?",       # a length given: that length
    "What was the average turn length?",
    "Was Ann's average turn longer than the average turn overall?",
])
def test_not_turns_against_the_average(question):
    ask = asks_sentences(question)
    assert ask is None or ask.seconds >= 0, question


@pytest.mark.parametrize("question, frame, said", [
    ("How many turns were longer than the average turn?", "find=count_times by=turn",
     "7 of the 10 turns were longer than the average turn (1.80 seconds): Ann at 00:02 (2.00 seconds); "
     f"{BO} at 00:10 (2.00 seconds); {BO} at 00:40 (1.90 seconds); {BO} at 00:50 (1.90 seconds); Ann at 01:05 "
     f"(2.00 seconds); Ann at 01:10 (1.90 seconds); {CY} at 01:20 (1.90 seconds)."),
    ("How many turns lasted less than the average?", "find=count_times by=turn",
     f"3 of the 10 turns were shorter than the average turn (1.80 seconds): {CY} at 00:35 (1.45 seconds); {CY} at "
     f"00:45 (1.45 seconds); {CY} at 00:55 (1.50 seconds)."),
    # Ann's own three turns: 2, 2 and 1.9 seconds, 1.97 on average
    ("How many of Ann's turns were shorter than average?", 'find=count_times who="Ann" by=turn',
     "1 of the 3 turns was shorter than their average turn (1.97 seconds): Ann at 01:10 (1.90 seconds)."),
    ("How many of Ann's turns were longer than 1.95 seconds?", 'find=count_times who="Ann" by=turn',
     "2 of the 3 turns lasted more than 1.95 seconds: Ann at 00:02 (2.0 seconds); Ann at 01:05 (2.0 seconds)."),
])
def test_turns_against_the_average_answered(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == said, got


# ---- held-out 805 and 806: "was there a whole minute without any speech?" was "Yes, A, B and C spoke between 00:00
# and 01:00" (a yes for the opposite): the longest stretch with nobody speaking, the recording's two ends included ----

@pytest.mark.parametrize("question", [
    "Was there a whole minute without any speech?",
    "Was there any full minute with no one speaking?",
    "Did nobody speak for a full minute?",
    "Was it silent for an entire minute?",
    "Was there a minute-long silence?",
    "Was there a whole minute in which nobody spoke?",
])
def test_a_whole_minute_without_speech_is_asked(question):
    ask = asks_silence(question)
    assert ask is not None and ask.whole_minute and ask.over_s == 60, question
    assert _kind(question) == "silence", question


@pytest.mark.parametrize("question", [
    "What was the longest silence?",
    "Was there a silence of over 5 seconds?",
    "Who spoke in the first minute?",
    "Was it quiet at 0:33?",
])
def test_not_a_whole_minute_without_speech(question):
    ask = asks_silence(question)
    assert ask is None or not ask.whole_minute, question


@pytest.mark.parametrize("question, frame", [
    ("Was there a whole minute without any speech?", "find=yes from=0:00 to=1:00"),   # "a minute" is no window
    ("Did nobody speak for a full minute?", "find=yes times=1"),
    ("Was there any full minute with no one speaking?", "find=yes"),
])
def test_no_whole_minute_without_speech_answered(sx, question, frame):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == "No, there was no whole minute without speech: the longest stretch with nobody speaking was 23 " \
                  "seconds, from 00:12 to 00:35.", got


def test_a_whole_minute_without_speech_and_the_stretch_after_the_last_words(db_at):
    """Ann at 0:02 and Bo at 1:20 with nothing between (76 seconds), asked at 1:31: yes, with the stretch; in a
    window with both ends given only that window counts."""
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (2, "bo", 80.0, 82.0, "The coffee machine is broken.")]
    store, _ = meeting_store(db_at("gap.db"), script=script, silent=[])
    try:
        ex = QueryExecutor(store)
        got = answer(ex, "Was there a whole minute without any speech?", "find=yes").answer
        assert got == "Yes, nobody spoke for a minute or more: from 00:04 to 01:20 (76 seconds).", got
        got = answer(ex, "Was there a whole minute without speech between 0:05 and 1:15?",
                     "find=yes from=0:05 to=1:15").answer
        assert got == "Yes, nobody spoke for a minute or more: from 00:05 to 01:15 (70 seconds).", got
        # Bo's words begun at 1:20 go on into a window from 1:21; the memory ends with them (1:22)
        got = answer(ex, "Was there a whole minute without speech between 1:21 and 1:30?",
                     "find=yes from=1:21 to=1:30").answer
        assert got == "No, someone was speaking all the time between 01:21 and 01:22.", got
    finally:
        store.close()


# ---- held-out 805: "whose turns were spread over the longest time, from first to last?" listed everyone who spoke:
# each person's first words to last, ranked ----

@pytest.mark.parametrize("question, rank", [
    ("Whose turns were spread over the longest time, from first to last?", "most"),
    ("Whose turns were spread out over the shortest time?", "least"),
    ("Which person's turns spanned the longest stretch of time?", "most"),
    ("Who spoke over the widest span, from first to last?", "most"),
])
def test_a_spread_of_turns_is_asked(question, rank):
    assert asks_ranked_span(question) == rank, question


def test_a_spread_of_turns_answered(sx):  # noqa: F811
    got = answer(sx, "Whose turns were spread over the longest time, from first to last?", "find=who").answer
    said = "Ann's turns spanned the longest stretch, first words to last: 68 seconds (00:02 to 01:10)"
    assert got.startswith(said), got


# ---- held-out 805: "how many people did I hear in the kitchen that I had not heard in the porch?" was "everyone I
# heard spoke in the kitchen": in one place and never in the other, however the "not" is said ----

@pytest.mark.parametrize("question", [
    "Did you see anyone in the lab who didn't speak?",       # no second place: who was silent there
    "Who was in the kitchen that never spoke?",
])
def test_not_people_in_one_place_not_heard_in_another(question):
    q = place_difference(Query(find="who"), question, ["kitchen", "office", "lab"], [])
    assert q.not_place is None, (question, q)


@pytest.mark.parametrize("question, places", [
    ("How many people did I hear in the office that I had not heard in the kitchen?", ("office", "kitchen")),
    ("Who spoke in the lab who hadn't spoken in the office?", ("lab", "office")),
    ("Which people were heard in the kitchen that were never heard in the lab?", ("kitchen", "lab")),
    ("Who spoke in the kitchen but not in the lab?", ("kitchen", "lab")),
])
def test_people_in_one_place_not_heard_in_another_are_asked(question, places):
    added: list[str] = []
    q = place_difference(Query(find="who"), question, ["kitchen", "office", "lab"], added)
    assert (q.place, q.not_place) == places, (question, q)


@pytest.mark.parametrize("question, frame, said", [
    ("How many people did I hear in the office that I had not heard in the kitchen?",
     'find=count_people place="office" act=seen times=0', "I heard 1 different person in the office but never in the "
     "kitchen."),
    ("Who spoke in the lab who hadn't spoken in the office?", "find=who act=spoke times=0 count=0",
     "Ann spoke in the lab but never in the office."),
])
def test_people_in_one_place_not_heard_in_another_answered(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == said, got


# ---- held-out 806: "in which room did the largest number of different people speak?" was the room with the most
# turns: the most different people, ties said ----

@pytest.mark.parametrize("question, pick", [
    ("In which room did the largest number of different people speak?", "most"),
    ("Which room had the smallest number of speakers?", "least"),
    ("Which room had the greatest number of distinct voices?", "most"),
    ("Which room had the most different speakers?", "most"),
])
def test_the_room_with_the_most_people_is_asked(question, pick):
    added: list[str] = []
    q = busiest_place(Query(find="where", count=">1"), question, added)
    assert (q.find, q.pick, q.measure) == ("where", pick, "people"), (question, q)


def test_the_room_with_the_most_people_answered(sx):  # noqa: F811
    got = answer(sx, "In which room did the largest number of different people speak?", "find=where count>1").answer
    assert got == "The kitchen, the office and the lab had the most speakers (2 each).", got   # in order of talk


# ---- held-out 803 and 804 (stop 91, left open then): "which person spoke in the most different minutes?" was the
# person who spoke most often: each person's minutes with a turn begun in them, counted ----

@pytest.mark.parametrize("question, least", [
    ("Which person spoke in the most different minutes?", False),
    ("Who talked in the largest number of different minutes?", False),
    ("Who was heard in the fewest minutes?", True),
    ("Which speaker spoke in the smallest number of distinct minutes?", True),
])
def test_people_by_their_minutes_are_asked(question, least):
    ask = asks_minutes_spoken(question)
    assert ask is not None and ask.least == least, question
    assert _kind(question) == "minutes_spoken", question


@pytest.mark.parametrize("question", [
    "Which minute of the recording had the most turns?",     # the minutes ranked, not the people
    "Who spoke the most in the last minute?",
    "Who spoke most often?",
])
def test_not_people_by_their_minutes(question):
    assert asks_minutes_spoken(question) is None, question


@pytest.mark.parametrize("question, frame, said", [
    # Ann 0:02, 1:05, 1:10; Bo 0:10, 0:40, 0:50; Cy 0:35, 0:45, 0:55, 1:20
    ("Which person spoke in the most different minutes?", "find=who pick=most",
     f"Ann and {CY} spoke in the most different minutes: 2 each (the first and the second minutes); {BO} 1 (the first "
     "minute)."),
    ("Who was heard in the fewest minutes?", "find=who pick=least",
     f"{BO[0].upper()}{BO[1:]} spoke in the fewest different minutes: 1 (the first minute); Ann 2 (the first and the "
     f"second minutes); {CY} 2 (the first and the second minutes)."),
])
def test_people_by_their_minutes_answered(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == said, got
