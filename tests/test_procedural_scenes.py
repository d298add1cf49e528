"""Procedural benchmark scenes (m3_agent_ros.bags.procedural): determinism, consistent events, and every question's
reference recomputed by brute force from the events (no models, no bag conversion)."""

from __future__ import annotations

import importlib.util
import math
from collections import Counter
from pathlib import Path

import pytest

from m3_agent_ros.bags.procedural import PAUSE_S, SceneDef, make_scene
from m3_agent_ros.bags.procedural_phrasings import PHRASINGS
from m3_agent_ros.bags.procedural_questions import (
    KINDS,
    REPORT_SEEDS,
    SEEN_SEEDS,
    TUNE_SEEDS,
    SceneQuestion,
    scene_questions,
    split_of,
    split_questions,
)
from m3_control.evaluation.judge import StrictMatchJudge

from .media import GRID, need

# a mark, not a module-level importorskip: a collection-time skip would count as a skipped test in every selection
pytestmark = pytest.mark.skipif(importlib.util.find_spec("av") is None, reason="PyAV is not installed")
SEEDS = [100, 103, 204, 207]


@pytest.fixture(scope="module")
def scenes() -> dict[int, SceneDef]:
    return {s: make_scene(s, need(GRID)) for s in SEEDS}


def test_same_seed_same_scene(scenes: dict[int, SceneDef]) -> None:
    assert make_scene(100, GRID).to_json() == scenes[100].to_json()
    assert make_scene(101, GRID).to_json() != scenes[100].to_json()
    assert [(q.question, q.answer) for q in scene_questions(make_scene(100, GRID))] == \
        [(q.question, q.answer) for q in scene_questions(scenes[100])]


def _at(scene: SceneDef, t: float) -> str | None:
    """Where the robot was at t, read off the path by brute force (None while driving)."""
    for (t0, a), (t1, b) in zip(scene.path, scene.path[1:], strict=False):
        if t0 <= t <= t1:
            return a if a == b else None
    return None


@pytest.mark.parametrize("seed", SEEDS)
def test_events_consistent(scenes: dict[int, SceneDef], seed: int) -> None:
    sc = scenes[seed]
    ev = sorted(sc.events, key=lambda e: e.start)
    assert 3 <= len(sc.people) <= 5 and 2 <= len(sc.places) <= 4
    assert all(b.start >= a.end for a, b in zip(ev, ev[1:], strict=False)), "events overlap"
    t = 0.0
    for s in sc.segments:  # contiguous, summing to the duration
        assert s.start == pytest.approx(t)
        t += s.seconds
    assert t == pytest.approx(sc.duration)
    inner = [s for s in sc.segments[1:-1] if s.kind == "gap"]
    assert all(PAUSE_S[0] - 0.03 <= s.seconds <= PAUSE_S[1] + 0.03 for s in inner)
    for e in ev:  # every event lies inside one stay
        assert e.place and e.place == _at(sc, (e.start + e.end) / 2) == _at(sc, e.start) == _at(sc, e.end)
        assert (e.kind == "voice") == bool(e.text)
        if e.kind == "voice":
            assert e.text == sc.sentences[e.person] and e.start < e.speech[0] < e.speech[1] < e.end
    segs = Counter((s.person, s.kind) for s in sc.segments if s.kind != "gap")
    assert segs == Counter((e.person, "speak" if e.kind == "voice" else "muted") for e in ev)
    turns = Counter(e.person for e in ev if e.kind == "voice")
    assert 10 <= sum(turns.values()) <= 22 and min(turns.values()) <= 2 and max(turns.values()) >= 3
    voice = [e.person for e in ev if e.kind == "voice"]
    assert all(a != b for a, b in zip(voice, voice[1:], strict=False)), "nobody speaks twice in a row"
    names = [p["name"] for p in sc.places]
    assert {p for _, p in sc.path} == set(names)
    xy = [(p["x"], p["y"]) for p in sc.places]
    assert all(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 >= 6 for i, a in enumerate(xy) for b in xy[i + 1:])
    gaps = [(s.start, s.start + s.seconds) for s in sc.segments if s.kind == "gap"]
    for (t0, a), (t1, b) in zip(sc.path, sc.path[1:], strict=False):
        if a != b:  # a drive: about a second, inside one pause
            assert t1 - t0 == pytest.approx(1.0, abs=0.01) and any(g0 <= t0 and t1 <= g1 for g0, g1 in gaps)


def test_scenes_vary() -> None:
    seen = [make_scene(s, need(GRID)) for s in list(TUNE_SEEDS) + list(REPORT_SEEDS)]
    assert len({len(s.people) for s in seen}) >= 2
    assert sum(any(e.kind == "face" for e in s.events) for s in seen) > len(seen) / 2
    assert any({e.person for e in s.events} - {e.person for e in s.events if e.kind == "voice"} for s in seen)
    assert len({tuple(sorted(Counter(e.person for e in s.events if e.kind == "voice").values())) for s in seen}) > 5


