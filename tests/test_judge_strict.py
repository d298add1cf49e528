"""The strict offline judge (default without an LLM judge) against the lenient normalized-match one it replaces."""

import pytest

from m3_control.evaluation.judge import LLMJudge, NormalizedMatchJudge, StrictMatchJudge, Verdict, make_judge

SAY_Q = "What did the man in the grey jacket say when he came in?"
SAY_REF = "lay blue at x four now"
SHOTGUN = ('My memories have him saying "Bin red by K7 now.", "Lay blue at X4 now." and '
           '"Place green in A2 please."')
COUNT_Q = "How many people entered the room?"


@pytest.fixture
def strict() -> StrictMatchJudge:
    return StrictMatchJudge()


def test_default_offline_judge_is_strict_and_labelled():
    j = make_judge(None)
    assert isinstance(j, StrictMatchJudge)
    assert "strict-match" in j.name and "no LLM judge" in j.name
    assert isinstance(make_judge({"base_url": ""}), StrictMatchJudge)
    assert isinstance(make_judge({"base_url": "http://127.0.0.1:9/v1", "model": "m"}), LLMJudge)


def test_shotgun_of_quotes_is_wrong_single_quote_right(strict):
    v = strict.judge(SAY_Q, SAY_REF, SHOTGUN)
    assert isinstance(v, Verdict) and not v.correct
    assert v.detail.startswith("several different quotes") and "bin red k seven now" in v.detail
    v = strict.judge(SAY_Q, SAY_REF, 'He said "Lay blue at X4 now."')
    assert v.correct and v.detail == "all reference words found, nothing else asserted"
    assert strict.judge(SAY_Q, SAY_REF, "He said 'lay blue at x four now'.").correct
    assert strict.judge(SAY_Q, SAY_REF, "He said “lay blue at x four now” twice: “Lay blue at X4 now!”").correct


def test_unquoted_second_memory_asserts_other_content(strict):
    v = strict.judge(SAY_Q, SAY_REF, "He said lay blue at x four now, then bin red by k seven soon")
    assert not v.correct and v.detail.startswith("asserts other content: 'bin red k seven soon'")
    # framing words (said, man, heard, ...) and the question's own words are not new content
    v = strict.judge(SAY_Q, SAY_REF, "I heard the man in the grey jacket say lay blue at x four now when he came in.")
    assert v.correct, v.detail


def test_missing_reference_words_is_wrong(strict):
    v = strict.judge(SAY_Q, SAY_REF, 'He said "Lay blue at X5 now."')
    assert not v.correct and v.detail == "missing: four"


def test_person_described_by_what_they_said(strict):
    q = "Who said 'set white with p two again'?"
    assert strict.judge(q, "The woman in the green coat", "It was the woman in the green coat.").correct
    v = strict.judge(q, "The woman in the green coat", "The woman in the green coat, or the tall man with glasses "
                                                        "who carried a red umbrella")
    assert not v.correct and v.detail.startswith("offers alternatives: 'or tall glasses")
    v = strict.judge(q, "The woman in the green coat", "The woman in the green coat; the tall man with glasses "
                                                        "who carried a red umbrella")
    assert not v.correct and "asserts other content" in v.detail


def test_a_number_inside_the_quoted_words_of_a_person_is_no_count(strict):
    """"Who had the second highest number of turns?" asks for a person; the 'two' in the sentence they are named by
    is not a count the answer must state."""
    q, ref = "Who had the second highest number of turns in the hall?", "the person who said 'lay blue by c two again'"
    assert strict.judge(q, ref, 'The person who said "lay blue by c two again" spoke the second most (once).').correct
    assert not strict.judge(q, ref, 'The person who said "bin red at f two now" spoke the second most.').correct
    assert not strict.judge("How many times did the person who said 'lay blue by c two again' speak?", "3",
                            "They spoke twice.").correct


@pytest.mark.parametrize(("answer", "correct", "detail"), [
    ("5 people", True, "count 5 matches"),
    ("five", True, "count 5 matches"),
    ("There were 5 people, maybe 6", False, "wrong count: answer says 5, 6, reference 5"),
    ("3", False, "wrong count: answer says 3, reference 5"),
    ("Several people came in.", False, "no count in answer, reference 5"),
])
def test_counts(strict, answer, correct, detail):
    v = strict.judge(COUNT_Q, "5", answer)
    assert (v.correct, v.detail) == (correct, detail)


