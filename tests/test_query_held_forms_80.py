"""Question forms noticed at stop 79 and fixed at stop 80, on stop 79's meeting of turns of different lengths
(``lx``; asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:07, Bo 0:10-0:12 (COFFEE), Ann 0:20-0:21
    office  0:30-1:00: Cy 0:35-0:41 (TECH), Bo 0:45-0:48
    lab     1:00-1:30: Ann 1:05-1:07, Cy 1:10-1:11, Cy 1:20-1:22, Ann 1:25-1:27
"""

from __future__ import annotations

import pytest

from m3_control.tool_loop import ToolReasoningLoop
from m3_memory.poses import Pose

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH
from .test_query_held_forms_79 import lengths_meeting, lx  # noqa: F401  (lx: the fixture)
from .test_tool_loop import Scripted

# ---- the person asked about was silent at that moment (someone else may have been speaking): their nearest turn,
# up to 10 s away, with its words when asked what they said ----

@pytest.mark.parametrize("question, frame, named, absent", [
    ("What did Ann say at 1:10?", 'find=what who="Ann" at=1:10',           # Cy speaking then
     ["did not speak at 01:10", "their nearest turn was from 01:05 to 01:07", "Thanks for the help"], []),
    (f"What did the person who said '{TECH}' say at 1:26?", f'find=what who="{TECH}" at=1:26',   # Ann speaking then
     ["did not speak at 01:26", "from 01:20 to 01:22", "See you tomorrow"], ["Bye everyone"]),
    (f"Was the person who said '{TECH}' speaking at 0:46?", f'find=yes who="{TECH}" at=0:46',    # Bo speaking then
     ["No", "their nearest turn was from 00:35 to 00:41"], []),
    (f"What did the person who said '{COFFEE}' say at 0:30?", f'find=what who="{COFFEE}" at=0:30',
     ["did not speak at 00:30"], ["nearest"]),                             # 15 s either side: too far to name
])
def test_a_person_silent_at_the_moment_is_said_with_their_nearest_turn(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_nobody_at_the_moment_names_the_nearest_words_when_asked_what(lx):  # noqa: F811
    a = answer(lx, "What was said at 0:23?", "find=what at=0:23", "find=what at=0:23").answer
    assert "the nearest: Ann, from 00:20 to 00:21" in a and "Put the red folder on the desk" in a, a


# ---- held-out 717: "when did A finish speaking for the last time?" is when that turn ended, not when it began;
# "which single turn was the longest?" with the length after the turn ----

@pytest.mark.parametrize("question, frame, named, absent", [
    (f"At what time did the person who said '{TECH}' finish speaking for the last time?",
     f'find=when who="{TECH}" pick=last', ["stopped speaking at 01:22"], ["01:20"]),          # Cy 1:20-1:22
    ("When did Ann stop talking?", 'find=when who="Ann"', ["stopped speaking at 01:27"], ["01:25"]),
    ("When did Ann start talking?", 'find=when who="Ann"', ["first spoke at 00:02"], ["stopped"]),
    ("When did Ann last speak?", 'find=when who="Ann" pick=last', ["last spoke at 01:25"], ["stopped"]),
])
def test_stopping_to_speak_is_when_the_turn_ended(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, frame, named", [
    ("Which single turn was the longest?", "find=what by=turn", ["longest single turn", TECH, "00:35", "6.0 seconds"]),
    ("Whose turn was the shortest?", "find=who pick=least", ["shortest single turn", "1.0 seconds"]),
    ("What turn lasted the longest?", "find=what by=turn", ["longest single turn", "00:35"]),
])
def test_a_turn_said_with_its_length_after_it(lx, question, frame, named):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n.lower() in a.lower() for n in named) and "in order" not in a and "most often" not in a, a


# ---- held-out 718: "who spoke at about 0:33?" is a moment given loosely, not a topic ("anything about 0:33");
# the robot's time in two named rooms compared, and "which of the rooms did I spend more time in?" ----

