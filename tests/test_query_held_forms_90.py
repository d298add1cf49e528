"""Question forms found by the blind probes 793-798 (held out, templates committed before their scenes were built).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31, 90 seconds recorded):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9, Cy 1:20-1:21.9

Turns: Ann 3, Bo 3, Cy 4 (10). Seconds: Cy 6.3 (office 4.4, lab 1.9), Ann 5.9 (kitchen 2, lab 3.9), Bo 5.8 (kitchen
2, office 3.8); 18 in all.
"""

from __future__ import annotations

import pytest

from m3_control.query.both_conditions import asks_both
from m3_control.query.person_gaps import asks_person_gap
from m3_control.query.place_counts import asks_place_counts
from m3_control.query.plans import plan_for
from m3_control.query.silences import asks_silence
from m3_control.query.speech_places import asks_speech_places
from m3_control.query.turn_stats import asks_stats

from .test_query_also import answer
from .test_query_executor import TECH
from .test_query_held_forms_83 import seconds_meeting, sx  # noqa: F401  (the fixture)

BO = 'the person who said "The coffee machine is broken"'
CY = f'the person who said "{TECH}"'
Cy = CY[0].upper() + CY[1:]
Bo = BO[0].upper() + BO[1:]


# ---- held-out 793 and 794: "how long was the recording?" and "how many seconds did the recording last?" were a
# search's "no memory": the recording's length, to the last input the memory holds ----

@pytest.mark.parametrize("question", [
    "How long was the recording?",
    "How many seconds did the recording last?",
    "What was the length of the recording?",
    "For how long did the whole recording run?",
    "How long is the video in seconds?",
])
def test_the_recordings_length_is_asked(question):
    ask = asks_stats(question)
    assert ask is not None and ask.kind == "length", question


@pytest.mark.parametrize("question", [
    "How long was the recording in the lab?",       # (the robot's time there)
    "How long was I in the kitchen?",
    "How long did Ann speak?",
    "How long was the silence before the recording ended?",
])
def test_not_the_recordings_length(question):
    ask = asks_stats(question)
    assert ask is None or ask.kind != "length", question


def test_the_recordings_length_answered(sx):  # noqa: F811
    said = "I recorded 90 seconds (1 minute 30 seconds), from the start to the last input I hold."
    assert answer(sx, "How long was the recording?", "find=how_long").answer == said
    assert answer(sx, "How many seconds did the recording last?", "find=count_times").answer == said


# ---- held-out 793 and 794: "on average, how many seconds did each person speak?" got the average turn, and "what
# was the average speaking time per person?" a search's "no memory": everyone's seconds over the people ----

@pytest.mark.parametrize("question", [
    "On average, how many seconds did each person speak?",
    "What was the average speaking time per person?",
    "On average, how long did each speaker talk?",
    "What was the mean talking time per speaker?",
])
def test_average_seconds_per_person_is_asked(question):
    ask = asks_stats(question)
    assert ask is not None and ask.kind == "per_person" and ask.seconds, question


@pytest.mark.parametrize("question", [
    "On average, how long was each person's turn?",          # (the average turn: turn_average)
    "What was the average turn length per speaker?",
    "On average, how many times did each person speak?",     # (turns each: per_person by turns)
])
def test_not_average_seconds_per_person(question):
    ask = asks_stats(question)
    assert ask is None or not (ask.kind == "per_person" and ask.seconds), question


def test_average_seconds_per_person_answered(sx):  # noqa: F811
    said = f"I heard 18 seconds of speech from 3 people: 6 seconds each on average (Ann 5.9 seconds; {BO} 5.8 " \
           f"seconds; {CY} 6.3 seconds)."
    assert answer(sx, "On average, how many seconds did each person speak?", "find=how_long by=turn").answer == said
    assert answer(sx, "What was the average speaking time per person?", "find=how_long").answer == said


# ---- held-out 793 and 794: "was more than half of the speech A's?" and "did B do more than half of the talking?"
# were answered as "did A speak more often than anyone?": one person's share, asked yes / no ----

