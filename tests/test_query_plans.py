"""Questions no one frame says, answered by plans of several frames (m3_control/query/plans.py), through the path the
tool loop takes (the plan's view of the model's frame, the frame's checks, the plan's run), on the hand-built meeting
of tests/test_query_executor.py:

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25 (each turn 2 s)
"""

from __future__ import annotations

from m3_control.query import QueryExecutor, check, parse
from m3_control.query.fidelity import check as fit_question
from m3_control.query.plans import plan_for
from m3_memory.poses import Place, Pose
from m3_memory.store.where import robot_stays, save_places

from .people_helpers import meeting_store
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

KNOWN = ["kitchen", "office", "lab"]
BO, CY = f"the person who said '{COFFEE}'", f"the person who said '{TECH}'"


def run(executor, question: str, frame: str) -> tuple[str, object, list[str]]:  # noqa: ANN001
    """The tool loop's path for a plan: (answer, result, the checks' complaints that still stand)."""
    plan = plan_for(question)
    assert plan is not None, question
    stays = robot_stays(executor.store)
    q = plan.prepare(parse(frame))
    q, _, missing = fit_question(plan.check_question or question, q, KNOWN, stays=lambda: stays)
    q = plan.prepare(q)
    text, res = plan.run(executor, q, 91.0)
    return text, res, [m for m in missing if plan.keeps(m)]


def test_which_side_of_a_move_a_clock_time_or_another_persons_turn(ex):  # noqa: F811
    text, res, missing = run(ex, f"Did {CY} speak before or after I entered the lab?",
                             f'find=more who="{TECH}" other="I entered the lab" rel=before')   # the model's odd frame
    assert not missing and text.startswith("Both:") and "00:35" in text and "01:10 and 01:20" in text, text
    assert "I entered the lab (01:00)" in text and {e.character_id for e in res.events} == {
        res.who["who"].character_id}, text                                  # provenance: Cy's turns only
    text, _, _ = run(ex, f"Did {BO} speak before or after I entered the lab?", f'find=yes who="{COFFEE}"')
    assert text.startswith("Before:") and "00:10 and 00:40" in text and "did not hear them after" in text, text
    text, _, _ = run(ex, f"Was {CY} heard before or after 0:30?", f'find=more who="{TECH}" other="0:30"')
    assert text.startswith("After:") and "00:30" in text and "not hear them before" in text, text
    text, _, _ = run(ex, f"Did {BO} talk before or after {CY} first spoke?",
                     f'find=when who="{COFFEE}" other="{TECH}" rel=right_before')
    assert text.startswith("Both:") and "00:10" in text and "00:40" in text and "first spoke (00:35)" in text, text
    text, _, _ = run(ex, "Did the person who said 'the printer is out of paper' speak before or after I entered "
                         "the lab?", 'find=when who="the printer is out of paper"')
    assert text.startswith("I don't remember anyone saying"), text      # nobody said it: no side for anybody
    assert plan_for(f"Did {BO} speak before {CY}?") is None                # one side asked: a frame of its own