def test_count_forms(strict):
    assert strict.judge("How often did she knock?", "2 times", "twice").correct
    assert strict.judge("q", "2 times", "She knocked twice.").correct  # a bare count decides without the question
    assert not strict.judge("How often did she knock?", "2 times", "once, maybe twice").correct
    assert strict.judge("How many people answered?", "No one", "Nobody answered.").correct
    assert strict.judge(COUNT_Q, "15", "15 people came in").correct  # "15" is fifteen, not "one five"


@pytest.mark.parametrize(("question", "reference", "answer", "correct", "detail"), [
    ("Are the two speakers the same person?", "No", "No, they are different people.", True,
     "answer says no, as the reference"),
    ("Are the two speakers the same person?", "No", "They are not the same person.", True,
     "answer says no, as the reference"),
    ("Are the two speakers the same person?", "No", "No, it is the same person.", False,
     "answer says no but also yes"),
    ("Is the door open?", "No", "Yes", False, "answer says yes, reference no"),
    ("Is the door open?", "No", "Yes and no", False, "answer says yes, reference no"),
    ("Is the door open?", "Yes", "Yes and no", False, "answer says yes but also no"),
    ("Is the door open?", "Yes", "Yes, there is no doubt about it.", True, "answer says yes, as the reference"),
    ("Did the man speak first?", "Yes, the man spoke first", "Yes.", True, "answer says yes, as the reference"),
    ("Is the door open?", "No", "The door is open.", False, "no yes/no in answer, reference no"),
])
def test_yes_no(strict, question, reference, answer, correct, detail):
    v = strict.judge(question, reference, answer)
    assert (v.correct, v.detail) == (correct, detail)


@pytest.mark.parametrize("reference, answer, correct, detail", [
    ("1:35", "I last heard her from 01:35 to 01:37.", True, "time 01:35 matches"),
    ("at 01:35", "I last heard her at 01:37.", True, "time 01:35 matches"),
    ("1:35", "I last saw her at 01:40.", False, "answer says 01:40, reference 01:35"),
    ("1:35", "At 01:35 or at 02:10.", False, "answer also says 02:10, reference 01:35"),
    ("1:35", "Sometime between 00:00 and 02:00.", False, "answer says 00:00, 02:00, reference 01:35"),
    ("1:35", "About 95 seconds in.", False, "no time in answer, reference 01:35"),
    ("1:35", 'She said "meet at 1:35".', False, "no time in answer, reference 01:35"),
])
def test_clock_times_are_judged_as_times(strict, reference, answer, correct, detail):
    # the old rule read "1:35" as the two counts 1 and 35
    v = strict.judge("When did I last hear her?", reference, answer)
    assert (v.correct, v.detail) == (correct, detail)


def test_abstentions(strict):
    assert strict.judge(SAY_Q, SAY_REF, "").detail == "empty answer"
    assert not strict.judge("Is the door open?", "No", "I have no memory of that.").correct
    assert not strict.judge(COUNT_Q, "5", "I don't know.").correct
    v = strict.judge(SAY_Q, SAY_REF, "[extractive] No stored memory matches the question.")
    assert not v.correct and v.detail == "answer says it has no memory of this"
    assert strict.judge("What did the robot say?", "It is not mentioned; no memory of that.", "I don't know.").correct


def test_old_normalized_match_accepts_what_strict_rejects(strict):
    old = NormalizedMatchJudge()
    for q, ref, ans in [(SAY_Q, SAY_REF, SHOTGUN), (COUNT_Q, "5", "There were 5 people, maybe 6"),
                        ("Is the door open?", "No", "Yes and no")]:
        assert old.judge(q, ref, ans).correct
        assert not strict.judge(q, ref, ans).correct


