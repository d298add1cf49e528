"""Question forms found by stop 85's blind probes (held-out scenes 747-752), and forms noticed at stop 84.

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35, Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55 (TECH)
    lab     1:00-1:30: Ann 1:05, Ann 1:10, Cy 1:20-1:21.9
"""

from __future__ import annotations

import pytest

from m3_control.query.said_about import asks_about

from .test_query_also import answer
from .test_query_executor import COFFEE
from .test_query_held_forms_83 import sx  # noqa: F401  (the fixture)

BO = f'the person who said "{COFFEE}"'


# ---- noticed at 84: "what is A's dog called?" was declined "... anything about their dog called" ----

@pytest.mark.parametrize("question, topic", [
    (f"What is {BO}'s dog called?", "their dog"),
    (f"What is {BO}'s boat named?", "their boat"),
    (f"What is {BO}'s house like?", "their house"),
    (f"What is {BO}'s favourite colour?", "their favourite colour"),
])
def test_the_thing_asked_about_is_named_without_the_verb_after_it(question, topic):
    ask = asks_about(question)
    assert ask is not None and ask.topic == topic, ask
    assert "called" not in ask.words and "named" not in ask.words, ask


# ---- held-out 747: "did A speak more times in the porch than in the workshop?" was declined: the model wrote the
# place into other= ("spoke in the porch"), and place_counts kept it as a second person ----

@pytest.mark.parametrize("other", ["spoke in the office", "office", "kitchen"])
def test_one_persons_counts_in_two_places_keep_no_second_person_the_question_does_not_name(sx, other):  # noqa: F811
    q = f"Did {BO} speak more times in the office than in the kitchen?"
    got = answer(sx, q, f'find=more who="{COFFEE}" other="{other}" place="kitchen"')
    text = got.answer
    # the query the trace records is the one run: no second person in it
    assert not any("other=" in r.get("query", "") for r in got.trace["rounds"]), got.trace["rounds"]
    # Bo: the kitchen at 0:10, the office at 0:40 and 0:50
    assert text.startswith("Yes. In the office"), text
    assert "twice" in text and "once" in text, text


@pytest.mark.parametrize("question, start", [
    (f"Did {BO} speak more times in the kitchen than in the office?", "No. In the office"),
    (f"Did {BO} speak less often in the kitchen than in the office?", "Yes. In the kitchen"),
    (f"Did {BO} talk fewer times in the office than in the kitchen?", "No. In the kitchen"),
    (f"Did {BO} speak more in the kitchen or in the office?", "In the office"),     # a choice, not a yes or no
    (f"Where did {BO} speak more, the kitchen or the office?", "In the office"),
])
def test_a_yes_no_comparison_of_two_places_says_yes_or_no_first(sx, question, start):  # noqa: F811
    text = answer(sx, question, f'find=more who="{COFFEE}" place="kitchen"').answer
    assert text.startswith(start), text


# ---- held-out 749: "what is A's middle name?" was answered with A's words ("I heard 'Lay blue at X4 now'"): a name
# other than their own (first, last, full) fitted no question form, so the model's frame ran as written ----

@pytest.mark.parametrize("question, topic, words", [
    (f"What is {BO}'s middle name?", "their middle name", {"middle", "name"}),
    (f"What is the middle name of {BO}?", "their middle name", {"middle", "name"}),
    (f"What's the nickname of {BO}?", "their nickname", {"nickname"}),
    (f"What is {BO}'s dog's name?", "their dog's name", {"dog", "name"}),
    (f"What is the age of {BO}?", "their age", {"age"}),
])
def test_a_thing_of_theirs_is_asked_about_not_read_as_their_words(question, topic, words):
    ask = asks_about(question)
    assert ask is not None and ask.topic == topic and set(ask.words) == words, ask


@pytest.mark.parametrize("question", [
    f"What is {BO}'s name?", f"What's the name of {BO}?", f"What is {BO}'s last name?",
])
def test_their_own_name_is_still_the_name_the_memory_may_hold(question):
    ask = asks_about(question)
    assert ask is not None and ask.topic == "their name", ask


@pytest.mark.parametrize("question", [
    f"What was the first word of {BO}?", f"What was {BO}'s last turn?", f"What was the second sentence of {BO}?",
])
def test_their_turns_are_not_a_thing_asked_about(question):
    assert asks_about(question) is None


def test_a_middle_name_is_declined_not_answered_with_their_words(sx):  # noqa: F811
    got = answer(sx, f"What is {BO}'s middle name?", f'find=what who="{COFFEE}" pick=2').answer
    assert got.startswith("I don't remember") and got.endswith("about their middle name."), got
