"""The compositional query language on hand-built records (tests/people_helpers.py's meeting, written through the
production turn-recording path, with the robot's poses): every operator, the honest outcomes (nobody, two
people, an unknown place, a time after the question), the answer built from the result, and the check that
refuses an answer stating what the result does not hold."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from m3_control.query import QueryError, QueryExecutor, answer_query, check, parse, phrase
from m3_control.query.frame import check_shape, gbnf_rules, json_schema
from m3_control.query.polarity import align, fit
from m3_memory.poses import Place, Pose
from m3_memory.store.where import save_places

from .people_helpers import meeting_store

ROOMS = {0: (0.0, 0.0), 1: (8.0, 0.0), 2: (8.0, 6.0)}   # clip 0 kitchen, clip 1 office, clip 2 lab


def _poses(clip: int) -> list[Pose]:
    x, y = ROOMS[clip]
    return [Pose(30.0 * clip + 0.5 * i, x, y, 0.0, 0.0, "map") for i in range(61)]


@contextmanager
def meeting(db_at, poses=_poses) -> Iterator[QueryExecutor]:  # noqa: ANN001
    """The meeting's executor, the robot's track given by ``poses(clip)``, its three places saved."""
    store, _ = meeting_store(db_at("m.db"), poses)
    save_places(store, [Place("kitchen", 0, 0, 2.0, ""), Place("office", 8, 0, 2.0, ""), Place("lab", 8, 6, 2.0, "")])
    try:
        yield QueryExecutor(store)
    finally:
        store.close()


@pytest.fixture
def ex(db_at):
    with meeting(db_at) as executor:
        yield executor


def ask(ex: QueryExecutor, text: str, before: float | None = 91.0) -> tuple[str, object]:
    return answer_query(ex, text, before)


COFFEE, TECH = "the coffee machine is broken", "I will call the technician"


@pytest.mark.parametrize("text, value", [
    ("find=count_people", 4),                                    # Ann, Bo, Cy, Dee (seen only)
    ("find=count_people act=spoke", 3),
    ("find=count_people act=seen times=0", 1),                   # Dee
    ("find=count_people times=2", 1),                            # Bo
    ("find=count_people times>2", 2),                            # Ann 4, Cy 3
    ("find=count_people from=0:30 to=0:45", 2),                  # Cy 35 s, Bo 40 s
    ('find=count_people place="lab"', 2),                        # Ann, Cy in clip 2
    ("find=count_times", 9),
    (f'find=count_times who="{TECH}"', 3),
    ('find=count_times place="kitchen"', 3),
    ('find=count_times who="Ann" place="lab"', 2),
    ("find=count_times from=1:00", 4),
])
def test_counts(ex, text, value):
    answer, res = ask(ex, text)
    assert res.status == "ok" and res.value == value, (answer, res.trace())
    assert str(value) in answer or {1: "once", 2: "twice"}.get(value, "-") in answer or "1 different" in answer


def test_relations_pick_the_other_persons_turn_next_to_the_first_turn_of_the_anchor(ex):
    a, res = ask(ex, f'find=who rel=right_before other="{TECH}"')      # Cy first speaks at 35 s; before: Ann 20 s
    assert [p.description for p in res.people] == ["Ann"] and a.startswith("Ann spoke right before")
    a, res = ask(ex, f'find=what rel=right_after other="{COFFEE}"')     # Bo first at 10 s; next other: Ann 20 s
    assert res.value == ["Put the red folder on the desk"] and '"Put the red folder on the desk"' in a
    a, res = ask(ex, 'find=who rel=right_before other="Ann"')          # Ann spoke first: nobody before her
    assert res.people == [] and "don't remember" in a
    _, res = ask(ex, f'find=yes who="Ann" rel=before other="{COFFEE}"')
    assert res.value is True
    _, res = ask(ex, f'find=yes who="{TECH}" rel=before other="{COFFEE}"')
    assert res.value is False


def test_picks_order_people_by_their_first_turn_and_count_ties_honestly(ex):
    _, res = ask(ex, "find=who pick=2 act=spoke")
    assert res.people[0].description.endswith('"The coffee machine is broken"')
    a, res = ask(ex, "find=what pick=3 act=spoke")
    assert res.value == ["I will call the technician", "See you tomorrow"]       # Cy said both
    _, res = ask(ex, "find=who pick=last act=spoke")
    assert [p.description for p in res.people] == ["Ann"]
    _, res = ask(ex, "find=who pick=most")
    assert [p.description for p in res.people] == ["Ann"]
    a, res = ask(ex, "find=who pick=most from=0:30 to=0:45")                 # Cy 1, Bo 1: a tie, both named
    assert len(res.people) == 2 and "equally" in a
    a, res = ask(ex, 'find=when who="Ann" pick=first')
    assert res.value == [2.0] and "00:02" in a
    a, res = ask(ex, "find=who times=1")                                       # nobody spoke exactly once
    assert res.people == [] and a.startswith("Nobody spoke exactly once")


def test_places_and_times(ex):
    a, res = ask(ex, "find=where at=1:10")
    assert res.value == ["lab"] and "lab" in a
    a, res = ask(ex, f'find=where who="{TECH}"')
    assert res.value == ["office", "lab"]
    _, res = ask(ex, 'find=where who="Ann" pick=first')
    assert res.value == ["kitchen"]
    a, res = ask(ex, "find=who at=0:41")
    assert len(res.people) == 1 and "coffee" in a.lower()
    _, res = ask(ex, f'find=yes who="{COFFEE}" place="lab"')
    assert res.value is False


def test_the_place_where_people_spoke_most_or_least(ex):
    """"In which room did people talk the most?": most / least of the places (counted as count_times counts each
    place), not the places of the most talkative person nor every place the robot went."""
    per_place = {pl: ask(ex, f'find=count_times place="{pl}"')[1].value for pl in ("kitchen", "office", "lab")}
    for pick, best in (("most", max), ("least", min)):
        a, res = ask(ex, f"find=where pick={pick} act=spoke")
        want = [pl for pl, n in per_place.items() if n == best(per_place.values())]
        assert res.status == "ok" and sorted(res.value) == sorted(want), (per_place, res.trace())
        assert all(pl in a for pl in want) and not [pl for pl in per_place if pl not in want and pl in a], a
        assert str(best(per_place.values())) in a or "once" in a or "twice" in a, a
        assert not check(a, res), check(a, res)
    a, res = ask(ex, "find=where pick=most act=spoke from=1:00")   # narrowed like any scope: the lab only
    assert res.value == ["lab"] and "lab" in a, (a, res.trace())
    assert check(re.sub(r"\((?:\d+ times|once|twice)\)", "(7 times)", a), res)   # a count the result lacks


def test_honest_outcomes_never_answer_about_someone_else(ex):
    a, res = ask(ex, 'find=count_times who="lay red with p nine again"')
    assert res.status == "unknown_person" and "don't remember anyone saying" in a
    a, res = ask(ex, 'find=yes who="lay red with p nine again"')
    assert a.startswith("No, I never heard anyone say")
    a, res = ask(ex, 'find=what who="Maria"')
    assert res.status == "unknown_person" and a == "I don't know anyone called Maria."
    a, res = ask(ex, 'find=who place="garage"')
    assert res.status == "unknown_place" and "garage" in a
    a, res = ask(ex, "find=where at=5:00")
    assert res.status == "future_time" and "no memory" in a
    a, res = ask(ex, "find=count_people from=0:10", before=5.0)               # the question is asked at 0:05
    assert res.status == "future_time"


def test_two_people_who_said_the_same_words_are_ambiguous(db_at):
    script = [(0, "ann", 2.0, 4.0, "See you tomorrow."), (0, "bo", 10.0, 12.0, "See you tomorrow."),
              (1, "bo", 40.0, 42.0, "The coffee machine is broken.")]
    store, _ = meeting_store(db_at("a.db"), script=script, silent=[])
    try:
        ex = QueryExecutor(store)
        a, res = answer_query(ex, 'find=count_times who="see you tomorrow"', 91.0)
        assert res.status == "ambiguous_person" and len(res.who["who"].candidates) == 2
        assert a.startswith("I can't tell who you mean") and "coffee" in a.lower()   # both people named
        _, res = answer_query(ex, 'find=count_times who="the coffee machine is broken"', 91.0)
        assert res.status == "ok" and res.value == 2
    finally:
        store.close()


def test_the_check_refuses_facts_the_result_does_not_hold(ex):
    a, res = ask(ex, f'find=count_times who="{TECH}"')
    assert check(a, res) == []
    assert check(a.replace("3 times", "5 times"), res)                  # a count the result lacks
    assert check(a + ' They said "open the window".', res)               # a quote nobody said
    assert check(a + " (at 01:59)", res)                                 # a time of no event in the result
    res.value = 7                                                       # a phrasing bug shows up as a refusal
    assert check(phrase(res), res) == [] and "7" in phrase(res)


def test_frame_parsing_validation_and_schema():
    q = parse('find=who rel=right_before other="x y z" times>=2 from=0:10 to=1:00 act=spoke')
    assert q.rel == "right_before" and q.times == ">=2" and q.from_ == "0:10"
    assert parse(q.compact()) == q
    assert parse(json.dumps(q.as_dict())) == q
    for bad in ("find=why", "find=who pick=zeroth", "find=who from=noon", "who=x", "find=who bogus=1",
                "find=who times=two"):
        with pytest.raises(QueryError):
            parse(bad)
    for bad in ('find=same who="a"', "find=who rel=before", "find=who at=1:00 from=0:10"):
        with pytest.raises(QueryError):
            check_shape(parse(bad))
    schema = json_schema()
    assert schema["required"] == ["find"] and set(schema["properties"]) >= {"find", "who", "rel", "times", "place"}
    rules = gbnf_rules()
    assert rules.startswith("query ::=") and '"find="' in rules


def test_polarity_follows_the_question_words():
    q = align("Did the man who said 'x' speak after the woman who said 'y'?",
              parse('find=yes who="x" rel=before other="y"'))
    assert q.rel == "after"
    q = align("Who spoke less often, A or B?", parse('find=more who="a" other="b"'))
    assert q.find == "less"
    same = parse('find=same who="a" other="b"')
    assert fit("Are they different people?", same, "No, they are two different people.").startswith("Yes")
    assert fit("Are they the same person?", same, "No, they are two different people.").startswith("No")


def test_people_by_role_and_the_robots_own_track(ex):
    _, res = ask(ex, 'find=same who="Ann" other="spoke first"')
    assert res.value is True
    _, res = ask(ex, f'find=same who="{TECH}" other="the one who talked the most"')
    assert res.value is False
    _, res = ask(ex, 'find=what who="the second speaker"')
    assert res.value == ["The coffee machine is broken"]
    _, res = ask(ex, 'find=count_times who="the person who first said put the red folder"')   # words, not a role
    assert res.status == "ok" and res.value == 4
    a, res = ask(ex, "find=count_places")
    assert res.value == 3 and "3 different places: the kitchen, the office and the lab" in a, a
    a, res = ask(ex, 'find=count_places act=spoke who="Ann"')          # Ann: kitchen and lab
    assert res.value == 2 and "the kitchen and the lab" in a and "office" not in a, a
    a, res = ask(ex, "find=where pick=first")
    assert res.value == ["kitchen"] and "kitchen" in a and "lab" not in a
    a, res = ask(ex, "find=where pick=last")
    assert res.value == ["lab"]
    _, res = ask(ex, "find=count_places from=0:00 to=0:50")
    assert res.value == 2


def test_values_written_into_the_wrong_field_are_moved(ex):
    a, res = ask(ex, 'find=who other="the one-minute mark" rel=right_after act=spoke')
    assert res.query.from_ == "1:00" and res.query.other is None and [p.description for p in res.people] == ["Ann"]
    assert any(s["step"] == "repair" for s in res.steps)
    _, res = ask(ex, 'find=count_people who="the lab"')
    assert res.query.place == "lab" and res.value == 2


@pytest.mark.parametrize("quote, heard, same", [
    ("bin blue at f two now", "Bimblue F2 now.", True),          # tiny.en's mis-hearing of a GRID sentence
    ("bin blue at f two now", "Bimbloo F2 now.", True),          # ... another machine's: alike only in sound
    ("put the red folder on the desk", "Put the bread folder on the desk.", True),
    ("bin blue at f two now", "Lay blue at X4 now.", False),     # sounds alike in part, other words
    ("bin red by k seven now", "Bimbloo F2 now.", False),
    ("bin red by k seven now", "Been read by K7 now.", True),     # homophones and digits
    ("lay blue by c two again", "Lay blue by C to again.", True),
    ("put the red folder", "Put the red folder on the desk.", True),   # part of what was said
    ("lay blue by m five again", "Lay blue by C to again.", False),    # same frame, other words
    ("lay white by s zero again", "Lay blue by C to again.", False),
    ("lay red with p nine again", "lay white by s zero again", False),
    ("set white in z three now", "Set blue with E5 now.", False),
    # scene 574: "b five" paired with "five" (the "b" swallowed) and "white in" with "with" made it 0.85
    ("set white in b five now", "Set blue with E5 now.", False),
    ("bin blue at f two now", "Big blue F2 now.", True),          # the demo's robot view: "at" dropped, "bin" -> "big"
])
def test_quotes_match_what_was_said_not_sentences_built_alike(quote, heard, same):
    from m3_control.query.people import MIN_MATCH
    from m3_control.query.quotes import quote_score

    assert (quote_score(quote, heard) >= MIN_MATCH) == same, quote_score(quote, heard)


def test_misplaced_values_more_cases(ex):
    _, res = ask(ex, 'find=count_people place="any"')                  # no place at all
    assert res.query.place is None and res.value == 4
    _, res = ask(ex, 'find=count_times place="kit"')                   # the one known place it starts
    assert res.query.place == "kitchen" and res.value == 3
    _, res = ask(ex, f'find=more who="{TECH}" times=2')                # "more than twice": a count, not a pair
    assert res.query.find == "yes" and res.query.times == ">2" and res.value is True
    _, res = ask(ex, 'find=yes other="Ann" place="lab"')                 # other without rel: the person asked about
    assert res.query.who == "Ann" and res.value is True


def test_just_before_is_the_one_turn_next_to_it():
    q = align("Who was speaking just before the man who said 'x'?", parse('find=who other="x" rel=before'))
    assert q.rel == "right_before"
    q = align("Who spoke before the man who said 'x'?", parse('find=who other="x" rel=before'))
    assert q.rel == "before"


def test_the_frame_is_checked_against_the_question():
    from m3_control.query.fidelity import check as against

    known = ["kitchen", "living room"]
    q, added, missing = against("Who spoke in the porch?", parse("find=who act=spoke"), known)
    assert q.place == "porch" and added and not missing              # the executor then says it knows no porch
    q, _, _ = against("How many times did anyone talk while I was in the living room?",
                      parse("find=count_times act=spoke"), known)
    assert q.place == "living room"
    q, added, _ = against("Where was I at the beginning?", parse("find=where pick=first"), known)
    assert q.place is None and not added
    # the one quote a relation word comes before is the turn the question is relative to
    q, _, missing = against("Who spoke right before the person who said 'lay blue at x four now'?",
                            parse("find=who act=spoke"), known)
    assert (q.who, q.other, q.rel) == (None, "lay blue at x four now", "right_before") and not missing, q
    _, _, missing = against("Who did the person who said 'lay blue at x four now' speak right after?",
                            parse("find=who pick=first act=spoke"), known)
    assert missing and "lay blue at x four now" in missing[0]
    _, _, missing = against("Who spoke right before the person who said 'lay blue at x four now'?",
                            parse('find=who other="lay blue at x four now" rel=right_before'), known)
    assert not missing
    q, _, missing = against("How many people were there between 0:40 and 0:55?", parse("find=count_people from=0:40"),
                            known)
    assert (q.from_, q.to) == ("0:40", "0:55") and not missing       # "between X and Y": Y is the end


def test_loop_sends_a_frame_that_left_out_the_question_back_and_starts_yes_no_questions_with_a_query(ex):
    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted, root_actions

    q = f"The person who said '{TECH}': who spoke right before them?"
    be = Scripted(["Action: [Query]\nContent: find=who act=spoke",
                   f'Action: [Query]\nContent: find=who other="{TECH}" rel=right_before'], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run(q, before_time=91.0, max_rounds=4)
    assert a.answer.startswith("Ann spoke right before"), a.trace["rounds"]
    assert "query_error" in a.trace["rounds"][0]["flags"] and "leaves out" in a.trace["rounds"][0]["result"]["error"]
    assert "Search" not in root_actions(be.grammars[1])            # the retry writes the frame again
    assert a.trace["provenance"] and all("turn_id" in p for p in a.trace["provenance"])
    be = Scripted(['Action: [Query]\nContent: find=yes who="lay red with p nine again"'], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("Did anyone say 'lay red with p nine again'?", before_time=91.0)
    assert root_actions(be.grammars[0]) == {"Query"}
    assert '"find=" ("yes" | "same" | "more" | "less")' in be.grammars[0]   # a yes/no question gets a yes or no
    assert a.answer.startswith("No, I never heard anyone say")


def test_a_count_the_question_does_not_give_is_dropped_and_most_or_least_is_kept():
    from m3_control.query.fidelity import check as against

    q, added, _ = against("Who did I hear most often while I was in the porch?", parse("find=who act=spoke times=2"),
                          ["porch"])
    assert (q.times, q.pick, q.place) == (None, "most", "porch") and any("dropped" in a for a in added)
    q, _, _ = against("Who spoke more times than anyone else?", parse("find=who pick=most times>1"), [])
    assert (q.times, q.pick) == (None, "most")
    q, _, _ = against("Who spoke the fewest times?", parse("find=who act=spoke"), [])
    assert q.pick == "least"
    q, _, _ = against("Who was speaking at 0:02?", parse("find=who at=0:02 times=2"), [])   # a clock is no count
    assert q.times is None and q.pick is None
    for question, frame, times in [("Who spoke exactly twice?", "find=who act=spoke times=2", "=2"),
                                   ("Who has spoken only once?", "find=who times=1", "=1"),
                                   ("How many people spoke at most 3 times?", "find=count_people times<=3", "<=3")]:
        q, _, _ = against(question, parse(frame), [])
        assert q.times == times and q.pick is None, question      # "at most 3 times" is a count, not a pick
    q = align("Who was the next person to speak after the person who said 'x' spoke for the first time?",
              parse('find=who other="x" rel=after'))
    assert q.rel == "right_after"
    q = align("Who was the previous speaker before the person who said 'x'?", parse('find=who other="x" rel=before'))
    assert q.rel == "right_before"


def test_a_place_written_as_the_other_person_is_the_place():
    from m3_control.query.fidelity import check as against

    question = "Was the person who said 'lay blue by c two again' talking while I was in the hallway?"
    for other in ("in the hallway", "the hallway", "hallway", "while I was in the hallway", "spoke in the hallway"):
        q, added, _ = against(question, parse(f'find=yes who="lay blue by c two again" other="{other}" act=spoke'),
                              ["hallway", "porch"])
        assert (q.other, q.rel, q.place) == (None, None, "hallway"), (other, q)
    # a person whose words end like a place name stays a person
    q, _, _ = against("Did the person who said 'meet me at the hallway door' speak while I was in the hallway?",
                      parse('find=yes who="meet me at the hallway door" other="get out of the hallway"'),
                      ["hallway"])
    assert q.other == "get out of the hallway"
    q, _, _ = against("Did the person who said 'lay blue' speak after the person who said 'talking in the hallway'?",
                      parse('find=yes who="lay blue" other="talking in the hallway" rel=after'), ["hallway"])
    assert q.other == "talking in the hallway"      # a quote the question holds is a person, not the place
    q, _, _ = against("Was the person who said 'lay blue by c two again' talking while I was in the lab?",
                      parse('find=yes who="lay blue by c two again" other="lab" act=spoke'), ["lab", "porch"])
    assert (q.other, q.place) == (None, "lab")      # "lab" sounds a little like "lay blue": still the place


def test_an_act_the_question_contradicts_is_the_questions():
    from m3_control.query.fidelity import check as against

    q, added, _ = against("Where did I see the person who said 'bin red by k seven now' for the last time?",
                          parse('find=where who="bin red by k seven now" pick=last act=spoke'), [])
    assert q.act == "seen" and any("asks about seeing" in a for a in added)
    q, _, _ = against("Where did I last hear the person who said 'x y'?", parse('find=where who="x y" act=seen'), [])
    assert q.act == "spoke"
    q, _, _ = against("Where did I first meet the person who said 'x y'?", parse('find=where who="x y" act=spoke'),
                      [])
    assert q.act is None                       # meeting: seen or heard, whichever came first (unchanged)


def test_first_and_last_of_the_question_are_kept():
    from m3_control.query.fidelity import check as against

    q, added, _ = against("When did the person who said 'x y' last speak?", parse('find=when who="x y"'), [])
    assert q.pick == "last" and added
    q, _, _ = against("Who spoke in the first minute?", parse("find=who from=0:00 to=1:00"), [])
    assert q.pick is None
    q, _, _ = against("Who spoke right before the person who said 'x y' first spoke?",
                      parse('find=who other="x y" rel=right_before'), [])
    assert q.pick is None


def test_the_form_of_the_question_narrows_what_a_frame_may_ask_for():
    from m3_control.query.frame import FIND
    from m3_control.query.polarity import finds_for

    assert finds_for("Did anyone say 'x'?") == ("yes", "same", "more", "less")
    assert finds_for("How many people spoke exactly twice?") == ("count_people",)
    assert finds_for("How many times did Ada Lovelace speak?") == ("count_times",) == finds_for("How often did she?")
    assert finds_for("How many different rooms did I visit?") == ("count_places",)
    assert finds_for("How many did I see?") == ("count_people", "count_times", "count_places")
    assert finds_for("Who spoke exactly three times?") == ("who", "what", "more", "less", "same")
    assert finds_for("Where was I at 1:10?") == ("where",) and finds_for("At what time did she leave?") == ("when",)
    assert finds_for("Which person did I hear just once?") == ("who", "what", "more", "less", "same")
    assert finds_for("Tell me who spoke first.") == tuple(f for f in FIND if f not in ("how_long", "gap"))  # no span


def test_an_order_the_question_does_not_ask_about_is_not_in_the_frame():
    from m3_control.query.fidelity import check as against

    q, added, missing = against("Between the person who said 'a b c' and the person who said 'd e f', who spoke more?",
                                parse('find=who other="d e f" rel=right_after act=spoke'), [])
    assert (q.find, q.who, q.other, q.rel) == ("more", "a b c", "d e f", None) and not missing and added
    q, _, _ = against("Which of the two did I hear less often, the person who said 'a b c' or the one who said "
                      "'d e f'?",
                      parse('find=who other="a b c" rel=before'), [])
    assert (q.find, q.rel) == ("less", None)
    _, _, missing = against("Who said 'a b c'?", parse('find=who other="a b c" rel=right_after'), [])
    assert any("order" in m for m in missing)
    q, _, missing = against("Who spoke right after the person who said 'a b c'?",
                            parse('find=who other="a b c" rel=right_after'), [])
    assert q.rel == "right_after" and not missing


def test_one_sentence_heard_twice_is_said_once():
    from m3_control.query.execute import same_sentence

    assert same_sentence("Bimblue F2 now", "Bimbloo F2 now")
    assert same_sentence("lay blue by C to again", "Lay blue by c two again")
    assert not same_sentence("lay blue at x four now", "lay blue by c two again")
    assert not same_sentence("Set blue", "Set blue with E5 now") and not same_sentence("see you", "see you tomorrow")


def test_an_answer_that_only_echoes_the_question_s_quote_goes_back_as_a_query(ex):
    import re

    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted, root_actions

    class PicksFirstShown(Scripted):
        def complete(self, messages, grammar=None):
            reply = super().complete(messages, grammar)
            if reply == "PICK":   # the memory shown first: the quoted words themselves
                first = re.search(r"\[(\d+)\]", messages[-1]["content"]).group(1)
                reply = f"Action: [Answer]\nContent: [{first}]"
            return reply

    q = f"Who spoke right before the person who said '{TECH}'?"
    be = PicksFirstShown([f"Action: [Search]\nContent: {TECH}", "PICK",
                          f'Action: [Query]\nContent: find=who other="{TECH}" rel=right_before'], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run(q, before_time=91.0, max_rounds=3)
    # quoted words and an order in time: the first round may only query (a search ranks by meaning, not time) ...
    assert root_actions(be.grammars[0]) == {"Query"}
    # ... and a model without a grammar that searches anyway and picks the quote itself is sent back
    assert "echo_refused" in a.trace["rounds"][1]["flags"], a.trace["rounds"]
    assert a.answer.startswith("Ann spoke right before"), a.answer     # Ann's "put the red folder", not Cy's words
    assert root_actions(be.grammars[2]) == {"Query"}   # the last round may still query
    # a picked memory that is not the quote is an answer
    be = PicksFirstShown(["Action: [Search]\nContent: red folder", "PICK"], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run(f"What did someone say about the red folder before '{TECH}'?",
                                            before_time=91.0, max_rounds=3)
    assert "echo_refused" not in a.trace["rounds"][1]["flags"] and "folder" in a.answer, a.answer


def test_never_and_silent_keep_a_zero_count_and_what_questions_ask_for_words():
    from m3_control.query.fidelity import check as against
    from m3_control.query.polarity import finds_for

    for question in ("How many people did I see who never spoke?", "How many people stayed silent the whole time?",
                     "How many of the people I saw never said anything?"):
        q, _, _ = against(question, parse("find=count_people act=seen times=0"), [])
        assert q.times == "=0", question
    q, _, _ = against("How many people did I see?", parse("find=count_people act=seen times=0"), [])
    assert q.times is None
    assert finds_for("What did the fifth person to speak say?") == ("what",) == finds_for("What was said at 1:14?")
    assert finds_for("What time did she leave?") == ("when",)
    assert finds_for("Which room was I in at 0:10?") == ("where",)
    assert finds_for("What did I see on the table?") != ("what",)      # not about words: every find stays open


def test_hearing_or_seeing_in_the_question_picks_the_events():
    from m3_control.query.fidelity import act_of_question

    assert act_of_question("Did I hear the person who said 'a b' in the hallway?") == "spoke"
    assert act_of_question("Did I see the person who said 'a b' in the hallway?") == "seen"
    assert act_of_question("How many people did I see who never spoke?") is None        # both
    assert act_of_question("Where did I meet the person who said 'I saw it'?") is None   # neither (quote asks nothing)
    assert act_of_question("How many people appeared but stayed silent?") == "seen"


def test_a_person_only_seen_is_not_said_to_have_spoken(ex):
    text, res = answer_query(ex, 'find=yes who="put the red folder on the desk" act=seen', 91.0)
    assert text.startswith("Yes") and "was seen" in text and "spoke" not in text, text
    assert res.events[0].kind == "face"
    text, _ = answer_query(ex, 'find=yes who="put the red folder on the desk" act=spoke', 91.0)
    assert text.startswith("Yes") and "spoke" in text, text


def test_a_person_written_from_part_of_the_question_s_time_is_that_time(ex):
    from m3_control.query.fidelity import check as against

    q, added, _ = against("Who was the first to speak after the one-minute mark?",
                          parse('find=who other="the minute mark" rel=right_after act=spoke'), [])
    assert q.other == "the one-minute mark" and added
    text, res = answer_query(ex, q.compact(), 91.0)
    assert res.status == "ok" and text.startswith("Ann"), text      # Ann at 65 s is the first turn after 1:00
    q, _, _ = against("Who was the first to speak after the one-minute mark?",       # after a moment: a window
                      parse('find=who other="the one-minute mark" rel=after act=spoke'), [])
    assert q.pick == "first"
    text, res = answer_query(ex, q.compact(), 91.0)
    assert res.status == "ok" and text.startswith("Ann") and " and " not in text, text
    q, _, _ = against("Who spoke last before the two-minute mark?", parse('find=who other="2:00" rel=before'), [])
    assert q.pick == "last"
    q, _, _ = against("Who spoke after the person who said 'see you in a minute'?",
                      parse('find=who other="see you in a minute" rel=after'), [])
    assert q.other == "see you in a minute"                         # a quote stays a person


def test_no_memory_of_a_quote_or_a_clock_time_is_rechecked_with_a_query(ex):
    from m3_control.prompt_tools import NO_MEMORY
    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted, root_actions

    no = f"Action: [Answer]\nContent: {NO_MEMORY}"
    be = Scripted(["Action: [Search]\nContent: 1:05", no, "Action: [Query]\nContent: find=what at=1:05"],
                  grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("What was said at 1:05?", before_time=91.0, max_rounds=3)
    assert "no_memory_rechecked" in a.trace["rounds"][1]["flags"] and "Thanks for the help" in a.answer, a.answer
    assert root_actions(be.grammars[2]) == {"Query"}
    # a recheck that asks about another time than the question's does not replace the answer: no memory stands
    # (its times are dropped as never said; where the question's words do not place 1:05, it is left out)
    be = Scripted(["Action: [Search]\nContent: 1:05", no, "Action: [Query]\nContent: find=what from=0:10 to=0:20"],
                  grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("What did I hear, 1:05?", before_time=91.0, max_rounds=3)
    assert a.answer == NO_MEMORY and "recheck_off_question" in a.trace["rounds"][2]["flags"]
    # a content question without quotes or times: no memory is the answer
    be = Scripted(["Action: [Search]\nContent: umbrella", no], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("What did someone say about the umbrella?", before_time=91.0, max_rounds=3)
    assert a.answer == NO_MEMORY and len(be.grammars) == 2


def test_how_long_a_person_talked_and_the_robot_stayed(ex):
    from m3_control.query.polarity import finds_for

    # a span: how long something lasted, or the time between two moments (tests/test_query_spans.py)
    assert finds_for("How long was I in the office?") == ("how_long", "gap") == finds_for("For how long did Ann talk?")
    text, res = answer_query(ex, 'find=how_long who="Ann" act=spoke', 91.0)
    assert res.value == 8 and text == "Ann spoke for 8 seconds in all.", text      # four turns of 2 s
    text, res = answer_query(ex, 'find=how_long place="office"', 91.0)
    assert 29 <= res.value <= 30 and text.startswith(f"I was in the office for {res.value} seconds"), text   # clip 1
    text, res = answer_query(ex, 'find=how_long place="office" from=0:40', 91.0)
    assert 19 <= res.value <= 20, text
    assert not check(text, res)                  # the answer states only what the result holds
    text, res = answer_query(ex, 'find=how_long place="garage"', 91.0)
    assert res.status == "unknown_place" and "garage" in text


def test_the_robot_s_own_comings_and_roles_written_as_people(ex):
    from m3_control.query.fidelity import check as against

    q, _, _ = against("When did I get to the office?", parse('find=when place="office" act=seen'), ["office"])
    assert q.act is None
    text, res = answer_query(ex, q.compact(), 91.0)
    assert text == "I got to the office at 00:30.", text
    q, _, _ = against("For how long was I in the office?", parse('find=how_long place="office" act=spoke'), ["office"])
    assert q.act is None
    q, _, _ = against("Who was talking at the very end?", parse("find=who act=spoke"), ["office"])
    assert q.place is None and q.pick == "last"
    text, _ = answer_query(ex, 'find=what who="the last person" act=spoke', 91.0)
    assert "Bye everyone" in text and "See you tomorrow" not in text, text
    text, res = answer_query(ex, "find=more act=seen times=0", 91.0)   # nobody to compare: a yes / no
    assert res.query.find == "yes" and text.startswith("Yes"), text      # Dee was seen and never spoke


def test_marks_and_first_minutes_of_the_recording_are_windows():
    from m3_memory.timeline import Timeline

    sp = Timeline().spans("Who spoke first after the one-minute mark?", 90.0)
    assert [(s.start, s.end) for s in sp] == [(60.0, None)]
    sp = Timeline().spans("How many people talked before the 2-minute mark?", 200.0)
    assert [(s.start, s.end) for s in sp] == [(None, 120.0)]
    sp = Timeline().spans("Who spoke during the first two minutes?", 200.0)
    assert [(s.start, s.end) for s in sp] == [(0.0, 120.0)]


def test_who_of_two_spoke_more_names_the_one_who_did(ex):
    from m3_control.query import answer_query as ask_text

    frame = f'find=more who="{COFFEE}" other="{TECH}"'
    text, res = ask_text(ex, frame, 91.0)
    assert "than the person who said" in text
    who = fit(f"Who talked more, the one who said '{COFFEE}' or the one who said '{TECH}'?", res.query, text)
    yes = fit(f"Did the one who said '{COFFEE}' talk more than the one who said '{TECH}'?", res.query, text)
    # Cy ("technician") spoke 3 times, Bo ("coffee") twice: the answer names Cy, not Bo
    assert who == f'The person who said "{TECH}" spoke more often.', who     # a sentence: capitalised
    assert COFFEE.lower() not in who.lower(), who
    assert yes == text


def test_checks_found_on_the_report_split(ex):
    """Frames the report split (seeds 400-407) showed; fixed after it was measured, not re-measured there."""
    from m3_control.query.fidelity import check as against
    from m3_control.query.polarity import finds_for

    assert finds_for("In the library, how many times did somebody speak?") == ("count_times",)
    assert finds_for("Counting each person once, who spoke fourth?")[0] == "who"
    assert finds_for("Between the one who said 'a, b' and the other, who spoke more?")[0] == "who"
    q, _, _ = against("Counting each person once, who spoke fourth?", parse('find=who who="fourth"'), [])
    assert (q.who, q.pick) == (None, "4")
    q, _, _ = against("Who spoke more times than anyone else?", parse("find=more"), [])
    assert (q.find, q.pick) == ("who", "most")
    q, _, _ = against("Which of the speakers did I hear least often?", parse('find=less who="name" act=spoke'), [])
    assert (q.find, q.who, q.pick) == ("who", None, "least")
    q, _, _ = against("Was the person who said 'a b c' talking while I was in the living room?",
                      parse('find=yes who="a b c" other="living room" act=spoke'), ["living room"])
    assert (q.who, q.other, q.place) == ("a b c", None, "living room")
    q, _, _ = against("Where did I meet the person who said 'a b c' for the first time?",
                      parse('find=where who="a b c" pick=first act=spoke'), [])
    assert q.act is None


def test_an_answer_about_somebody_else_than_the_named_person_goes_back_as_a_query(ex):
    import re

    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted

    class PicksFirstShown(Scripted):
        def complete(self, messages, grammar=None):
            reply = super().complete(messages, grammar)
            if reply == "PICK":
                first = re.search(r"\[(\d+)\]", messages[-1]["content"]).group(1)
                reply = f"Action: [Answer]\nContent: [{first}]"
            return reply

    be = PicksFirstShown(["Action: [Search]\nContent: Jonas coffee", "PICK",
                          'Action: [Query]\nContent: find=where who="Jonas"'], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be, min_score=-1.0).run("Where did I meet Jonas?", before_time=91.0, max_rounds=3)
    assert "name_not_in_answer" in a.trace["rounds"][1]["flags"], a.trace["rounds"]
    assert "Jonas" in a.answer and "don't know" in a.answer, a.answer
    be = PicksFirstShown(["Action: [Search]\nContent: Ann", "PICK"], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be, min_score=-1.0).run("What did Ann say?", before_time=91.0, max_rounds=3)
    assert "name_not_in_answer" not in a.trace["rounds"][1]["flags"] or "Ann" in a.answer


def test_who_was_in_view_together_with_someone(db_at):
    """rel=with: the people whose appearances overlap one of the other person's (Dee stands by while Bo talks)."""
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
              (1, "cy", 35.0, 37.0, "I will call the technician.")]
    store, _ = meeting_store(db_at("m.db"), script=script, silent=[(0, "dee", 9.0, 13.0), (1, "dee", 34.0, 38.0)])
    ex = QueryExecutor(store)
    a, res = ask(ex, f'find=who other="{COFFEE}" rel=with')
    assert res.status == "ok" and len(res.people) == 1 and "in view together with" in a, (a, res.trace())
    dee = res.people[0].character_id
    assert all(e.character_id == dee and e.kind == "face" for e in res.events if e is not res.anchor)
    _, res = ask(ex, f'find=count_people other="{TECH}" rel=with')
    assert res.value == 1 and res.people[0].character_id == dee
    a, res = ask(ex, 'find=who other="put the red folder on the desk" rel=with')
    assert res.people == [] and "don't remember" in a, a
    _, res = ask(ex, f'find=yes who="{TECH}" other="{COFFEE}" rel=with')
    assert res.value is False, "Cy and Bo were never in view at once"
    store.close()