@pytest.mark.parametrize("question, seconds, half", [
    ("Was more than half of the speech Ann's?", True, "more"),
    (f"Did {BO} do more than half of the talking?", True, "more"),
    (f"Did {CY} take more than half of the turns?", False, "more"),
    ("Did Ann do most of the talking?", True, "more"),
    ("Was Ann responsible for the majority of the turns?", False, "more"),
    (f"Did {CY} speak less than half of the time?", True, "less"),
])
def test_more_than_half_is_a_share_asked_yes_or_no(question, seconds, half):
    ask = asks_stats(question)
    assert ask is not None and ask.kind == "share" and ask.seconds == seconds and ask.half == half, question


@pytest.mark.parametrize("question", [
    "Did Ann speak more than Bo?",
    "Was more than half of the recording silent?",           # (nobody named: the recording's share)
    "What share of the turns were Ann's?",
    "Did Ann speak in the first half?",
])
def test_not_more_than_half(question):
    ask = asks_stats(question)
    assert ask is None or not ask.half, question


@pytest.mark.parametrize("question, frame, said", [
    ("Was more than half of the speech Ann's?", 'find=yes who="Ann" times>other',
     "No: Ann's speech was 5.9 seconds of the 18 seconds I heard (33 %); by turns, 3 of 10 (30 %)."),
    (f"Did {CY} take more than half of the turns?", "find=yes times>other",
     f"No: {CY} took 4 of the 10 turns (40 %); by seconds of speech, 6.3 seconds of 18 (35 %)."),
    (f"Did {CY} do less than half of the talking?", "find=yes",
     f"Yes: {CY}'s speech was 6.3 seconds of the 18 seconds I heard (35 %); by turns, 4 of 10 (40 %)."),
])
def test_more_than_half_answered(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 793 and 794: "how many turns a minute did I hear in the lab?" was over the whole recording, and "at
# what rate per minute did people speak in the living room?" listed what was said: a rate in a room is over the
# robot's time there ----

@pytest.mark.parametrize("question, frame, said", [
    ("How many turns a minute did I hear in the office?", 'find=count_times by=turn place="office"',
     "I heard 5 turns in the office in 29 seconds of my time there: 10.3 a minute."),
    ("At what rate per minute did people speak in the lab?", 'find=what place="lab"',
     "I heard 3 turns in the lab in 30 seconds of my time there: 6 a minute."),
])
def test_a_rate_in_a_room_is_over_the_robots_time_there(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 793 and 794: "in which room did B speak for the most seconds?" and "where did A talk for the longest
# time in total?" were ranked by turns: one person's seconds of speech per room ----

@pytest.mark.parametrize("question, less", [
    ("In which room did Ann speak for the most seconds?", False),
    ("Where did Ann talk for the longest time in total?", False),
    ("Where did Ann talk the longest?", False),
    ("In which room did Ann spend the least time talking?", True),
    ("Which room had the most of Ann's speaking time?", False),
])
def test_one_persons_seconds_per_room_is_asked(question, less):
    ask = asks_speech_places(question)
    assert ask is not None and ask.who == "Ann" and ask.less == less, question


@pytest.mark.parametrize("question", [
    "Where did Ann speak most often?",            # (by turns: a frame's)
    "In which room did Ann speak first?",
    "Where was Ann when she spoke the longest sentence?",
])
def test_not_one_persons_seconds_per_room(question):
    ask = asks_speech_places(question)
    assert ask is None or ask.who is None, question


@pytest.mark.parametrize("question, frame, said", [
    (f"In which room did {CY} speak for the most seconds?", "find=where pick=most",
     f"{Cy} spoke for the longest time in the office (4.4 seconds; the lab 1.9 seconds)."),
    ("Where did Ann talk for the shortest time?", 'find=where who="Ann" pick=least',
     "Ann spoke for the shortest time in the kitchen (2 seconds; the lab 3.9 seconds)."),
    (f"Where did {BO} talk for the longest time in total?", "find=where pick=most",
     f"{Bo} spoke for the longest time in the office (3.8 seconds; the kitchen 2 seconds)."),
])
def test_one_persons_seconds_per_room_answered(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 794: "which people spoke in both the first and the second half of the recording?" read "first" as
# a place: the halves asked in more words ----

@pytest.mark.parametrize("question", [
    "Which people spoke in both the first and the second half of the recording?",
    "Did Ann speak in the first half and in the second half?",
    "Who spoke in each half of the recording?",
    "Who talked in both halves?",
])
def test_both_halves_in_more_words(question):
    ask = asks_both(question)
    assert ask is not None and ask.halves, question


def test_both_halves_answered(sx):  # noqa: F811
    assert answer(sx, "Which people spoke in both the first and the second half of the recording?",
                  "find=who times=2").answer == \
        f"Ann, {BO} and {CY} spoke both in the first half (before 0:45) and in the second half (after 0:45)."
    assert answer(sx, "Did Ann speak in the first half and in the second half?", 'find=yes who="Ann"').answer == \
        "Yes, Ann spoke both in the first half (before 0:45) and in the second half (after 0:45)."


# ---- held-out 793 and 794: "which room had the longest single turn?" listed the turns and no room: the room of the
# longest (shortest) turn, a tie across rooms said ----

@pytest.mark.parametrize("question, frame, said", [
    ("Which room had the longest single turn?", "find=where pick=most by=turn",
     'In the kitchen and the lab (a tie across rooms). The longest single turns (3, as long as each other) were Ann, '
     f'at 00:02: "Put the red folder on the desk." (2.0 seconds); {BO}, at 00:10: "The coffee machine is broken." '
     '(2.0 seconds); Ann, at 01:05: "Thanks for the help." (2.0 seconds).'),
    ("In which room was the shortest turn spoken?", "find=where pick=least by=turn",
     f'In the office. The shortest single turns (2, as long as each other) were {CY}, at 00:35: "{TECH}." '
     f'(1.5 seconds); {CY}, at 00:45: "{TECH}." (1.5 seconds). 1 other turn came within a tenth of a second of '
     "them."),
])
def test_the_room_of_the_longest_turn(sx, question, frame, said):  # noqa: F811
    res = answer(sx, question, frame)
    assert res.answer == said
    assert plan_for(question) is not None


# ---- held-out 795: "what was the longest stretch with nobody speaking?" was a search's "no memory": a stretch
# (period, spell) with nobody speaking, or without speech, is a silence ----

@pytest.mark.parametrize("question", [
    "What was the longest stretch with nobody speaking?",
    "What was the longest period without speech in the office?",
    "How long was the longest time when no one was talking?",
    "What was the longest spell of silence?",
])
def test_a_stretch_with_nobody_speaking_is_a_silence(question):
    assert asks_silence(question) is not None, question


@pytest.mark.parametrize("question", [
    "What was the longest stretch of speech?",
    "Who spoke for the longest period?",
])
def test_not_a_silence(question):
    assert asks_silence(question) is None, question


def test_the_longest_stretch_with_nobody_speaking_answered(sx):  # noqa: F811
    assert answer(sx, "What was the longest stretch with nobody speaking?", "find=what").answer == \
        f"The longest silence between turns was 23 seconds: from 00:12, after {BO} spoke, to 00:35, when {CY} " \
        f'spoke. Before it: "The coffee machine is broken"; after it: "{TECH}".'


# ---- held-out 795 and 796: "what fraction of the recording did I spend in the office?" and "what percentage of the
# recording was I in the bathroom?" were answered with the speech there: the robot's own time as a share ----

@pytest.mark.parametrize("question, kind", [
    ("What fraction of the recording did I spend in the office?", "stay"),
    ("What percentage of the recording was I in the lab?", "stay"),
    ("What share of the recording did I stay in the kitchen?", "stay"),
    ("What percentage of the recording had speech?", "covered"),
    ("What fraction of the recording did I hear speech in the office?", "covered"),
])
def test_my_time_in_a_room_as_a_share(question, kind):
    ask = asks_stats(question)
    assert ask is not None and ask.kind == kind, question


@pytest.mark.parametrize("question, frame, said", [
    ("What fraction of the recording did I spend in the office?", 'find=what place="office"',
     "I was in the office for 29 of the 90 seconds recorded (32 %)."),
    ("What percentage of the recording was I in the lab?", "find=what times=1 count=10",
     "I was in the lab for 30 of the 90 seconds recorded (33 %)."),
])
def test_my_time_in_a_room_as_a_share_answered(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 796: "how long after B's first words did A first speak?" of an A who had spoken before B gave the
# time to A's next turn only: A's very first words are said too ----

def test_first_spoke_before_the_moment_is_said(sx):  # noqa: F811
    q = f"How long after {BO}'s first words did Ann first speak?"
    assert answer(sx, q, 'find=gap who="Ann" other="The coffee machine is broken" rel=after act=spoke').answer == \
        f"Ann spoke 55 seconds after {BO} (00:10; then 01:05). Ann had first spoken before that, at 00:02."
    q = f"How long after Ann's first words did {BO} first speak?"     # (no earlier turn: nothing added)
    assert answer(sx, q, 'find=gap who="The coffee machine is broken" other="Ann" rel=after act=spoke').answer == \
        f"{Bo} spoke 8 seconds after Ann (00:02; then 00:10)."


# ---- held-out 796: "how soon after I arrived in the lab did anyone speak?" of a robot that began in the lab and came
# back took 0:00 as the arrival: the room the recording began in was no arrival ----

def test_the_room_the_recording_began_in_is_no_arrival(sx):  # noqa: F811
    assert answer(sx, "When did I get to the kitchen?", 'find=when place="kitchen" act=seen').answer == \
        "I was in the kitchen from the start (00:00)."
    assert answer(sx, "When did I get to the office?", 'find=when place="office" act=seen').answer.startswith(
        "I got to the office at 00:3")


# ---- held-out 796: "did the bathroom have more turns than the lab?" was answered by who spoke there: two rooms'
# turns (people) compared, asked yes or no ----

@pytest.mark.parametrize("question, places, people", [
    ("Did the bathroom have more turns than the lab?", ("bathroom", "lab"), False),
    ("Did the lab have fewer speakers than the office?", ("lab", "office"), True),
    ("Did the kitchen get more speakers than the garden?", ("kitchen", "garden"), True),
])
def test_did_a_room_have_more_turns_than_another(question, places, people):
    ask = asks_place_counts(question)
    assert ask is not None and ask.places == places and ask.people == people, question


@pytest.mark.parametrize("question, frame, said", [
    ("Did the office have more turns than the lab?", 'find=more place="office" act=spoke',
     "Yes. In the office: people spoke 2 more times there (5 times) than in the lab (3 times)."),
    ("Did the lab have fewer speakers than the office?", 'find=more place="lab"',
     "No. The same number: I heard 2 different people in the lab and 2 in the office."),
])
def test_did_a_room_have_more_turns_answered(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 797 and 798: "which speaker had the longest wait between two of their own turns?" and "who went the
# longest between two of their own turns?" were "who spoke most often"; "what was the average time between A's
# turns?" and "on average, how long did B wait between turns?" were a quote and the average turn; "was A ever silent
# for more than 20 seconds?" was answered from A's turn count: one person's waits, computed ----

@pytest.mark.parametrize("question, who, kind, seconds", [
    ("Which speaker had the longest wait between two of their own turns?", None, "ranked", 0.0),
    ("Who went the longest between two of their own turns?", None, "ranked", 0.0),
    ("Who went the longest without speaking?", None, "ranked", 0.0),
    ("What was the average time between Ann's turns?", "Ann", "average", 0.0),
    ("On average, how long did Ann wait between turns?", "Ann", "average", 0.0),
    ("Was Ann ever silent for more than 20 seconds?", "Ann", "over", 20.0),
    ("Did Ann ever go more than 15 seconds without speaking?", "Ann", "over", 15.0),
    ("What was the longest time Ann went without speaking?", "Ann", "longest", 0.0),
])
def test_waits_between_ones_own_turns_are_asked(question, who, kind, seconds):
    ask = asks_person_gap(question)
    assert ask is not None and (ask.who, ask.kind, ask.seconds) == (who, kind, seconds), question
    assert plan_for(question).kind == "person_gap", question


@pytest.mark.parametrize("question", [
    "What was the average gap between turns?",          # (everyone's: turn_gaps)
    "On average, how long was Ann's turn?",              # (the average turn)
    "Has Ann talked for less than half a minute?",       # (one person's total)
    "Was anyone silent for more than 20 seconds?",
])
def test_not_waits_between_ones_own_turns(question):
    ask = asks_person_gap(question)
    assert ask is None or ask.kind not in ("average", "over", "ranked"), question


@pytest.mark.parametrize("question, frame, said", [
    ("Which speaker had the longest wait between two of their own turns?", "find=who pick=most",
     "Ann waited longest between two of their own turns: 61 seconds (from their turn at 00:02 to their next at 01:05); "
     f"next, {BO}, 28 seconds (from their turn at 00:10 to their next at 00:40)."),
    (f"What was the average time between {BO}'s turns?",
     'find=what other="The coffee machine is broken" by=turn',
     f"On average 18.1 seconds passed between the end of one of {BO}'s turns and the start of their next (2 waits: 28 "
     "and 8.1 seconds); start to start, 20 seconds."),
    ("Was Ann ever silent for more than 20 seconds?", 'find=yes who="Ann" times>20',
     "Yes: Ann went without speaking for 61 seconds between their turns at 00:02 and 01:05."),
    (f"Did {BO} ever go more than 30 seconds without speaking?", "find=yes times>15",
     "Not between their turns: the longest stretch between two of their turns was 28 seconds; after their last turn "
     "(at 00:50) they did not speak again for the 38 seconds left of what I recorded."),
    (f"Was {CY} ever quiet for more than 30 seconds?", "find=yes times>15",
     "No: the longest stretch between two of their turns was 24 seconds."),
])
def test_waits_between_ones_own_turns_answered(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


# ---- held-out 797 and 798: "at what time did the recording end?" and "when did the recording finish?" were a
# search's "no memory" ----

@pytest.mark.parametrize("question", [
    "At what time did the recording end?",
    "When did the recording finish?",
    "What time was the end of the recording?",
])
def test_the_recordings_end_is_asked(question):
    ask = asks_stats(question)
    assert ask is not None and ask.kind == "end", question


def test_the_recordings_end_answered(sx):  # noqa: F811
    assert answer(sx, "At what time did the recording end?", "find=when").answer == \
        "The recording ended at 01:30, the last input I hold: 90 seconds after it began."


# ---- held-out 798: "how many consecutive turns did B take at most?" was declined, and "did A talk more in the first
# or the second half?" counted one half ----

@pytest.mark.parametrize("question, frame, said", [
    ("How many consecutive turns did Ann take at most?", 'find=count_times who="Ann" by=turn',
     "Twice: Ann spoke twice in a row, at 01:05 and 01:10."),
    (f"How many consecutive turns did {CY} take at most?", "find=count_times by=turn",
     f"Once: {CY} never spoke twice in a row (someone else spoke between each of their 4 turns)."),
    (f"Did {BO} speak more in the first or second half?", "find=more from=0:00 to=0:45",
     f"In the first half (00:00-00:45): {BO} spoke more often then (twice) than in the second half (00:45-01:30) "
     "(once)."),
])
def test_consecutive_turns_and_halves_said_once(sx, question, frame, said):  # noqa: F811
    assert answer(sx, question, frame).answer == said


def test_a_turn_across_two_windows_boundary_is_counted_once(sx):  # noqa: F811
    # Ann's 0:02-0:04 turn began before 0:02 (the detected start less the onset) and goes on 2 seconds past it: each
    # window alone holds it (in_window), the comparison counts it once, before 0:02 (10 turns in all, not 11)
    said = answer(sx, "Were there more turns before 0:02 or after 0:02?", "find=count_times to=0:02").answer
    assert said == "After 00:02: people spoke more often then (9 times) than before 00:02 (once)."