def test_a_clock_after_about_is_a_moment_not_a_topic(lx):  # noqa: F811
    a = answer(lx, "Who spoke at about 0:33?", "find=who at=0:33", "find=who at=0:33").answer
    assert "closest to 00:33" in a and TECH.lower() in a.lower() and "anything about" not in a, a


def _stays(clip: int) -> list:
    """The kitchen 0:00-0:20, the office 0:20-1:00 (clips 0-1), the lab 1:00-1:30."""
    at = [(0.0, 0.0) if 30.0 * clip + 0.5 * i < 20.0 else (8.0, 0.0) for i in range(61)] if clip < 2 else \
        [(8.0, 6.0)] * 61
    return [Pose(30.0 * clip + 0.5 * i, x, y, 0.0, 0.0, "map") for i, (x, y) in enumerate(at)]


@pytest.fixture
def stays(db_at):
    with lengths_meeting(db_at("stays.db"), _stays) as ex:
        yield ex


@pytest.mark.parametrize("question, frame, start, named", [
    ("Where did I spend more time, the kitchen or the lab?", 'find=more place="lab"', "The lab",
     ["seconds in the kitchen and", "seconds in the lab"]),
    ("Did I spend more time in the kitchen than in the office?", 'find=yes place="kitchen"', "No",
     ["seconds in the office"]),
    ("Did I spend less time in the kitchen than in the office?", 'find=yes place="kitchen"', "Yes", []),
    ("Was I longer in the office or in the lab?", "find=where", "The office", ["seconds in the office and"]),
    ("Which of the rooms did I spend more time in?", 'find=more place="lab"', "I spent the most time in the office",
     []),
    ("In which room was I for the shortest time?", "find=where pick=most", "I spent the least time in the kitchen",
     []),
    ("Did I spend more time in the office than in the attic?", 'find=yes place="office"', "I have no place called",
     ["attic"]),
])
def test_the_robots_time_in_two_rooms_compared(stays, question, frame, start, named):
    a = answer(stays, question, frame, frame).answer
    assert a.startswith(start) and all(n in a for n in named), a


# ---- held-out 719: "how long did the silence before the first words last?" is the time from the start to the first
# words (the frame's from=0:00 had been dropped as a time the question does not say); before one person, a gap ----

@pytest.mark.parametrize("question, named", [
    ("How long did the silence before the first words last?", ["00:02", "2 seconds after the start"]),
    ("How long was it quiet before anyone spoke?", ["2 seconds after the start"]),
    ("How long was the opening silence?", ["2 seconds after the start"]),
    (f"How long was it silent before the person who said '{COFFEE}' spoke?", ["3 seconds before", "00:07"]),
])
def test_the_silence_before_the_first_words(lx, question, named):  # noqa: F811
    a = answer(lx, question, "find=gap from=0:00", "find=gap from=0:00", "find=gap from=0:00").answer
    assert all(n in a for n in named), a


# ---- held-out 720: "who spoke immediately before 0:30?" written pick=first is still the last turn before it;
# "between the first and last words" (no second "the") is the talk's span; "in the kitchen and the lab both" is both
# rooms; "who said the most words?" counts the words heard, not the turns ----

