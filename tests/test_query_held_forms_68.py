"""Question forms stop 68's held-out probes (seeds 633-634) found answered wrong, on the hand-built meeting of
tests/test_query_executor.py (a scripted model writes the frame the small model wrote there):

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10 (TECH), Cy 1:20 ("See you tomorrow"), Ann 1:25 (each turn 2 s)

Everyone who speaks is also seen while speaking. Asked at 1:31.
"""

from __future__ import annotations

import pytest

from m3_control.query import anchored, choice, moods, said_about, seen_heard
from m3_control.query.plans import plan_for

from .test_query_also import BO, CY, answer
from .test_query_also import check_frame as _check
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

# ---- "how many seconds passed before anyone spoke?": from the start of the recording to the first words ----

@pytest.mark.parametrize("question, frame, start", [
    ("How many seconds passed before anyone spoke?", "find=gap", "Ann first spoke at 00:02, 2 seconds after the start"),
    ("How long was it before anyone spoke?", "find=gap from=0:00", "Ann first spoke at 00:02, 2 seconds after"),
    ("How much time went by before the first words?", "find=how_long", "Ann first spoke at 00:02"),
    (f"How much time passed before {CY} first spoke?", "find=gap",
     f'The person who said "{TECH}" first spoke at 00:35, 35 seconds after the start'),
    ("How many seconds passed before Ann spoke?", "find=gap", "Ann first spoke at 00:02"),
])
def test_time_before_the_first_words(ex, question, frame, start):  # noqa: F811
    ask = anchored.asks_anchored(question)
    assert ask is not None and ask.kind == "delay" and ask.moments[0].kind == "start"
    _check(ex, question, frame, start, [], [])


def test_time_in_a_room_before_anyone_spoke_stays_the_robots_stay():
    # "how long was I in the lab before anyone spoke?" is timed from the robot's arrival (moves.py), not the start
    assert anchored.asks_anchored("How long was I in the lab before anyone spoke?") is None


# ---- people by both senses: seen and heard, heard and never seen ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # Ann, Bo and Cy were seen while they spoke; Dee was seen, never heard
    ("How many people did I both see and hear?", "find=count_people act=seen times=2", "3 people I both saw and heard",
     ["Ann", "coffee machine", TECH], ["Dee", "00:50"]),
    ("Who did I see and also hear?", "find=who act=seen", "Ann", ["coffee machine", TECH], ["00:50"]),
    ("Who did I see and hear in the office?", 'find=who place="office" act=seen',
     f'The person who said "{TECH}"', ["coffee machine", "in the office"], ["Ann"]),
    ("Was anyone both seen and heard after 1:00?", "find=yes from=1:00", "Yes: Ann", [TECH], ["coffee machine"]),
    ("Did I hear anyone I never saw?", "find=yes act=spoke", "No, there is no one I heard but never saw", [], []),
    (f"Did I both see and hear {BO}?", f'find=yes who="{COFFEE}" act=seen', "Yes:", ["coffee machine"], [TECH]),
])
def test_people_both_seen_and_heard(ex, question, frame, start, named, absent):  # noqa: F811
    _check(ex, question, frame, start, named, absent)


def test_seen_but_never_heard_stays_the_frames():
    # "was anyone seen but never heard?" is a frame of its own (act=seen times=0): not this plan
    assert seen_heard.asks_seen_heard("Was anyone seen but never heard?") is None
    assert seen_heard.asks_seen_heard("Who did I hear but never see?") == "heard_only"
    assert plan_for("How many people did I both see and hear?").kind == "seen_heard_both"


# ---- numbers that fit a comparison: "a number larger than five", "an even number" ----

@pytest.mark.parametrize("topic, words", [
    ("a number larger than five", {"six", "seven", "eight", "nine", "ten", "eleven", "twelve"}),
    ("a number smaller than 3", {"zero", "one", "two"}),
    ("an even number below seven", {"zero", "two", "four", "six"}),
    ("an odd number", {"one", "three", "five", "seven", "nine", "eleven"}),
    ("a number over twenty", set()),        # not a number word this knows: nothing fits, nothing guessed
    ("a number", set(said_about._DIGITS)),
])
def test_numbers_that_fit(topic, words):
    assert said_about.topic_words(topic) == words