def _who(sc: SceneDef, p: str) -> str:
    return f"the person who said '{sc.sentences[p]}'"


def _mmss(t: float) -> str:
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def _unique(counts: dict[str, int], most: bool) -> str | None:
    best = max(counts.values()) if most else min(counts.values())
    top = [p for p, c in counts.items() if c == best]
    return top[0] if len(top) == 1 else None


def _brute(sc: SceneDef, q: SceneQuestion) -> str:
    """The reference recomputed from the events alone."""
    ev = sorted(sc.events, key=lambda e: e.start)
    turns = [e for e in ev if e.kind == "voice"]
    count = Counter(e.person for e in turns)
    pr = q.params
    p = pr.get("p")
    mine = [e for e in turns if e.person == p]
    firsts = sorted(count, key=lambda x: min(e.start for e in turns if e.person == x))
    in_win = [e for e in turns if "a" in pr and e.end > pr["a"] and e.start < pr["b"]]
    in_place = [e for e in turns if e.place == pr.get("place")]
    role = {"first": turns[0].person, "last": max(turns, key=lambda e: e.end).person,
            "most": _unique(count, True)}.get(pr.get("role", ""))
    at = [e for e in turns if e.start <= pr.get("t", -1) <= e.end]
    before = after = None
    if mine:
        earlier = [e for e in ev if e.end <= mine[0].start]
        later = [e for e in ev if e.start >= mine[0].end]
        before = earlier[-1].person if earlier and earlier[-1].kind == "voice" else None
        after = later[0].person if later and later[0].kind == "voice" else None
    k = q.kind
    yes = {"more_than_k": lambda: count[p] > pr["k"],
           "spoke_in_place": lambda: any(e.place == pr["place"] for e in mine),
           "same_person": lambda: p == role,
           "spoke_before": lambda: min(e.start for e in turns if e.person == pr["p1"])
           < min(e.start for e in turns if e.person == pr["p2"]),
           "said_exists_yes": lambda: any(e.text == pr["s"] for e in ev),
           "said_exists_no": lambda: any(e.text == pr["s"] for e in ev)}
    if k in yes:
        return "Yes" if yes[k]() else "No"
    simple = {
        "count_people_total": lambda: str(len({e.person for e in ev})),
        "count_people_window": lambda: str(len({e.person for e in in_win})),
        "count_people_place": lambda: str(len({e.person for e in in_place})),
        "count_people_exactly_k": lambda: str(sum(c == pr["k"] for c in count.values())),
        "count_silent_people": lambda: str(len({e.person for e in ev} - set(count))),
        "count_places": lambda: str(len({x for _, x in sc.path})),
        "count_turns_person": lambda: str(len(mine)),
        "count_turns_place": lambda: str(len(in_place)),
        "count_turns_window": lambda: str(len(in_win)),
        "count_turns_person_place": lambda: str(sum(e.person == p for e in in_place)),
        "first_speaker": lambda: _who(sc, turns[0].person),
        "last_speaker": lambda: _who(sc, turns[-1].person),
        "nth_speaker": lambda: _who(sc, firsts[pr["n"] - 1]),
        "right_before": lambda: _who(sc, before),
        "right_after": lambda: _who(sc, after),
        "only_once": lambda: _who(sc, next(x for x, c in count.items() if c == 1)),
        "most_talkative": lambda: _who(sc, _unique(count, True)),
        "least_talkative": lambda: _who(sc, _unique(count, False)),
        "most_in_place": lambda: _who(sc, _unique(Counter(e.person for e in in_place), True)),
        "speaker_at_time": lambda: _who(sc, at[0].person),
        "spoke_more_of_two": lambda: _who(sc, max((pr["p1"], pr["p2"]), key=lambda x: count[x])),
        "what_nth": lambda: sc.sentences[firsts[pr["n"] - 1]],
        "what_right_before": lambda: sc.sentences[before],
        "what_at_time": lambda: at[0].text,
        "when_first_spoke": lambda: _mmss(mine[0].start),
        "when_last_spoke": lambda: _mmss(mine[-1].start),
        "where_spoke": lambda: f"in the {mine[0].place}",
        "where_first_saw": lambda: f"in the {next(e.place for e in ev if e.person == p)}",
        "where_last_saw": lambda: f"in the {[e.place for e in ev if e.person == p][-1]}",
        "place_at_time": lambda: f"in the {_at(sc, pr['t'])}",
        "first_place": lambda: f"in the {sc.path[0][1]}",
        "last_place": lambda: f"in the {sc.path[-1][1]}",
    }
    return simple[k]()