def test_people_described_by_how_they_looked(db_at):
    """A reference by looks ("the person who smiled") resolves to the people whose faces showed that expression:
    one is found (and composes with every relation), none is said honestly, two are not told apart."""
    from m3_control.query.people import look_of

    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
              (1, "cy", 35.0, 37.0, "I will call the technician.")]
    store, _ = meeting_store(db_at("m.db"), script=script, silent=[(0, "dee", 9.0, 13.0), (1, "dee", 34.0, 38.0)],
                             looks={"dee": "happy"})
    ex = QueryExecutor(store)
    a, res = ask(ex, 'find=who other="the woman who smiled" rel=with')
    said = {f'the person who said "{s[0].upper() + s[1:]}"' for s in (COFFEE, TECH)}
    assert res.status == "ok" and {p.description for p in res.people} == said, (a, res.trace())
    assert res.who["other"].how == "look" and res.anchor is not None and res.anchor.text == "looks happy"
    a, res = ask(ex, 'find=yes who="someone who looked happy"')
    assert res.value is True and a.startswith("Yes"), a
    a, res = ask(ex, 'find=who who="the person who looked happy"')
    assert "looked happy" in a and "did not speak" in a, a
    a, res = ask(ex, 'find=who other="the man who looked angry" rel=with')
    assert res.status == "unknown_person" and a == "I don't remember anyone looking angry.", a
    a, res = ask(ex, 'find=yes who="a person who looked sad"')
    assert a == "No, I don't remember anyone looking sad.", a
    store.close()
    assert look_of("the person who was smiling") == "happy" and look_of("the crying man") == "sad"
    assert look_of("the person who said 'I am happy'") is None     # a quote: something said
    assert look_of("the person who smiled at the dog") is None     # more than a look: not a reference by looks
    assert look_of("the person who looked happy and sad") is None


