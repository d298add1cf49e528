"""Scene text: what is written on signs, labels, screens and boards in view (issue 30).

The embedded backend is RapidOCR (``rapidocr-onnxruntime``: PP-OCRv4 mobile detection and recognition ONNX models
inside the wheel, Apache-2.0), run on the CPU offline. OCR costs about 0.3 s per 640x480 frame on one core, so a
clip's sampled frames are read at most every ``every_s`` seconds (3: text on a wall stays; RTF ~0.1). A reading is
kept when its recognition score is at least ``min_score``, its letters are at least ``min_text_px`` high and its
box does not touch the frame's edge (a sign cut by the edge reads as a fragment: "1C" for "EXIT 1C"). Words the
detector boxed apart on one line of text (same height, side by side, a gap under ``join_gap`` letter heights) are
one reading ("ZONE" + "8H" -> "ZONE 8H": a sign's line is what it says; the pieces alone were found first). A frame
that looks like one of the last frames read (``same_view``) takes its readings without running OCR again.

The recognizer drops some spaces ("BAY73" for "BAY 73") and reads a letter O as a zero between letters ("RO0M"):
a reading is spelled again from where its characters stand (a gap of ``space_gap`` character widths or more
between two characters is a space, :func:`respace`) and a 0 / O whose neighbours are both letters / both digits
takes their kind (:func:`letters_and_digits`).

Readings of one text in a clip become one :class:`TextSighting` (first and last time read, how many frames); the
memorizer keeps the sightings in the clip's record (``extra.scene_text``) and the memory writer writes them as
episodic memories ('Text reading "EXIT 12" is in view.').
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


@dataclass
class TextConfig:
    every_s: float = 3.0          # read a sampled frame at most this often
    min_score: float = 0.8        # recognition confidence (0..1)
    min_text_px: int = 12         # box height in pixels
    edge_px: int = 3              # boxes this close to the frame's edge are cut-off fragments
    join_gap: float = 1.5         # words on one line at most this many letter heights apart are one reading
    # a frame that differs from one of the last `views` frames read by less than this (mean absolute grey level on
    # a 80x60 copy) shows the same text: that frame's readings are taken instead of running OCR again (a camera
    # that holds still, or looks back at a place it saw), for up to reread_s after they were read
    same_view: float = 4.0
    views: int = 8
    reread_s: float = 30.0
    # a gap between two characters this many character widths wide is a space (robot-view signs: letters of one
    # word stand up to 0.7 apart by the recognizer's character boxes, a dropped space leaves 1.1-1.2)
    space_gap: float = 0.9


@dataclass
class TextReading:
    time: float
    text: str
    box: tuple[float, float, float, float]   # x1, y1, x2, y2 in frame pixels
    score: float


@dataclass
class TextSighting:
    text: str
    first: float
    last: float
    frames: int
    score: float                  # the best reading's
    # readings of part of this text in the same clip ("ROOM" of "ROOM D4": a word the detector missed in a frame)
    parts: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(self).items()}


@dataclass
class TextAnalysis:
    readings: list[TextReading] = field(default_factory=list)
    sightings: list[TextSighting] = field(default_factory=list)
    frames_read: list[float] = field(default_factory=list)   # times of the frames OCR ran on
    bad_frames: int = 0


def normalize_text(text: str) -> str:
    """One spelling of a reading for grouping: upper case, single spaces."""
    return re.sub(r"\s+", " ", text).strip().upper()


def respace(units: list[tuple[str, float, float]], gap: float = TextConfig.space_gap) -> str:
    """A line's text from its recognized units (text, left x, right x) in reading order: a space wherever two
    units stand at least ``gap`` character widths apart (the mean width of the line's characters) and the
    recognizer wrote none."""
    chars = sum(len(u.strip()) for u, _, _ in units)
    if not chars:
        return "".join(u for u, _, _ in units)
    width = sum(b - a for u, a, b in units if u.strip()) / chars
    out = units[0][0]
    for (prev, _, end), (cur, start, _) in zip(units, units[1:], strict=False):
        if prev.strip() and cur.strip() and not out.endswith(" ") and start - end >= gap * width:
            out += " "
        out += cur
    return out


def letters_and_digits(text: str) -> str:
    """A zero between two letters is the letter O ("RO0M" -> "ROOM"), an O between two digits a zero ("1O5" ->
    "105"); codes that mix them ("B0", "0B") keep what was read."""
    out = list(text)
    for i in range(1, len(text) - 1):
        a, b = text[i - 1], text[i + 1]
        if text[i] == "0" and a.isalpha() and b.isalpha():
            out[i] = "O"
        elif text[i] in "Oo" and a.isdigit() and b.isdigit():
            out[i] = "0"
    return "".join(out)


def sightings(readings: list[TextReading]) -> list[TextSighting]:
    """One sighting per text; a text whose words are a run of a longer text's words read in the same clip is a
    partial reading of it (a word missed in some frames) and is kept in that sighting's ``parts``, not as a text
    of its own (a memory 'Text reading "ROOM"' beside 'Text reading "ROOM D4"' would answer "ROOM")."""
    by: dict[str, TextSighting] = {}
    for r in sorted(readings, key=lambda r: r.time):
        key = normalize_text(r.text)
        s = by.get(key)
        if s is None:
            by[key] = TextSighting(key, r.time, r.time, 1, r.score)
        else:
            s.last, s.frames, s.score = r.time, s.frames + 1, max(s.score, r.score)
    for key in sorted(by, key=len):
        words = key.split()
        whole = next((by[k] for k in sorted(by, key=lambda k: (-by[k].frames, k)) if k != key
                      and _is_run(words, k.split())), None)
        if whole is not None:
            part = by.pop(key)
            whole.parts.append(part.text)
            whole.first, whole.last = min(whole.first, part.first), max(whole.last, part.last)
    return sorted(by.values(), key=lambda s: (s.first, s.text))


def _is_run(part: list[str], whole: list[str]) -> bool:
    return len(part) < len(whole) and any(whole[i:i + len(part)] == part for i in range(len(whole) - len(part) + 1))


class RapidOcrBackend:
    name = "rapidocr"

    def __init__(self, threads: int = 1, space_gap: float = TextConfig.space_gap) -> None:
        from rapidocr_onnxruntime import RapidOCR

        # one thread by default: OCR runs a few times a clip, while the faces and voices stages and the robot's
        # answers want the other cores
        self._ocr = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
        self.space_gap = space_gap

    def read(self, rgb: np.ndarray) -> list[tuple[tuple[float, float, float, float], str, float]]:
        # it takes BGR; with each character's box (return_word_box) the spaces it dropped can be put back
        result, _ = self._ocr(np.ascontiguousarray(rgb[..., ::-1]), use_cls=False, return_word_box=True)
        out = []
        for quad, text, score, *chars in result or []:
            xs, ys = [p[0] for p in quad], [p[1] for p in quad]
            text = str(text)
            if len(chars) >= 2 and chars[0] and len(chars[0]) == len(chars[1]):   # (char boxes, char texts)
                units = [(str(u), float(min(p[0] for p in q)), float(max(p[0] for p in q)))
                         for q, u in zip(chars[0], chars[1], strict=True)]
                if "".join(u for u, _, _ in units) == text:
                    text = respace(units, self.space_gap)
            out.append(((min(xs), min(ys), max(xs), max(ys)), letters_and_digits(text), float(score)))
        return out


class SceneTextStage:
    def __init__(self, backend: Any, config: TextConfig | None = None) -> None:
        self.backend = backend
        self.config = config or TextConfig()
        self.name = f"scene_text:{backend.name}"
        self._views: list[tuple[np.ndarray, float, list]] = []   # frames OCR ran on: thumbnail, time, readings

    def analyze(self, clip: Any) -> TextAnalysis:
        cfg = self.config
        out = TextAnalysis()
        next_t = -np.inf
        for frame, t in zip(clip.frames, clip.frame_times, strict=True):
            if t + 1e-6 < next_t:
                continue
            if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
                out.bad_frames += 1
                continue
            next_t = t + cfg.every_s
            out.frames_read.append(float(t))
            thumb = _thumb(frame)
            seen = next((v for v in self._views if v[0].shape == thumb.shape and t - v[1] <= cfg.reread_s
                         and float(np.abs(v[0] - thumb).mean()) < cfg.same_view), None)
            if seen is not None:
                found = seen[2]            # the same view: the same text
            else:
                found = self._read(frame)
                self._views = [(thumb, float(t), found), *self._views][: cfg.views]
            out.readings += [TextReading(float(t), text, box, score) for box, text, score in found]
        out.sightings = sightings(out.readings)
        return out

    def _read(self, frame: np.ndarray) -> list[tuple[tuple[float, float, float, float], str, float]]:
        cfg = self.config
        h, w = frame.shape[:2]
        return join_lines([((x1, y1, x2, y2), text, score) for (x1, y1, x2, y2), text, score in self.backend.read(frame)
                           if score >= cfg.min_score and y2 - y1 >= cfg.min_text_px and normalize_text(text)
                           and x1 >= cfg.edge_px and y1 >= cfg.edge_px and x2 <= w - cfg.edge_px
                           and y2 <= h - cfg.edge_px], cfg.join_gap)


def join_lines(found: list[tuple[tuple[float, float, float, float], str, float]], max_gap: float = 1.5
               ) -> list[tuple[tuple[float, float, float, float], str, float]]:
    """Readings of one frame with the words of one line joined: two boxes of about the same height (within a
    third), overlapping vertically by at least two thirds of it, the right one starting at most ``max_gap``
    heights after the left one ends, become one reading (texts joined by a space, the lower score)."""
    out: list[tuple[tuple[float, float, float, float], str, float]] = []
    for box, text, score in sorted(found, key=lambda r: r[0][0]):
        prev = next((i for i in range(len(out) - 1, -1, -1) if _same_line(out[i][0], box, max_gap)), None)
        if prev is None:
            out.append((box, text, score))
            continue
        (a1, b1, a2, b2), ptext, pscore = out[prev]
        x1, y1, x2, y2 = box
        out[prev] = ((a1, min(b1, y1), max(a2, x2), max(b2, y2)), f"{ptext} {text}", min(pscore, score))
    return out


def _same_line(left: tuple[float, float, float, float], right: tuple[float, float, float, float],
               max_gap: float) -> bool:
    hl, hr = left[3] - left[1], right[3] - right[1]
    if min(hl, hr) <= 0 or max(hl, hr) > 1.34 * min(hl, hr):
        return False
    overlap = min(left[3], right[3]) - max(left[1], right[1])
    gap = right[0] - left[2]
    return overlap >= 0.67 * min(hl, hr) and -0.5 * min(hl, hr) <= gap <= max_gap * max(hl, hr)


def _thumb(rgb: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.cvtColor(cv2.resize(rgb, (80, 60), interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY).astype(np.float32)


def make_text_stage(backend: str, **kw: Any) -> SceneTextStage | None:
    """``rapidocr`` (embedded, the default) or ``none``."""
    if backend == "none":
        return None
    if backend != "rapidocr":
        raise ValueError(f"unknown scene text backend {backend!r} (rapidocr, none)")
    cfg = TextConfig(**{k: v for k, v in kw.items() if k in TextConfig.__dataclass_fields__})
    return SceneTextStage(RapidOcrBackend(space_gap=cfg.space_gap), cfg)
