"""A question asked as a request ("Can you tell me who ...?", "Do you remember where ...?", "Tell me how many ...")
is the question it wraps: the model, the checks and the answer's form see the wrapped question."""

from __future__ import annotations

import pytest

from m3_control.query.frame import YES_NO_FIND
from m3_control.query.polarity import YES_NO_QUESTION, finds_for
from m3_control.query.requests import direct_question, expand_terse, unwrap_request
from m3_control.tool_loop import ToolReasoningLoop

from .people_helpers import meeting_store
from .test_tool_loop import Scripted

Q = "the person who said 'the coffee machine is broken'"


@pytest.mark.parametrize(("asked", "plain"), [
    ("Can you tell me who spoke first after 1:15?", "Who spoke first after 1:15?"),
    ("Do you know how many different people talked after 1:15?", "How many different people talked after 1:15?"),
    ("Could you please remind me who spoke last in the kitchen?", "Who spoke last in the kitchen?"),
    (f"Do you remember which room I was in when {Q} first spoke?", f"Which room was I in when {Q} first spoke?"),
    (f"Tell me where I was when {Q} talked.", f"Where was I when {Q} talked?"),
    (f"Tell me how many times {Q} spoke.", f"How many times {Q} spoke?"),
    ("Can you tell me the last thing somebody said?", "What was the last thing somebody said?"),
    (f"Do you remember whether {Q} spoke again?", f"Is it true that {Q} spoke again?"),
    ("Do you know if Ann likes coffee?", "Is it true that Ann likes coffee?"),
    ("Please tell me, who spoke last?", "Who spoke last?"),
    ("I'd like to know who spoke second.", "Who spoke second?"),
    ("Any idea who spoke first after 1:02?", "Who spoke first after 1:02?"),
    ("Remind me: who spoke last?", "Who spoke last?"),
    ("I was wondering how many people spoke.", "How many people spoke?"),
    ("Who spoke first, do you remember?", "Who spoke first?"),                  # the request after the question
    (f"Where was I when {Q} spoke, can you tell me?", f"Where was I when {Q} spoke?"),
    # blind set n: "do you remember" with a thing the terse forms know, a wh-word with the thing before its verb
    ("Do you remember the very first words someone said?", "What were the first words someone said?"),
    ("Do you know who the second person to talk in the bathroom was?",
     "Who was the second person to talk in the bathroom?"),
    ("Do you know what the last thing someone said was?", "What was the last thing someone said?"),
    # blind probe 576: an order to name people asks who (it went to a search and said "no memory")
    ("Name everyone who spoke in the garden.", "Who spoke in the garden?"),
    ("Please list all the people that I heard after 1:00", "Who did I hear after 1:00?"),
    ("Identify the people you saw in the lab.", "Who did you see in the lab?"),
    ("Can you name each person who was seen in the lab?", "Who was seen in the lab?"),
    ("Name the rooms I went to.", "Which rooms did I go to?"),                  # blind probe 580
    ("Please list all the places we visited", "Which places did I go to?"),
])
def test_a_request_is_the_question_it_wraps(asked, plain):
    assert unwrap_request(asked) == plain


@pytest.mark.parametrize("asked", [
    "Can you see the red folder?",                        # a yes / no question itself
    f"Do you remember {Q}?",                              # "do you remember X": yes or no
    f"Do you remember the person who said {Q}?",
    "Who spoke first?", "Did Ann speak?",                 # no request
    "Tell me about the red folder.",                      # a content request: the search path reads it as it is
    "Can you tell me?", "Say hello.", "Name everyone.",   # nobody to name by anything
    "Did Ann speak, do you know?",                        # a yes / no question with a request after it
])
def test_other_questions_stay_as_they_are(asked):
    assert unwrap_request(asked) == asked


def test_the_wrapped_question_decides_the_answer_form():
    assert YES_NO_QUESTION.match("Can you remember who spoke last in the kitchen?")      # the trap, as asked
    assert finds_for("Can you remember who spoke last in the kitchen?") == YES_NO_FIND
    assert "who" in finds_for(unwrap_request("Can you remember who spoke last in the kitchen?"))
    assert finds_for(unwrap_request("Do you know how many people spoke?")) == ("count_people",)


def test_the_loop_asks_the_model_the_wrapped_question_and_keeps_the_words_asked(db_at):
    store, _ = meeting_store(db_at("m.db"))
    try:
        be = Scripted(["find=who pick=last act=spoke"], grammar_ok=True)
        seen: list[str] = []
        complete = be.complete

        def record(messages, grammar=None):
            seen.append(messages[-1]["content"])
            return complete(messages, grammar)

        be.complete = record
        asked = "Can you remember who spoke last?"
        a = ToolReasoningLoop(store, be).run(asked, before_time=91.0)
        assert seen and "Who spoke last?" in seen[0] and "Can you" not in seen[0]
        assert a.trace["question"] == asked and a.trace["asked_as"] == "Who spoke last?"
        assert a.success and a.answer.startswith("Ann spoke last"), a.answer    # Ann said "Bye everyone" at 85 s
        # the grammar of the question as asked allows only yes / no frames; the wrapped question's allows "who"
        assert "count_people" in be.grammars[0]
    finally:
        store.close()


@pytest.mark.parametrize(("asked", "full"), [
    ("First speaker after 1:02?", "Who was the first speaker after 1:02?"),
    ("Second person to speak in the garage?", "Who was the second person to speak in the garage?"),
    ("Number of turns between A and B?", "How many turns between A and B?"),
    (f"Room I was in when {Q} first spoke?", f"Which room was I in when {Q} first spoke?"),
    ("Room with the most talking?", "Which room with the most talking?"),
    ("Time someone first spoke in the lab?", "At what time someone first spoke in the lab?"),
    (f"Any words from {Q} before 1:02?", f"Were there any words from {Q} before 1:02?"),
    ("Anyone talking in the kitchen?", "Was there anyone talking in the kitchen?"),
    ("Last words I heard?", "What were the last words I heard?"),
    (f"Words spoken right after {Q}'s final turn?", f"What were the words spoken right after {Q}'s final turn?"),
])
def test_a_terse_question_is_written_out(asked, full):
    assert expand_terse(asked) == full == direct_question(asked)


@pytest.mark.parametrize("asked", ["Who spoke first?", "Did Ann speak?", "Time flies?", "Words matter.", "Lay blue?",
                                   "Number of people in the kitchen."])
def test_full_questions_and_statements_stay(asked):
    assert expand_terse(asked) == asked


def test_written_out_the_form_is_the_one_asked():
    """Set N, held out: each of these was answered in the wrong form (a count of people for "Number of turns ...",
    what A said for "Any words from A ...?", a count for "Room with the most talking?")."""
    assert finds_for(direct_question("Number of turns between A and B?")) == ("count_times",)
    assert finds_for(direct_question("Any words from Ann before 1:02?")) == YES_NO_FIND
    assert finds_for(direct_question("Room with the most talking?")) == ("where",)
    assert finds_for(direct_question("Time someone first spoke in the lab?")) == ("when",)
    # a yes / no after a clause whose quote is followed by a possessive ("... said 'X''s final turn, did ...?")
    assert YES_NO_QUESTION.match(f"After {Q}'s final turn, did Ann ever speak again?")
    assert not YES_NO_QUESTION.match(f"Who talked just before {Q}'s final turn?")
