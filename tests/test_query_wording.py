"""Relations to someone's last turn, and frames put back in line with the question's own words (clock words, which
person a relation is anchored on, a place or a person the question does not name, "what place was I in?"), on the
hand-built meeting of tests/test_query_executor.py."""

from __future__ import annotations

import pytest

from m3_control.query import REFUSAL, parse
from m3_control.query.fidelity import check
from m3_control.query.polarity import align
from m3_control.query.routing import asks_by_rank, asks_turn_count

from .test_query_executor import COFFEE, TECH, ask, ex  # noqa: F401  (ex: the fixture)

KNOWN = ["kitchen", "office", "lab"]
# the meeting: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20, Cy 0:35 (TECH), Bo 0:40, Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25


def test_relations_to_the_last_turn_of_the_anchor(ex):  # noqa: F811
    a, res = ask(ex, f'find=who rel=right_before_last other="{COFFEE}" act=spoke')   # Bo last at 0:40: Cy 0:35
    assert [p.description for p in res.people] == ['the person who said "I will call the technician"'], a
    assert "for the last time" in a
    _, res = ask(ex, f'find=who rel=right_before other="{COFFEE}" act=spoke')        # Bo first at 0:10: Ann 0:02
    assert [p.description for p in res.people] == ["Ann"]
    _, res = ask(ex, f'find=who rel=right_after_last other="{COFFEE}" act=spoke')    # after 0:40: Ann 1:05
    assert [p.description for p in res.people] == ["Ann"]
    _, res = ask(ex, f'find=yes who="{TECH}" rel=after_last other="{COFFEE}" act=spoke')   # Cy 1:10 after 0:40
    assert res.value is True
    _, res = ask(ex, f'find=yes who="{COFFEE}" rel=after_last other="{TECH}" act=spoke')   # Bo never after 1:20
    assert res.value is False
    _, res = ask(ex, f'find=count_times who="Ann" rel=before_last other="{TECH}"')   # Ann before 1:20: 3 times
    assert res.value == 3


def test_the_first_or_last_words_are_one_turn(ex):  # noqa: F811
    _, res = ask(ex, "find=what pick=last act=spoke")
    assert res.value == ["Bye everyone"]
    _, res = ask(ex, "find=what pick=first act=spoke")
    assert res.value == ["Put the red folder on the desk"]
    _, res = ask(ex, "find=what pick=3 act=spoke")                  # the third person: all Cy said
    assert res.value == ["I will call the technician", "See you tomorrow"]


def test_clock_words_place_a_time_the_frame_left_out():
    q, added, missing = check("Who was the first person I heard once it was past 0:50?",
                              parse("find=who act=spoke times>50"), KNOWN)
    assert (q.from_, q.to, q.times, q.pick) == ("0:50", None, None, "first") and not missing, (q, added, missing)
    q, _, missing = check("Who was the most recent person to speak as of 0:50?", parse("find=who act=spoke"), KNOWN)
    assert (q.to, q.pick) == ("0:50", "last") and not missing, q
    q, _, missing = check("How many distinct speakers did I hear later than 1:00?",
                          parse("find=count_people act=spoke"), KNOWN)
    assert q.from_ == "1:00" and not missing
    q, _, missing = check("Who spoke exactly twice before 1:00?", parse("find=who times=2 act=spoke"), KNOWN)
    assert (q.to, q.times) == ("1:00", "=2") and not missing      # a real count stays
    # no word before the clock says which bound it is: the frame goes back to the model
    _, _, missing = check("Who spoke, 0:50?", parse("find=who act=spoke"), KNOWN)
    assert missing


def test_the_person_a_relation_is_anchored_on_is_the_one_after_the_relation_word():
    a, b = "set blue with e five now", "lay blue at x four now"
    q, _, missing = check(f"Once the person who said '{a}' had spoken for the last time, did the person who said "
                          f"'{b}' still say something?", parse(f'find=yes who="{a}" other="{b}" rel=after_last'),
                          KNOWN)
    assert (q.who, q.other, q.rel) == (b, a, "after_last") and not missing, q
    c, d = "bin blue at f two now", "lay blue at x four now"          # two sentences sharing half their words
    question = (f"After the person who said '{c}' spoke for the very last time, was the person who said '{d}' heard "
                f"again?")
    q, _, _ = check(question, parse(f'find=yes who="{c}" other="{d}" rel=after_last act=spoke'), KNOWN)
    assert (q.who, q.other) == (d, c), q
    q, _, _ = check(f"How many times had I heard the person who said '{b}' by the time the person who said '{a}' "
                    f"said anything?", parse(f'find=count_times who="{b}" other="{a}"'), KNOWN)
    assert (q.who, q.other, q.rel) == (b, a, "before"), q
    question = f"After the person who said '{b}' finished speaking for good, who was the next to talk?"
    q, _, _ = check(question, align(question, parse(f'find=who other="{b}" rel=after_last act=spoke')), KNOWN)
    assert q.rel == "right_after_last", q                          # "next to talk" is order, not company
    q, _, _ = check(f"Who spoke right before the person who said '{b}'?",
                    parse(f'find=who other="{b}" rel=right_before_last act=spoke'), KNOWN)
    assert q.rel == "right_before", q                              # nobody's last turn in the question
    q, _, _ = check(f"Who was the last person to speak before the person who said '{b}' spoke for the first time?",
                    parse(f'find=who other="{b}" rel=right_before_last act=spoke'), KNOWN)
    assert q.rel == "right_before", q                              # "last" picks the person here


