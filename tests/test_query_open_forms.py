"""Question forms stop 64's blind probes (seeds 603-604) found answered wrong, on the hand-built meeting of
tests/test_query_executor.py (a scripted model writes the frame the small model wrote there):

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10 ("See you tomorrow"), Cy 1:20, Ann 1:25 (each turn 2 s)

Ann spoke 4 times (the most), Cy 3, Bo twice (the least).
"""

from __future__ import annotations

import pytest

from m3_control.query.said_about import asks_about

from .test_query_also import BO, CY, answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)


@pytest.mark.parametrize("question, frame, start, named, absent", [
    # the model wrote the count as a person ("I don't know who you mean by 'spoke more than once'")
    ("Who spoke more than once in the lab?", 'find=more who="spoke more than once" place="lab"', "", ["Ann", "tech"],
     ["coffee"]),
    ("How many people spoke at least three times?", "find=count_people", "2 people", [], []),
    ("Who spoke fewer than three times?", "find=who act=spoke", "", ["coffee"], ["Ann", "tech"]),
    ("Who talked no more than twice?", "find=who act=spoke", "", ["coffee"], ["Ann", "tech"]),
    (f"Did {CY} speak more than twice?", f'find=yes who="{TECH}"', "Yes", ["3 times"], []),
    (f"Did {BO} speak more than twice?", f'find=yes who="{COFFEE}"', "No", [], []),
])
def test_a_number_of_turns_compared_with_a_number(ex, question, frame, start, named, absent):  # noqa: F811
    a = answer(ex, question, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question, start, parts", [
    # written find=yes times=2, this was "Yes, ... spoke at 01:15 after 01:00" (one turn, after only)
    (f"Did {BO} speak both before and after 0:30?", "Yes", ["00:10", "00:40"]),
    (f"Did {CY} speak both before and after 0:30?", "No", ["did not hear them before"]),
    (f"Did {CY} talk before and after 1:00?", "Yes", ["00:35", "01:10"]),
    (f"Did {BO} speak both before and after {CY} first spoke?", "Yes", ["00:10", "00:40"]),
])
def test_both_before_and_after_a_moment_is_a_yes_or_no(ex, question, start, parts):  # noqa: F811
    who = COFFEE if "coffee" in question.split("speak")[0] else TECH
    a = answer(ex, question, f'find=yes who="{who}" times=2').answer
    assert a.startswith(start) and all(p in a for p in parts), a


def test_the_nth_minute_is_that_minute_of_the_recording(ex):  # noqa: F811
    # written from=0:00 to=1:00 for "the second minute": it named Bo, who spoke only in the first
    a = answer(ex, "Who spoke in the second minute?", "find=who from=0:00 to=1:00").answer
    assert "Ann" in a and "technician" in a and "coffee" not in a and "01:00" in a, a
    a = answer(ex, "How many times did people talk during the first minute?", "find=count_times").answer
    assert "5 times" in a, a


def test_before_someone_without_right_is_everyone_before_them(ex):  # noqa: F811
    # the model wrote rel=right_before; "who spoke before Cy first spoke?" asks for Bo and Ann, not only Ann (0:20)
    a = answer(ex, f"Who spoke before {CY} spoke for the first time?",
               f'find=who other="{TECH}" rel=right_before').answer
    assert "Ann" in a and "coffee" in a, a
    a = answer(ex, f"Who spoke right before {CY} spoke for the first time?",
               f'find=who other="{TECH}" rel=right_before').answer
    assert "Ann" in a and "coffee" not in a, a
    a = answer(ex, f"Who was the last person to speak before {CY} spoke for the first time?",
               f'find=who other="{TECH}" rel=right_before').answer
    assert "Ann" in a and "coffee" not in a, a


@pytest.mark.parametrize("question, start, parts, absent", [
    # answered with Cy's words as if they were about the weather
    (f"What did {CY} say about the weather?", "I don't remember", ["technician", "the weather"], ["tomorrow"]),
    (f"What did {CY} say about the technician?", "The person who said", ['"I will call the technician"'],
     ["tomorrow"]),
    (f"Did {BO} say anything about lunch?", "No, I don't remember", ["lunch"], []),
    (f"Did {BO} mention the coffee machine?", "", [], []),          # no "about": not this form
    (f"What did {CY} tell {BO} about the meeting tomorrow?", "I don't remember", ["meeting"], ["See you"]),
    (f"Did {BO} say anything about machines?", "Yes", ['"The coffee machine is broken"'], []),
])
def test_what_someone_said_about_a_topic(ex, question, start, parts, absent):  # noqa: F811
    if start == "":
        assert asks_about(question) is None
        return
    a = answer(ex, question, f'find=what who="{TECH if "technician" in question.split("say")[0] else COFFEE}"')
    assert a.answer.startswith(start) and all(p in a.answer for p in parts), a.answer
    assert not any(x in a.answer for x in absent), a.answer