@pytest.mark.parametrize("seed", SEEDS)
def test_references_match_brute_force(scenes: dict[int, SceneDef], seed: int) -> None:
    sc = scenes[seed]
    qs = scene_questions(sc)
    ev = sorted(sc.events, key=lambda e: e.start)
    speech = [x for e in ev if e.kind == "voice" for x in e.speech]
    for q in qs:
        assert q.at == pytest.approx(math.ceil(sc.duration / 30.0) * 30.0 + 1.0)  # after the last clip's slot
        if not q.answerable:
            assert q.kind in ("unknown_quote_count", "unknown_place", "unknown_name", "future_time")
            assert q.params.get("s") not in sc.sentences.values()
            assert q.params.get("place") not in [p["name"] for p in sc.places]
            assert q.params.get("t", sc.duration + 1) > sc.duration
            continue
        want = _brute(sc, q)
        assert q.answer.split(",")[0] == want, (q.id, q.question, q.answer, want)
        for key in ("p", "p1", "p2"):
            if key in q.params:
                assert _who(sc, q.params[key]) in q.question
        if "a" in q.params:  # window edges inside pauses, away from speech
            for t in (q.params["a"], q.params["b"]):
                assert all(not e.start <= t <= e.end for e in ev)
                assert min(abs(t - x) for x in speech) >= 1.5
        if q.kind in ("speaker_at_time", "what_at_time"):
            e = next(e for e in ev if e.start <= q.params["t"] <= e.end)
            assert e.start + 0.8 <= q.params["t"] <= e.end - 0.8 and e.speech[0] < q.params["t"] < e.speech[1]
        if q.kind == "said_exists_no":
            assert all(sum(a != b for a, b in zip(q.params["s"].split(), s.split(), strict=True)) >= 3
                       for s in sc.sentences.values())


def test_every_kind_is_checked(scenes: dict[int, SceneDef]) -> None:
    assert {q.kind for sc in scenes.values() for q in scene_questions(sc)} == set(KINDS)


def test_kinds_and_phrasings() -> None:
    assert len(KINDS) >= 30 and set(KINDS) == set(PHRASINGS)
    assert all(len(PHRASINGS[k]) >= 4 for k in KINDS)
    assert all(len([i for i in range(len(PHRASINGS[k])) if split_of(REPORT_SEEDS[0], i) == "report"]) >= 2
               for k in KINDS)
    assert all(len(set(v)) == len(v) for v in PHRASINGS.values())


def test_splits_disjoint(scenes: dict[int, SceneDef]) -> None:
    assert not set(TUNE_SEEDS) & set(REPORT_SEEDS) and not set(SEEN_SEEDS) & set(REPORT_SEEDS)
    tune = split_questions(scenes[100], "tune")
    assert tune and all(q.phrasing < 2 for q in tune) and not split_questions(scenes[100], "report")
    seen = split_questions(scenes[204], "seen")     # the first report split: looked at, no longer a report
    assert seen and all(q.phrasing >= 2 for q in seen) and not split_questions(scenes[204], "tune")
    assert not split_questions(scenes[204], "report")
    assert {q.kind for q in seen} >= {k for k, (ok, _) in KINDS.items() if not ok}
    assert [split_of(400, 2), split_of(400, 0), split_of(204, 3), split_of(500, 2), split_of(500, 1)] == \
        ["report", None, "seen", "fresh", None]


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_formats(scenes: dict[int, SceneDef], seed: int) -> None:
    judge = StrictMatchJudge()
    for q in scene_questions(scenes[seed]):
        abstains = judge.judge(q.question, q.answer, "I don't remember that").correct
        assert abstains == (not q.answerable), (q.id, q.answer)
        assert judge.judge(q.question, q.answer, q.answer).correct, (q.id, q.answer)
        if q.answerable and q.question.startswith(("Did ", "Is ", "Was ", "Are ")):
            assert q.answer.startswith(("Yes", "No")), q.id
        if q.kind.startswith("count_"):
            assert q.answer.isdigit()


def test_muted_segment_is_silent(tmp_path: Path) -> None:
    import av
    import numpy as np

    from m3_agent_ros.bags.compose import Segment, compose

    clip = need(GRID / "bbaf2n.mpg")
    out = tmp_path / "m.mp4"
    dur = compose([Segment(clip), Segment(clip, muted=True)], out)
    with av.open(str(out)) as c:
        pcm = np.concatenate([f.to_ndarray().reshape(-1) for f in c.decode(audio=0)])  # AAC decodes to float
    assert dur == pytest.approx(2 * 2.96)
    half = int(2.96 * 16000)
    assert np.abs(pcm[:half]).max() > 0.05 and np.abs(pcm[half + 8000:]).max() < 1e-3
