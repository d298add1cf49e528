"""Where things happened: the pose track, poses stored with clips and turns, named places, position-filtered
retrieval and the "where" tools, on a real SQLite store written through the production turn-recording path."""

from __future__ import annotations

import math

import pytest

from m3_control.tools import EntityTools
from m3_memory.poses import Place, Pose, PoseRefused, PoseTrack, parse_places, place_of, pose_at
from m3_memory.store.where import load_places, memories_near, save_places, search_near

from .people_helpers import meeting_store

PLACES = [Place("kitchen", 0.0, 0.0, 2.0, "map"), Place("office", 10.0, 0.0, 2.0, "map"),
          Place("lab", 10.0, 8.0, 2.0, "map")]
# (from, to, x0, y0, x1, y1): kitchen until 0:30, office 0:31-1:00, lab 1:01-1:18.5, back in the kitchen from 1:19.5
LEGS = [(0, 30, 0, 0, 0, 0), (30, 31, 0, 0, 10, 0), (31, 60, 10, 0, 10, 0), (60, 61, 10, 0, 10, 8),
        (61, 78.5, 10, 8, 10, 8), (78.5, 79.5, 10, 8, 0, 0), (79.5, 91, 0, 0, 0, 0)]


def path(t: float) -> tuple[float, float]:
    for a, b, x0, y0, x1, y1 in LEGS:
        if a <= t <= b:
            f = (t - a) / (b - a)
            return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
    raise ValueError(t)


def samples(clip: int, hz: float = 10.0) -> list[Pose]:
    n = int(30 * hz) + 1
    return [Pose(30 * clip + i / hz, *path(30 * clip + i / hz), 0.0, 0.0, "map") for i in range(n)]


@pytest.fixture
def posed(db_at):
    store, ids = meeting_store(db_at("m.db"), poses=samples)
    save_places(store, PLACES)
    yield store, ids, EntityTools(store)
    store.close()


def test_track_interpolates_and_refuses_what_it_cannot_use():
    track = PoseTrack("map")
    for t in range(5):
        track.add(Pose(float(t), float(t), 0.0, 0.0, 0.0, "map"))
    with pytest.raises(PoseRefused) as e:
        track.add(Pose(3.0, 0, 0, 0, 0, "map"))
    assert e.value.cause == "late"
    with pytest.raises(PoseRefused) as e:
        track.add(Pose(9.0, math.nan, 0, 0, 0, "map"))
    assert e.value.cause == "bad"
    with pytest.raises(PoseRefused) as e:
        track.add(Pose(9.0, 1, 0, 0, 0, "odom"))
    assert e.value.cause == "frame"
    assert len(track) == 5
    w = track.window(1.5, 2.5)
    assert [p.t for p in w] == [1.0, 2.0, 3.0]
    assert pose_at(w, 2.25).x == pytest.approx(2.25)
    # yaw interpolates along the shorter arc (across +-pi), and nothing is invented across a gap
    p = pose_at([Pose(0, 0, 0, 3.0), Pose(1, 0, 0, -3.0)], 0.5)
    assert abs(abs(p.yaw) - math.pi) < 0.01
    assert pose_at([Pose(0, 0, 0), Pose(10, 5, 0)], 5.0) is None
    assert pose_at([Pose(0, 0, 0), Pose(1, 1, 0)], 30.0) is None


def test_places_config_is_validated():
    assert parse_places([{"name": "Kitchen", "x": 1, "y": 2}])[0] == Place("Kitchen", 1.0, 2.0, 1.5, "")
    for bad in ([{"x": 1, "y": 2}], [{"name": "a", "x": "n/a", "y": 0}], [{"name": "a", "x": 0, "y": 0, "radius": 0}],
                [{"name": "a", "x": 0, "y": 0}, {"name": "A", "x": 1, "y": 1}]):
        with pytest.raises(ValueError):
            parse_places(bad)
    assert place_of(PLACES, 9.0, 0.5).name == "office" and place_of(PLACES, 5.0, 0.0) is None


def test_clips_and_turns_carry_the_pose_at_their_middle(posed):
    store, _, _ = posed
    clips = store.conn.execute("SELECT id, x, y FROM clips ORDER BY id").fetchall()
    assert [(c, round(x, 2), round(y, 2)) for c, x, y in clips] == [(0, 0, 0), (1, 10, 0), (2, 10, 8)]
    turns = store.conn.execute("SELECT kind, start_time, x, y FROM turns WHERE kind = 'voice' ORDER BY start_time")
    where = {s: place_of(PLACES, x, y).name for _, s, x, y in turns}
    assert where == {2.0: "kitchen", 10.0: "kitchen", 20.0: "kitchen", 35.0: "office", 40.0: "office",
                     65.0: "lab", 70.0: "lab", 80.0: "kitchen", 85.0: "kitchen"}
    # a standing robot's 10 Hz odometry is thinned to about one sample a second; moving legs are kept densely
    n = store.conn.execute("SELECT count(*) FROM poses").fetchone()[0]
    assert 90 <= n <= 130, n
    assert [p.name for p in load_places(store)] == ["kitchen", "lab", "office"]


