"""Question forms the blind probes 817-818 left open (held out, templates committed before their scenes were built).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31, 90 seconds recorded):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07, Ann 1:10-1:11.9, Cy 1:20-1:21.9

or on :data:`HALVES` (tests/test_query_held_forms_94.py: Bo and Cy never speak one right after the other).
"""

from __future__ import annotations

import pytest

from m3_control.query.plans import plan_for
from m3_control.query.stay_moments import resolve

from .test_query_also import answer
from .test_query_executor import TECH
from .test_query_held_forms_83 import seconds_meeting, sx  # noqa: F401  (the fixture)
from .test_query_held_forms_94 import BO, CY, HALVES

COFFEE = "The coffee machine is broken"


def _kind(question: str) -> str | None:
    plan = plan_for(question)
    return plan.kind if plan else None


@pytest.mark.parametrize("question, kind", [
    ("Was the first turn in the lab by someone I had heard before?", "heard_earlier"),
    ("Did the first person to speak in the bedroom speak earlier too?", "heard_earlier"),
    ("Had I heard the second speaker in the office before?", "heard_earlier"),
    ("Was the last voice in the garden a new one?", "heard_earlier"),
    ("Whose last turn was in the porch?", "last_in_place"),
    ("Which people spoke for the last time in the garden?", "last_in_place"),
    ("How many people spoke for the last time in the kitchen?", "last_in_place"),
    ("Which two people never spoke one right after the other?", "pairs"),
    ("Which pair of people never had one turn right after the other?", "pairs"),
])
def test_the_forms_are_asked(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, kind", [
    ("Who spoke for the first time in the garden?", "first_in_place"),    # the mirror keeps its plan
    ("Which two people most often spoke one right after the other?", "pairs"),
    ("Was the first person I heard in the porch also heard in the garage?", None),   # person_refs resolves it
    ("Who spoke last in the office?", None),                               # the room's last speaker (a frame)
])
def test_neighbouring_forms_keep_their_plans(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, start, named, absent", [
    # the lab's first turn is Ann's (1:05), heard in the kitchen at 0:02
    ("Was the first turn in the lab by someone I had heard before?", "Yes", ["Ann", "00:02", "kitchen"], [TECH]),
    ("Did the first person to speak in the lab speak earlier too?", "Yes", ["Ann", "01:05"], [TECH]),
    # the office's first turn is Cy's first words (0:35)
    ("Did the first person to speak in the office speak earlier too?", "No", [TECH, "00:35", "first time"], ["Ann"]),
    ("Was the first voice in the office a new one?", "Yes", [TECH, "first time"], []),
    # the second person in the office is Bo (0:40), heard in the kitchen at 0:10: not the office's second turn
    ("Had I heard the second speaker in the office before?", "Yes", [COFFEE, "00:40", "00:10"], [TECH]),
    ("Was the fourth turn in the kitchen by someone I had heard before?", "There was no fourth turn", ["2 turns"],
     ["Yes", "No"]),
])
def test_a_rooms_ranked_turn_heard_before(sx, question, start, named, absent):  # noqa: F811
    a = answer(sx, question, "find=yes act=spoke", "find=yes act=spoke").answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, named, absent", [
    # Bo's last turn is in the office (0:50); Cy was heard there too but last spoke in the lab
    ("Whose last turn was in the office?", [f'"{COFFEE}" (last at 00:50) spoke for the last time', "01:20 in the lab"],
     ["Ann"]),
    ("Which people spoke for the last time in the lab?", ["Ann (last at 01:10)", f'"{TECH}" (last at 01:20)'],
     [COFFEE]),
    ("How many people spoke for the last time in the kitchen?", ["None: everyone", "Ann (last at 01:10 in the lab)"],
     []),
])
def test_whose_last_turn_was_in_a_room(sx, question, named, absent):  # noqa: F811
    a = answer(sx, question, "find=who pick=last act=spoke", "find=who pick=last act=spoke").answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_the_pairs_who_never_spoke_one_right_after_the_other(db_at):
    with seconds_meeting(db_at("halves.db"), script=HALVES) as ex:
        a = answer(ex, "Which two people never spoke one right after the other?", "find=who", "find=who").answer
        assert a.startswith(f"{BO[0].upper()}{BO[1:]} and {CY} never spoke"), a
        assert "Ann and" in a and "3 times" in a     # the pairs that did, with their counts
        office = answer(ex, "Which two people never spoke one right after the other in the office?",
                        'find=who place="office"', 'find=who place="office"').answer
        assert office.startswith("No two people"), office


