"""Scene text: the embedded OCR reads signs in a robot's view; readings become sightings, memories and the clip's
record; a sign cut by the frame's edge is not read as a fragment."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.ingest.clips import Clip
from m3_memory.memorize import Memorizer
from m3_memory.perception.scene_text import (
    SceneTextStage,
    TextReading,
    join_lines,
    letters_and_digits,
    make_text_stage,
    respace,
    sightings,
)

GRID = Path(__file__).resolve().parents[2] / "shared" / "data" / "grid_talking_faces"

pytest.importorskip("rapidocr_onnxruntime")


@pytest.fixture(scope="module")
def stage() -> SceneTextStage:
    s = make_text_stage("rapidocr")
    assert s is not None
    return s


def _board(texts: list[tuple[str, int, int, int]], size: tuple[int, int] = (640, 480)) -> np.ndarray:
    """A grey wall with white boards of black capitals (text, x, y, letter height)."""
    from m3_agent_ros.bags.robot_view import Sign
    from m3_agent_ros.bags.robot_view_render import draw_sign

    img = np.full((size[1], size[0], 3), 150, np.uint8)
    for text, x, y, px in texts:
        draw_sign(img, Sign(text, x, y, px))
    return img


def test_signs_are_read_exactly_and_a_sign_cut_by_the_edge_is_left_out(stage) -> None:  # noqa: ANN001
    img = _board([("EXIT 12", 40, 40, 24), ("DOCK 7B", 300, 200, 32), ("LAB 44", 560, 60, 28)])
    clip = Clip(0, 0.0, 30.0, frames=[img, img, img], frame_times=[0.0, 1.0, 3.5])
    an = stage.analyze(clip)
    assert an.frames_read == [0.0, 3.5], "a frame every 3 s"
    read = {r.text for r in an.readings}
    assert {"EXIT 12", "DOCK 7B"} <= read
    assert not any("LAB" in t or "44" in t for t in read), "the board cut by the right edge gives no fragment"
    (exit_12,) = [s for s in an.sightings if s.text == "EXIT 12"]
    assert (exit_12.first, exit_12.last, exit_12.frames) == (0.0, 3.5, 2)
    blank = stage.analyze(Clip(1, 30.0, 60.0, frames=[np.full((480, 640, 3), 150, np.uint8)], frame_times=[30.0]))
    assert blank.readings == [] and blank.frames_read == [30.0]


@pytest.mark.skipif(not GRID.is_dir(), reason="needs ../shared/data/grid_talking_faces")
def test_a_robot_view_frames_signs_are_read(stage) -> None:  # noqa: ANN001
    from m3_agent_ros.bags.robot_view import make_robot_scene
    from m3_agent_ros.bags.robot_view_render import FrameRenderer

    scene = make_robot_scene(601, GRID)
    fr = FrameRenderer(scene, GRID)
    shown = read = 0
    for t in (5.0, 20.0, 40.0):
        want = {s.text for s in scene.signs_in_view(t)}
        got = {r.text for r in stage.analyze(Clip(0, t, t + 1, frames=[fr.frame(t)], frame_times=[t])).readings}
        shown += len(want)
        read += len(want & got)
    assert shown >= 2 and read == shown


def test_readings_of_one_text_are_one_sighting_in_time_order() -> None:
    rs = [TextReading(4.0, "exit  12", (0, 0, 1, 1), 0.9), TextReading(1.0, "EXIT 12", (0, 0, 1, 1), 0.95),
          TextReading(2.0, "Dock 7", (0, 0, 1, 1), 0.85)]
    out = sightings(rs)
    assert [(s.text, s.first, s.last, s.frames, s.score) for s in out] == [
        ("EXIT 12", 1.0, 4.0, 2, 0.95), ("DOCK 7", 2.0, 2.0, 1, 0.85)]
    # a frame that read only part of a sign: kept with the whole text, not as a text of its own
    rs += [TextReading(6.0, "EXIT", (0, 0, 1, 1), 0.9), TextReading(7.0, "12", (0, 0, 1, 1), 0.9),
           TextReading(8.0, "EXIT 1", (0, 0, 1, 1), 0.9)]
    out = sightings(rs)
    assert [(s.text, s.last, s.parts) for s in out] == [("EXIT 12", 7.0, ["12", "EXIT"]), ("DOCK 7", 2.0, []),
                                                         ("EXIT 1", 8.0, [])]
    assert out[0].to_json()["parts"] == ["12", "EXIT"]


def test_words_the_detector_boxed_apart_on_one_line_are_one_reading() -> None:
    found = [((175.0, 51.0, 205.0, 71.0), "8H", 0.99), ((100.0, 50.0, 160.0, 70.0), "ZONE", 0.97),
             ((400.0, 50.0, 440.0, 70.0), "DOCK", 0.95),      # far along the line: another sign
             ((100.0, 90.0, 160.0, 110.0), "LIFT", 0.93),     # the line below
             ((170.0, 95.0, 260.0, 135.0), "BIG", 0.9)]      # beside it, but twice as tall
    out = sorted((text, score) for _, text, score in join_lines(found))
    assert out == [("BIG", 0.9), ("DOCK", 0.95), ("LIFT", 0.93), ("ZONE 8H", 0.97)]
    assert join_lines([]) == []


def test_a_space_the_recognizer_dropped_is_put_back_where_the_characters_stand_apart() -> None:
    # "BAY73" as the recognizer gave it on a robot-view sign: Y ends at 224, 7 starts at 248 (characters ~20 wide)
    units = [("B", 163, 184), ("A", 186, 205), ("Y", 205, 224), ("7", 248, 269), ("3", 271, 292)]
    assert respace(units) == "BAY 73"
    assert respace([("Z", 0, 24), ("O", 24, 49), (" ", 49, 60), ("B", 60, 84), ("9", 84, 108)]) == "ZO B9"
    assert respace([("B", 0, 20), ("9", 23, 43)]) == "B9", "a narrow gap is no space"
    # "EXIT E6" as read: the recognizer's boxes leave 15 px between E and X (0.7 of a character)
    exit_e6 = [("E", 46, 70), ("X", 85, 105), ("I", 105, 125), ("T", 125, 149), (" ", 149, 174), ("E", 181, 206),
               ("6", 213, 238)]
    assert respace(exit_e6) == "EXIT E6"
    assert respace([("EXIT", 0, 80), ("12", 110, 150)]) == "EXIT 12", "units may be words"
    assert respace([]) == ""


def test_a_zero_between_letters_is_an_o_and_an_o_between_digits_a_zero() -> None:
    assert letters_and_digits("RO0M 78") == "ROOM 78"
    assert letters_and_digits("GATE 1O5") == "GATE 105"
    assert letters_and_digits("B0 0B A0 10") == "B0 0B A0 10", "codes that mix letters and digits stay"
    assert letters_and_digits("ZONE B9") == "ZONE B9"


def test_the_embedded_ocr_gives_a_signs_spaces_and_letters() -> None:
    stage = make_text_stage("rapidocr")      # its own: the module's stage would take an earlier wall's readings
    assert stage is not None
    img = _board([("BAY 73", 60, 60, 26), ("ROOM 78", 300, 220, 32)])
    read = {r.text for r in stage.analyze(Clip(0, 0.0, 1.0, frames=[img], frame_times=[0.0])).readings}
    assert {"BAY 73", "ROOM 78"} <= read


class _FakeOcr:
    """Stands in for the OCR model only: the stage's filtering and the memorizer's storing are what is tested."""
    name = "fake"

    def read(self, rgb: np.ndarray) -> list:
        return [((100.0, 100.0, 220.0, 130.0), "EXIT 12", 0.97), ((0.0, 50.0, 60.0, 80.0), "IT 3", 0.99),
                ((300.0, 300.0, 420.0, 330.0), "smudge", 0.41)]


def test_the_memorizer_keeps_sightings_with_the_clip_and_writes_them_as_memories(tmp_path) -> None:  # noqa: ANN001
    store = MemoryStore(tmp_path / "m.db")
    mem = Memorizer(store, None, None, "embedded", texts=SceneTextStage(_FakeOcr()))
    frame = np.zeros((480, 640, 3), np.uint8)
    res = mem.process(Clip(0, 0.0, 30.0, frames=[frame] * 4, frame_times=[0.0, 1.0, 3.0, 6.0]))
    assert res.timings["scene_text"] >= 0
    assert 'Text reading "EXIT 12" is in view.' in res.texts
    assert not any("IT 3" in t or "smudge" in t for t in res.texts)
    ((_, _, _, _, extra),) = list(store.clip_rows())
    assert extra["scene_text"] == {"frames_read": 3, "sightings": [
        {"text": "EXIT 12", "first": 0.0, "last": 6.0, "frames": 3, "score": 0.97, "parts": []}]}


class _Counting:
    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    def read(self, rgb: np.ndarray) -> list:
        self.calls += 1
        return [((100.0, 100.0, 220.0, 130.0), "EXIT 12", 0.97)]


def test_a_view_that_did_not_change_is_not_read_again() -> None:
    ocr = _Counting()
    stage = SceneTextStage(ocr)
    still = np.full((480, 640, 3), 120, np.uint8)
    moved = still.copy()
    moved[:, :320] = 30
    clip = Clip(0, 0.0, 30.0, frames=[still, still, moved, moved], frame_times=[0.0, 3.0, 6.0, 9.0])
    an = stage.analyze(clip)
    assert ocr.calls == 2, "read at 0 s and again when the view changed at 6 s"
    assert an.frames_read == [0.0, 3.0, 6.0, 9.0]
    assert [r.time for r in an.readings] == [0.0, 3.0, 6.0, 9.0], "the unchanged frames keep the text read"


def test_a_view_seen_before_is_not_read_again_until_its_reading_is_old() -> None:
    ocr = _Counting()
    stage = SceneTextStage(ocr)
    a = np.full((480, 640, 3), 120, np.uint8)
    b = a.copy()
    b[:, :320] = 30
    clip = Clip(0, 0.0, 60.0, frames=[a, b, a, b, a], frame_times=[0.0, 3.0, 6.0, 9.0, 40.0])
    stage.analyze(clip)
    assert ocr.calls == 3, "a and b read once each; a again at 40 s (its reading is over 30 s old)"