def test_where_tools_answer_from_stored_poses_and_honour_the_question_time(posed):
    _, _, tools = posed
    r = tools.run('last_place("Ann")', 91.0)
    assert r.answer == "I last saw Ann in the kitchen (01:25)." and r.value["place"] == "kitchen"
    assert r.value["frame"] == "map" and [t.start for t in r.turns] == [85.0] and r.memory_ids
    assert tools.run('last_place("Ann")', 61.0).value["place"] == "kitchen"          # 0:20, not the lab yet
    assert tools.run('last_place("the coffee machine is broken")', 91.0).value["place"] == "office"
    r = tools.run('first_place("I will call the technician")', 91.0)
    assert r.value["place"] == "office" and "first" in r.answer
    r = tools.run('places_discussed("the coffee machine")', 91.0)
    assert r.answer.startswith("I heard about that in the kitchen (00:10) and the office (00:40)")
    assert [v["place"] for v in r.value] == ["kitchen", "office"]
    assert tools.run('place_at("0:45")', 91.0).value["place"] == "office"
    r = tools.run('place_at("1:10")', 91.0)
    assert r.answer == "At 01:10 I was in the lab." and r.memory_ids             # cites what was heard there
    assert [t.start for t in r.turns][:1] == [70.0]                                # Cy at 1:10, nearest first
    assert "not" in tools.run('place_at("1:10")', 61.0).answer or "no memory" in tools.run(
        'place_at("1:10")', 61.0).answer                                                  # after the question time


def test_without_poses_where_tools_say_so_and_nothing_else_changes(db_at):
    store, _ = meeting_store(db_at("plain.db"))
    tools = EntityTools(store)
    assert tools.run('last_place("Ann")', 91.0).answer == "I have no record of where that was."
    assert tools.run('times_spoke("Ann")', 91.0).value == 4
    assert memories_near(store, 0.0, 0.0, 5.0) == set()
    store.close()


def test_position_filter_restricts_retrieval(posed):
    store, _, _ = posed
    hits = search_near(store, "technician", 10.0, 8.0, 2.0, topk=5)      # the lab: Cy's 1:10 turn only
    assert hits and all(h.start_time >= 60 for h in hits)
    texts = " ".join(h.text for h in hits)
    assert "technician" in texts
    office = search_near(store, "coffee machine", 10.0, 0.0, 2.0, topk=5)
    assert office and {h.clip_id for h in office if "coffee" in h.text} == {1}   # the 0:40 one, not the kitchen's
    assert search_near(store, "coffee machine", 50.0, 50.0, 1.0) == []
    with pytest.raises(ValueError):
        memories_near(store, math.nan, 0.0, 1.0)


def test_navigation_targets_resolve_to_remembered_poses(posed):
    from m3_control.goal_poses import PoseResolver
    from m3_control.skills import GoalPlanner, load_skills

    store, _, _ = posed
    resolve = PoseResolver(store)
    kitchen = resolve("the Kitchen", 91.0)
    assert (kitchen.how, kitchen.place, kitchen.x, kitchen.y) == ("place", "kitchen", 0.0, 0.0)
    assert kitchen.memory_ids   # memories written in the kitchen vouch for it
    lab = resolve("the person who said 'I will call the technician'", 91.0)   # Cy, last heard at 1:20 (kitchen)
    assert (lab.how, lab.place, lab.t) == ("person", "kitchen", 80.0)
    assert resolve("the person who said 'I will call the technician'", 61.0).place == "office"   # as known then
    bo = resolve("the broken coffee machine", 91.0)      # close enough to what Bo said: Bo himself
    assert (bo.how, bo.place, bo.t) == ("person", "office", 40.0) and bo.memory_ids
    topic = resolve("where we talked about the technician", 91.0)   # a topic: where it last came up (1:10)
    assert (topic.how, topic.place, topic.t) == ("topic", "lab", 70.0) and topic.memory_ids
    assert resolve("the garage", 91.0) is None

    planner = GoalPlanner(load_skills("config/skills.yaml"), memory=store)
    goals, problems = planner.plan("Take me to Ann", "I last saw Ann in the kitchen (01:25).", [], 91.0)
    assert problems == [] and goals[0].skill == "navigate_to" and goals[0].pose.place == "kitchen"
    assert goals[0].supporting_memory_ids == goals[0].pose.memory_ids != []
    goals, problems = planner.plan("Go to the garage", "I have no memory of that.", [], 91.0)
    assert goals == [] and "has no remembered pose" in problems[0]
    # the instruction's words name no pose, but the answer came from a where tool: its pose is the goal
    trace = {"rounds": [{"result": {"value": {"x": 10.0, "y": 8.0, "yaw": 0.0, "frame": "map", "place": "lab",
                                              "t": 70.0}}}]}
    goals, problems = planner.plan("Take me to where it happened", "I heard about that in the lab (01:10).", [21],
                                   91.0, trace)
    assert problems == [] and (goals[0].pose.how, goals[0].pose.place) == ("answer", "lab")
    assert goals[0].supporting_memory_ids == [21]


def test_cli_search_takes_a_place_or_a_circle(posed, capsys):
    from m3_memory.cli import main

    store, _, _ = posed
    path = store.location
    assert main(["search", "coffee machine", "--db", path, "--place", "office", "--json"]) == 0
    import json

    hits = json.loads(capsys.readouterr().out)
    assert hits and {h["clip_id"] for h in hits if "coffee" in h["text"]} == {1}
    assert main(["search", "coffee machine", "--db", path, "--near", "50,50,1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    with pytest.raises(SystemExit, match="no place named 'garage'"):
        main(["search", "coffee", "--db", path, "--place", "garage"])