def test_a_place_or_a_look_the_question_does_not_name_is_not_the_questions():
    b = "lay blue at x four now"
    q, added, _ = check(f"When the person who said '{b}' first spoke, what place was I in?",
                        parse(f'find=when who="{b}" pick=first place="garden" act=spoke'), KNOWN + ["garden"])
    assert (q.find, q.place) == ("where", None), (q, added)
    # a look the question never mentions is nobody it asks about: dropped with its relation, the clock is the bound
    q, added, missing = check("Before 0:46, who spoke last?",
                              parse('find=who other="the person who looked sad" rel=before act=spoke'), KNOWN)
    assert (q.other, q.rel, q.to, q.pick) == (None, None, "0:46", "last") and not missing, (q, added, missing)
    assert any("how they looked" in a for a in added)
    # the one person a question names by what they said, left out of the frame, is who=
    q, _, missing = check("Where was I when I heard 'set blue by k four again'?",
                          parse("find=where act=spoke times=0"), KNOWN)
    assert q.who == "set blue by k four again" and not missing, q


def test_counts_and_ranked_words_are_asked_of_the_records():
    assert asks_turn_count("Who talked 4 times, no more and no less?") and asks_turn_count("Who spoke exactly twice?")
    assert not asks_turn_count("Who said 'set blue with e five times'?") and not asks_turn_count("Who spoke first?")
    assert asks_by_rank("What were the last words I heard?") and asks_by_rank("What was the final thing said?")


