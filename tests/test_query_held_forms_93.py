"""Question forms found by the blind probes 807-808 (held out, templates committed before their scenes were built).

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31, 90 seconds recorded):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35-0:36.45, Bo 0:40-0:41.9, Cy 0:45-0:46.45, Bo 0:50-0:51.9, Cy 0:55-0:56.5 (TECH)
    lab     1:00-1:30: Ann 1:05-1:07 ("Thanks for the help."), Ann 1:10-1:11.9 ("Bye everyone."),
                       Cy 1:20-1:21.9 ("See you tomorrow.")

Every room had two speakers; the longest stretch without speech 0:12-0:35 (23 seconds); ten turns, eight changes of
speaker; each person's first and second turns 61 s (Ann), 28 s (Bo) and 8.55 s (Cy) apart.
"""

from __future__ import annotations

import pytest

from m3_control.query.not_yet import nth_of
from m3_control.query.person_gaps import asks_person_gap
from m3_control.query.plans import plan_for
from m3_control.query.room_people import asks_room_people
from m3_control.query.sentences import asks_sentences
from m3_control.query.turn_rooms import asks_turn_rooms

from .test_query_also import answer
from .test_query_executor import TECH
from .test_query_held_forms_83 import seconds_meeting, sx  # noqa: F401  (the fixture)

BO = 'the person who said "The coffee machine is broken"'
CY = f'the person who said "{TECH}"'


def _kind(question: str) -> str | None:
    plan = plan_for(question)
    return plan.kind if plan else None


# ---- held-out 807 and 808: "in which room did only one person speak?" listed everyone's rooms, "which room had just
# one speaker?" listed the rooms visited: rooms by their number of different people ----

@pytest.mark.parametrize("question, cmp, n", [
    ("In which room did only one person speak?", "only", 1),
    ("Which room had just one speaker?", "just", 1),
    ("Which rooms had more than two speakers?", "more than", 2),
    ("Was there a room where exactly two people spoke?", "exactly", 2),
    ("Which room had a single speaker?", "only", 1),
    ("What rooms had at least 3 different people?", "at least", 3),
])
def test_rooms_by_their_people_are_asked(question, cmp, n):
    ask = asks_room_people(question)
    assert ask is not None and (ask.cmp, ask.n) == (cmp, n), question
    assert _kind(question) == "room_people", question


@pytest.mark.parametrize("question", [
    "Which room had the most people?",          # a rank (place_forms)
    "Who spoke in only one room?",              # people by their rooms (rooms.py)
    "How many people spoke in the kitchen?",
    "Did only one person speak in the kitchen?",
])
def test_not_rooms_by_their_people(question):
    assert asks_room_people(question) is None, question


def test_no_room_had_one_speaker(sx):  # noqa: F811
    got = answer(sx, "Which room had just one speaker?", "find=where count=1").answer
    assert got == "None: no room had just one speaker; the kitchen (2 speakers); the office (2 speakers); the lab " \
                  "(2 speakers).", got
    got = answer(sx, "Was there a room where more than two people spoke?", "find=yes").answer
    assert got.startswith("No: no room had more than two people;"), got


def test_rooms_with_one_speaker(db_at):
    """Ann alone in the kitchen and in the lab, Bo and Cy in the office."""
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (1, "bo", 35.0, 37.0, "The coffee machine is broken."),
              (1, "cy", 45.0, 46.5, "I will call the technician."),
              (2, "ann", 65.0, 67.0, "Thanks for the help.")]
    with seconds_meeting(db_at("rooms.db"), script=script) as ex:
        got = answer(ex, "In which room did only one person speak?", "find=where count=1").answer
        assert got == "The kitchen (1 speaker: Ann) and the lab (1 speaker: Ann); the other: the office " \
                      "(2 speakers).", got
        got = answer(ex, "Which rooms had more than one speaker?", "find=where").answer
        assert got.startswith("The office (2 speakers: ") and BO in got and CY in got, got


# ---- 807 and 808: "who said the most words in a single turn?" answered everyone's words in all ----

