"""Question forms stop 74 found answered wrong (stop 73's noticed-not-fixed list and the held-out probes of seeds
683-684), on the hand-built meeting of tests/test_query_executor.py (a scripted model writes the frame the small
model wrote there). Asked at 1:31:

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25 (each turn 2 s)
"""

from __future__ import annotations

import pytest

from .test_query_also import answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

# ---- "did A speak in the office and the lab?" (no "both"): each of the two named places ----


@pytest.mark.parametrize("question, frame, start, named, absent", [
    # Cy spoke in the office (0:35) and in the lab (1:10, 1:20): yes, both (the model wrote the first place only)
    ("Did CY speak in the office and the lab?", f'find=yes who="{TECH}" place="office" act=spoke', "Yes",
     ["office", "lab"], []),
    # Cy never spoke in the kitchen: no, although Cy did speak in the lab (the model wrote the lab)
    ("Did CY speak in the kitchen and the lab?", f'find=yes who="{TECH}" place="lab" act=spoke', "No",
     ["kitchen"], []),
    # "in" repeated: Bo spoke in the kitchen and the office, never in the lab
    ("Was BO heard in the kitchen and in the lab?", f'find=yes who="{COFFEE}" place="kitchen" act=spoke', "No",
     ["lab"], []),
    # a name: Ann spoke in the kitchen and the lab
    ("Did Ann talk in the kitchen and the lab?", 'find=yes who=Ann place="lab" act=spoke', "Yes", ["kitchen"], []),
])
def test_two_named_places_joined_by_and_ask_for_both(ex, question, frame, start, named, absent):  # noqa: F811
    question = question.replace("CY", f"the person who said '{TECH}'").replace("BO", f"the person who said '{COFFEE}'")
    a = answer(ex, question, frame, frame)
    assert a.answer.startswith(start) and all(n in a.answer for n in named), a.answer
    assert not any(x in a.answer for x in absent), a.answer


def test_two_named_places_joined_by_or_ask_for_either(ex):  # noqa: F811
    from m3_control.query.rooms import asks_rooms

    assert asks_rooms(f"Did the person who said '{TECH}' speak in the kitchen or the lab?") is None
    assert asks_rooms(f"Did the person who said '{TECH}' speak in the kitchen and then leave?") is None
    ask = asks_rooms(f"Did the person who said '{TECH}' speak in the kitchen and the lab?")
    assert ask is not None and ask.places == ("kitchen", "lab"), ask
    # a count of the two places together stays a count
    assert asks_rooms("How many people spoke in the kitchen and the lab?") is None


# ---- "who spoke in the most rooms?": people ranked by their number of places, not by their turns ----

@pytest.mark.parametrize("question, frame, named, absent", [
    # before 1:00: Bo spoke in the kitchen and the office, Ann only in the kitchen, Cy only in the office
    ("Which person spoke in the most rooms before 1:00?", "find=who pick=most to=1:00 act=spoke",
     ["the coffee machine is broken", "kitchen", "office", "most places (2)"], ["Ann", TECH]),
    ("Who spoke in the fewest places before 1:00?", "find=who pick=least to=1:00 act=spoke",
     ["Ann", TECH, "1 place each"], [COFFEE]),
    # over the whole meeting all three spoke in two places: a tie, said as one
    ("Who spoke in the most rooms?", "find=who pick=most act=spoke", ["Ann", COFFEE, TECH, "2 places each"],
     ["most often", "times"]),
])
def test_the_most_rooms_ranks_people_by_their_places(ex, question, frame, named, absent):  # noqa: F811
    a = answer(ex, question, frame, frame)
    assert all(n.lower() in a.answer.lower() for n in named), a.answer
    assert not any(x.lower() in a.answer.lower() for x in absent), a.answer


@pytest.mark.parametrize("question, frame, start, named", [
    # before 1:00 Bo spoke in two places, Ann in one
    ("Did Ann speak in the most rooms before 1:00?", "find=yes who=Ann to=1:00 act=spoke", "No",
     ["kitchen", "the coffee machine is broken", "(2)"]),
    ("Did Ann speak in the fewest rooms before 1:00?", "find=yes who=Ann to=1:00 act=spoke", "Yes",
     ["1 place", TECH]),
])
def test_one_person_among_the_most_rooms(ex, question, frame, start, named):  # noqa: F811
    a = answer(ex, question, frame, frame)
    assert a.answer.startswith(start) and all(n.lower() in a.answer.lower() for n in named), a.answer


# ---- "when did A first speak, and where was I?": the robot's place at the moments the result holds ----

@pytest.mark.parametrize("question, frame, named", [
    # Cy first spoke at 0:35, in the office (it said "I have no memory of that" for the second ask)
    ("When did CY first speak, and where was I?", f'find=when who="{TECH}" pick=first act=spoke',
     ["00:35", "I was in the office at 00:35"]),
    ("When did BO speak, and where was I then?", f'find=when who="{COFFEE}" act=spoke',
     ["I was in the kitchen at 00:10 and in the office at 00:40"]),
])
def test_where_was_i_is_asked_of_the_result(ex, question, frame, named):  # noqa: F811
    question = question.replace("CY", f"the person who said '{TECH}'").replace("BO", f"the person who said '{COFFEE}'")
    a = answer(ex, question, frame, frame)
    assert all(n in a.answer for n in named) and "no memory" not in a.answer, a.answer


# ---- "what was being said at about 1:15?": the words nearest a loosely given moment ----