def test_spoken_words_that_sound_alike_match_but_misheard_words_do_not():
    from m3_control.evaluation.judge import StrictMatchJudge

    j = StrictMatchJudge()
    q = "What did the woman say with lay blue by c?"
    assert j.judge(q, "lay blue by c two again", 'Someone said "Lay blue by C to again".').correct
    assert j.judge("What did someone say about red?", "bin red by k seven now",
                   'Someone said "Been read by K7 now".').correct
    v = j.judge("What was said about blue at f two?", "bin blue at f two now", 'Someone said "Bimblue F2 now".')
    assert not v.correct and "missing" in v.detail
    # numbers inside quoted speech and clock times are not counts
    assert j.judge("How many times did the person who said 'lay blue at x four now' speak?", "3 times",
                   'The person who said "Lay blue at X4 now" spoke 3 times.').correct
    assert j.judge("How many people were there between 0:40 and 0:55?", "4",
                   "I saw or heard 4 different people between 00:40 and 00:55.").correct
    assert not j.judge("How many people were there between 0:40 and 0:55?", "4",
                       "I saw or heard 6 different people between 00:40 and 00:55.").correct
    # a stop word asserts nothing whatever it sounds like: "for the last time" says no "four" (but "c to" is "c two")
    q = "Who was talking immediately prior to the final turn of the person who said 'set blue with e five now'?"
    ref = "the person who said 'lay blue by c two again'"
    assert j.judge(q, ref, 'The person who said "Lay blue by C to again" spoke right before the person who said "set '
                           'blue with e five now" spoke for the last time (00:11).').correct
    assert not j.judge(q, ref, 'The person who said "Lay blue by C to again" spoke right before the person who said '
                               '"set blue with e five now" and the woman in the red coat by the garden gate.').correct


def test_where_answers_may_say_when_but_not_another_place(strict):
    q = "Where did I last see the person who said 'lay blue by c two again'?"
    said = 'I last saw the person who said "Lay blue by C to again"'
    assert strict.judge(q, "in the kitchen", f"{said} in the kitchen (01:35).").correct   # the time is detail
    assert strict.judge(q, "in the kitchen", f"{said} in the lab (01:15).").detail == "missing: kitchen"


def test_a_place_answer_that_lists_other_places_is_wrong(strict):
    """Three rooms for "which room?" asserts two wrong ones: the few-extra-words allowance must not pass it."""
    q = "In which room did people talk the most?"
    v = strict.judge(q, "in the kitchen", "I was in the hallway, then the porch, then the kitchen.")
    assert not v.correct and v.detail == "names other places: hallway, porch"
    assert strict.judge(q, "in the kitchen", "People spoke most often in the kitchen (5 times).").correct
    # a place the question names is no other place; neither is a quote
    q2 = "Where was I when I left the porch?"
    assert strict.judge(q2, "in the kitchen", "I was in the kitchen after the porch.").correct
    assert strict.judge(q, "in the kitchen", 'In the kitchen, where someone said "meet me at the gate".').correct


def test_a_possessive_after_a_quote_is_not_part_of_the_quote(strict):
    q = "Who talked just before the person who said 'bin red by k seven now''s final turn?"
    a = ('The person who said "Lay blue by C to again" spoke right before the person who said "bin red by k seven '
         'now" spoke for the last time (00:51).')
    assert strict.judge(q, "the person who said 'lay blue by c two again'", a).correct
    assert not strict.judge(q, "the person who said 'set blue with e five now'", a).correct


def test_an_answer_that_offers_alternatives_is_wrong_however_short(strict):
    q = "Where did I last see the person who said 'lay blue by c two again'?"
    said = 'I last saw the person who said "Lay blue by C to again"'
    v = strict.judge(q, "in the kitchen", f"{said} in the kitchen or the lab (01:35).")
    assert not v.correct and v.detail == "offers alternatives: 'or lab'"
    assert not strict.judge(q, "in the kitchen", "Either the kitchen, or the office.").correct
    # the question's own options do not excuse a hedge; naming the right one does not either
    q2 = "Was the red folder in the kitchen or in the lab?"
    assert not strict.judge(q2, "in the kitchen", "In the kitchen or the lab.").correct
    assert strict.judge(q2, "in the kitchen", "In the kitchen.").correct
    # "or" in framing, in quoted speech and in the reference itself is not a hedge
    assert strict.judge(q, "in the kitchen", "I saw or heard the person who said it in the kitchen.").correct
    assert strict.judge("What did she say?", "red or blue", 'She said "red or blue".').correct
    assert strict.judge("What did he ask?", "tea or coffee", "He asked: tea or coffee?").correct


def test_the_question_said_in_other_words_is_no_other_content(strict):
    """"least often" answers "the fewest turns" in the question's sense; "most often" does not, and an answer with
    other content still fails."""
    q = "Which room had the fewest turns of speech?"
    assert strict.judge(q, "in the bathroom", "People spoke least often in the bathroom (6 times).").correct
    v = strict.judge(q, "in the bathroom", "People spoke most often in the bathroom (6 times).")
    assert not v.correct and "most" in v.detail
    assert not strict.judge(q, "in the bathroom", "People spoke least often in the bathroom, near the red "
                                                   "folder and blue lamp (6 times).").correct