@pytest.mark.parametrize("question, single", [
    ("Who said the most words in a single turn?", True),
    ("Which person used the most words in one turn?", True),
    ("Who said the fewest words in one sentence?", True),
    ("Who said the most words?", False),
    ("Who said the most words per turn on average?", False),
])
def test_words_in_one_turn_are_asked(question, single):
    ask = asks_sentences(question)
    assert ask is not None and ask.kind in ("most_words", "fewest_words") and ask.single == single, question


def test_words_in_one_turn_answered(sx):  # noqa: F811
    got = answer(sx, "Who said the most words in a single turn?", "find=who by=turn times=3").answer
    assert got == 'Ann said the most words in a single turn: 7, as I heard them (Ann at 00:02: "Put the red ' \
                  f'folder on the desk"); then {BO} 5, {CY} 5.', got
    got = answer(sx, "Which person used the fewest words in one turn?", "find=who").answer
    assert got.startswith('Ann said the fewest words in a single turn: 2, as I heard them (Ann at 01:10: "Bye '
                          'everyone")'), got


# ---- 807 and 808: "who waited the longest between their first and second turns?" went to another person's last
# turn or the longest silence; "whose turns were closest together on average?" to the turns' average length ----

@pytest.mark.parametrize("question, turns, mean, least", [
    ("Who waited the longest between their first and second turns?", (1, 2), False, False),
    ("Which person had the biggest gap between their first turn and their second?", (1, 2), False, False),
    ("Which person had the smallest gap between their first turn and their second?", (1, 2), False, True),
    ("Who waited longest between their second and last turns?", (2, -1), False, False),
    ("Which person's turns were closest together on average?", None, True, True),
    ("Whose turns came closest together, on average?", None, True, True),
    ("Whose turns were furthest apart on average?", None, True, False),
    ("Who had the shortest average wait between turns?", None, True, True),
])
def test_ranked_waits_are_asked(question, turns, mean, least):
    ask = asks_person_gap(question)
    assert ask is not None and ask.kind == "ranked" and (ask.turns, ask.mean, ask.least) == (turns, mean, least), \
        question
    assert _kind(question) == "person_gap", question


def test_ranked_waits_answered(sx):  # noqa: F811
    got = answer(sx, "Who waited the longest between their first and second turns?", "find=who pick=last").answer
    assert got == "Ann waited the longest between their first and second turns: 61 seconds (from their turn at " \
                  f"00:02 to the one at 01:05); then {BO}, 28 seconds (from their turn at 00:10 to the one at " \
                  f"00:40); {CY}, 8.5 seconds (from their turn at 00:35 to the one at 00:45).", got
    # Cy's waits 8.55, 8.55 and 23.5 s (13.5 on average), Bo's 28 and 8.1 (18.1), Ann's 61 and 3 (32)
    got = answer(sx, "Whose turns came closest together, on average?", "find=who by=turn").answer
    assert got.startswith(f"{CY[0].upper()}{CY[1:]}'s turns came closest together on average: 13.5 seconds (over 4 "
                          f"turns, 00:35 to 01:20); then {BO}, 18.1 seconds"), got


def test_ranked_waits_say_who_spoke_too_few_times(db_at):
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (1, "bo", 35.0, 37.0, "The coffee machine is broken."),
              (2, "bo", 65.0, 67.0, "The coffee machine is broken.")]
    with seconds_meeting(db_at("once.db"), script=script) as ex:
        got = answer(ex, "Whose turns were closest together on average?", "find=who").answer
        assert got.endswith("; Ann spoke only once."), got
        got = answer(ex, "Who waited the longest between their second and third turns?", "find=who").answer
        assert got == "Nobody spoke often enough to have a wait between their second and third turns.", got


# ---- 807 and 808: "who spoke right before the longest turn?" named the longest turn's own speaker ----

@pytest.mark.parametrize("question, rel, kind", [
    ("Who spoke right before the longest turn?", "before", "longest"),
    ("Who took the turn just before the longest one?", "before", "longest"),
    ("Who spoke right after the shortest turn?", "after", "shortest"),
    ("What was said immediately after the longest sentence?", "after", "longest"),
])
def test_turn_next_to_the_longest_is_asked(question, rel, kind):
    ask = asks_sentences(question)
    assert ask is not None and (ask.rel, ask.kind) == (rel, kind), question