@pytest.mark.parametrize("question, frame, named, absent", [
    # nobody spoke at 1:15 itself: Cy's words at 1:10-1:12 are nearest (Cy again at 1:20)
    ("What was being said at about 1:15?", "find=what at=1:15 act=spoke", [TECH, "01:10"], ["don't remember"]),
    ("Who was talking around 0:50?", "find=who at=0:50 act=spoke", [COFFEE, "00:40"], ["Ann", "nobody"]),
    # the moment itself, given exactly, stays exact: nobody spoke at 0:50
    ("What was being said at 0:50?", "find=what at=0:50 act=spoke", ["don't remember"], [COFFEE]),
    # a yes / no keeps the moment itself
    ("Was anyone speaking around 0:50?", "find=yes at=0:50 act=spoke", ["No"], [COFFEE]),
])
def test_a_loose_moment_asks_for_the_nearest_words(ex, question, frame, named, absent):  # noqa: F811
    a = answer(ex, question, frame, frame)
    assert all(n.lower() in a.answer.lower() for n in named), a.answer
    assert not any(x.lower() in a.answer.lower() for x in absent), a.answer


# ---- "did C speak in more rooms than A?": two people's numbers of places compared ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # before 1:00: Ann in the kitchen only, Bo in the kitchen and the office (the model wrote a yes / no about both)
    ("Did Ann speak in fewer rooms than BO before 1:00?", f'find=yes who=Ann other="{COFFEE}" to=1:00', "Yes",
     ["1 place (the kitchen)", "2 places (the kitchen and the office)"], []),
    ("Did CY speak in more rooms than Ann before 1:00?", f'find=yes who="{TECH}" other=Ann to=1:00 count>0', "No",
     ["1 place (the office)", "Ann in 1 place (the kitchen)"], []),
    ("Who was heard in more places before 1:00, Ann or BO?", f'find=more who=Ann other="{COFFEE}" to=1:00',
     'The person who said "the coffee machine is broken" spoke in 2 places', ["Ann in 1 place"], ["equally"]),
    # over the whole meeting: two places each
    ("Who spoke in more rooms, CY or BO?", f'find=more who="{TECH}" other="{COFFEE}"', "Neither", ["2 places"], []),
])
def test_two_people_compared_by_their_places(ex, question, frame, start, named, absent):  # noqa: F811
    question = question.replace("CY", f"the person who said '{TECH}'").replace("BO", f"the person who said '{COFFEE}'")
    a = answer(ex, question, frame, frame)
    assert a.answer.startswith(start) and all(n in a.answer for n in named), a.answer
    assert not any(x in a.answer for x in absent), a.answer


def test_places_compared_needs_two_people_and_rooms():
    from m3_control.query.places_compared import asks_places_compared

    assert asks_places_compared("Who spoke more, Ann or Bo?") is None                 # turns, not places
    assert asks_places_compared("Did Ann speak in more rooms than anyone else?") is None   # one person
    ask = asks_places_compared("Did Ann speak in more rooms than Bo?")
    assert ask is not None and (ask.a, ask.b, ask.more, ask.choose) == ("Ann", "Bo", True, False), ask
    ask = asks_places_compared("Who was seen in fewer places, the person who said 'a b c' or Bo?")
    assert ask is not None and (ask.a, ask.b, ask.more, ask.choose) == ("a b c", "Bo", False, True), ask


# ---- stop 74's held-out pair 687-688: "there" in a second question, "and who said it?" ----

def test_there_in_a_second_question_is_the_place_of_the_first(ex):  # noqa: F811
    # the office: the robot got there at 0:30; Cy spoke first there (0:35). It answered only who spoke first.
    a = answer(ex, "When did I get to the office, and who spoke first there?", 'find=when place="office" act=seen',
               'find=who pick=first place="office" act=spoke')
    assert "00:30" in a.answer and TECH in a.answer and "00:35" in a.answer, a.answer
    assert len(a.trace["parts"]) == 2, a.trace
    from m3_control.query.also import two_questions
    assert two_questions("When did I leave the lab, and who was speaking there then?") is None   # "then": not alone


@pytest.mark.parametrize("question, frame, named", [
    # the last words in the office are Bo's (0:40); the frame finds the words, the second ask names who said them
    ("What was the last thing said in the office, and who said it?", 'find=what pick=last place="office" act=spoke',
     [f'"{COFFEE}" said it at 00:40']),
    # (the answer names who said it: not said again, stop 89)
    ("What was said at 1:05, and by whom?", "find=what at=1:05 act=spoke", ['Ann said "Thanks for the help" at 01:05']),
])
def test_who_said_it_is_asked_of_the_result(ex, question, frame, named):  # noqa: F811
    a = answer(ex, question, frame, frame)
    assert all(n.lower() in a.answer.lower() for n in named), a.answer
    assert a.answer.lower().count("said it at") <= 1, a.answer


def test_the_numbers_of_places_are_in_the_result(ex):  # noqa: F811
    # the answer check only lets through counts the result holds: each person's number of places must be there
    # (a scene where the most was 3 places was refused: "count not in the result")
    from m3_control.query import rooms
    from m3_control.query.frame import Query

    ask = rooms.asks_rooms("Which person spoke in the most rooms?")
    text, res = rooms.answer(ex, Query(find="who", act="spoke"), ask, "Which person spoke in the most rooms?", 91.0)
    assert sorted(res.place_counts.values()) == [2, 2, 2] and "2 places each" in text, (text, res.place_counts)


def test_two_people_compared_by_words_the_memory_heard_otherwise(ex):  # noqa: F811
    # the question's words for Bo differ from what was heard ("was broken" / "is broken"): the answer may still
    # quote the question's words for the second person (it was refused: "quote not in the result")
    a = answer(ex, "Did Ann speak in fewer rooms than the person who said 'the coffee machine was broken' before 1:00?",
               'find=yes who=Ann other="the coffee machine was broken" to=1:00')
    assert a.answer.startswith("Yes") and "2 places" in a.answer, a.answer
