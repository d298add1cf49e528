"""Question forms found by stop 85's blind probes (held-out scenes 747-752), and forms noticed at stop 84.

On the meeting of tests/test_query_held_forms_83.py (asked at 1:31):

    kitchen 0:00-0:30: Ann 0:02-0:04 (RED), Bo 0:10-0:12 (COFFEE)
    office  0:30-1:00: Cy 0:35, Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55 (TECH)
    lab     1:00-1:30: Ann 1:05, Ann 1:10, Cy 1:20-1:21.9
"""

from __future__ import annotations

import pytest

from m3_control.query.fidelity import act_of_question
from m3_control.query.polarity import finds_for
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


# ---- held-out 751: "what was A's total speaking time?" was answered with A's words: a question opening "what was"
# matched the form for words said, so the grammar offered no duration ----

@pytest.mark.parametrize("question, first", [
    (f"What was {BO}'s total speaking time?", "how_long"),
    (f"What is the total time {BO} spent talking?", "how_long"),
    (f"What was {BO}'s talk time in the office?", "how_long"),
    (f"What was the length of {BO}'s first turn?", "how_long"),
    (f"What was the gap between {BO}'s first and last turns?", "gap"),
    (f"What was the pause after {BO}'s first turn?", "gap"),
])
def test_what_was_a_time_asks_a_duration(question, first):
    assert finds_for(question)[0] == first, finds_for(question)


@pytest.mark.parametrize("question", [f"What did {BO} say?", f"What time did {BO} speak?"])
def test_what_was_said_and_what_time_are_not_durations(question):
    assert not {"how_long", "gap"} & set(finds_for(question)), finds_for(question)


def test_total_speaking_time_is_answered_in_seconds(sx):  # noqa: F811
    # the model writes a duration once the grammar offers one; Bo: 0:10-0:12, 0:40, 0:50 (2 s each)
    got = answer(sx, f"What was {BO}'s total speaking time?", f'find=how_long who="{COFFEE}"').answer
    assert got.startswith(f"{BO[0].upper()}{BO[1:]} spoke for 6 seconds"), got


# ---- held-out 751: "how long was the pause between B's last turn and the next turn?" was declined: the silence
# after a turn was read only as "the silence (pause) after"; and a silence "between the previous turn and A's" was
# measured after A's turn (the relation came as right_before, which only "before" had been read as looking back) ----

@pytest.mark.parametrize("question, said", [
    (f"How long was the pause between {BO}'s last turn and the next turn?",
     "Nobody spoke for 3 seconds after"),                      # 0:50-0:52, Cy at 0:55
    (f"How long was the gap between {BO}'s first turn and the next one?", "Nobody spoke for 23 seconds after"),
    (f"How many seconds passed between the previous turn and the first turn of {BO}?",
     "Nobody spoke for 6 seconds before"),                     # Ann 0:02-0:04, Bo at 0:10
    (f"How long was the silence between the preceding words and {BO}'s last turn?",
     "Nobody spoke for 4 seconds before"),                     # Cy until 0:46, Bo at 0:50
])
def test_the_silence_between_a_turn_and_the_next_or_previous_one(sx, question, said):  # noqa: F811
    got = answer(sx, question, f'find=gap who="{COFFEE}" act=spoke').answer
    assert got.startswith(said), got


# ---- held-out 752: "was there any speech between 0:05 and 0:12?" was answered "yes, A and B were seen ...": "speech"
# was not read as asking about hearing, so faces counted and the answer spoke of sight ----

@pytest.mark.parametrize("question", [
    "Was there any speech between 0:05 and 0:12?", "Was there any conversation in the office?",
    "Were there any utterances after 0:50?", "Was anybody chatting in the kitchen?",
])
def test_speech_and_conversation_ask_about_hearing(question):
    assert act_of_question(question) == "spoke"


def test_speech_in_a_window_is_answered_by_who_spoke(sx):  # noqa: F811
    got = answer(sx, "Was there any speech between 0:05 and 0:12?", "find=yes from=0:05 to=0:12").answer
    assert got.startswith("Yes") and " spoke between 00:05 and 00:12" in got and "seen" not in got, got


# ---- noticed at 84: "about 3 a.m." on a memory timed from the recording's start was read as 3:00 into it ("I have no
# memory of 3:00 yet"); a time of day is said to be one the memory cannot place ----

@pytest.mark.parametrize("question, frame, said", [
    ("Who spoke at about 3 a.m.?", "find=who at=3:00", '"3 a.m."'),
    ("Did anyone speak after 9 pm?", "find=yes from=21:00", '"9 pm"'),
    ("Who spoke this morning?", "find=who act=spoke", '"this morning"'),
    ("What did I hear at noon yesterday?", "find=what at=12:00", '"noon"'),
])
def test_a_time_of_day_on_a_recording_timed_from_its_start_is_declined(sx, question, frame, said):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith("I can't answer that reliably") and "keeps times from its start" in got and said in got, got