def test_not_a_turn_next_to_the_longest():
    assert _kind("Who spoke right before the longest silence?") in ("silence", "ref_previous")   # (ref_turns.py)
    assert asks_sentences("Who spoke the longest turn?").rel == ""


def test_turn_next_to_the_longest_answered(sx):  # noqa: F811
    # three turns of 2.0 seconds (Ann 0:02, Bo 0:10, Ann 1:05): each one's neighbour
    got = answer(sx, "Who spoke right before the longest turn?", "find=who pick=most by=turn").answer
    assert got == "3 single turns were the longest, as long as each other (2.0 seconds): nobody spoke right before " \
                  f"Ann's at 00:02; Ann spoke right before {BO}'s at 00:10: at 00:02, \"Put the red folder on the " \
                  f"desk\"; {CY} spoke right before Ann's at 01:05: at 00:55, \"I will call the technician\".", got


# ---- 808: "how often did the speaker switch from one person to another?" was "no memory" ----

@pytest.mark.parametrize("question", [
    "How often did the speaker switch from one person to another?",
    "How many times did the conversation pass to someone else?",
    "How many speaker switches were there?",
    "How many times did a different person take over?",
])
def test_speaker_switches_are_asked(question):
    assert _kind(question) == "changes", question


def test_speaker_switches_answered(sx):  # noqa: F811
    got = answer(sx, "How often did the speaker switch from one person to another?", "find=count_times").answer
    assert got.startswith("8 times: 10 turns"), got
    assert _kind("How many times did I change rooms?") != "changes"


# ---- 807 and 808: "who was the second person I heard for the first time while in the garage?" named the second
# speaker there (nobody was new); "... after entering the bedroom?" the first speaker after the move ----

@pytest.mark.parametrize("question, kind, n", [
    ("Who was the second person I heard for the first time while in the garage?", "first_in_place", 2),
    ("Who was the first person I heard for the first time after entering the bedroom?", "not_yet", 1),
    ("Who was the last person I heard for the first time after I entered the lab?", "not_yet", -1),
    ("Who spoke for the first time in the garden?", "first_in_place", None),
])
def test_new_people_by_place_or_move_are_asked(question, kind, n):
    assert _kind(question) == kind and nth_of(question) == n, question


def test_new_people_by_place_or_move_answered(sx):  # noqa: F811
    got = answer(sx, "Who was the first person I heard for the first time after entering the office?",
                 "find=who act=spoke times=1").answer
    assert got == f"The first person I first heard after 00:30 was {CY} (at 00:35).", got
    got = answer(sx, "Who was the second person I heard for the first time after entering the office?",
                 "find=who act=spoke").answer
    assert got == f"There was no second: I first heard only {CY} (at 00:35) after 00:30.", got
    got = answer(sx, "Who was the second person I heard for the first time while in the kitchen?",
                 'find=who pick=2 place="kitchen" act=spoke').answer
    assert got.startswith(f"The second person I first heard in the kitchen was {BO} (at 00:10)"), got
    got = answer(sx, "Who was the first person I heard for the first time after entering the lab?",
                 "find=who act=spoke").answer
    assert got == "Nobody: everyone I heard had spoken by 01:00.", got


# ---- 807 and 808: "was A's last turn in the same room as their first?" answered about the first speaker; "did A
# speak their first and last turns in the same room?" was declined ----

@pytest.mark.parametrize("question, turns, same", [
    ("Was Ann's last turn in the same room as their first?", (-1, 1), True),
    ("Did Ann speak her first and last turns in the same room?", (1, -1), True),
    ('Were the first and second turns of the person who said "x y" in different rooms?', (1, 2), False),
])
def test_two_turns_rooms_are_asked(question, turns, same):
    ask = asks_turn_rooms(question)
    assert ask is not None and (ask.turns, ask.same) == (turns, same), question


