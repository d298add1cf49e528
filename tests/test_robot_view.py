"""Robot-view scenes (issue 30): the definition's ground truth, the renderer keeping to it, the scorer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from m3_agent_ros.bags.robot_view import FACE_PX, VIEW, RobotScene, make_robot_scene, sign_width
from m3_agent_ros.bags.robot_view_score import (
    FaceRecord,
    Recording,
    StoredTurn,
    score_faces,
    score_talkers,
    score_transcripts,
    score_voices,
)

GRID = Path(__file__).resolve().parents[2] / "shared" / "data" / "grid_talking_faces"
needs_grid = pytest.mark.skipif(not GRID.is_dir(), reason="needs ../shared/data/grid_talking_faces")


@needs_grid
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_scene_keeps_its_own_rules(seed: int) -> None:
    sc = make_robot_scene(seed, GRID)
    assert sc.to_json() == make_robot_scene(seed, GRID).to_json(), "a seed gives one scene"
    assert RobotScene.from_json(sc.to_json()).to_json() == sc.to_json()
    assert 3 <= len(sc.shots) <= 4
    for a, b in zip(sc.shots, sc.shots[1:], strict=False):
        assert a.end == b.start and {p.person for p in a.people} != {p.person for p in b.people}
    for i, shot in enumerate(sc.shots):
        assert 2 <= len(shot.people) <= 3
        assert all(FACE_PX[0] <= p.face_px <= FACE_PX[1] for p in shot.people)
        speakers = {u.person for u in sc.turns if u.shot == i}
        assert speakers == {p.person for p in shot.people}, "everyone in view speaks at least once"
        mid = (shot.start + shot.end) / 2
        assert {p for p, _ in sc.in_view(mid)} <= {p.person for p in shot.people}
    for a, b in zip(sc.turns, sc.turns[1:], strict=False):
        assert a.end <= b.start, "one talker at a time"
    for u in sc.turns:
        shot = sc.shots[u.shot]
        assert shot.start <= u.start < u.speech[0] < u.speech[1] < u.end <= shot.end
        assert sc.talker_at((u.speech[0] + u.speech[1]) / 2) == u.person
    for t in np.arange(0, sc.duration, 0.5):
        for _, (x1, y1, x2, y2) in sc.in_view(float(t)):
            assert 0 <= x1 < x2 <= VIEW[0] and 0 <= y1 < y2 <= VIEW[1]
    spans = sorted((s.x, s.x + sign_width(s)) for s in sc.signs)
    assert all(b[0] > a[1] for a, b in zip(spans, spans[1:], strict=False))


@needs_grid
def test_people_enter_from_the_edge_of_the_view() -> None:
    sc = make_robot_scene(3, GRID)
    shot = next(s for s in sc.shots if any(p.enters for p in s.people))
    p = next(p for p in shot.people if p.enters)
    assert abs(sc.face_x(p, shot, shot.start) - p.x) > 100
    assert sc.face_x(p, shot, shot.start + 2.0) == p.x


@needs_grid
def test_the_rendered_frame_shows_a_face_where_the_truth_says_and_the_sound_keeps_the_shots_snr() -> None:
    import dlib

    from m3_agent_ros.bags.robot_view_render import FrameRenderer, render_audio

    sc = make_robot_scene(600, GRID)
    fr = FrameRenderer(sc, GRID)
    det = dlib.get_frontal_face_detector()
    checked = 0
    for t in np.arange(2.0, sc.duration, 3.0):
        img = fr.frame(float(t))
        for person, (x1, y1, x2, y2) in sc.in_view(float(t)):
            size = next(p.face_px for s in sc.shots for p in s.people if p.person == person and s.start <= t < s.end)
            if size < 90:
                continue
            found = det(img, 0)
            assert any(x1 - 10 <= (r.left() + r.right()) / 2 <= x2 + 10 and y1 - 10 <= (r.top() + r.bottom()) / 2
                       <= y2 + 10 for r in found), f"no face at {person}'s true box at t={t:.1f}"
            checked += 1
    assert checked >= 3
    pcm, snrs = render_audio(sc, GRID)
    assert len(pcm) == round(sc.duration * 16000) and pcm.dtype == np.int16
    for i, shot in enumerate(sc.shots):
        mine = [s for s, u in zip(snrs, sc.turns, strict=True) if u.shot == i]
        assert abs(float(np.median(mine)) - shot.snr_db) < 1.0


def _scene() -> RobotScene:
    """A hand-made two-shot scene: A and B in view (A talks, then B), then B and C (C talks)."""
    from m3_agent_ros.bags.robot_view import Placement, Shot, Turn

    shots = [Shot(0.0, 10.0, [Placement("A", 400.0, 80, 0.0), Placement("B", 600.0, 80, 0.0)], 20.0),
             Shot(10.0, 20.0, [Placement("B", 400.0, 80, 0.0), Placement("C", 600.0, 80, 0.0)], 5.0)]
    turns = [Turn("A", 1.0, 4.0, (1.5, 3.5), "bin blue at f two now", 0),
             Turn("B", 5.0, 8.0, (5.5, 7.5), "lay red by k seven now", 0),
             Turn("C", 12.0, 15.0, (12.5, 14.5), "set white in z three now", 1)]
    return RobotScene(1, {"A": "a", "B": "b", "C": "c"}, {}, shots, turns, [], 20.0, 0.0, 30.0, 0.0, [], 1.0)


def _box(sc: RobotScene, person: str, t: float) -> tuple[float, float, float, float]:
    return dict(sc.in_view(t))[person]


def test_faces_score_by_place_not_time_and_a_merged_node_lowers_purity() -> None:
    sc = _scene()
    times = [float(t) for t in range(20)]
    right = Recording(frame_times=times)
    merged = Recording(frame_times=times)
    for t in times:
        for person, box in sc.in_view(t):
            node = {"A": 1, "B": 2, "C": 3}[person]
            right.faces.append(FaceRecord(t, box, node))
            merged.faces.append(FaceRecord(t, box, 1 if person in "AB" else 3))
    ok = score_faces(sc, right)
    assert ok["purity"] == 1.0 and ok["coverage"] == 1.0 and ok["detection_rate"] == 1.0
    assert score_faces(sc, merged)["purity"] < 0.8
    half = Recording(frame_times=times, faces=right.faces[::2])
    assert math.isclose(score_faces(sc, half)["detection_rate"], 0.5)
    stray = Recording(frame_times=times, faces=[FaceRecord(1.0, (0, 0, 10, 10), 9)])
    assert score_faces(sc, stray)["false_detections"] == 1


def test_the_talking_person_is_right_only_when_the_voice_is_one_character_with_the_talkers_face() -> None:
    sc = _scene()
    node_person = {"1": "A", "2": "B", "3": "C"}
    rec = Recording(turns=[StoredTurn("voice", 11, 1.5, 3.5), StoredTurn("voice", 12, 5.5, 7.5)],
                    character_of={1: 100, 11: 100, 2: 200, 12: 100, 3: 300})
    r = score_talkers(sc, rec, node_person)
    assert r["turns"] == 3 and r["right"] == 1 and r["another_face"] == 1 and r["no_voice"] == 1


def test_word_error_rate_is_pooled_per_snr_level() -> None:
    sc = _scene()
    rec = Recording(turns=[StoredTurn("voice", 1, 1.5, 3.5, "bin blue at f two now"),
                           StoredTurn("voice", 2, 5.5, 7.5, "lay red by k seven"),
                           StoredTurn("voice", 3, 12.5, 14.5, "")])
    w = score_transcripts(sc, rec)
    assert math.isclose(w["20"]["wer"], 1 / 12) and w["5"]["wer"] == 1.0


def test_voice_purity_counts_people_mixed_in_a_voice_not_echo_past_the_speech_and_keeps_to_the_snr() -> None:
    sc = _scene()   # A 1.5-3.5 and B 5.5-7.5 in a 20 dB shot, C 12.5-14.5 in a 5 dB shot
    padded = Recording(turns=[StoredTurn("voice", 1, 1.2, 4.0), StoredTurn("voice", 2, 5.2, 8.0),
                              StoredTurn("voice", 1, 12.0, 15.0)])   # C filed under A's voice, at 5 dB
    r = score_voices(sc, padded, [], 10.0)
    assert r["purity"] == 1.0 and r["coverage"] == 1.0 and r["turns"] == 2
    assert math.isclose(r["outside_speech"], 1 - 4.0 / 5.6)
    assert score_voices(sc, padded, [], 0.0)["purity"] < 0.8, "at every SNR, A's voice holds C too"
    mixed = Recording(turns=[StoredTurn("voice", 1, 1.5, 3.5), StoredTurn("voice", 1, 5.5, 7.5)])
    assert score_voices(sc, mixed, [], 10.0)["purity"] == 0.5
    half = Recording(turns=[StoredTurn("voice", 1, 1.5, 3.5), StoredTurn("voice", 2, 5.5, 6.5)])
    assert score_voices(sc, half, [], 10.0)["coverage"] == 0.75


def test_the_demo_scenes_questions_come_from_who_was_in_view_with_whom_and_the_signs_seen() -> None:
    from m3_agent_ros.bags.robot_view import Sign
    from m3_agent_ros.bags.robot_view_questions import robot_view_questions

    sc = _scene()   # A with B (0-10 s), then B with C (10-20 s); the view spans canvas x 180-820
    sc.sentences = {"A": "bin blue at f two now", "B": "lay red by k seven now", "C": "set white in z three now"}
    sc.signs = [Sign("EXIT 12", 300, 10, 30), Sign("GATE 4", 900, 10, 30)]   # the gate sign is never in view
    qs = {q.question: q for q in robot_view_questions(sc)}
    assert all(q.time == 31.0 and q.timestamp == "00:31" for q in qs.values()), "after the last clip"
    assert qs["What did the sign with the word EXIT say?"].answer == "EXIT 12"
    assert not any("GATE" in q for q in qs)
    who = "Who was in view together with the person who said '{}'?"
    assert qs[who.format("bin blue at f two now")].answer == "the person who said 'lay red by k seven now'"
    assert qs[who.format("set white in z three now")].answer == "the person who said 'lay red by k seven now'"
    assert qs["How many people were in view together with the person who said 'lay red by k seven now'?"].answer == "2"
    yes_no = {q.question: q.answer for q in qs.values() if q.question.startswith("Was ")}
    assert sorted(yes_no.values()) == ["No", "Yes"]
    assert yes_no["Was the person who said 'bin blue at f two now' ever in view together with the person who said "
                  "'set white in z three now'?"] == "No"
    assert len({q.question_id for q in qs.values()}) == len(qs)


@needs_grid
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_an_onlooker_joins_one_shot_and_leaves_the_rest_of_the_seeds_scene_as_it_was(seed: int) -> None:
    plain, with_her = make_robot_scene(seed, GRID), make_robot_scene(seed, GRID, onlooker="smiling")
    (her, way), = with_her.onlookers.items()
    assert way == "smiling" and with_her.look_of(her) == "happy" and with_her.look_of("A") is None
    assert her not in with_her.people and with_her.everyone == [*plain.people, her]
    shots = [s for s in with_her.shots if any(p.person == her for p in s.people)]
    assert len(shots) == 1
    mine = next(p for p in shots[0].people if p.person == her)
    assert all(abs(mine.x - q.x) >= 1.3 * 0.8 * (mine.face_px + q.face_px) / 2 + 40 for q in shots[0].people
               if q is not mine), "she stands apart from the others"
    for s in with_her.shots:
        s.people = [p for p in s.people if p.person != her]
    with_her.onlookers = {}
    assert with_her.to_json() == plain.to_json()
    assert not any(u.person == her for u in plain.turns), "she never speaks"


def test_questions_about_looks_come_from_who_was_in_view_with_the_onlooker() -> None:
    from m3_agent_ros.bags.robot_view import Placement
    from m3_agent_ros.bags.robot_view_questions import robot_view_questions

    sc = _scene()   # A with B (0-10 s), then B with C (10-20 s)
    sc.sentences = {"A": "bin blue at f two now", "B": "lay red by k seven now", "C": "set white in z three now"}
    sc.shots[1].people.append(Placement("D", 240.0, 70, 0.0))   # the onlooker stands with B and C
    sc.onlookers = {"D": "smiling"}
    qs = {q.question: q.answer for q in robot_view_questions(sc)}
    assert qs["How many people were in view together with the person who looked happy?"] == "2"
    assert qs["Was the person who said 'lay red by k seven now' ever in view together with the person who was "
              "smiling?"] == "Yes"
    assert qs["Was the person who said 'bin blue at f two now' ever in view together with the person who was "
              "smiling?"] == "No"
    assert qs["Did the person who said 'set white in z three now' look happy?"] == "No"
    assert qs["How many people were in view together with the person who said 'lay red by k seven now'?"] == "3"


def test_expressions_score_the_onlookers_and_count_any_stated_of_a_talker_as_wrong() -> None:
    from m3_agent_ros.bags.robot_view_score import Recording, score_expressions

    sc = _scene()
    sc.onlookers = {"D": "smiling"}
    rec = Recording(expressions=[(4, "happy"), (1, "sad")])
    got = score_expressions(sc, rec, {"4": "D", "1": "A"})
    assert got == {"expected": 1, "stated_right": 1, "wrong_statements": 1, "right_rate": 1.0}
    got = score_expressions(sc, Recording(expressions=[(2, "happy")]), {"4": "D", "2": "B"})
    assert got["stated_right"] == 0 and got["wrong_statements"] == 1, "her look filed under another's face"


@needs_grid
@pytest.mark.parametrize("way", ["smiling", "laughing"])
def test_the_onlooker_is_drawn_where_the_truth_says_and_her_face_reads_happy(way: str) -> None:
    import dlib

    from m3_agent_ros.bags.onlooker import media_path
    from m3_agent_ros.bags.robot_view_render import FrameRenderer
    from m3_memory.perception.expression import LABELS, ExpressionModel

    if not media_path().is_file():
        pytest.skip(f"{media_path()}: run `python m3_agent_ros/bags/onlooker.py --fetch` (scripts/setup.sh does)")
    sc = make_robot_scene(600, GRID, onlooker=way)
    (her,) = sc.onlookers
    fr, det, model = FrameRenderer(sc, GRID), dlib.get_frontal_face_detector(), ExpressionModel()
    shot = next(s for s in sc.shots if any(p.person == her for p in s.people))
    checked = 0
    for t in np.arange(shot.start + 1.5, shot.end - 1.5, 1.0):
        box = dict(sc.in_view(float(t))).get(her)
        if box is None:
            continue
        img = fr.frame(float(t))
        x1, y1, x2, y2 = box
        found = [r for r in det(img, 1) if x1 - 10 <= (r.left() + r.right()) / 2 <= x2 + 10
                 and y1 - 10 <= (r.top() + r.bottom()) / 2 <= y2 + 10]
        assert found, f"no face at her true box at t={t:.1f}"
        r = found[0]
        grey = np.dot(img[max(0, r.top()):r.bottom(), max(0, r.left()):r.right()], [0.299, 0.587, 0.114])
        p = model.probabilities(grey.astype(np.uint8))
        assert LABELS[int(np.argmax(p))] == "happy", dict(zip(LABELS, p.round(2), strict=True))
        checked += 1
    assert checked >= 3