@pytest.mark.parametrize("question, frame, want", [
    ("Who was in view together with the woman who smiled?", "find=who",
     'find=who other="the person who looked happy" rel=with'),
    ("How many people were standing with the man who looked angry?", 'find=count_people other="angry man"',
     'find=count_people other="the person who looked angry" rel=with'),
    ("Did anyone look happy?", 'find=same who="look happy" other="spoke"',
     'find=yes who="the person who looked happy"'),
    ("Who looked sad?", 'find=same who="the person who looked sad" other="spoke"',
     'find=who who="the person who looked sad"'),
    (f"Did the person who said '{COFFEE}' look happy?", f'find=same who="{COFFEE}" other="look happy"',
     f'find=same who="{COFFEE}" other="the person who looked happy"'),
    (f"Was the person who said '{COFFEE}' ever in view with the person who was laughing?",
     f'find=same who="{COFFEE}" other="laughing"',
     f'find=yes who="{COFFEE}" other="the person who looked happy" rel=with'),
    ("When did I see the woman who was crying?", "find=when act=seen", 'find=when who="the person who looked sad"'),
])
def test_a_question_naming_someone_by_looks_gets_them_in_its_frame(question, frame, want):
    from m3_control.query.fidelity import check as against
    from m3_control.query.routing import asks_about_looks

    q, added, missing = against(question, parse(frame), [])
    assert asks_about_looks(question), question
    assert q.compact().replace(" act=seen", "") == parse(want).compact().replace(" act=seen", ""), (q.compact(), added)
    assert not missing