def test_a_number_larger_than_n_is_the_topic():
    ask = said_about.asks_about("Who said a number larger than five?")
    assert ask is not None and ask.topic == "a number larger than five" and "seven" in ask.words
    assert "two" not in ask.words
    ask = said_about.asks_about("Did anyone mention an odd number?")
    assert ask is not None and ask.words >= {"one", "seven"} and "two" not in ask.words


@pytest.mark.parametrize("question, frame, start", [
    # nobody in the meeting says a number: said so, nobody listed (the frame compared turn counts with five)
    ("Who said a number larger than five?", "find=who times>5",
     "Nobody said anything about a number larger than five that I heard."),
    ("Did anyone say an even number?", "find=yes", "No, nobody said anything about an even number"),
])
def test_nobody_said_a_number_that_fits(ex, question, frame, start):  # noqa: F811
    _check(ex, question, frame, start, [], ["Ann", "coffee machine"])


# ---- the misses of probes 635-636 (held out from the fixes above) ----

@pytest.mark.parametrize("question, frame, start, named", [
    # kitchen: Ann first and last; office: Cy first (0:35), Bo last (0:40); lab: Ann first (1:05) and last (1:25)
    ("Did the same person speak first in the kitchen and the lab?", "find=same", "Yes:",
     ["Ann spoke first in the kitchen (at 00:02)", "Ann spoke first in the lab (at 01:05)"]),
    ("Did the same person speak first in all the rooms?", "find=same", "No:",
     [f'"{TECH}" spoke first in the office (at 00:35)']),
    ("Was the first speaker in the office also the first in the lab?",
     'find=same who="first in the office" other="first in the lab"', "No:", ["Ann spoke first in the lab"]),
    ("Was the last person to speak in the kitchen the first one to speak in the office?", "find=same", "No:",
     ["Ann spoke last in the kitchen (at 00:20)", "spoke first in the office (at 00:35)"]),
    ("Was the last speaker in the kitchen also the last in the lab?", "find=same", "Yes:",
     ["Ann spoke last in the lab (at 01:25)"]),
    ("Who spoke last in both the office and the lab?", "find=who pick=last",
     "Nobody spoke last in both the office and the lab", ["spoke last in the office (at 00:40)"]),
    ("Was the first speaker in the kitchen also the first in the attic?", "find=same",
     "I have no place called 'attic'", []),
])
def test_one_rooms_first_or_last_speaker_against_anothers(ex, question, frame, start, named):  # noqa: F811
    _check(ex, question, frame, start, named, [])


def test_the_first_seconds_are_a_window_not_an_order():
    # "who spoke more in the first 30 seconds, B or C?" was answered as who spoke first
    assert choice.order_choice(f"Who spoke more in the first 30 seconds, {BO} or {CY}?") is None
    assert choice.order_choice(f"Which of {BO} and {CY} spoke first in the last minute?") == "first"


@pytest.mark.parametrize("question, frame, start, named", [
    # Bo 0:10 and 0:40, Cy 0:35 in the first 45 seconds
    (f"Who spoke more in the first 45 seconds, {BO} or {CY}?", f'find=more who="{COFFEE}" other="{TECH}"',
     f'The person who said "{COFFEE}" spoke more often between 00:00 and 00:45', []),
    # in the last minute (0:30-1:30) Cy's first words (0:35) come before Bo's (0:40); over all, Bo's (0:10)
    (f"Which of {BO} and {CY} spoke first in the last minute?", "find=who", f'The person who said "{TECH}" spoke first',
     ["00:40"]),
])
def test_a_choice_of_two_in_a_window(ex, question, frame, start, named):  # noqa: F811
    _check(ex, question, frame, start, named, [])


@pytest.mark.parametrize("question, frame, start", [
    # everyone who speaks is seen while speaking: no one was seen (or heard) first
    ("Did I see Ann before I heard her?", 'find=yes who="Ann"',
     "No: I first saw and heard Ann at the same moment (00:02)"),
    (f"Did I hear {BO} before I saw them?", f'find=yes who="{COFFEE}"',
     f'No: I first saw and heard the person who said "{COFFEE}" at the same moment (00:10)'),
])
def test_seen_before_heard(ex, question, frame, start):  # noqa: F811
    assert seen_heard.asks_seen_heard(question) in ("seen_first", "heard_first")
    _check(ex, question, frame, start, [], [])