@pytest.mark.parametrize("question, frame, start", [
    ("Who spoke at 0:45?", "find=who at=0:45", 'The person who said "I will call the technician"'),
    ('Who said "see you at noon"?', 'find=who other="see you at noon"', "I don't remember anyone saying"),
    ("Who spoke today after 0:50?", "find=who from=0:50", ""),
])
def test_recording_times_and_quoted_clocks_are_still_read(sx, question, frame, start):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith(start) and "times from its start" not in got, got


# ---- held-out 753: "is A's favourite colour blue?" was answered "Yes, A was seen at 00:06" (the model's find=yes
# act=seen): whether a thing of theirs is something is in no record but what they said ----

@pytest.mark.parametrize("question, topic", [
    (f"Is {BO}'s favourite colour blue?", "whether their favourite colour is blue"),
    (f"Was {BO}'s dog a poodle?", "whether their dog is a poodle"),
    (f"Is {BO}'s car red?", "whether their car is red"),
])
def test_whether_a_thing_of_theirs_is_something_is_asked_about(question, topic):
    ask = asks_about(question)
    assert ask is not None and ask.topic == topic, ask


@pytest.mark.parametrize("question", [
    f"Is {BO}'s first turn longer?", f"Was {BO}'s last turn in the office?", f"Is {BO}'s voice loud?",
    f"Is {BO}'s name Bo?",
])
def test_their_turns_voice_and_name_are_not_things_of_their_life(question):
    ask = asks_about(question)
    assert ask is None or not ask.topic.startswith("whether their"), ask


@pytest.mark.parametrize("question, start", [
    (f"Is {BO}'s favourite colour blue?", "I can't tell: I don't remember"),
    # their words that touch on it are quoted, but are no yes
    (f"Is {BO}'s machine broken?", "I can't tell whether their machine is broken from my memory;"),
])
def test_whether_a_thing_of_theirs_is_something_is_never_a_yes(sx, question, start):  # noqa: F811
    got = answer(sx, question, f'find=yes who="{COFFEE}" act=seen').answer
    assert got.startswith(start) and "seen" not in got, got


# ---- held-out 759: "how many turns were there between A's first and last turns?" counted only the others' turns (5
# of 9): between one person's two turns the people who spoke are the others, but the turns are everyone's ----

CY = 'the person who said "I will call the technician"'


@pytest.mark.parametrize("question, frame, start", [
    # Cy 0:35 ... 1:20; between: Bo 0:40, Cy 0:45, Bo 0:50, Cy 0:55, Ann 1:05, Ann 1:10
    (f"How many turns were there between {CY}'s first and last turns?",
     'find=count_times who="I will call the technician" act=spoke', "I heard people speak 6 times between"),
    (f"How many people spoke between {CY}'s first and last turns?",
     'find=count_people who="I will call the technician" act=spoke', "I heard 2 different people between"),
    (f"How many times did {BO} speak between {CY}'s first and last turns?",
     f'find=count_times who="{COFFEE}" other="I will call the technician" act=spoke',
     f"{BO[0].upper()}{BO[1:]} spoke twice"),
])
def test_turns_between_one_persons_two_turns_are_everyones(sx, question, frame, start):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.startswith(start), got


# ---- held-out 760: "who spoke least in total time?" was answered by turns ("least often (once)"); "(most / least) in
# total time", "the most speaking time", "the fewest seconds" rank people by their seconds ----

@pytest.mark.parametrize("question, frame, start", [
    ("Who spoke least in total time?", "find=who times=0", f"{BO[0].upper()}{BO[1:]} (5.8 seconds) and Ann (5.9"),
    ("Who had the most speaking time?", "find=who pick=most", f"{CY[0].upper()}{CY[1:]} (6.3 seconds) talked the"),
    ("Who spoke the most in terms of time?", "find=who pick=most", f"{CY[0].upper()}{CY[1:]} (6.3 seconds)"),
    ("Who talked the fewest seconds?", "find=who pick=least", f"{BO[0].upper()}{BO[1:]} (5.8 seconds)"),
    ("Who spoke the least often?", "find=who pick=least", "Ann and"),               # turns, as asked
])
def test_most_and_least_in_total_time_rank_by_seconds(sx, question, frame, start):  # noqa: F811
    got = answer(sx, question, frame).answer
    assert got.lower().startswith(start.lower()), got      # (a description quotes the words as heard)


# ---- held-out 760: "what languages does A speak?" was answered with A's words ----

@pytest.mark.parametrize("question", [
    f"What languages does {BO} speak?", f"How many languages can {BO} speak?", f"Which language does {BO} speak?",
])
def test_the_languages_someone_speaks_are_asked_about(sx, question):  # noqa: F811
    got = answer(sx, question, f'find=what who="{COFFEE}"').answer
    assert got == f"I don't remember {BO} saying anything about the languages they speak.", got