def test_a_topic_that_is_someones_quote_is_not_a_topic():
    assert asks_about(f"What did {BO} say about {CY}?") is None
    assert asks_about("What did someone say about the red folder?") is None      # nobody quoted: a memory search


# ------------------------------------------------------------------ held-out probes 605-606, fixed after their run
@pytest.mark.parametrize("question, parts, absent", [
    # written find=gap: "I don't remember anyone speaking after that" for someone who spoke once
    (f"How long was it between {CY}'s first and last words?", ["45 seconds", "00:35", "01:20"], []),
    (f"How long was it between {BO}'s first and last words in the office?", ["only once", "00:40"], ["00:10"]),
])
def test_one_persons_first_to_last_words(ex, question, parts, absent):  # noqa: F811
    who = TECH if "technician" in question else COFFEE
    a = answer(ex, question, f'find=gap who="{who}"').answer
    assert all(p in a for p in parts) and not any(x in a for x in absent), a


def test_a_rank_in_a_place_written_as_a_person(ex):  # noqa: F811
    # "I don't know who you mean by 'first person in the office'"
    a = answer(ex, "What did the first person in the office say?",
               'find=what who="first person in the office" pick=first act=spoke').answer
    assert "technician" in a and "coffee" not in a, a


def test_everyones_turns_in_two_places_compared(ex):  # noqa: F811
    # searched and answered "I have no memory of that" (one person's counts in two places had a plan, not everyone's)
    a = answer(ex, "Were there more turns in the kitchen or in the lab?", 'find=more place="kitchen" act=spoke').answer
    assert a.startswith("In the lab") and "4 times" in a and "3 times" in a, a


@pytest.mark.parametrize("question, start, parts", [
    # written find=yes count>1 ("did anyone"): "Yes, <three people> spoke more than once" where one spoke once
    ("Did everyone I heard speak more than once?", "Yes", ["Ann (4 times)", "twice"]),
    ("Did everyone I heard speak more than twice?", "No", ["coffee", "twice"]),
    ("Did each person speak exactly twice in the lab?", "Yes", ["in the lab", "Ann (twice)"]),
    ("Did all of them talk at least three times after 1:00?", "No", ["Ann spoke twice", "technician"]),
])
def test_a_count_everyone_must_meet(ex, question, start, parts):  # noqa: F811
    a = answer(ex, question, "find=yes count>1").answer
    assert a.startswith(start) and all(p in a for p in parts), a


def test_at_the_moment_of_a_move_is_that_moment(ex):  # noqa: F811
    # stop 63's probe 601: "at the moment I entered" was not read as the robot's move (the three people who ever
    # spoke there); since stop 99 both are the moment (near_moves), the turns either side of it said with how far
    for question in ("Who was talking at the moment I entered the office?",
                     "Who was talking when I entered the office?"):
        a = answer(ex, question, "find=who at=0:00").answer
        assert a.startswith("Nobody was speaking when I arrived in the office (00:30)") and "4.5 seconds after" in a, a


@pytest.mark.parametrize("question", [
    f"What did {BO} talk about in the kitchen?",       # a place, not a topic: what Bo talked about there
    f"What did {BO} talk about with {CY}?",
    f"What did {BO} say about it?",
    f"What was {BO} talking about?",
])
def test_words_after_about_that_are_no_topic(question):
    assert asks_about(question) is None


@pytest.mark.parametrize("question, start, parts, absent", [
    # found by this stop's regression check (probe 588): declined ("I can't answer that reliably")
    (f"Did anybody speak both before and after {CY}'s first words?", "Yes", ["coffee", "Ann", "00:35"],
     ["technician'"]),
    ("Who spoke both before and after 1:00?", "", ["Ann", "technician"], ["coffee"]),
    ("Did anyone speak both before and after 1:23?", "Yes", ["Ann"], ["coffee", "technician"]),
    ("Did anyone talk both before and after 0:01?", "No, nobody", [], []),
])
def test_anyone_on_both_sides_of_a_moment(ex, question, start, parts, absent):  # noqa: F811
    a = answer(ex, question, "find=yes times=2").answer
    assert a.startswith(start) and all(p in a for p in parts) and not any(x in a for x in absent), a