@pytest.mark.parametrize("question", [
    'Did the person who said "x y" speak in the same room as the person who said "z w"?',
    "Did Ann speak first in the kitchen?",
    "Which room did Ann speak in first?",
])
def test_not_two_turns_rooms(question):
    assert asks_turn_rooms(question) is None, question


def test_two_turns_rooms_answered(sx):  # noqa: F811
    got = answer(sx, "Did Ann speak her first and last turns in the same room?", 'find=same who="Ann"').answer
    assert got == "No: Ann's first turn (at 00:02) was in the kitchen, their last (at 01:10) in the lab.", got
    got = answer(sx, f'Were the first and second turns of {BO} in different rooms?', "find=yes").answer
    assert got == f"Yes: {BO}'s first turn (at 00:10) was in the kitchen, their second (at 00:40) in the office.", got
    got = answer(sx, "Were Ann's second and third turns in the same room?", "find=yes").answer
    assert got == "Yes: Ann's second turn (at 01:05) and third turn (at 01:10) were both in the lab.", got


# ---- 808: "who spoke after A's first turn but before B's first turn?" named only the first of them (the bounds'
# "first" read as a pick) ----

def test_between_two_first_turns_names_everyone(db_at):
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
              (0, "cy", 15.0, 16.5, "I will call the technician."),
              (0, "ann", 17.0, 18.5, "Thanks for the help."),
              (0, "dee", 20.0, 22.0, "The window is open.")]
    frame = 'find=who other="The coffee machine is broken" rel=after act=spoke'
    with seconds_meeting(db_at("between.db"), script=script) as ex:
        q = f'Who spoke after {BO}\'s first turn but before the person who said "The window is open"\'s first turn?'
        got = answer(ex, q, frame).answer
        assert CY.lower() in got.lower() and "Ann" in got and "spoke first" not in got, got
        got = answer(ex, q.replace("Who spoke after", "Who spoke first after"), frame).answer
        assert CY.lower() in got.lower() and "Ann" not in got and "spoke first" in got, got


# ---- 807: "who spoke the most in the last two minutes of the recording?" kept times=2 ("two minutes" is no count),
# 808: "who was speaking just before the longest quiet stretch?" ranked the people's spans ----

def test_a_span_of_minutes_is_no_count(sx):  # noqa: F811
    got = answer(sx, "Who spoke the most in the last two minutes of the recording?",
                 "find=who pick=most times=2").answer
    assert got.startswith(f"{CY[0].upper()}{CY[1:]} spoke most often (4 times"), got


def test_the_longest_quiet_stretch_is_a_silence(sx):  # noqa: F811
    assert _kind("Who was speaking just before the longest quiet stretch?") == "silence"
    assert _kind("Whose turns spanned the longest stretch of time?") == "ranked_span"
    got = answer(sx, "Who was speaking just before the longest quiet stretch?",
                 'find=who other="longest quiet stretch" rel=right_before').answer
    assert f"from 00:12, after {BO} spoke" in got, got


# ==== held-out 809 and 810 (templates 86fc3b5, answered by this stop's code after the fixes above) ====

