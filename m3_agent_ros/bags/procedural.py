"""Procedural benchmark scenes from the real GRID talking-face clips (one person saying one GRID sentence each).

``make_scene(seed, grid_dir)`` draws a scene with ``random.Random(seed)``: 3-5 people in random roles, 10-22
speaking turns in random order with pauses of 0.6-3.0 s, usually one muted appearance (a person on camera who
does not speak), and a robot that stays in named places for 15-45 s at a time and drives to the next one during
a pause. Every time in the scene is derived from the clips' real lengths as ``compose`` plays them, so the
ground-truth ``events`` (who was seen or heard, when, saying what, where) are exact; the questions and their
reference answers (:mod:`.procedural_questions`) are computed from those events. ``build_bag`` composes the
video and converts it to a rosbag with odometry and ``places.yaml`` beside it, as ``demo_scene`` does.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

FPS = 25                     # compose()'s frame rate: every time in a scene is a whole number of its frames
SIZE = (360, 288)            # compose()'s default frame size
START_TIME = 1750150800.0    # 2025-06-17T09:00:00Z: the bags' recorded start (fixed: a rebuild is reproducible)
ODOM_HZ = 10.0
PLACE_POOL = ("kitchen", "office", "lab", "porch", "bedroom", "garage", "hallway", "living room", "workshop",
              "garden", "bathroom", "library")
PLACE_RADIUS = 2.0
MIN_PLACE_DIST = 6.0
DRIVE_S = 1.0                # the robot drives between places in about a second, always inside a pause
STAY_S = (15.0, 45.0)
PAUSE_S = (0.6, 3.0)
LETTERS = "ABCDE"


@dataclass
class SceneSegment:
    kind: str                # "speak" (seen and heard), "muted" (seen, silent) or "gap" (empty background)
    person: str = ""         # the person's letter ("" for a gap)
    start: float = 0.0       # scene seconds
    seconds: float = 0.0
    repeats: int = 1         # a muted appearance may play its clip more than once in a row


@dataclass
class Event:
    person: str
    kind: str                # "voice": seen saying their sentence (heard); "face": seen, silent
    start: float
    end: float
    text: str                # what was said ("" for a face event)
    place: str               # where the robot was at the event's middle
    speech: tuple[float, float] | None = None   # the audible part of a voice event (the clip has silence around it)


@dataclass
class SceneDef:
    seed: int
    people: dict[str, str]               # letter -> GRID clip code
    sentences: dict[str, str]            # letter -> the clip's sentence (said only if the person speaks)
    segments: list[SceneSegment]
    places: list[dict]                   # [{name, x, y, radius}] in frame map (only the places visited)
    path: list[tuple[float, str]]        # (t, place): stays where consecutive names agree, drives between
    duration: float
    events: list[Event] = field(default_factory=list)
    other_sentences: list[str] = field(default_factory=list)   # GRID sentences of clips not in this scene

    def place_at(self, t: float) -> str | None:
        """Where the robot was at ``t`` (None while it drives)."""
        for (t0, a), (t1, b) in zip(self.path, self.path[1:], strict=False):
            if t0 <= t <= t1:
                return a if a == b else None
        return None

    def stays(self) -> list[tuple[float, float, str]]:
        """(start, end, place) of every stay in time order."""
        return [(t0, t1, a) for (t0, a), (t1, b) in zip(self.path, self.path[1:], strict=False) if a == b]

    def to_json(self) -> dict:
        return asdict(self)


def grid_sentences(grid_dir: str | Path) -> dict[str, str]:
    """{clip code: sentence} of every clip in ``transcripts_derived.tsv`` (whether or not its file is present)."""
    out: dict[str, str] = {}
    for line in (Path(grid_dir) / "transcripts_derived.tsv").read_text().splitlines():
        cols = line.split("\t")
        if len(cols) >= 3 and not line.startswith("#") and cols[0] != "file":
            out[cols[1]] = cols[2].strip()
    return out


def grid_clips(grid_dir: str | Path) -> dict[str, str]:
    """{clip code: sentence} of the clips whose ``<code>.mpg`` is in ``grid_dir``."""
    return {c: s for c, s in grid_sentences(grid_dir).items() if (Path(grid_dir) / f"{c}.mpg").is_file()}


@cache
def clip_info(path: str) -> tuple[int, float, float]:
    """(frames as compose() plays the clip, start and end of its audible speech in seconds from the clip start).
    Frames are counted by compose's own decoder; speech is where the 25 ms RMS exceeds 10 % of the clip's peak."""
    import numpy as np

    from .compose import SR_OUT, _decode

    frames, pcm = _decode(Path(path), SIZE, FPS)
    x = pcm.astype(np.float64)
    rms = np.sqrt(np.convolve(x * x, np.ones(400) / 400, "same"))
    loud = np.flatnonzero(rms > 0.1 * rms.max()) if len(rms) and rms.max() > 0 else np.array([0, len(pcm) - 1])
    return len(frames), round(loud[0] / SR_OUT, 3), round(loud[-1] / SR_OUT, 3)


def _turn_counts(rng: random.Random, n: int) -> list[int]:
    """Turns per speaker: 10-22 in all, someone speaks at most twice, someone at least three times, and nobody
    so often that two of their turns would have to follow each other."""
    while True:
        counts = [rng.choices(range(1, 10), weights=(4, 4, 3, 3, 2, 2, 1, 1, 1))[0] for _ in range(n)]
        total = sum(counts)
        if 10 <= total <= 22 and min(counts) <= 2 and max(counts) >= 3 and 2 * max(counts) <= total + 1:
            return counts


def _order(rng: random.Random, counts: dict[str, int]) -> list[str]:
    """A random order of the turns in which nobody speaks twice in a row."""
    while True:
        left, out = dict(counts), []
        while any(left.values()):
            opts = [p for p, c in left.items() if c and (not out or p != out[-1])]
            if not opts:
                break
            p = rng.choices(opts, weights=[left[o] for o in opts])[0]
            out.append(p)
            left[p] -= 1
        if not any(left.values()):
            return out


def _positions(rng: random.Random, n: int) -> list[tuple[float, float]]:
    while True:
        pts = [(round(rng.uniform(-12, 12) * 2) / 2, round(rng.uniform(-12, 12) * 2) / 2) for _ in range(n)]
        if all(math.dist(p, q) >= MIN_PLACE_DIST for i, p in enumerate(pts) for q in pts[i + 1:]):
            return pts


def _frames(rng: random.Random, lo: float, hi: float) -> int:
    return int(round(rng.uniform(lo, hi) * FPS))


def make_scene(seed: int, grid_dir: str | Path) -> SceneDef:
    grid_dir = Path(grid_dir)
    rng = random.Random(seed)
    clips = grid_clips(grid_dir)
    if len(clips) < 3:
        raise ValueError(f"{grid_dir}: needs at least 3 GRID clips with transcripts, found {len(clips)}")
    codes = rng.sample(sorted(clips), rng.randint(3, min(5, len(clips))))
    people = {LETTERS[i]: c for i, c in enumerate(codes)}
    silent_only = len(people) >= 4 and rng.random() < 0.5        # a person who is seen but never speaks
    muted = silent_only or rng.random() < 0.75                   # one muted appearance in most scenes
    speakers = list(people)[: len(people) - int(silent_only)]
    order: list[tuple[str, str]] = [("speak", p) for p in
                                    _order(rng, dict(zip(speakers, _turn_counts(rng, len(speakers)), strict=True)))]
    if muted:  # between two turns, never next to one of the same person's own
        slots = {p: [i for i in range(1, len(order)) if p not in (order[i - 1][1], order[i][1])] for p in people}
        who = list(people)[-1] if silent_only else rng.choice([p for p in speakers if slots[p]])
        order.insert(rng.choice(slots[who]), ("muted", who))
    info = {p: clip_info(str(grid_dir / f"{c}.mpg")) for p, c in people.items()}
    segments: list[SceneSegment] = []
    cursor = 0

    def add(kind: str, person: str, frames: int, repeats: int = 1) -> None:
        nonlocal cursor
        segments.append(SceneSegment(kind, person, cursor / FPS, frames / FPS, repeats))
        cursor += frames

    add("gap", "", _frames(rng, 0.6, 1.5))
    for i, (kind, p) in enumerate(order):
        reps = rng.choice((1, 2)) if kind == "muted" else 1
        add(kind, p, info[p][0] * reps, reps)
        add("gap", "", _frames(rng, 1.0, 2.0) if i == len(order) - 1 else _frames(rng, *PAUSE_S))
    duration = cursor / FPS
    names = rng.sample(PLACE_POOL, rng.randint(2, 4))
    pos = dict(zip(names, _positions(rng, len(names)), strict=True))
    path = _path(rng, names, segments, duration)
    visited = {p for _, p in path}
    scene = SceneDef(seed, people, {p: clips[c] for p, c in people.items()}, segments,
                     [{"name": n, "x": pos[n][0], "y": pos[n][1], "radius": PLACE_RADIUS} for n in names
                      if n in visited], path, duration,
                     other_sentences=[s for c, s in sorted(grid_sentences(grid_dir).items()) if c not in codes])
    for s in segments:
        if s.kind == "gap":
            continue
        mid, end = s.start + s.seconds / 2, round(s.start + s.seconds, 4)
        place = scene.place_at(mid)
        assert place is not None, "events never happen while the robot drives"
        if s.kind == "speak":
            _, on, off = info[s.person]
            scene.events.append(Event(s.person, "voice", s.start, end, scene.sentences[s.person], place,
                                      (round(s.start + on, 4), round(s.start + off, 4))))
        else:
            scene.events.append(Event(s.person, "face", s.start, end, "", place))
    return scene


def _path(rng: random.Random, names: list[str], segments: list[SceneSegment],
          duration: float) -> list[tuple[float, str]]:
    """Stays of 15-45 s (the first one short enough that the robot moves at least once); each drive takes
    DRIVE_S in the middle of the first pause long enough for it after the stay's planned end."""
    cur = rng.choice(names)
    path: list[tuple[float, str]] = [(0.0, cur)]
    visited = [cur]
    target = min(rng.uniform(*STAY_S), 0.5 * duration)
    for s in segments[1:-1]:
        end = s.start + s.seconds
        if s.kind != "gap" or s.seconds < DRIVE_S + 0.4 or s.start < target or duration - end < 8.0:
            continue
        mid = s.start + s.seconds / 2
        nxt = rng.choice([n for n in names if n not in visited] or [n for n in names if n != cur])
        path += [(round(mid - DRIVE_S / 2, 3), cur), (round(mid + DRIVE_S / 2, 3), nxt)]
        visited.append(nxt)
        cur = nxt
        target = mid + DRIVE_S / 2 + rng.uniform(*STAY_S)
    return path + [(duration, cur)]