def test_everyone_after_a_turn_names_who_came_right_after(ex):  # noqa: F811
    # "who spoke after Bo's first words?" lists everyone after 0:10 and says who came right after (Ann, 0:20)
    a = answer(ex, f"Who spoke after {BO}'s first words?", f'find=who other="{COFFEE}" rel=after').answer
    assert a.endswith("right after it: Ann."), a
    a = answer(ex, f"Who spoke before {CY} first spoke?", f'find=who other="{TECH}" rel=before').answer
    assert a.endswith("right before it: Ann."), a


# ------------------------------------------------------------------ held-out probes 607-608, fixed after their run
class _Reading:
    """A scripted model that keeps what it was asked (the tool loop's messages)."""

    name, supports_stop, supports_grammar = "reading", False, True

    def __init__(self, reply: str) -> None:
        self.reply, self.asked = reply, []

    def complete(self, messages, grammar=None):  # noqa: ANN001, ANN201
        self.asked.append(messages[-1]["content"])
        return self.reply


def test_a_described_place_is_named_before_the_model_reads_the_question(ex):  # noqa: F811
    # the model read "in the last room I visited" and wrote it as a place ("I don't know a place called ...")
    from m3_control.tool_loop import ToolReasoningLoop

    be = _Reading('Action: [Query]\nContent: find=count_times who="Ann" place="lab"')
    a = ToolReasoningLoop(ex.store, be).run("How many times did Ann speak in the last room I went to?",
                                            before_time=91.0, max_rounds=4)
    assert "in the lab" in be.asked[0] and "last room" not in be.asked[0], be.asked
    assert "twice" in a.answer and "lab" in a.answer, a.answer


def test_the_nth_person_after_a_move_of_the_robot(ex):  # noqa: F811
    # every person after the arrival was named; the second to speak in the lab is Cy (Ann 1:05, Cy 1:10)
    a = answer(ex, "Who was the second person to speak after I entered the lab?",
               'find=who other="I entered the lab" rel=after act=spoke').answer
    assert "technician" in a and "Ann" not in a, a


@pytest.mark.parametrize("question, frame, start, parts", [
    # searched and answered "I have no memory of that"
    ("Were there more people in the kitchen or in the office?", 'find=more place="kitchen" act=seen', "The same",
     ["2 different people in the kitchen and 2 in the office"]),
    ("Were there more people in the kitchen or in the office after 0:15?", "find=count_people from=0:15",
     "In the office", ["(2)", "(1)"]),
    ("Did fewer people speak in the office or in the kitchen after 0:15?", "find=count_people from=0:15",
     "In the kitchen", ["fewer", "(1)"]),
])
def test_people_in_two_places_compared(ex, question, frame, start, parts):  # noqa: F811
    a = answer(ex, question, frame).answer
    assert a.startswith(start) and all(p in a for p in parts), a


@pytest.mark.parametrize("question, start, parts", [
    # written find=yes count=3: "Yes, <the two who did> spoke in the workshop"
    ("Did each person I heard speak in the lab?", "No", ["coffee", "never spoke in the lab"]),
    ("Did everyone I heard after 1:00 speak in the lab?", "Yes", ["Ann (twice in the lab)"]),
])
def test_a_place_everyone_must_have_spoken_in(ex, question, start, parts):  # noqa: F811
    a = answer(ex, question, "find=yes act=spoke count=3").answer
    assert a.startswith(start) and all(p in a for p in parts), a


@pytest.mark.parametrize("question, start, parts, absent", [
    # "I have no place called 'after'" (read as two rooms)
    ("Who spoke both in the office and after 1:00?", "The person who said", ["technician"], ["Ann", "coffee"]),
    (f"Did {BO} speak both in the kitchen and before 0:30?", "Yes", ["coffee"], []),
    ("Did Ann speak both in the office and after 1:00?", "No", ["Ann did not speak"], []),
    ("Did anyone talk both before 0:15 and in the office?", "Yes", ["coffee"], ["Ann", "technician"]),
])
def test_people_in_a_place_and_a_window_both(ex, question, start, parts, absent):  # noqa: F811
    a = answer(ex, question, 'find=yes who="Ann" times=2' if "Ann" in question else "find=who act=spoke times=2").answer
    assert a.startswith(start) and all(p in a for p in parts) and not any(x in a for x in absent), a