@pytest.mark.parametrize("question, kind", [
    ("How many people did I hear in each room?", "room_people"),
    ("How many different speakers were there in each room?", "room_people"),
    ("Who replied to Ann most often?", "each_next"),
    ("Which person answered Ann most often?", "each_next"),
    ("Who spoke right after each of Ann's turns?", "each_next"),
    ("After each turn of Ann's, who spoke next?", "each_next"),
    ("What was the smallest gap between two of Ann's turns?", "person_gap"),
    ("Whose turn was nearest the halfway point of the recording?", "closest"),
    ("Were two of Ann's turns ever less than ten seconds apart?", "twice_within"),
    ("Who had more turns after I arrived in the lab than before it?", "window_counts"),
    ("Who spoke in the lab but not during the first minute?", "both"),
    ("Did anybody talk for more than four seconds altogether in the porch?", "talk_total"),
    ("Was Ann speaking before the longest silence or after it?", "side"),
])
def test_809_810_forms_are_planned(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, frame, said", [
    ("How many people did I hear in each room?", 'find=count_people place="kitchen"',
     f"The kitchen: 2 speakers (Ann and {BO}); the office: 2 speakers ({CY} and {BO}); the lab: 2 speakers (Ann and "
     f"{CY})."),
    # three rooms, "both" asked: those in more than one, ranked by their turns
    ("Of the people heard in both rooms, who spoke the most?", "find=who pick=most",
     "I was in 3 places, not two (the kitchen, the office and the lab); of the people who spoke in more than one, "
     f"{CY} (the office and the lab) spoke the most: 4 times; then Ann (the kitchen and the lab) 3 times, {BO} (the "
     "kitchen and the office) 3 times."),
    # Cy's turns at 0:35, 0:45, 0:55 were followed by Bo, Bo, Ann; their last by nobody
    (f"Who replied to {CY} most often?", "find=who pick=most",
     f"{BO[0].upper()}{BO[1:]} spoke right after {CY} most often: after 2 of their 4 turns; then Ann once."),
    # Ann's own next turn is listed, and not counted as a reply
    ("Who spoke right after each of Ann's turns?", 'find=who other="Ann" rel=right_after',
     f"Right after each of Ann's 3 turns: at 00:02: {BO} (at 00:10); at 01:05: Ann (at 01:10); at 01:10: {CY} (at "
     f"01:20). In all: {BO} once, Ann once and {CY} once."),
    (f"What was the shortest time between two of {CY}'s turns?", "find=what",
     f"The shortest stretch between two of {CY}'s turns was 8.5 seconds: from the end of their turn at 00:35 to "
     "their next, at 00:45."),
    ("How much longer was the longest turn than the shortest one?", "find=more times=1",
     f"The longest single turn (Ann's at 00:02, 2.00 seconds) was 0.55 seconds longer than the shortest ({CY}'s at "
     "00:35, 1.45 seconds)."),
    ("How many turns were there in the last 30 seconds before I left the office?",
     "find=count_times from=0:00 to=0:30 act=spoke", "I heard people speak 5 times between 00:30 and 01:00."),
    ("Did anyone speak for more than 4 seconds in total in the office?", "find=yes times>4",
     f"Yes: {CY} 4.4 seconds in all in the office (more than 4 seconds); the others: {BO} 3.8 seconds."),
    ("Did Ann speak before or after the longest silence?", 'find=more who="Ann" other="longest silence"',
     "Both: Ann spoke before the longest silence (at 00:02) and after it (at 01:05 and 01:10). The longest silence "
     "between turns was from 00:12 to 00:35."),
    ("How many times did the person who spoke right after Ann's first turn speak in all?",
     "find=count_times act=spoke", f"{BO[0].upper()}{BO[1:]} spoke 3 times."),
    ("Who spoke in the lab but never in the first minute?", "find=who act=spoke times<1",
     "Nobody spoke in the lab but not in the first minute (before 1:00)."),
    ("Who spoke in the office but not in the first 20 seconds?", "find=who act=spoke times<20",
     f"{CY[0].upper()}{CY[1:]} spoke in the office but not in the first 20 seconds (before 0:20)."),
])
def test_809_810_forms_answered(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == said, got


def test_people_by_their_turns_on_two_sides_of_a_move(sx):  # noqa: F811
    # entered the office at 0:30: before it Ann and Bo once each; after it Cy 4, Bo 2, Ann 2
    got = answer(sx, "Who spoke more times after I entered the office than before?", "find=who").answer
    assert got.startswith(f"{CY[0].upper()}{CY[1:]} (4 times after I entered the office (00:30), never before") and \
        BO in got and "Ann (twice after" in got, got
    # entered the lab at 1:00: Cy 3 before and once after, Bo 3 and none, Ann once and twice
    got = answer(sx, "Who spoke fewer times after I entered the lab than before?", "find=who").answer
    assert CY.lower() in got.lower() and BO in got and "Ann" not in got, got


def test_counts_equal_to_a_persons(sx):  # noqa: F811
    # Bo 3 turns, Ann 3, Cy 4
    got = answer(sx, f"How many speakers took the same number of turns as {BO}?",
                 'find=count_people who="The coffee machine is broken" by=turn').answer
    assert got.startswith("1 person spoke as often as"), got
    got = answer(sx, f"Who took the same number of turns as {BO}?", "find=who pick=most by=turn").answer
    assert got.startswith("Ann "), got


# ==== held-out 811 and 812 (templates 2d422db): each room, each move, the recording's minutes, two people's
# exchanges ====

@pytest.mark.parametrize("question, kind", [
    ("Who was the first to speak in each room?", "each_room"),
    ("Which person spoke first in each of the rooms?", "each_room"),
    ("What were the final words spoken in each room?", "each_room"),
    ("Each time I moved to a new room, who was the first to talk?", "each_room"),
    ("How many of the minutes were completely silent?", "minutes_spoken"),
    ("Who spoke in every single minute?", "minutes_spoken"),
    ("Was there any minute in which Ann and Bo both spoke?", "minutes_spoken"),
    ('How many times did Ann and the person who said "x y" take turns back and forth?', "pairs"),
])
def test_811_812_forms_are_planned(question, kind):
    assert _kind(question) == kind, question


@pytest.mark.parametrize("question, frame, said", [
    ("Who was the first to speak in each room?", 'find=who pick=first place="kitchen" act=spoke',
     f"The first speaker in the kitchen: Ann (at 00:02); in the office: {CY} (at 00:35); in the lab: Ann (at 01:05)."),
    ("What was the last thing said in each room?", 'find=what place="kitchen"',
     f'The last words in the kitchen: {BO}, "The coffee machine is broken" (at 00:10); in the office: {CY}, "I will '
     f'call the technician" (at 00:55); in the lab: {CY}, "See you tomorrow" (at 01:20).'),
    ("Who spoke first after each time I changed rooms?", 'find=who other="changed rooms" rel=after act=spoke',
     f"The first speaker after I entered the office (00:30): {CY} (at 00:35); after I entered the lab (01:00): Ann "
     "(at 01:05)."),
    ("How many minutes had no speech at all?", "find=gap from=0:00",
     "0 of the 2 minutes of the recording had no speech at all: someone spoke in every one."),
    ("Which person did I hear in every minute of the recording?", "find=who act=spoke times=0",
     f"Ann and {CY} spoke in every minute of the recording (all 2); {BO} in the first minute."),
    (f"Was there a minute in which Ann, {BO} and {CY} all spoke?", "find=yes times=3",
     f"Yes: Ann, {BO} and {CY} all spoke in the first minute."),
    (f"Was there a minute in which Ann and {BO} both spoke?", "find=yes", f"Yes: Ann and {BO} all spoke in the first "
                                                                           "minute."),
    # Bo, Cy, Bo, Cy, Bo, Cy in the office: 5 exchanges of the 8 changes of speaker
    (f"How many times did {BO} and {CY} take turns back and forth?", "find=count_times",
     f"{BO[0].upper()}{BO[1:]} and {CY} spoke one right after the other 5 times, of 8 changes of speaker: {CY} right "
     f"after {BO} 3 times, {BO} right after {CY} twice."),
])
def test_811_812_forms_answered(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got == said, got


def test_minutes_without_speech_and_minutes_apart(db_at):
    """Ann and Bo in the first minute only (asked at 1:31): the second had no speech, nobody spoke in every minute;
    then Ann in the first minute and Bo in the second: no minute had both."""
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken.")]
    with seconds_meeting(db_at("minutes.db"), script=script) as ex:
        got = answer(ex, "How many minutes had no speech at all?", "find=gap").answer
        assert got == "1 of the 2 minutes of the recording had no speech at all: the second minute.", got
        got = answer(ex, "Who spoke in every single minute?", "find=who").answer
        assert got.startswith("Nobody spoke in every minute of the recording (all 2)"), got
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (2, "bo", 75.0, 77.0, "The coffee machine is broken.")]
    with seconds_meeting(db_at("apart.db"), script=script) as ex:
        got = answer(ex, f"Was there any minute in which Ann and {BO} both spoke?", "find=yes").answer
        assert got == f"No, there was no minute in which Ann and {BO} all spoke: Ann in the first minute; {BO} in " \
                      "the second minute.", got