def test_people_by_the_places_they_were_in(ex):  # noqa: F811
    text, res, _ = run(ex, "Who spoke in more than one room?", 'find=who place="#1" act=spoke')
    assert len(res.people) == 3 and "Dee" not in text and not check(text, res), text   # Ann, Bo, Cy: two rooms each
    text, res, _ = run(ex, "Who did I hear in every room?", "find=same act=spoke")
    assert res.people == [] and text.startswith("Nobody spoke in all of the kitchen, the office and the lab"), text
    text, res, _ = run(ex, "Who was seen in only one room?", "find=who act=seen count=1")
    assert len(res.people) == 1 and "(the office)" in text, text         # Dee, seen in the office only
    text, res, _ = run(ex, "How many people were seen in just one place?", "find=count_people act=seen")
    assert text.startswith("1 person was seen in only one place"), text
    text, res, _ = run(ex, "Did anyone talk only in the lab?", 'find=yes place="lab" act=spoke')
    assert text.startswith("No, nobody spoke only in the lab"), text     # Ann and Cy spoke elsewhere too
    text, res, _ = run(ex, "Which people did I hear in both the kitchen and the lab?", 'find=who place="kitchen"')
    assert text.startswith("Ann (the kitchen and the lab) spoke in both the kitchen and the lab"), text
    text, res, _ = run(ex, "Was anyone seen in only one of the rooms?", "find=yes act=seen")
    assert text.startswith("Yes:") and len(res.people) == 1, text       # Dee
    text, res, _ = run(ex, "Did anyone talk only in the garage?", 'find=yes place="garage" act=spoke')
    assert "no place called 'garage'" in text, text
    assert plan_for(f"Who spoke in the lab, {BO} or {CY}?") is None      # a named person's places: a frame
    assert plan_for("How many rooms did I visit in all?") is None         # nobody's places: the robot's own


def test_how_long_the_talk_went_on_from_the_first_words_to_the_last(ex):  # noqa: F811
    text, res, _ = run(ex, "How long did the whole conversation last?", "find=how_long act=spoke")
    assert "85 seconds" in text and "00:02" in text and "01:27" in text and not check(text, res), text
    text, res, _ = run(ex, "How much time passed between the first and the last words anyone said?",
                       "find=gap from=0:00 to=0:00 act=spoke")
    assert "85 seconds" in text, text
    text, res, _ = run(ex, "How long did the talking in the kitchen go on?", 'find=how_long place="kitchen"')
    assert "20 seconds" in text and "in the kitchen" in text, text      # 0:02 to the end of 0:20's turn
    text, res, _ = run(ex, "How long did the conversation in the office last?", 'find=how_long place="office"')
    assert "7 seconds" in text and "00:35" in text and "00:42" in text, text   # Cy 0:35 to the end of Bo's 0:40
    assert plan_for("How long did people talk in total?") is None         # the sum of the turns: find=how_long
    assert plan_for(f"How long did {BO} talk?") is None


def test_who_of_several_came_first_and_who_came_right_after_of_the_choices(ex):  # noqa: F811
    ann = "the person who said 'put the red folder on the desk'"
    text, res, _ = run(ex, f"Who spoke last: {BO}, {ann} or {CY}?", "find=who pick=last act=spoke")
    assert text.startswith('The person who said "put the red folder on the desk" spoke last (01:25)') and \
        "00:40" in text and "01:20" in text, text
    assert len({e.character_id for e in res.events}) == 3                # everyone compared: the provenance
    text, res, missing = run(ex, f"Who spoke right after {CY}, {BO} or {ann}?",
                             f'find=who other="{COFFEE}" rel=right_after act=spoke')   # the frame about a choice
    assert not missing and text.lower().startswith(f'the person who said "{COFFEE}" spoke right after'), text  # 0:40
    assert plan_for(f"Who spoke right after {CY}?") is None


def test_a_place_visited_twice_has_one_stretch_of_talk_per_visit(db_at):
    """The robot in the kitchen for clips 0 and 2 and the office for clip 1: the kitchen's talk is two stretches."""
    rooms = {0: (0.0, 0.0), 1: (8.0, 0.0), 2: (0.0, 0.0)}
    store, _ = meeting_store(db_at("v.db"), lambda c: [Pose(30.0 * c + 0.5 * i, *rooms[c], 0.0, 0.0, "map")
                                                       for i in range(61)])
    save_places(store, [Place("kitchen", 0, 0, 2.0, ""), Place("office", 8, 0, 2.0, "")])
    text, res, _ = run(QueryExecutor(store), "How long did the conversation in the kitchen last?",
                       'find=how_long place="kitchen" act=spoke')
    assert "20 seconds the first time" in text and "22 seconds the second time" in text, text  # 0:02-0:22, 1:05-1:27
    assert res.value == (20, 22) and not check(text, res), text
    store.close()