def test_a_feeling_someone_spoke_of_is_not_how_anybody_looked():
    from m3_control.query.routing import asks_about_looks

    assert not asks_about_looks("Did anyone say they were happy?")
    assert not asks_about_looks("Who mentioned being upset about the printer?")
    assert not asks_about_looks("Did somebody say 'I am so happy'?"), "quoted words ask nothing"
    assert asks_about_looks("What did the woman who was smiling say?")


def test_two_people_who_looked_the_same_are_not_told_apart(db_at):
    script = [(0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
              (1, "cy", 35.0, 37.0, "I will call the technician.")]
    store, _ = meeting_store(db_at("m.db"), script=script, silent=[], looks={"ann": "happy", "cy": "happy"})
    a, res = ask(QueryExecutor(store), 'find=when who="the person who smiled"')
    assert res.status == "ambiguous_person" and "both looked happy" in a, a
    store.close()


def test_a_frame_may_say_with_only_when_the_question_asks_who_was_together():
    from m3_control.query.fidelity import check as against

    q = parse(f'find=who other="{COFFEE}" rel=with')
    _, _, missing = against(f"Who was with the man who said '{COFFEE}'?", q, [])
    assert not any("rel=" in m for m in missing)
    _, _, missing = against(f"Who spoke after the man who said '{COFFEE}'?", q, [])
    assert any("rel=with" in m for m in missing)


def test_a_question_about_company_gets_rel_with_whatever_the_frame_said():
    from m3_control.query.fidelity import check as against
    from m3_control.query.routing import asks_company_of_quote

    yes_no = f"Was the person who said '{COFFEE}' ever in view together with the person who said '{TECH}'?"
    q, added, missing = against(yes_no, parse(f'find=same who="{COFFEE}" other="{TECH}"'), [])
    assert (q.find, q.who, q.other, q.rel) == ("yes", COFFEE, TECH, "with") and added and not missing
    q, added, missing = against(yes_no, parse(f'find=same who="{COFFEE}" other="{TECH}" rel=with'), [])
    assert (q.find, q.who, q.other, q.rel) == ("yes", COFFEE, TECH, "with"), "in view together is not the same person"
    q, _, missing = against(f"Who was in view together with the man who said '{COFFEE}'?",
                            parse(f'find=what who="{COFFEE}"'), [])
    assert (q.find, q.who, q.other, q.rel) == ("who", None, COFFEE, "with") and not missing
    q, _, _ = against(f"How many people were seen with the woman who said '{TECH}'?",
                      parse(f'find=count_people who="{TECH}"'), [])
    assert (q.find, q.other, q.rel) == ("count_people", TECH, "with")
    assert asks_company_of_quote(yes_no)
    assert not asks_company_of_quote("Who was in view together with me?"), "nobody quoted"
    assert not asks_company_of_quote("Who said 'come with me together'?"), "the quote's own words ask nothing"
    q, _, _ = against(f"Who spoke right after the man who said '{COFFEE}'?",
                      parse(f'find=who other="{COFFEE}" rel=right_after'), [])
    assert q.rel == "right_after"


def test_a_picked_memory_about_nobody_or_someone_else_than_a_quoted_speaker_is_refused(ex):
    import re

    from m3_control.quote_fit import misfit, spoken_quotes
    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted

    assert spoken_quotes(f"How often did the man who said '{TECH}' speak?") == [TECH]
    assert spoken_quotes("What did the sign reading 'EXIT 12' say?") == []   # written words: not speech

    class PicksShown(Scripted):
        """Answers by picking the first shown memory whose line contains ``want``."""

        def __init__(self, replies, want):
            super().__init__(replies, grammar_ok=True)
            self.want = want

        def complete(self, messages, grammar=None):
            reply = super().complete(messages, grammar)
            if reply == "PICK":
                line = next(x for x in messages[-1]["content"].splitlines() if self.want in x.lower())
                mid = re.match(r"\[(\d+)\]", line).group(1)
                reply = f"Answer: [{mid}]"
            return reply

    # nobody said the quote: the coffee memory the search found answers nothing; the records say so
    q = "How many times did I hear the person who said 'lay red with p nine again'?"
    be = PicksShown(["Search: the coffee machine", "PICK",
                     'find=count_times who="lay red with p nine again"'], "coffee")
    a = ToolReasoningLoop(ex.store, be).run(q, before_time=91.0, max_rounds=3)
    assert "quote_speaker_not_in_answer" in a.trace["rounds"][1]["flags"], a.trace["rounds"]
    assert "coffee" not in a.answer.lower() and "lay red" in a.answer.lower(), a.answer
    # the quote is Cy's: Bo's coffee memory is about someone else and is refused; Cy's own memory is an answer
    q = f"What else did the person who said '{TECH}' talk about?"
    store = ex.store
    shown = {m.id: {"id": m.id, "text": m.text} for m in store.search_nodes("coffee machine broken", topk=20,
                                                                           before_time=91.0)}
    coffee = [m for m in shown.values() if "coffee" in m["text"].lower()]
    tomorrow = [m for m in {m.id: {"id": m.id, "text": m.text} for m in store.search_nodes(
        "see you tomorrow", topk=20, before_time=91.0)}.values() if "tomorrow" in m["text"].lower()]
    assert coffee and tomorrow
    assert misfit(store, q, coffee[:1], 91.0) == f"'{TECH}' was said by someone else"
    assert misfit(store, q, tomorrow[:1], 91.0) == ""
    assert misfit(store, q.replace(TECH, "lay red with p nine again"), tomorrow[:1], 91.0).startswith("nobody said")


def test_a_person_compared_with_the_role_they_hold_is_that_person_ties_included(ex, db_at):
    from .people_helpers import SCRIPT

    folder = "put the red folder on the desk"    # Ann, who spoke the most (4 times)
    for frame in (f'find=more who="{folder}" other="spoke most"', f'find=same who="{folder}" other="spoke most"'):
        text, res = answer_query(ex, frame, 91.0)
        assert text.startswith("Yes, that is the same person"), text
    text, _ = answer_query(ex, f'find=more who="{TECH}" other="spoke most"', 91.0)
    assert text.startswith("No, ") and "4 times" in text, text        # Cy (3) is not the one who spoke most
    # Cy speaks once more: Ann and Cy tie for the most; either of them "also spoke the most", Bo did not
    tied = QueryExecutor(meeting_store(db_at("tie.db"), script=SCRIPT + [(2, "cy", 88.0, 89.5, "Time to go.")])[0])
    text, res = answer_query(tied, f'find=more who="{TECH}" other="spoke most"', 91.0)
    assert text.startswith("Yes, that is the same person") and any("tie" in s["step"] for s in res.steps), text
    text, _ = answer_query(tied, f'find=same who="{COFFEE}" other="spoke most"', 91.0)
    assert text.startswith("No"), text


def test_a_person_named_by_rank_among_the_speakers_is_asked_of_the_records(ex):
    from m3_control.query.routing import asks_by_rank
    from m3_control.tool_loop import ToolReasoningLoop

    from .test_tool_loop import Scripted, root_actions

    for q in ("What was said by the third person who spoke?", "Counting each person once, who spoke second?",
              "What did the 2nd speaker say?", "Who was the first to speak after 1:00?"):
        assert asks_by_rank(q), q
    for q in ("What did someone say about the first aid kit?", "Did anyone say 'the second door'?",
              "What did the man say about the letter x?"):
        assert not asks_by_rank(q), q
    be = Scripted(["find=what pick=3 act=spoke"], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run("What was said by the third person who spoke?", before_time=91.0)
    assert root_actions(be.grammars[0]) == {"Query"}
    assert "technician" in a.answer.lower(), a.answer       # Ann, Bo, then Cy: "I will call the technician"
    # so is a person named by the words they said (the records match a quote as heard, mis-hearings included)
    be = Scripted([f'find=count_times who="{TECH}"'], grammar_ok=True)
    a = ToolReasoningLoop(ex.store, be).run(f"How many times did the person who said '{TECH}' speak?", 91.0)
    assert root_actions(be.grammars[0]) == {"Query"} and "3 times" in a.answer, a.answer
    be = Scripted(["Search: sign", "Answer: I have no memory of that."], grammar_ok=True)
    ToolReasoningLoop(ex.store, be).run("What did the sign reading 'EXIT 12' say?", 91.0)
    assert "Search" in root_actions(be.grammars[0])         # written words are searched


def test_the_turns_of_two_people_together(ex):
    # blind probe 576: "how many times in total did A and B speak?" counted A only and said so as the answer
    a, res = ask(ex, f'find=count_times who="Ann" other="{COFFEE}" act=spoke')          # Ann 4, Bo 2
    assert res.value == 6 and a.startswith("Ann spoke 4 times and") and "twice" in a and "6 times in all" in a, a
    assert not check(a, res), a
    a, res = ask(ex, f'find=count_times who="Ann" other="{COFFEE}" place="lab" act=spoke')  # Ann 2, Bo never
    assert res.value == 2 and "never spoke" in a, a
    _, res = ask(ex, f'find=count_times who="Ann" other="{COFFEE}" rel=after act=spoke')  # a relation: Ann only
    assert res.value == 3, res.trace()


def test_a_comparison_counts_both_people_whatever_a_pick_left(ex):
    # a frame that picked the first of two compared people dropped the other from the people, and the executor
    # raised StopIteration out of the tool loop (a benchmark run ended there)
    a, res = ask(ex, f'find=more who="Ann" other="{COFFEE}" pick=first')
    assert res.value == (4, 2) and a.startswith("Yes, Ann spoke more often (4 times)"), a
    _, res = ask(ex, f'find=less who="{COFFEE}" other="{TECH}" rel=before')   # Bo's turns before Cy's first
    assert res.status == "ok" and isinstance(res.value, tuple), res.trace()