def test_words_heard_as_their_homophones():
    # tiny.en writes "Been read by K7 now" for "bin red by k seven now": "read" may be the colour
    assert "red" in said_about.spoken_words("Been read by K7 now")
    assert said_about.heard_as("Been read by K7 now", frozenset({"red"})) == "; heard as read, which sounds like red"
    assert said_about.heard_as("Put the red folder down", frozenset({"red"})) == ""
    # everyday words are not read as numbers or letters ("to" is no "two", "you" no "u")
    assert not {"two", "u"} & said_about.spoken_words("I told you to wait")


@pytest.mark.parametrize("question, frame, start, named, absent", [
    ("Did anyone mention the colour red?", 'find=yes who="red"',
     'Yes, Ann: "Put the red folder on the desk" (00:02, 00:20)', [], ["heard as"]),
    # every speaker's sentences, each once with how often (was a search: "I have no memory of that")
    ("What did everyone say?", "find=what", "3 people spoke. Ann:",
     ['"Put the red folder on the desk" (twice)', '"See you tomorrow" (once)',
      '"The coffee machine is broken" (twice)'], []),
    ("What did people say in the lab?", "find=what", "2 people spoke in the lab. Ann:",
     ['"Thanks for the help" (once)', '"See you tomorrow" (once)'], ["coffee"]),
])
def test_what_was_said(ex, question, frame, start, named, absent):  # noqa: F811
    _check(ex, question, frame, start, named, absent)


# ---- the misses of probes 637-638 (held out from the fixes above) ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # words inside the sentences, counted as turns ("the" in Ann's folder sentence twice, her thanks, Bo's twice,
    # Cy's technician twice)
    ("How many sentences had the word 'the' in them?", "find=count_times act=spoke times=0", "7 times:",
     ['"Put the red folder on the desk" (00:02, 00:20)'], ["See you tomorrow"]),
    ("How many turns contained the word 'folder'?", "find=count_times", "Twice: Ann:", [], [TECH]),
    # a named speaker's words with a kind of word (was "Yes, Ann spoke at 00:02")
    ("Did Ann say anything containing the letter x?", 'find=yes who="Ann" act=spoke',
     "No, I don't remember Ann saying anything with the letter x.", [], []),
    (f"Did {BO} say anything containing the letter x?", f'find=yes who="{COFFEE}" act=spoke', "No, I don't remember",
     ["with the letter x"], []),
])
def test_words_inside_what_was_said(ex, question, frame, start, named, absent):  # noqa: F811
    _check(ex, question, frame, start, named, absent)


def test_how_long_did_the_silence_last_is_no_last_turn(ex):  # noqa: F811
    # "... last?" is the verb: the silence before Cy's first words (0:35; Ann stopped at 0:22), not before Cy's last
    _check(ex, f"How long did the silence before {CY}'s first words last?", f'find=gap who="{TECH}" act=spoke',
           "Nobody spoke for 13 seconds before", ["00:35", "Ann had stopped at 00:22"], ["01:20"])


@pytest.mark.parametrize("question, frame, start, absent", [
    # kitchen: Ann 2, Bo 1; office: Cy 1, Bo 1; lab: Ann 2, Cy 2
    ("Who spoke more in the kitchen than in the lab?", 'find=more who="kitchen" other="lab" act=spoke',
     'The person who said "The coffee machine is broken" (once in the kitchen, never in the lab) spoke more often',
     ["Ann", TECH]),
    ("Who spoke less in the kitchen than in the lab?", "find=less",
     f'The person who said "{TECH}" (never in the kitchen, twice in the lab)', ["Ann", "coffee"]),
    ("How many people spoke more in the office than in the kitchen?", "find=count_people",
     f'1: the person who said "{TECH}" (once in the office, never in the kitchen)', ["coffee"]),
    ("Did anyone speak more in the lab than in the office?", "find=yes", "Yes: Ann (twice in the lab, never in the "
     "office) and", ["coffee"]),
])
def test_each_persons_turns_in_two_places(ex, question, frame, start, absent):  # noqa: F811
    _check(ex, question, frame, start, [], absent)


@pytest.mark.parametrize("question, frame, start", [
    # the records hold expressions only where the face stage stated a clear one: none in this meeting
    ("What mood was Ann in?", 'find=what who="Ann"',
     "I can't tell the mood of Ann: I saw them (first at 00:02) but noted no clear expression on their face."),
    (f"How did {BO} seem?", "find=what", f'I can\'t tell the mood of the person who said "{COFFEE}": I saw them'),
    # looks the records do not keep: declined, not "yes, A was seen"
    ("Is Ann a man or a woman?", 'find=more who="Ann"',
     "I can't answer that reliably: I cannot tell what someone looks"),
    # what happened = what was said (a face is no answer to "what"; the frame had act=seen)
    ("What happened right after I got to the lab?", 'find=what other="got to the lab" rel=right_after act=seen',
     'Ann said "Thanks for the help" after 01:00.'),
])
def test_moods_looks_and_what_happened(ex, question, frame, start):  # noqa: F811
    _check(ex, question, frame, start, [], [])


