"""Question forms stop 65's blind probes (seeds 609-618) found answered wrong, on the hand-built meeting of
tests/test_query_executor.py (a scripted model writes the frame the small model wrote there):

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10 ("See you tomorrow"), Cy 1:20, Ann 1:25 (each turn 2 s)

Ann spoke 4 times (the most), Cy 3, Bo twice (the least).
"""

from __future__ import annotations

import pytest

from m3_control.query import not_yet, said_about
from m3_control.query import routing as query_routing
from m3_memory.store.where import robot_stays

from .test_query_also import BO, CY, answer
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)


@pytest.mark.parametrize("question, frame, start, named, absent", [
    # "3 in the workshop": the second place was dropped
    ("How many people did I hear in the kitchen and the office combined?", 'find=count_people place="kitchen"',
     "3", ["kitchen", "office"], []),
    ("How many different people spoke in the office and in the lab altogether?", 'find=count_people place="lab"',
     "3", [], []),
    ("How many times did people speak in the office and the lab together?", 'find=count_times place="office"',
     "People spoke 6 times", ["twice in the office", "4 times in the lab"], []),
    (f"How many times did {CY} speak in the kitchen and the lab in total?", f'find=count_times who="{TECH}"',
     "The person who said", ["twice", "never in the kitchen", "twice in the lab"], []),
])
def test_counts_over_two_places_together(ex, question, frame, start, named, absent):  # noqa: F811
    a = answer(ex, question, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a


@pytest.mark.parametrize("question", [
    "Was anyone speaking when I left the kitchen?",
    "Was somebody talking when I got to the lab?",
])
def test_anyone_speaking_at_a_move_of_the_robot(ex, question):  # noqa: F811
    # written find=yes act=spoke times=0, this named the next person to speak after the move; since stop 99 the move's
    # moment itself is asked of everyone's turns (near_moves), the turns either side of it said with how far
    r = answer(ex, question, "find=yes act=spoke times=0")
    assert r.answer.startswith("No: nobody was speaking"), r.answer
    stays = robot_stays(ex.store, 91.0)
    t = next(s[2] for s in stays if s[0] == "kitchen") if "left" in question else \
        next(s[1] for s in stays if s[0] == "lab")
    moved = "I left the kitchen" if "left" in question else "I arrived in the lab"
    assert f"when {moved} ({int(t) // 60:02d}:{int(t) % 60:02d})" in r.answer, (r.answer, t)


def test_who_had_not_spoken_yet_at_a_moment(ex):  # noqa: F811
    # written find=who act=seen times=0, this named someone who had spoken before the move
    a = answer(ex, "Who hadn't spoken yet when I arrived in the office?", "find=who act=seen times=0").answer
    assert "technician" in a and "Ann" not in a and "coffee" not in a, a
    a = answer(ex, "Who had not spoken yet by 1:00?", "find=who act=spoke").answer
    assert a.startswith("Everyone") and "01:00" in a, a
    a = answer(ex, "How many people hadn't spoken yet by 0:15?", "find=count_people").answer
    assert a.startswith("1:") and "technician" in a and "00:35" in a and "Ann" not in a, a
    a = answer(ex, f"Who was yet to speak when {BO} first spoke?", f'find=who other="{COFFEE}" rel=before').answer
    assert "technician" in a and "Ann" not in a and "coffee" not in a, a
    # (blind probe 612) named two people who had both spoken before the move
    a = answer(ex, "Who talked only after I entered the office?",
               'find=who other="I entered the office" rel=after act=spoke').answer
    assert "technician" in a and "Ann" not in a and "coffee" not in a, a
    a = answer(ex, "Who spoke only after I got to the lab?", 'find=who other="I got to the lab" rel=after').answer
    assert a.startswith("Everyone"), a
    # "only once" is one time, not a moment ("who has spoken only once?" was read as "only once I ...")
    for q in ("Who has spoken only once?", "Who spoke only once?", "Who talked only twice?",
              "Who has not spoken in the kitchen?", "Who hasn't talked in the lab?"):   # (a place, no moment)
        assert not_yet.asks_not_yet(q) is None, q
    for q in ("Who hadn't spoken yet when I arrived in the office?", "Who had not yet talked by 1:00?",
              "Who hadn't spoken by 0:30?", "Who was yet to speak at 0:30?", "Who didn't speak until after 1:00?"):
        assert not_yet.asks_not_yet(q) == "who", q
    for q in ("Who has spoken only once?", "Who spoke only once?"):
        a = answer(ex, q, "find=who times=1").answer
        assert "I can't answer" not in a and "had not yet" not in a, (q, a)


@pytest.mark.parametrize("question, start, parts", [
    # declined ("I can't answer that reliably"): two people's turns added up, then compared
    (f"Did Ann speak more often than {BO} and {CY} together?", "No", ["4 times", "5 times"]),
    (f"Was Ann heard more times than {BO} and {CY} combined?", "No", ["4 times", "5 times"]),
    (f"Did {CY} speak less often than Ann and {BO} together?", "Yes", ["3 times", "6 times"]),
    (f"Did {CY} speak more than {BO} and Ann?", "No", ["3 times", "6 times"]),
])
def test_one_count_against_two_added(ex, question, start, parts):  # noqa: F811
    r = answer(ex, question, f'find=yes who="Ann" other="{COFFEE}" times>other')
    assert r.answer.startswith(start) and all(p in r.answer for p in parts), (r.answer, r.trace["rounds"])


@pytest.mark.parametrize("question, start, parts", [
    # answered by the memory search: "Someone appears in the scene."
    ("Was there more talking in the first minute or in the second minute?", "In the first minute",
     ["5 times", "4 times"]),
    ("Were there fewer turns before 0:30 or after 1:00?", "Before 00:30", ["3 times", "4 times"]),
    ("Were there fewer turns before 0:38 or after 1:00?", "The same", ["4 times before 00:38"]),
    ("Did people speak more in the second minute than in the first minute?", "No, in the first minute",
     ["5 times", "4 times"]),
    ("Did more people speak before 1:00 than after it?", "Yes, before 01:00", ["(3)", "(2)"]),
    (f"Did {CY} speak more in the first minute or the second?", "In the second minute", ["twice", "once"]),
])
def test_two_windows_compared(ex, question, start, parts):  # noqa: F811
    a = answer(ex, question, "find=count_times").answer
    assert a.startswith(start) and all(p in a for p in parts), a


def test_a_ranked_speaker_counted_is_named(ex):  # noqa: F811
    # "I heard people speak 6 times": the count was the last speaker's, said as everyone's
    a = answer(ex, "How many times did the last speaker speak?", "find=count_times pick=last").answer
    assert "4 times" in a and "Ann" in a, a
    a = answer(ex, "How many times did the first person to speak talk?", "find=count_times pick=first").answer
    assert "4 times" in a and "Ann" in a, a


@pytest.mark.parametrize("question, start", [
    # answered with Cy's only words, as if they were an opinion on the food
    (f"What did {CY} think of the food?", "I don't remember"),
    (f"How did {BO} feel about the meeting?", "I don't remember"),
    (f"What did {BO} think about the coffee machine?", "The person who said"),
    # (blind probe 612) A's only sentence, as if it were a promise
    (f"What did {CY} promise {BO}?", "I don't remember"),
    (f"Did {BO} offer anything?", "No, I don't remember"),
    # (blind probe 616) "I heard 'Set blue with E5 now'", as if that were A's favorite colour
    (f"What is {CY}'s favorite color?", "I don't remember"),
    (f"What was {BO}'s job?", "I don't remember"),
    # (blind probes 617-618) "The person who said X spoke.", "I saw the person who said X in the office."
    (f"How old is {CY}?", "I don't remember"),
    (f"Where does {BO} live?", "I don't remember"),
    (f"What does {CY} like?", "I don't remember"),
])
def test_an_opinion_on_a_topic_is_what_was_said_about_it(ex, question, start):  # noqa: F811
    who = TECH if "technician" in question.split("think")[0] else COFFEE
    a = answer(ex, question, f'find=what who="{who}"').answer
    assert a.startswith(start), a


@pytest.mark.parametrize("question, start", [
    # written pick=first to=20:00, this was "No: B did not speak" (Bo spoke at 0:40, between Ann's first and last)
    (f"Did {BO} speak between {CY}'s first and last words?", "Yes"),
    (f"Did Ann speak between {CY}'s first and last words?", "Yes"),
    (f"Did Ann speak between {CY}'s second and last turns?", "No"),
])
def test_someone_between_another_persons_turns(ex, question, start):  # noqa: F811
    r = answer(ex, question, f'find=yes who="{COFFEE}" other="{TECH}" pick=first to=20:00')
    assert r.answer.startswith(start) and "20:00" not in r.answer, r.answer


def test_a_rank_by_count_after_a_tie(ex):  # noqa: F811
    # Ann 2, Bo 2, Cy 1 in the first minute: "I don't remember anyone speaking" (no third different count); two
    # tied for the most take the first two places, so Cy is third (and the tie ahead is said: stop 76)
    a = answer(ex, "Who spoke the third most in the first minute?", "find=who pick=third_most").answer
    picked, _, ahead = a.partition(";")
    assert "technician" in picked and "Ann" not in picked and "coffee" not in picked, a
    assert "Ann" in ahead and "coffee" in ahead and "twice each" in ahead and "spoke more often" in ahead, a
    # Ann 2, Cy 2 in the lab: nobody is second, and the answer says why rather than that nobody spoke
    a = answer(ex, "Who spoke the second most in the lab?", 'find=who pick=second_most place="lab"').answer
    assert "anyone speaking" not in a and "Ann" in a and "technician" in a, a


@pytest.mark.parametrize("question, named", [
    # the memory search answered "Someone said ..." with the third speaker's words
    ("Who opened the conversation?", "Ann"),
    ("Who started the talking?", "Ann"),
    ("Who got the conversation going?", "Ann"),
    ("Who had the last word?", "Ann"),
    ("Who closed the discussion?", "Ann"),
])
def test_who_opened_the_conversation_is_the_first_to_speak(ex, question, named):  # noqa: F811
    r = answer(ex, question, "find=who act=spoke")
    assert named in r.answer and "coffee" not in r.answer and "technician" not in r.answer, r.answer
    assert query_routing.asks_who_spoke(question) or query_routing.asks_by_rank(question)


def test_opening_a_door_is_no_conversation(ex):  # noqa: F811
    a = answer(ex, "Who opened the door?", "find=who act=seen").answer
    assert "first" not in a and "last" not in a, a


@pytest.mark.parametrize("question, start, parts", [
    # (blind probe 613) the frame related only to A's first turn: "No" where C followed A's second
    (f"Did {BO} ever speak right after {CY}?", "Yes", ["00:40"]),
    (f"Did {CY} ever speak right after {BO}?", "No", []),
    (f"Did {BO} ever speak right before {CY}?", "No", []),
    (f"Did {CY} ever talk just before {BO}?", "Yes", ["00:35"]),
    # (blind probe 614) declined: "I cannot tell turns in a row"
    ("Did anybody speak three times in a row?", "Nobody spoke 3 times in a row", []),
    (f"Did {CY} ever speak twice in a row?", "Yes", ["01:10 and 01:20"]),
])
def test_turn_sequences_over_every_turn(ex, question, start, parts):  # noqa: F811
    a = answer(ex, question, f'find=yes who="{TECH}" other="{COFFEE}" rel=right_after').answer
    assert a.startswith(start) and all(p in a for p in parts), a


def test_why_is_not_in_the_records(ex):  # noqa: F811
    # "The person who said X did not say anything I heard" (they spoke three times)
    a = answer(ex, f"Why did {CY} leave?", f'find=what who="{TECH}" act=seen times=0').answer
    assert a.startswith("I can't answer that reliably") and "why" in a, a


@pytest.mark.parametrize("question, frame, start, named, absent", [
    # (blind probe 615) "I heard 1 person who stayed silent the whole time in the lab": nobody was silent there
    ("How many people never spoke in the lab?", "find=count_people act=seen times=0", "1 person", ["lab"],
     ["silent"]),
    ("Who never spoke in the kitchen?", "find=who act=spoke times=0", "", ["technician"], ["Ann", "coffee"]),
    ("Which people didn't talk in the office?", 'find=who place="office" times=0', "", ["Ann"],
     ["coffee", "technician"]),
])
def test_people_who_never_spoke_in_a_place(ex, question, frame, start, named, absent):  # noqa: F811
    a = answer(ex, question, frame).answer
    assert a.startswith(start) and all(n in a for n in named) and not any(x in a for x in absent), a


def test_a_persons_own_turns_are_no_topic(ex):  # noqa: F811
    for q in (f"What were {CY}'s words the last time they spoke?", f"What was {CY}'s first sentence?"):
        assert said_about.asks_about(q) is None, q
    # (a name is a name the memory holds for them, else what they said about it: test_query_held_forms_66.py)


def test_the_count_of_the_most_talkative_with_a_tie(ex):  # noqa: F811
    # (blind probe 616) two people tied for the most: "I can't tell who you mean", where both took 7 turns
    a = answer(ex, "How many turns did the most talkative person take in the lab?", "find=count_times by=turn").answer
    assert "Ann" in a and "technician" in a and "twice" in a, a          # Ann 2, Cy 2 in the lab
    a = answer(ex, "How many times did the most talkative person speak?", "find=count_times").answer
    assert "Ann" in a and "4 times" in a and "technician" not in a, a


def test_between_two_peoples_last_words(ex):  # noqa: F811
    # (blind probe 618) "between A's last words and B's last words" was read as their first words: "No, nobody"
    a = answer(ex, f"Did anyone talk between {BO}'s last words and {CY}'s last words?",
               f'find=yes who="{COFFEE}" other="{TECH}" pick=last to=2:00').answer
    assert a.startswith("Yes") and "Ann" in a and "02:00" not in a, a          # Bo 0:40, Ann 1:05, Cy 1:20
    a = answer(ex, f"Did anyone talk between {BO}'s first words and {CY}'s first words?",
               f'find=yes who="{COFFEE}" other="{TECH}"').answer
    assert a.startswith("Yes") and "Ann" in a, a                                # Bo 0:10, Ann 0:20, Cy 0:35


@pytest.mark.parametrize("question, start", [
    # (blind probe 618) "Yes, B spoke at 00:05 in the office": the second place was not asked
    (f"Did {BO} speak both in the kitchen and in the lab?", "No"),
    (f"Did {BO} speak both in the kitchen and in the office?", "Yes"),
    (f"Did {CY} talk in both the office and the lab?", "Yes"),
])
def test_one_person_in_both_of_two_places(ex, question, start):  # noqa: F811
    who = COFFEE if "coffee" in question else TECH
    a = answer(ex, question, f'find=yes who="{who}" place="kitchen" act=spoke').answer
    assert a.startswith(start), a


@pytest.mark.parametrize("question", ["What words were spoken at 0:20?", "At 0:20, what was being said?",
                                      "What was said at 0:21?"])
def test_a_moment_written_as_a_start(ex, question):  # noqa: F811
    # (fresh 617's what_at_time) written from=0:20: "I heard, in order after 00:20: ..." (Ann spoke 0:20-0:22)
    t = question.split("at ")[1][:4]
    a = answer(ex, question, f"find=what from={t}").answer
    assert "after" not in a and "technician" not in a.lower(), a


def test_everyone_at_least_once_in_a_place(ex):  # noqa: F811
    # (blind probe 617) "Yes, everyone I heard in the garage spoke at least once": Bo never spoke in the lab
    a = answer(ex, "Did everyone speak at least once in the lab?", 'find=yes place="lab" times>=1').answer
    assert a.startswith("No") and "coffee" in a, a
    a = answer(ex, "Did everyone speak at least once in the office?", 'find=yes place="office" times>=1').answer
    assert a.startswith("No") and "Ann" in a, a