def test_held_out_e_wordings():
    a, b = "set blue with e five now", "lay blue at x four now"
    q, _, _ = check(f"Prior to the first time the person who said '{a}' spoke, how many times did the person who said "
                    f"'{b}' speak?", parse(f'find=count_times who="{b}" other="{a}"'), KNOWN)
    assert (q.who, q.other, q.rel) == (b, a, "before"), q
    q, _, _ = check(f"Was the person who said '{b}' still talking after the person who said '{a}' had said their last "
                    f"words?", parse(f'find=yes who="{b}" other="{a}" rel=after act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel) == (b, a, "after_last"), q
    q, _, _ = check("Who spoke first after the clock showed 0:09?",
                    parse('find=who other="the clock showed 0:09" rel=after'), KNOWN)
    assert q.other == "0:09", q                                    # repair.py makes it from=0:09 when it runs
    assert asks_by_rank("What were the opening words I heard?")
    q, _, _ = check("What were the opening words I heard?", parse("find=what act=spoke"), KNOWN)
    assert q.pick == "first", q


def test_a_person_related_to_themselves_is_just_that_person():
    a = "lay blue by c two again"
    q, _, _ = check(f"When did the person who said '{a}' speak for the last time?",
                    parse(f'find=when who="{a}" other="lay blue by c two" rel=right_before_last act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel, q.pick) == (a, None, None, "last"), q


def test_the_first_one_is_a_person_not_a_count():
    q, _, _ = check("Who was the first one I heard in the kitchen?", parse("find=who act=spoke times=1"), KNOWN)
    assert (q.pick, q.times, q.place) == ("first", None, "kitchen"), q
    q, _, _ = check("Who spoke exactly one time?", parse("find=who act=spoke times=1"), KNOWN)
    assert q.times == "=1", q


def test_ranks_counts_of_people_and_places_written_as_people():
    q, _, _ = check("Counting each person once, who spoke fourth?", parse("find=who act=spoke times=4"), KNOWN)
    assert (q.pick, q.times) == ("4", None), q
    q, _, _ = check("Who spoke exactly 4 times?", parse("find=who act=spoke times=4"), KNOWN)
    assert (q.pick, q.times) == (None, "=4"), q
    q, _, _ = check("Of the people who spoke, how many spoke exactly 5 times?", parse("find=count_times times=5"),
                    KNOWN)
    assert (q.find, q.times) == ("count_people", "=5"), q
    a = "set blue with e five now"
    q, _, missing = check(f"Was the person who said '{a}' talking while I was in the office?",
                          parse(f'find=same who="{a}" other="spoke while in the office"'), KNOWN)
    assert (q.find, q.who, q.other, q.place) == ("yes", a, None, "office") and not missing, q


def test_refs_the_question_never_says_and_scene_setting_clauses():
    from m3_control.query.polarity import YES_NO_QUESTION
    from m3_control.query.routing import asks_who_spoke

    q, added, missing = check("Who had spoken most recently right before 0:57?",
                              parse('find=who other="the printer is out of paper" rel=right_before act=spoke'), KNOWN)
    assert (q.other, q.rel, q.to, q.pick) == (None, None, "0:57", "last") and not missing, (q, added, missing)
    q, _, _ = check("What did Maria say?", parse('find=what who="Maria"'), KNOWN)
    assert q.who == "Maria"
    a, b = "set blue with e five now", "lay blue at x four now"
    q, _, _ = check(f"Did the person who said '{a}' talk at all after the final time the person who said '{b}' "
                    f"spoke?", parse(f'find=yes who="{a}" other="{b}" act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel) == (a, b, "after_last"), q
    assert YES_NO_QUESTION.match("Once he had left, did she still speak?")
    assert not YES_NO_QUESTION.match("Before she spoke, how many times had he talked?")
    assert not YES_NO_QUESTION.match("Who said 'well, is it ready'?")
    assert asks_who_spoke("In the library, whose voice did I hear last?") and asks_who_spoke("Who opened the talking?")
    assert not asks_who_spoke("Who talked about the umbrella?") and not asks_who_spoke("Who put the cup away?")
    assert asks_who_spoke("Who said something last in the library?")
    # a time or a place by who spoke then or there (set M, held out: both went to a search that found nothing)
    assert asks_who_spoke("At what time did someone first talk in the bathroom?")
    assert asks_who_spoke("Which of the people I heard never spoke in the bathroom?")
    assert asks_who_spoke("Which room had the most speaking?")
    assert not asks_who_spoke("Where did someone talk about the folder?") and not asks_who_spoke("Where is the cup?")


def test_a_yes_names_the_persons_own_turn_not_the_anchor(ex):  # noqa: F811
    a, res = ask(ex, f'find=yes who="{TECH}" rel=after_last other="{COFFEE}" act=spoke')   # Bo last 0:40, Cy 1:10
    assert res.value is True and "at 01:10" in a, a


def test_a_refused_frame_written_again_runs_instead_of_asking_a_third_time(ex):  # noqa: F811
    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted

    off = "Action: [Query]\nContent: find=who act=spoke"      # leaves the question's quote out
    be = Scripted([off, off, off, off], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run(f"The person who said '{TECH}': who spoke right before them?",
                                             before_time=91.0, max_rounds=5)
    flags = [r["flags"] for r in a.trace["rounds"]]
    assert len(flags) == 2 and "query_error" in flags[0] and "refused_frame_repeated" in flags[1], flags
    assert a.answer == REFUSAL                                # not the people who spoke at all: refused
    # a frame that leaves out only a time runs as written the second time (flagged)
    off = "Action: [Query]\nContent: find=who act=spoke"
    be = Scripted([off, off, off], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("Who spoke, 0:50?", before_time=91.0, max_rounds=5)
    assert len(a.trace["rounds"]) == 2 and "refused_frame_repeated" in a.trace["rounds"][1]["flags"]
    assert a.answer != REFUSAL


def test_a_person_given_by_name_is_kept_whatever_words_the_frame_names_them_by():
    q, _, _ = check("When did Cy last speak?", parse(f'find=when who="{TECH}" pick=last'), KNOWN)
    assert q.who == TECH, q                 # the question names someone; the frame's words may be theirs


def test_a_count_before_someone_is_every_turn_before_and_the_earliest_is_the_first():
    a, b = "set blue with e five now", "lay blue by c two again"
    question = (f"How many times did the person who said '{b}' talk before the person who said '{a}' spoke for the "
                f"first time?")
    q = align(question, parse(f'find=count_times who="{b}" other="{a}" rel=right_before act=spoke'))
    assert q.rel == "before", q
    q = align("Who spoke just before the man who said 'x y z'?", parse('find=who other="x y z" rel=before'))
    assert q.rel == "right_before", q
    q, _, _ = check("What is the earliest thing I heard someone say?", parse("find=what act=spoke times=0"), KNOWN)
    assert q.pick == "first", q


def test_a_clock_is_where_the_words_around_it_put_it_and_times_the_question_never_says_go():
    q, added, missing = check("Once 1:04 had gone by, how many separate people spoke?",
                              parse("find=count_people from=1:04 to=1:04 act=spoke"), KNOWN)
    assert (q.from_, q.to) == ("1:04", None) and not missing, (q, added)
    q, added, _ = check("Once 1:27 had gone by, how many separate people spoke?",
                        parse("find=count_people from=1:27 to=1:30 act=spoke"), KNOWN)
    assert (q.from_, q.to) == ("1:27", None) and any("never says" in a for a in added), (q, added)
    q, _, _ = check("How many times did anyone speak in the office before 1:33?",
                    parse('find=count_times place="office" act=spoke times<13'), KNOWN)
    assert (q.find, q.to, q.times) == ("count_times", "1:33", None), q      # 13 is the clock's digits: turns
    q, _, _ = check(f"How many different people had spoken before the person who said '{TECH}' first spoke?",
                    parse("find=count_people from=0:00 to=0:01 act=spoke"), KNOWN)
    assert (q.from_, q.to, q.other, q.rel) == (None, None, TECH, "before"), q
    # times said in words ("the one-minute mark") may be written as clocks
    q, _, _ = check("Who spoke after the one-minute mark?", parse("find=who from=1:00"), KNOWN)
    assert q.from_ == "1:00", q


def test_one_person_after_a_relation_word_is_the_anchor():
    q, added, missing = check(f"How many different people had spoken before the person who said '{TECH}' first "
                              f"spoke?", parse(f'find=count_people who="{TECH}" other="spoke first"'), KNOWN)
    assert (q.who, q.other, q.rel) == (None, TECH, "before") and not missing, (q, added, missing)
    q, _, _ = check(f"Who was talking immediately prior to the final turn of the person who said '{COFFEE}'?",
                    parse(f'find=who who="{COFFEE}" act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel) == (None, COFFEE, "right_before_last"), q
    # the person the question is about, not relative to: unchanged
    q, _, _ = check(f"When did the person who said '{TECH}' speak after 0:30?", parse(f'find=when who="{TECH}"'),
                    KNOWN)
    assert (q.who, q.other, q.rel, q.from_) == (TECH, None, None, "0:30"), q


def test_a_yes_no_after_a_clause_that_quotes_someone_is_a_yes_no_about_any_later_turn(ex):  # noqa: F811
    from m3_control.query.polarity import YES_NO_QUESTION

    question = (f"After the final turn of the person who said '{COFFEE}', did the person who said '{TECH}' speak "
                f"again?")
    assert YES_NO_QUESTION.match(question)
    q, _, _ = check(question, parse(f'find=yes who="{COFFEE}" other="{TECH}" rel=right_after_last act=spoke'), KNOWN)
    q = align(question, q)
    assert (q.who, q.other, q.rel) == (TECH, COFFEE, "after_last"), q        # turned, and any turn after
    from m3_control.tool_loop import fit_polarity

    text, _ = ask(ex, q.compact())
    assert fit_polarity(question, text).startswith(("Yes", "No")), text     # the lead-in stays: a yes / no question


def test_between_two_people_is_the_time_between_their_first_turns(ex):  # noqa: F811
    from m3_control.query import check as answer_check
    from m3_control.query.frame import QueryError, check_shape

    question = f"Who spoke between the person who said '{COFFEE}' and the person who said '{TECH}'?"
    q, added, missing = check(question, parse(f'find=who other="{COFFEE}" rel=after act=spoke'), KNOWN)
    assert (q.other, q.until, q.rel) == (COFFEE, TECH, None) and not missing, (q, added)
    text, res = ask(ex, q.compact())                      # Bo 0:10, Ann 0:20, Cy 0:35: Ann only
    assert res.status == "ok" and [p.description for p in res.people] == ["Ann"], res.trace()
    assert "between" in text and "00:10" in text and "00:35" in text and not answer_check(text, res), text
    assert {e.start for e in res.events} >= {10.0, 35.0}                 # both anchors cite their turns
    # either order of the two people; a count; nobody between two people's first turns
    q, _, _ = check(f"How many times did someone talk between the one who said '{TECH}' and the one who said "
                    f"'{COFFEE}'?", parse(f'find=count_times who="{TECH}" other="{COFFEE}" rel=before'), KNOWN)
    assert ask(ex, q.compact())[1].value == 1, q
    _, res = ask(ex, f'find=count_times other="Put the red folder on the desk" until="{COFFEE}"')
    assert res.status == "ok" and res.value == 0
    # "between A and B, who spoke more?" chooses between the two people: no window
    q, _, _ = check(f"Between the person who said '{COFFEE}' and the person who said '{TECH}', who spoke more?",
                    parse(f'find=more who="{COFFEE}" other="{TECH}"'), KNOWN)
    assert q.until is None and q.find == "more", q
    with pytest.raises(QueryError):
        check_shape(parse(f'find=who until="{TECH}"'))


def test_the_clock_as_a_person_is_the_questions_time_and_words_said_after_the_quote_are_speech():
    from m3_control.query.fidelity import spoken_quotes
    from m3_control.query.repair import repair

    q, added, missing = check("Before the clock reached 0:36, who had spoken last?",
                              parse('find=who other="the clock" rel=before_last act=spoke'), KNOWN)
    q, _ = repair(q, KNOWN, lambda ref: False)
    assert (q.other, q.rel, q.to, q.pick) == (None, None, "0:36", "last") and not missing, (q, added)
    q, _, _ = check("Before the clock reached 0:36, who had spoken last?", parse("find=who pick=last act=spoke"), KNOWN)
    assert q.to == "0:36", q
    # "were the words 'X' said": a quote of speech (a search answer about other words is then refused, a query
    # goes first); written words stay written
    words = "lay blue in t eight soon"
    assert spoken_quotes(f"In which room were the words '{words}' said?") == [words]
    assert spoken_quotes("What did the sign reading 'EXIT 12' say?") == []


def test_by_the_time_is_order_in_time():
    a, b = "set blue with e five now", "lay blue at x four now"
    question = (f"By the time the person who said '{a}' first opened their mouth, how many times had the person who "
                f"said '{b}' talked?")
    q, _, missing = check(question, parse(f'find=count_times who="{b}" other="{a}" act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel) == (b, a, "before") and not missing, (q, missing)    # not sent back to the model


def test_a_clause_that_sets_the_time_asks_nothing_and_when_is_the_time_of_their_own_turn():
    from m3_control.query.polarity import YES_NO_QUESTION, finds_for

    q_next = f"When the person who said '{TECH}' spoke for the last time, who spoke next?"
    assert finds_for(q_next)[0] == "who"                                  # not find=when
    assert finds_for("When I was in the kitchen, how many people spoke?")[0].startswith("count")
    assert finds_for("When was I in the kitchen?") == ("when",)             # the question itself asks when
    q, _, _ = check(q_next, parse(f'find=who who="{TECH}" pick=last act=spoke'), KNOWN)
    q = align(q_next, q)
    assert (q.who, q.other, q.rel, q.pick) == (None, TECH, "right_after_last", None), q
    q, _, _ = check(q_next, parse(f'find=who other="{TECH}" rel=after act=spoke'), KNOWN)
    assert align(q_next, q).rel == "right_after_last", q                 # "next": the one turn
    q, added, missing = check(f"Where was I when the person who said '{TECH}' spoke for the last time?",
                              parse(f'find=where other="{TECH}" rel=right_before_last act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel, q.pick) == (TECH, None, None, "last") and not missing, (q, added)
    # "did A or B speak more often?" is a choice of two people, not a yes or no
    both = f"After 0:37, did the person who said '{TECH}' or the person who said '{COFFEE}' speak more often?"
    assert not YES_NO_QUESTION.match(both) and "who" in finds_for(both)
    assert YES_NO_QUESTION.match(f"Did the person who said '{TECH}' speak more than the person who said '{COFFEE}'?")


def test_after_one_person_and_before_another_is_between_them():
    q, _, missing = check(f"Who talked after the person who said '{COFFEE}' and before the person who said "
                          f"'{TECH}'?", parse(f'find=who other="{TECH}" rel=after act=spoke'), KNOWN)
    assert (q.other, q.until, q.rel) == (COFFEE, TECH, None) and not missing, q
    q, _, _ = check(f"Who talked after the person who said '{COFFEE}' and after the person who said '{TECH}'?",
                    parse(f'find=who other="{TECH}" rel=after act=spoke'), KNOWN)
    assert q.until is None, q


def test_a_clock_named_as_the_time_or_as_the_person_a_relation_is_to_is_not_left_out():
    q, _, missing = check("Who was heard first after the time 0:32?", parse("find=who pick=first act=spoke"), KNOWN)
    assert q.from_ == "0:32" and not missing, q
    _, _, missing = check("Who was heard first after the time 0:32?", parse('find=who other="0:32" rel=after'), KNOWN)
    assert not missing, missing                  # repair.py makes it the window's start; not sent back


def test_first_or_last_before_the_relation_word_picks_among_the_people_on_that_side(ex):  # noqa: F811
    """"Who was the first to speak after A first spoke?" is one person; the second "first" is A's turn (rel=)."""
    q, added, missing = check(f"Who was the first to speak after the person who said '{COFFEE}' first spoke?",
                              parse(f'find=who other="{COFFEE}" rel=after act=spoke'), KNOWN)
    assert (q.pick, q.rel, q.other) == ("first", "after", COFFEE) and not missing, (q, added)
    a, res = ask(ex, q.compact())                    # Bo first at 0:10: Ann 0:20 is next
    assert [p.description for p in res.people] == ["Ann"], a
    q, _, _ = check(f"Who was the last person I heard before the person who said '{TECH}' spoke?",
                    parse(f'find=who other="{TECH}" rel=before act=spoke'), KNOWN)
    assert q.pick == "last", q
    _, res = ask(ex, q.compact())                    # Cy first at 0:35: Ann 0:20 before it
    assert [p.description for p in res.people] == ["Ann"]
    # the relation's clause first, the pick after it (a blind wording of set m: 3 misses)
    for asked in (f"After the person who said '{COFFEE}' spoke for the first time, who spoke first?",
                  f"Once the person who said '{COFFEE}' had spoken for the first time, who was the first one to "
                  "speak after that?"):
        q, added, _ = check(asked, parse(f'find=who other="{COFFEE}" rel=after act=spoke'), KNOWN)
        assert (q.pick, q.rel, q.other) == ("first", "after", COFFEE), (asked, q, added)
    q, _, _ = check(f"After the person who said '{COFFEE}' spoke for the first time, who spoke?",
                    parse(f'find=who other="{COFFEE}" rel=after act=spoke'), KNOWN)
    assert q.pick is None, q
    # no ordinal before the relation: every person after A's first turn, as written
    q, _, _ = check(f"Who spoke after the person who said '{COFFEE}' first spoke?",
                    parse(f'find=who other="{COFFEE}" rel=after act=spoke'), KNOWN)
    assert q.pick is None, q


def test_one_person_compared_with_themselves_is_a_yes_no_about_them(ex):  # noqa: F811
    """find=same who=A other=<A's words cut short>: the question names one person."""
    short = " ".join(COFFEE.split()[:-1])
    q, added, missing = check(f"Was the person who said '{COFFEE}' talking while I was in the lab?",
                              parse(f'find=same who="{COFFEE}" other="{short}" place="lab" act=spoke'), KNOWN)
    assert (q.find, q.who, q.other, q.place) == ("yes", COFFEE, None, "lab") and not missing, (q, added)
    _, res = ask(ex, q.compact())
    assert res.value is False                       # Bo spoke in the kitchen and the office, never in the lab
    # two people the question names stay a comparison
    q, _, _ = check(f"Are the person who said '{COFFEE}' and the person who said '{TECH}' the same person?",
                    parse(f'find=same who="{COFFEE}" other="{TECH}"'), KNOWN)
    assert q.find == "same", q


def test_set_l_wordings_first_time_in_a_place_least_talk_between_count_and_a_possessive_last_turn(ex):  # noqa: F811
    """Held-out set L's misses: each a wording, checked on the meeting (Ann 0:02 kitchen, Bo 0:10, ...)."""
    q, _, missing = check("When did I first hear someone speak in the lab?",
                          parse('find=when who="spoke" place="lab" act=spoke'), KNOWN)
    assert (q.who, q.pick, q.place) == (None, "first", "lab") and not missing, q
    a, res = ask(ex, q.compact())
    assert len(res.value) == 1, a                                     # one moment, not a person's every turn
    q, _, _ = check("In which room did I hear the least talking?", parse("find=where act=spoke times=0"), KNOWN)
    assert (q.pick, q.times) == ("least", None), q
    q, _, missing = check(f"How many different people spoke between the person who said '{COFFEE}' and the person "
                          f"who said '{TECH}'?", parse("find=count_people from=00:00 to=00:00 act=spoke"), KNOWN)
    assert (q.other, q.until) == (COFFEE, TECH) and not missing, q
    q, _, _ = check(f"Who talked just before the person who said '{COFFEE}''s final turn?",
                    parse(f'find=who other="{COFFEE}" rel=right_before_last act=spoke'), KNOWN)
    assert q.rel == "right_before_last", q
    q, _, _ = check("Whose voice was the last one in the office?", parse('find=same who="voice" other="office"'),
                    KNOWN)
    assert (q.find, q.who, q.pick, q.place) == ("who", None, "last", "office"), q
    q, _, _ = check("Was anyone talking in the office?", parse('find=same who="someone" other="office"'), KNOWN)
    assert (q.find, q.place) == ("yes", "office"), q                  # a yes / no stays one
    q, _, _ = check("Who was the second person to speak in the lab?",
                    parse('find=who other="spoke first" rel=right_after act=spoke'), KNOWN)
    assert (q.other, q.rel, q.pick, q.place) == (None, None, "2", "lab"), q
    _, res = ask(ex, q.compact())                                       # the lab (clip 2): Cy 1:10 after Ann 1:05
    assert [p.description for p in res.people] == ['the person who said "I will call the technician"'], res.trace()


def test_the_counted_person_left_out_beside_the_anchor_is_who(ex):  # noqa: F811
    """Set M, held out: "How many times did A speak after B spoke for the last time?" written with B and the relation
    only was sent back twice, then refused. The question's other quote is the person counted; executed, the count
    is A's turns after B's last (Cy after Bo's last turn at 0:40: 1:10 and 1:20)."""
    question = f"How many times did the person who said '{TECH}' speak after the person who said '{COFFEE}' spoke " \
               "for the last time?"
    q, added, missing = check(question, parse(f'find=count_times other="{COFFEE}" rel=after_last act=spoke'), KNOWN)
    assert q.who == TECH and q.other == COFFEE and not missing, (q, added, missing)
    _, res = ask(ex, f'find=count_times who="{TECH}" other="{COFFEE}" rel=after_last act=spoke')
    assert res.value == 2
    # one quote only: nothing to fill in beside the anchor
    q, _, missing = check(f"How many times did anyone speak after the person who said '{COFFEE}' spoke for the last "
                          "time?", parse(f'find=count_times other="{COFFEE}" rel=after_last'), KNOWN)
    assert q.who is None and not missing


def test_who_never_spoke_in_a_place_or_window_is_everyone_heard_with_no_turn_there(ex):  # noqa: F811
    """Set M, held out: "Which of the people I heard never spoke in the bathroom?" went to a search ("no memory");
    as a query about who spoke there it would name exactly the wrong people. The people heard with no turn in the
    scope: between 0:30 and 1:00 only Cy (0:35) and Bo (0:40) spoke, so Ann is the one who never did."""
    question = "Which of the people I heard never spoke between 0:30 and 1:00?"
    q, added, _ = check(question, parse("find=who from=0:30 to=1:00"), KNOWN)
    assert q.times == "=0" and q.act == "spoke", (q, added)
    a, res = ask(ex, "find=who from=0:30 to=1:00 times=0 act=spoke")
    assert [p.description for p in res.people] == ["Ann"] and "never spoke" in a, a
    assert all(e.character_id == res.people[0].character_id and not 30 <= e.start <= 60 for e in res.events)
    # without a negation nothing changes; "who never spoke?" over all time stays the silent people's question
    q, _, _ = check("Who spoke between 0:30 and 1:00?", parse("find=who from=0:30 to=1:00"), KNOWN)
    assert q.times is None
    _, added, _ = check("Who never spoke?", parse("find=who times=0"), KNOWN)
    assert not any("never spoke there or then" in a for a in added)


def test_the_nth_person_after_a_moment_written_as_a_person(ex):  # noqa: F811
    """Set M, held out: "Who was the second person to speak after 0:52?" written other="the person who spoke at
    0:52" rel=after listed everyone after 0:52. The moment is a window and the rank still picks in it: after 0:30
    Cy (0:35), Bo (0:40), Ann (1:05) spoke, the second is Bo."""
    q, added, missing = check("Who was the second person to speak after 0:30?",
                              parse('find=who other="the person who spoke at 0:30" rel=after'), KNOWN)
    assert q.pick == "2" and q.other == "0:30" and not missing, (q, added)
    a, res = ask(ex, 'find=who other="0:30" rel=after pick=2 act=spoke')
    assert [p.description for p in res.people] == [f'the person who said "{COFFEE[0].upper()}{COFFEE[1:]}"'], a


def test_a_role_the_question_names_is_a_person_a_role_it_does_not_name_is_dropped(ex):  # noqa: F811
    """Fresh 548 (held out): "Are the person who said A and the person who spoke first the same person?" lost
    other="spoke first" (words that name nobody in particular, dropped since stop 45), and the comparison could not
    run: four frames refused, then "no memory". A role the question says is somebody; one it does not say is not.
    Ann spoke first in the meeting, Bo said COFFEE: different people."""
    question = f"Are the person who said '{COFFEE}' and the person who spoke first the same person?"
    q, added, missing = check(question, parse(f'find=same who="{COFFEE}" other="spoke first"'), KNOWN)
    assert q.other == "spoke first" and not missing, (q, added)
    a, res = ask(ex, f'find=same who="{COFFEE}" other="spoke first"')
    assert res.value is False and a.startswith("No"), a
    q, _, _ = check("Who was the second person to speak in the office?", parse('find=who other="spoke first" '
                                                                               'rel=after'), KNOWN)
    assert q.other is None and q.pick == "2"


def test_a_short_place_much_like_a_word_of_the_quote_is_still_the_place():
    """Fresh 550 (held out): "Was the person who said 'lay blue at x four now' talking while I was in the lab?"
    written other="lab" stayed a comparison of two people ("lab" is fuzzily much like "lay"), could not run, and
    ended as "no memory" after four refused frames. The place is the place unless the quote itself holds it."""
    a = "lay blue at x four now"
    q, added, _ = check(f"Was the person who said '{a}' talking while I was in the lab?",
                        parse(f'find=same who="{a}" other="lab"'), KNOWN)
    assert (q.find, q.who, q.other, q.place) == ("yes", a, None, "lab"), (q, added)
    b = "meet me in the lab"
    q, _, _ = check(f"Was the person who said '{b}' the one who spoke first?",
                    parse(f'find=same who="spoke first" other="{b}"'), KNOWN)
    assert (q.find, q.other) == ("same", b)


def test_an_apostrophe_in_a_word_opens_no_quote_and_the_anchors_first_is_its_turn(ex):  # noqa: F811
    """Set N, held out: "Number of different people I'd heard before the person who said 'X''s first turn?" -- the
    "'" of "I'd" opened a quote that ran to X's, so no relation word was found before X; the frame kept who=X
    pick=first and counted one person. Before Bo's first turn (0:10) only Ann had spoken: 1; before Cy's (0:35)
    Ann and Bo: 2."""
    question = f"Number of different people I'd heard before the person who said '{TECH}''s first turn?"
    q, added, _ = check(question, parse(f'find=count_people who="{TECH}" pick=first act=spoke'), KNOWN)
    assert (q.who, q.other, q.rel, q.pick) == (None, TECH, "before", None), (q, added)
    _, res = ask(ex, f'find=count_people other="{TECH}" rel=before act=spoke')
    assert res.value == 2
    from m3_control.query.fidelity import quotes_of
    assert quotes_of(question) == [TECH]
    assert quotes_of("Who'd said 'bin blue' when I'd left?") == ["bin blue"]


def test_novel_forms_asked_of_the_records(ex):  # noqa: F811
    """Questions written after set N, none of a probe kind's wording: "which people spoke more than five times?"
    written find=more times>5 named the most talkative person only; "who had the most turns while I was in the
    workshop?" and "when did I get to the workshop?" went to a search ("no memory")."""
    from m3_control.query.routing import asks_own_moves, asks_who_spoke

    q, added, _ = check("Which people spoke more than twice?", parse("find=more times>2"), KNOWN)
    assert q.find == "who" and q.times == ">2", (q, added)
    a, res = ask(ex, "find=who times>2 act=spoke")                 # Ann 4, Cy 3
    assert len(res.people) == 2 and "Ann" in a, a
    q, _, _ = check("Did anyone speak more than twice?", parse("find=more times>2"), KNOWN)
    assert q.find != "who"
    assert asks_who_spoke("Who had the most turns while I was in the workshop?")
    assert asks_own_moves("When did I get to the workshop?") and asks_own_moves("How long did I stay in the lab?")
    assert asks_own_moves("Where did I start out?") and asks_own_moves("Where did I end up?")  # stop 53 regression
    assert not asks_own_moves("When did Ann get to the workshop?") and not asks_own_moves("Where is the cup?")
    # "after everyone else" is the last, "before anybody else" the first (the model wrote times=0 and no pick)
    q, _, _ = check("Who spoke after everyone else?", parse("find=who act=spoke times=0"), KNOWN)
    assert (q.pick, q.times) == ("last", None)
    q, _, _ = check("Who talked before anybody else?", parse("find=who act=spoke"), KNOWN)
    assert q.pick == "first"


def test_what_came_immediately_after_is_the_next_turn():
    """"After X spoke for the last time, what was said immediately afterwards?" written rel=after_last (everything
    said after): "immediately afterwards" / "next" after the quote is the one turn right after (set m, stop 58)."""
    x = f"the person who said '{TECH}'"
    q, _, _ = check(f"After {x} spoke for the last time, what was said immediately afterwards?",
                    parse(f'find=what other="{TECH}" rel=after_last act=spoke'), KNOWN)
    assert q.rel == "right_after_last", q
    q, _, _ = check(f"After {x} spoke, who spoke next?", parse(f'find=who other="{TECH}" rel=after'), KNOWN)
    assert q.rel == "right_after", q
    q, _, _ = check(f"After {x} spoke, how many people spoke?", parse(f'find=count_people other="{TECH}" rel=after'),
                    KNOWN)
    assert q.rel == "after", q                                    # everyone after, not the next one


def test_speakers_named_only_by_rank_are_compared_as_speakers(ex):  # noqa: F811
    # a blind probe's "was the first person to speak also the last?" written who="first" other="last": the query
    # failed on the words "first" and the model's second try compared a made-up quote
    q, added, missing = check("Was the first person to speak also the last person to speak?",
                              parse('find=same who="first" other="last"'), KNOWN)
    assert (q.find, q.who, q.other) == ("same", "the first speaker", "the last speaker") and not missing, added
    a, res = ask(ex, q.compact())                     # Ann spoke first (0:02) and last (1:25)
    assert res.value is True, a
    a, res = ask(ex, q.compact(), before=83.0)        # before 1:23 the last speaker is Cy (1:20)
    assert res.value is False, a
    q, added, _ = check("Did the first speaker talk more than the last one?",
                        parse('find=more who="first" other="last one"'), KNOWN)
    assert (q.who, q.other) == ("the first speaker", "the last speaker"), added


@pytest.mark.parametrize("question, frame, fields, people", [
    ("How many people spoke after the first minute?", "find=count_people from=0:01", ("1:00", None), 2),
    ("Who spoke in the first 30 seconds?", "find=who", (None, "0:30"), 2),        # Ann, Bo
    ("Who talked during the first half minute?", "find=who from=0:00 to=0:01", (None, "0:30"), 2),
    ("Who spoke before the end of the first minute?", "find=who to=0:01", (None, "1:00"), 3),  # (Dee, seen: no)
])
def test_a_span_from_the_start_of_the_recording_is_a_window(ex, question, frame, fields, people):  # noqa: F811
    q, added, missing = check(question, parse(frame), KNOWN)
    assert (q.from_, q.to) == fields and q.at is None and not missing, (q.compact(), added)
    a, res = ask(ex, q.compact())
    n = res.value if q.find == "count_people" else len(res.people)
    assert n == people, (a, q.compact())


def test_on_camera_at_the_same_time_is_company_not_a_shared_place():
    q, added, _ = check(f"Were the person who said '{COFFEE}' and the person who said '{TECH}' ever on camera at "
                        "the same time?", parse(f'find=yes who="{COFFEE}" other="{TECH}" rel=same_place'), KNOWN)
    assert (q.find, q.rel) == ("yes", "with"), added
    q, added, _ = check(f"Did the person who said '{COFFEE}' and the person who said '{TECH}' ever speak in the "
                        "same room?", parse(f'find=yes who="{COFFEE}" other="{TECH}" rel=same_place'), KNOWN)
    assert q.rel == "same_place", added


def test_the_persons_own_last_time_leaves_no_complaint_about_order():
    # a blind probe's frame: the relation is dropped for their own last turn, and with it the complaint about it
    q, added, missing = check(f"What did the person who said '{COFFEE}' say the last time they spoke?",
                              parse(f'find=what other="{COFFEE}" rel=right_before_last act=spoke'), KNOWN)
    assert (q.who, q.pick, q.rel) == (COFFEE, "last", None) and not missing, (added, missing)


def test_a_yes_or_no_about_a_number_of_times_says_the_number(ex):  # noqa: F811
    a, res = ask(ex, 'find=yes place="kitchen" act=spoke times>2')      # Ann twice, Bo once in the kitchen
    assert res.value is False and a == "No, nobody spoke more than twice in the kitchen.", a
    a, res = ask(ex, "find=yes act=spoke times=2")                         # Bo
    assert res.value is True and "spoke exactly twice" in a, a