def test_every_pair_spoke_one_after_the_other(sx):  # noqa: F811
    a = answer(sx, "Which pair of people never had one turn right after the other?", "find=who", "find=who").answer
    assert a.startswith("No two people: every pair of the 3 people"), a


@pytest.mark.parametrize("question, named", [
    # a room's turns as the whole: Bo took 2 of the office's 5
    (f'What share of the office\'s turns did the person who said "{COFFEE}" take?', ["2 of the 5 turns", "40 %"]),
    (f'What fraction of the turns in the office were the person who said "{COFFEE}"\'s?', ["2 of the 5", "40 %"]),
    # the person's own turns as the whole: 2 of Ann's 3 were in the lab
    ("What share of Ann's turns were in the lab?", ["Of Ann's 3 turns, 2", "67 %"]),
])
def test_a_share_of_a_rooms_turns_is_not_of_the_persons(sx, question, named):  # noqa: F811
    frame = "find=what act=spoke times=1"
    a = answer(sx, question, frame, frame).answer
    assert all(n in a for n in named), a


@pytest.mark.parametrize("question, frame, named, absent", [
    ("How many people took exactly one turn in the kitchen?", "find=count_people act=spoke times=1",
     ["2 people", "Ann"], []),
    ("How many people had only one turn in the kitchen?", "find=count_people act=spoke", ["2 people"], []),
    ("How many people took exactly one turn in the office?", "find=count_people act=spoke times=1", ["Nobody"],
     [COFFEE]),
    ("Which speakers took exactly two turns in the lab?", "find=who act=spoke", ["Ann"], [TECH]),
])
def test_people_with_exactly_n_turns_in_a_room(sx, question, frame, named, absent):  # noqa: F811
    a = answer(sx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, frame, named, absent", [
    # the robot left the kitchen at 0:30: its last 20 s there are 0:10-0:30 (Bo at 0:10, Ann at 0:02 before it)
    (f'Did the person who said "{COFFEE}" speak in the last 20 seconds of my time in the kitchen?',
     f'find=yes who="{COFFEE}" times<20', ["Yes", "00:10 and 00:30"], []),
    ("Was Ann heard during my final 20 seconds in the kitchen?", "find=yes who=Ann times=20",
     ["No", "00:10 and 00:30"], []),
    # the lab from 1:00: its first 20 s hold Ann's two turns and Cy's at 1:20
    ("In my first 20 seconds in the lab, how many turns did I hear?", "find=count_times from=0:00 to=0:20 act=spoke",
     ["3 times", "01:00 and 01:20"], ["00:00"]),
    ("How many turns did I hear in the first 8 seconds of my stay in the office?", "find=count_times act=spoke",
     ["once", "00:30 and 00:38"], []),
])
def test_a_window_at_an_edge_of_a_stay(sx, question, frame, named, absent):  # noqa: F811
    a = answer(sx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_an_edge_window_of_a_place_never_visited_or_a_short_stay(sx):  # noqa: F811
    asked, moment = resolve("Did Ann speak in my first 20 seconds in the garage?", sx, 91.0)
    assert moment is not None and moment.at is None and "never in the garage" in moment.why
    asked, moment = resolve("How many turns did I hear in the last 2 minutes of my time in the office?", sx, 91.0)
    assert moment is not None and "whole stay" in moment.why and "between 00:30 and 01:00" in asked, asked
    assert resolve("How many turns were there in the first 20 seconds?", sx, 91.0) == (
        "How many turns were there in the first 20 seconds?", None)


# -- the kinds held-out 819-820 asked (templates f59ffab, committed before their scenes were built) --------------------

@pytest.mark.parametrize("question, kind", [
    ("Who spoke right before and right after Ann's first turn?", "neighbours"),
    (f"Whose turns came immediately before and immediately after {BO} first spoke?", "neighbours"),
    ("Did Ann take more turns than everyone else put together?", "count_relation"),
    (f"Were {CY}'s turns more than all the other people's turns combined?", "count_relation"),
    (f"Which person took twice as many turns as {CY}?", "count_relation"),
    ("How many seconds separated the first two turns in the office?", "turns_gap"),
    ("How many turns lasted longer than the longest of Ann's turns?", "count_over"),
    ("Which turn was the closest in length to Ann's first turn?", "nearest_length"),
    (f"Which turn's length was nearest to that of {CY}'s first turn?", "nearest_length"),
    ("Was there more speech than silence while I was in the office?", "stats_covered"),
    ("In how many rooms did I hear more than two different people?", "room_people"),
    ("How many rooms had more than two different speakers?", "room_people"),
    (f"What was the shortest gap between a turn of Ann's and a turn of {CY}?", "pair_gap"),
    (f"How close in time did a turn of {BO} come to a turn of Ann's?", "pair_gap"),
    ("While I was in the office, did the silence ever last more than 5 seconds?", "silence"),
    ("Whose turn came just before the first silence longer than three seconds?", "silence"),
    ("Which minute had the largest number of different speakers?", "minute"),
    ("Was the average turn in the kitchen longer than the average turn in the office?", "turn_average"),
    ("How many people spoke in both the first and the last minute?", "both"),
    ("Adding up Ann's turns in the kitchen and the lab, how many seconds was that?", "places_together"),
])
def test_819_forms_are_asked(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, frame, named, absent", [
    ("Who spoke right before and right after Ann's first turn?", "find=who other=Ann rel=right_before",
     ["nobody", "first turn", f'"{COFFEE}" (at 00:10'], []),
    (f"What was said just before and just after {CY}'s last turn?", "find=what",
     ["Ann (at 01:10", "nobody", "last turn"], []),
    # Cy 4 turns, the others 3 each (6 together)
    (f"Did {CY} take more turns than everyone else put together?", "find=yes times>other",
     ["No:", "4 times", "6 turns"], []),
    ("Did Ann talk less than everyone else combined?", "find=yes", ["Yes:", "7 turns"], []),
    ("Which person took twice as many turns as Ann?", "find=who other=Ann pick=2", ["Nobody", "3 times"], []),
    ("How many seconds separated the first two turns in the office?", "find=gap from=0:00 to=0:02",
     ["4 seconds of silence", "00:35", "00:40"], []),
    ("How many turns were there in the first third of the recording?", "find=count_times from=0:00 to=1:00",
     ["twice", "00:00 and 00:30"], []),
    ("Who spoke in the last quarter of the recording?", "find=who act=spoke", ["Ann", TECH], [COFFEE, "last"]),
    ("How many turns did I hear from 0:10 until I entered the office?", "find=count_times from=0:10 to=0:20",
     ["once", "00:10 and 00:30"], []),
    ("Who spoke between 0:20 and my arrival in the lab?", "find=who", [TECH, COFFEE, "00:20 and 01:00"], ["Ann"]),
    ("Was there more speech than silence while I was in the office?", "find=yes times>0", ["No:", "72 %"], []),
    ("Was there more silence than speech in the lab?", "find=yes", ["Yes:"], []),
    ("In how many rooms did I hear more than two different people?", "find=count_places count>2",
     ["0 of the 3 rooms"], []),
    ("How many rooms had more than one different speaker?", "find=count_places", ["3 of the 3 rooms"], []),
    (f"What was the shortest gap between a turn of Ann's and a turn of {CY}?", "find=what",
     ["8.1 seconds", "01:10", "01:20"], []),
    ("Whose turn came just before the first silence longer than three seconds?", "find=who rel=right_before",
     ["6.0 seconds", "after Ann spoke", "00:02"], []),
    ("While I was in the office, did the silence ever last more than 5 seconds?", "find=yes from=0:00 to=0:10",
     ["No", "in the office", "longest was 4 seconds"], []),
    ("Which minute had the largest number of different speakers?", "find=count_people",
     ["The first minute", "3 different people"], []),
    ("Were the turns in the office longer on average than those in the lab?", "find=more",
     ["No:", "1.64 seconds", "1.93 seconds"], []),
    ("Who spoke both in the first minute and in the last minute?", "find=who times=1 count=2",
     ["Ann", COFFEE, TECH, "first minute", "last minute"], []),
    ("Adding up Ann's turns in the kitchen and the lab, how many seconds was that?", "find=gap who=Ann place=\"lab\"",
     ["5.9 seconds", "2.0 seconds (1 turn) in the kitchen", "3.9 seconds (2 turns) in the lab"], []),
    ("How many turns lasted longer than the longest of Ann's turns?", "find=count_times who=Ann",
     ["0 of the 10 turns", "2.00 seconds"], []),
    (f"Which turn's length was nearest to that of {CY}'s first turn?", "find=what pick=first",
     ["1.45 seconds, at 00:35", "00:45"], []),
    ("How long was the longest turn of the last person I heard?", "find=how_long by=turn act=spoke",
     [TECH, "01:20", "1.9 seconds"], ["00:02"]),
    (f'Which musical instrument does the person who said "{COFFEE}" play?', f'find=what who="{COFFEE}"',
     ["I don't remember", "musical instrument"], ["I heard"]),
])
def test_819_kinds_answered(sx, question, frame, named, absent):  # noqa: F811
    a = answer(sx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


TWICE = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
         (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
         (1, "ann", 31.0, 33.0, "Put the red folder on the desk."),
         (1, "cy", 40.0, 41.0, "I will call the technician."),
         (2, "ann", 62.0, 63.5, "Thanks for the help."),
         (2, "bo", 64.0, 66.0, "The coffee machine is broken."),
         (2, "ann", 80.0, 82.0, "See you tomorrow.")]


def test_twice_as_many_turns_names_the_person(db_at):
    with seconds_meeting(db_at("twice.db"), script=TWICE) as ex:
        a = answer(ex, f"Which person took twice as many turns as {BO}?", "find=who", "find=who").answer
        assert a.startswith("Ann (4 times): twice as many as"), a
        half = answer(ex, "Who spoke half as often as Ann?", "find=who", "find=who").answer
        assert half.startswith(f"{BO[0].upper()}{BO[1:]} (twice)"), half


# -- the kinds held-out 821-822 asked (templates 6543e43, committed before their scenes were built) --------------------

@pytest.mark.parametrize("question, kind", [
    ("At most, how many turns in a row passed without Ann speaking?", "runs_without"),
    ("What was the longest run of turns without Ann?", "runs_without"),
    (f"How long did the longest back-and-forth between {BO} and {CY} last?", "runs_alternate"),
    ("How many turns lasted longer than the turn just before them?", "runs_than_before"),
    ("What was the median silence between turns?", "turn_gaps_median"),
    ("What was the median length of the silences between turns?", "turn_gaps_median"),
    ("Was Ann the only person who spoke in the lab after 1:00?", "only_speaker"),
    ("In which room did the first turn come soonest after I arrived?", "each_room"),
    ("Was every turn in the lab by someone I had already heard in the kitchen?", "heard_before"),
    ("What share of all the speech was in the office?", "room_share"),
    ("Was the longest turn of the recording in the kitchen?", "longest_where"),
    ("How many people spoke for more than five seconds in total?", "talk_total"),
])
def test_821_forms_are_asked(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, frame, named, absent", [
    # turns: Ann 0:02, Bo 0:10, Cy 0:35, Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55, Ann 1:05, Ann 1:10, Cy 1:20
    ("At most, how many turns in a row passed without Ann speaking?", "find=count_times",
     ["6 turns in a row without Ann", "00:10 to 00:55"], []),
    (f"How long did the longest back-and-forth between {BO} and {CY} last?", "find=how_long",
     ["6 turns in a row", "46.5 seconds"], []),
    ("How many turns were longer than the turn right before them?", "find=count_times", ["3 of the 9 turns"], []),
    ("What was the total silence between Ann's first and last turns?", "find=what",
     ["Nobody was speaking for 54 of the 70 seconds", "00:02 and 01:12"], []),
    ("How often did the speaker change from Ann's first turn to their last?", "find=count_times",
     ["7 times", "9 turns"], []),
    (f"For how much of the time between {CY}'s first and last turns was {CY} speaking?", "find=what",
     ["for 6 of the 47 seconds", "4 times"], []),
    (f"In the 30 seconds after {BO} first spoke, who talked the most?", "find=who pick=most",
     ["00:12 and 00:42", "equally"], []),
    ("How many turns came after the last turn in the office?", "find=count_times", ["3 times", "after 00:57"], []),
    ("How many turns did the most talkative person in the office take in the lab?", "find=count_times",
     [TECH, "once in the lab"], []),
    ("What was the median silence between turns?", "find=what", ["median silence", "3.5 seconds"], []),
    ("Did the same person speak right before and right after the longest silence?", "find=yes",
     ["No:", "23 seconds"], []),
    ("How many people spoke for more than five seconds in total?", "find=count_people", ["3:", "more than 5"], []),
    ("Was every turn in the lab by someone I had already heard in the kitchen?", "find=yes", ["No:", "2 of the 3"], []),
    ("What share of all the speech was in the office?", "find=what", ["8.2 of the 18.0 seconds", "46 %"], []),
    ("Was the longest turn of the recording in the office?", "find=yes", ["No:", "in the kitchen"], []),
    (f"After 0:40, was {CY} the only one to speak in the office?", "find=yes", ["No:", COFFEE, "00:50"], []),
    ("Which room had the shortest wait from my arrival to the first turn?", "find=where",
     ["The kitchen: the first turn came 2.0 seconds"], []),
    (f"How long was it from {BO}'s last turn in the kitchen to their first turn in the office?", "find=how_long",
     ["30 seconds", "28 seconds from the end"], []),
])
def test_821_kinds_answered(sx, question, frame, named, absent):  # noqa: F811
    a = answer(sx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_a_window_by_the_turns_of_someone_never_heard_is_declined(sx):  # noqa: F811
    a = answer(sx, 'What was the total silence between the person who said "the fish is green"\'s first and last '
                   'turns?', "find=what", "find=what").answer
    assert a.startswith("I can't tell the time") and "fish" in a, a


@pytest.mark.parametrize("question, named", [
    # 10 turns: the fifth (Cy's, 0:45-0:46.45) ends the first half
    (f"Did {CY} speak before half of all the turns had been taken?", ["Yes", "00:35", "before 00:47"]),
    ("Did Ann speak after half of the turns had been taken?", ["Yes", "01:05", "after 00:47"]),
])
def test_before_half_of_the_turns(sx, question, named):  # noqa: F811
    a = answer(sx, question, "find=yes", "find=yes").answer
    assert all(n in a for n in named), a


def test_a_count_between_ones_first_and_last_turns_keeps_the_turns_between(sx):  # noqa: F811
    # the turns between Cy's first and last (not a window with them in it: turn_order.py, stop 85; ref_turns.py since
    # stop 96)
    a = answer(sx, f"How many turns were there between {CY}'s first and last turns?",
               'find=count_times who="I will call the technician" act=spoke').answer
    assert a.startswith("I heard people speak 6 times between"), a