def test_a_mood_the_face_showed(db_at):
    from m3_control.query import QueryExecutor

    from .people_helpers import meeting_store

    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken.")]
    store, _ = meeting_store(db_at("m.db"), script=script, silent=[], looks={"bo": "happy"})
    a = answer(QueryExecutor(store), f"What mood was {BO} in?", "find=what").answer
    assert a.startswith(f'The person who said "{COFFEE}" looked happy at 00:10'), a
    assert moods.asks_mood("What did Ann say about her mood?") is False     # a mood said: the topic path
    store.close()


# ---- the misses of probes 639-640 (held out from the fixes above) ----

@pytest.mark.parametrize("question, frame, start, named, absent", [
    # Cy's first words (0:35) came last of the three who spoke (Ann 0:02, Bo 0:10)
    ("Who waited the longest before speaking for the first time?", "find=who pick=last to=0:00",
     f'The person who said "{TECH}" was the last new voice I heard (first at 00:35)', [], ["Ann spoke last"]),
    # the robot's own place at a clock time (was: who was seen there then)
    ("Was I in the lab at 1:10?", "find=yes at=1:10", "Yes, I was in the lab at 01:10.", [], [TECH]),
    ("Was I in the kitchen at 1:10?", "find=yes at=1:10", "No, at 01:10 I was in the lab, not in the kitchen.", [], []),
    ("Was I in the attic at 1:10?", "find=yes at=1:10", "I have no place called 'attic'", [], []),
    # "how many seconds did I spend in ...?": the robot's stay (the frame had find=gap)
    ("How many seconds did I spend in the office?", "find=gap from=0:00 to=0:05",
     "I was in the office for 29 seconds in all.", [], []),
    # "before 0:30 or after?" of one person: which side (was "yes, twice after 0:30")
    ("Did Ann speak before 0:30 or after?", 'find=more who="Ann" from=0:30',
     "Both: Ann spoke before 00:30 (at 00:02 and 00:20) and after it", [], []),
    (f"Did {CY} speak before 0:30 or after?", "find=more", f'After: the person who said "{TECH}" spoke after 00:30',
     [], []),
    # two windows' counts stay window_counts' ("before 0:30 or after?" of sentences)
    ("Were more sentences said before 0:30 or after?", "find=count_times",
     "After 00:30: people spoke more often then (6 times) than before 00:30 (3 times).", [], []),
    # where the talk as a whole started / ended (was: "yes, Ann and Bo spoke in the kitchen")
    ("Did the conversation start in the kitchen?", 'find=yes place="kitchen" act=spoke',
     "Yes: the first words, by Ann at 00:02, were in the kitchen.", [], []),
    ("Did the talking end in the kitchen?", 'find=yes place="kitchen" act=spoke',
     "No: the last words, by Ann at 01:25, were in the lab.", [], []),
])
def test_held_out_forms_639_640(ex, question, frame, start, named, absent):  # noqa: F811
    _check(ex, question, frame, start, named, absent)


def test_before_t_or_after_reads_as_before_or_after_t():
    from m3_control.query import sides

    assert sides.either_form("Did B speak before 0:15 or after?") == "Did B speak before or after 0:15?"
    assert sides.either_form("Was A heard after 1:00, or before?") == "Was A heard after or before 1:00?"
    assert sides.either_form("Were more sentences said before 0:30 or after?").endswith("before 0:30 or after?")


def test_no_second_turn_is_said(db_at):
    from m3_control.query import QueryExecutor

    from .people_helpers import meeting_store

    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
              (0, "ann", 20.0, 22.0, "Thanks for the help.")]
    store, _ = meeting_store(db_at("m.db"), script=script, silent=[])
    a = answer(QueryExecutor(store), f"How long did {BO} wait between their first and second turns?",
               f'find=gap who="{COFFEE}" act=spoke').answer
    assert a.startswith(f'The person who said "{COFFEE}" spoke once: there was no second turn'), a
    store.close()