@pytest.mark.parametrize("question, frame, named, absent", [
    ("Who spoke immediately before 0:30?", "find=who pick=first from=0:00 to=0:30", ["Ann", "00:20"], ["00:02"]),
    ("How much time passed between the first and last words I heard?", "find=gap",
     ["85 seconds", "00:02", "01:27"], []),
    ("How many people spoke in the kitchen and the lab both?", 'find=count_people place="kitchen" count=2',
     ["1 person spoke in both the kitchen and the lab", "Ann"], []),
    ("Did Ann speak in the kitchen and the lab both?", 'find=yes who="Ann" place="kitchen"',
     ["Yes", "both the kitchen and the lab"], []),
    ("Who said the most words?", "find=who pick=most by=turn", ["Ann said the most words: 20", "13", "10"],
     ["most often"]),
    ("Which speaker used the fewest words in the lab?", 'find=who pick=least place="lab"',
     ["Ann said the fewest words in the lab: 6"], []),
])
def test_held_out_720_forms(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


# ---- held-out 721-722: words counted for one person; turns counted by their length; which of two people's n-th
# turns came first; "did anyone speak twice before C?" (pick=2 written for a number of times); the third thing said
# in a room where two were; the time from entering a room to the first words there ----

@pytest.mark.parametrize("question, frame, named, absent", [
    (f"How many words did the person who said '{TECH}' say in total?", f'find=count_times who="{TECH}"',
     ["said 13 words in 3 turns"], ["spoke 3 times"]),
    ("How many turns were longer than 2 seconds?", "find=count_times by=turn times>2",
     ["3 of the 9 turns lasted more than 2 seconds", "00:02", "00:35", "00:45"], ["people"]),
    ("How many turns in the office were longer than 5 seconds?", 'find=count_times place="office"',
     ["1 of the 2 turns in the office lasted more than 5 seconds", "00:35"], []),
    (f"Which came first: Ann's second turn or the person who said '{TECH}''s first turn?",
     f'find=when who="Ann" other="{TECH}" pick=2 by=turn', ["Ann's second turn (00:20) came first", "(00:35)"], []),
    (f"Which came later: Ann's third turn or the person who said '{COFFEE}''s last turn?", 'find=when who="Ann"',
     ["Ann's third turn (01:05) came later", "(00:45) came before it"], []),
    (f"Which came first: Ann's fifth turn or the person who said '{TECH}''s first turn?", 'find=when who="Ann"',
     ["Ann spoke 4 times: there was no fifth turn"], []),
    (f"Did anyone speak twice before the person who said '{TECH}' first spoke?",
     f'find=yes other="{TECH}" rel=before pick=2', ["Yes, Ann spoke at least twice"], [COFFEE]),
    (f"Did anyone speak three times before the person who said '{TECH}' first spoke?",
     f'find=yes other="{TECH}" rel=before pick=3', ["No"], []),
    ("What was the third thing said in the office?", 'find=what pick=3 by=turn place="office"',
     ["only twice in the office: there was no third turn"], ["I don't remember"]),
    ("How much time passed between my entering the lab and the first words there?", "find=gap from=0:00 to=0:01",
     ["Ann first spoke at 01:05, 5 seconds after my arrival in the lab"], []),
])
def test_held_out_721_722_forms(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


# ---- held-out 723: a count before someone's first (last) turn keeps every turn before it (the model's pick=first
# was the other's turn); how long the robot had been in a room when someone first spoke there; who spoke while the
# robot went from one room to the next ----

@pytest.mark.parametrize("question, frame, named, absent", [
    (f"How many times did Ann speak before the person who said '{TECH}' spoke for the first time?",
     f'find=count_times who="Ann" other="{TECH}" rel=before pick=first', ["twice"], ["once"]),
    (f"How many times did Ann speak before the person who said '{TECH}' spoke for the last time?",
     f'find=count_times who="Ann" other="{TECH}" rel=before pick=last', ["3 times"], ["once"]),
    (f"How long had I been in the office when the person who said '{COFFEE}' first spoke there?",
     f'find=gap who="{COFFEE}" place="office"',
     ["first spoke at 00:45", "seconds after my arrival in the office (00:30)"], []),
    ("How long had I been in the lab when someone first spoke?", 'find=how_long place="lab"',
     ["Ann first spoke at 01:05, 5 seconds after my arrival in the lab"], []),
])
def test_held_out_723_forms(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def _slow_move(clip: int) -> list[Pose]:
    """Kitchen until 0:28, between rooms (in none of them) from 0:28.5 to 0:35.5, the office from 0:36; the lab
    from 1:00."""
    if clip == 0:
        return [Pose(0.5 * i, 0.0, 0.0, 0.0, 0.0, "map") for i in range(57)] + \
            [Pose(28.5 + 0.5 * i, 4.0, 0.0, 0.0, 0.0, "map") for i in range(4)]
    if clip == 1:
        return [Pose(30.0 + 0.5 * i, 4.0, 0.0, 0.0, 0.0, "map") for i in range(12)] + \
            [Pose(36.0 + 0.5 * i, 8.0, 0.0, 0.0, 0.0, "map") for i in range(49)]
    return [Pose(60.0 + 0.5 * i, 8.0, 6.0, 0.0, 0.0, "map") for i in range(61)]


@pytest.mark.parametrize("question, frame, named, absent", [
    ("Did anyone speak while I was going from the kitchen to the office?", 'find=yes place="kitchen"',
     ["Yes, while I was going from the kitchen to the office (00:28 to 00:36)", TECH], ["Ann", COFFEE]),
    ("Did Ann speak while I was on my way from the kitchen to the office?", 'find=yes who="Ann"',
     ["No, Ann did not speak while I was going from the kitchen to the office"], []),
    ("Did anyone speak while I was going from the office to the lab?", "find=yes act=spoke",
     ["No, nobody spoke while I was going from the office to the lab"], []),
    ("Did anyone speak while I was going from the lab to the kitchen?", "find=yes act=spoke",
     ["never went from the lab to the kitchen"], ["Yes"]),
    ("Which was longer, my time in the kitchen or in the office?", 'find=more who="spoke" place="kitchen"',   # 726
     ["The kitchen: I spent 28 seconds in the kitchen and 24 seconds in the office"], []),
])
def test_who_spoke_while_the_robot_went_between_rooms(db_at, question, frame, named, absent):
    with lengths_meeting(db_at("way.db"), _slow_move) as executor:
        a = answer(executor, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


# ---- held-out 725-726: everyone but one person counted or named; the seconds of everyone's speech in a place;
# "which was longer, my time in the X or in the Y?" ----

@pytest.mark.parametrize("question, frame, named, absent", [
    (f"How many times did someone other than the person who said '{TECH}' speak?", f'find=count_times other="{TECH}"',
     ["People other than", "spoke 6 times", "Ann 4 times", "twice"], ["spoke 3 times"]),
    ("How many times did anyone besides Ann speak in the office?", 'find=count_times who="Ann" place="office"',
     ["People other than Ann spoke twice in the office", "once"], ["Ann once", "Ann twice"]),
    ("How many people other than Ann spoke after 0:40?", 'find=count_people who="Ann" from=0:40',
     ["2 people other than Ann spoke after 00:40"], []),
    ("Who other than Ann spoke in the lab?", 'find=who who="Ann" place="lab"',
     ["spoke in the lab, besides Ann", "twice"], [COFFEE]),
    (f"Who besides the person who said '{COFFEE}' spoke in the office?", f'find=who other="{COFFEE}" place="office"',
     [TECH, "besides"], []),
    ("How many seconds of speech did I hear in the office?", "find=gap from=0:00 to=0:05",
     ["9 seconds", "office"], []),
    ("Which was longer, my time in the kitchen or in the lab?", 'find=more who="spoke" place="kitchen"',
     ["About the same time in each: 30 seconds in the kitchen and 30 seconds in the lab"], []),
])
def test_held_out_725_726_forms(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_between_the_first_and_last_turns_of_one_who_spoke_once_is_said_so(db_at):
    """726's "who spoke between A's first and last turns?" of one turn: not "I don't remember anyone ... (00:02 and
    00:02)" but that A spoke once (asked at 1:05, when Cy had spoken once and Bo twice: his two turns still make
    a window)."""
    with lengths_meeting(db_at("once.db")) as executor:
        def ask(question: str, frame: str, at: float) -> str:
            be = Scripted([f"Action: [Query]\nContent: {frame}"] * 2, grammar_ok=True)
            return ToolReasoningLoop(executor.store, be).run(question, before_time=at, max_rounds=4).answer

        a = ask(f"Who spoke between the person who said '{TECH}''s first and last turns?",
                f'find=who other="{TECH}" until="{TECH}" act=spoke', 65.0)
        assert "spoke once in all: nothing lies between their first and last turns" in a, a
        a = ask(f"Who spoke between the person who said '{COFFEE}''s first and last turns?",
                f'find=who other="{COFFEE}" until="{COFFEE}" act=spoke', 65.0)
    assert "Ann" in a and "00:10 and 00:45" in a, a


@pytest.mark.parametrize("question, frame, named, absent", [
    # 728: the rank is among the people heard in the place (Bo spoke last in the office, Cy first; Ann first and last
    # of all, never in the office)
    ("What did the person who spoke last in the office say?",
     'find=what who="the person who spoke last" pick=last place="office"', ["coffee machine"], ["technician"]),
    ("What did the person who spoke first in the office say?",
     'find=what who="the person who spoke first" place="office"', ["technician"], ["coffee"]),
])
def test_a_ranked_person_whose_words_are_asked_in_a_place_is_ranked_there(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, frame, named", [
    # 728: "the first and the second turn" (singular) in a place: the office's turns, Cy 0:35-0:41 and Bo 0:45
    ("How much time passed between the first and the second turn in the office?", "find=gap from=1:00 to=1:01",
     ["00:35", "00:45"]),
    ("How long was it between the first and second turn?", "find=gap", ["00:02", "00:10"]),
])
def test_the_time_between_two_turns_said_in_the_singular(lx, question, frame, named):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n in a for n in named), a


@pytest.mark.parametrize("question, frame, named, absent", [
    # 730: the time from a move of the robot's to one person's first words there, not the turns between them
    (f"How many seconds passed between my arrival in the office and the person who said '{COFFEE}''s first words "
     "there?", 'find=gap from=0:00 to=0:00 place="office"',
     ["first spoke at 00:45", "after my arrival in the office (00:30)"], ["None", "nobody"]),
    # "who was silent / stayed quiet / didn't speak in the X?": the people heard who never spoke there
    ("Who was silent in the office?", 'find=who place="office" act=seen times=0', ["Ann never spoke in the office"],
     []),
    ("Who didn't speak in the kitchen?", 'find=who place="kitchen"',
     [f'"{TECH[0].upper()}{TECH[1:]}" never spoke in the kitchen'], ["Ann"]),
    ("Who stayed quiet in the lab?", 'find=who place="lab" act=spoke',
     [f'"{COFFEE[0].upper()}{COFFEE[1:]}" never spoke in the lab'], ["Ann"]),
])
def test_held_out_730_forms(lx, question, frame, named, absent):  # noqa: F811
    a = answer(lx, question, frame, frame).answer
    assert all(n in a for n in named) and not any(x in a for x in absent), a


def test_a_turn_length_near_the_limit_is_said_finely_enough():
    """730: "how many turns were shorter than 2 seconds?" listed a 1.96 s turn as "(2.0 seconds)": to a hundredth
    where a tenth would read as the limit itself."""
    from types import SimpleNamespace

    from m3_control.query.sentences import _length_said
    assert _length_said(SimpleNamespace(start=10.0, end=11.96), 2.0) == "1.96"
    assert _length_said(SimpleNamespace(start=10.0, end=12.04), 2.0) == "2.04"
    assert _length_said(SimpleNamespace(start=10.0, end=11.5), 2.0) == "1.5"
    assert _length_said(SimpleNamespace(start=10.0, end=12.96), 2.0) == "3.0"
