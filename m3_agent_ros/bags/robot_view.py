"""Robot-view scenes: what a robot's camera and microphone get in a room, composed from the real GRID clips.

``make_robot_scene(seed, grid_dir)`` draws a scene with ``random.Random(seed)``: a cast of 3-4 people, shown in
3-4 *shots* of 2-3 people in view at once, each at their own distance (faces 40-120 px high in a 640x480 view),
head turned up to 25 degrees. Between shots one person walks out and another walks in (sliding in from the
frame's edge). In a shot the people in view take turns saying their sentence (the talker plays their clip with
its sound; the others look on, mouths shut). The camera pans slowly across a wider room, shakes, blurs now and
then, and the light is low in some scenes. Signs with text 20-40 px high hang on the wall. The sound goes
through a simulated room (pyroomacoustics: reverberation, each talker's distance and direction) and room noise
is added at 5-20 dB SNR, one level per shot.

Everything the scene shows or plays is derived from this definition, so the ground truth is exact: who is in
view where and when (:meth:`RobotScene.in_view`), who says what when (``turns``), which text is readable when
(:meth:`RobotScene.signs_in_view`). :mod:`.robot_view_render` renders it; :mod:`.robot_view_bag` makes a bag.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .procedural import FPS, LETTERS, clip_info, grid_clips

VIEW = (640, 480)            # the robot camera's frame
CANVAS_W = 1000              # the room's width in pixels at the wall; the camera pans across it
FOCAL_PX = 800.0             # the camera's focal length in pixels (44 degrees across the 640 px view)
FACE_M = 0.2                 # a face is 0.2 m high: a face of h px is 160 / h metres away (40 px: 4 m)
EYE_ABOVE_CAMERA_M = 0.1     # faces are 0.1 m above the camera's axis (a robot head at 1.5 m)
FACE_PX = (40, 120)
MAX_YAW = 25.0
ENTER_S = 1.2                # walking in or out of view takes this long
SHOT_PAD_S = 1.6             # no turn starts in a shot's first or ends in its last SHOT_PAD_S
SNR_LEVELS = (5.0, 10.0, 15.0, 20.0)
SIGN_WORDS = ("EXIT", "ROOM", "LAB", "GATE", "DOCK", "WARD", "BAY", "AISLE", "SUITE", "STORE", "LOCKER", "DESK",
              "ZONE", "PLATFORM", "STUDIO", "OFFICE")


@dataclass
class Placement:
    person: str
    x: float                 # the face's centre on the canvas (pixels)
    face_px: int             # the face's height in the view
    yaw: float               # head turn in degrees (the cut-out is foreshortened)
    enters: bool = False     # walks in at the shot's start
    leaves: bool = False     # walks out at the shot's end

    @property
    def distance_m(self) -> float:
        return round(FOCAL_PX * FACE_M / self.face_px, 3)


@dataclass
class Shot:
    start: float
    end: float
    people: list[Placement]
    snr_db: float


@dataclass
class Turn:
    person: str
    start: float             # the clip plays from here ...
    end: float               # ... to here (scene seconds)
    speech: tuple[float, float]   # the audible part
    text: str
    shot: int


@dataclass
class Sign:
    text: str
    x: int                   # the sign's left edge on the canvas
    y: int                   # its top
    text_px: int             # the height of its capital letters


@dataclass
class RobotScene:
    seed: int
    people: dict[str, str]                   # letter -> GRID clip code
    sentences: dict[str, str]
    shots: list[Shot]
    turns: list[Turn]
    signs: list[Sign]
    duration: float
    pan_px: float                            # the camera pans +-pan_px around the canvas centre ...
    pan_period_s: float                      # ... with this period
    shake_px: float
    blur_spans: list[tuple[float, float]]
    light: float                             # gain on the frame (1: bright, 0.45: dim)
    room: dict = field(default_factory=dict)   # dims (m), rt60 (s)
    onlookers: dict[str, str] = field(default_factory=dict)   # letter -> how a silent onlooker looks on (.onlooker)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> RobotScene:
        d = dict(d)
        d["shots"] = [Shot(s["start"], s["end"], [Placement(**p) for p in s["people"]], s["snr_db"])
                      for s in d["shots"]]
        d["turns"] = [Turn(**{**t, "speech": tuple(t["speech"])}) for t in d["turns"]]
        d["signs"] = [Sign(**s) for s in d["signs"]]
        d["blur_spans"] = [tuple(b) for b in d["blur_spans"]]
        return cls(**d)

    # -- ground truth ------------------------------------------------------------------------------------------
    def look_of(self, person: str) -> str | None:
        """The expression a person shows throughout (an onlooker's), None for the GRID talkers (neutral)."""
        from .onlooker import expression_of

        way = self.onlookers.get(person)
        return expression_of(way) if way is not None else None

    @property
    def everyone(self) -> list[str]:
        """Every person in the scene: the talkers and the silent onlookers."""
        return [*self.people, *self.onlookers]

    def shot_at(self, t: float) -> int | None:
        return next((i for i, s in enumerate(self.shots) if s.start <= t < s.end), None)

    def view_x0(self, t: float) -> float:
        """The canvas x of the view's left edge at ``t`` (the pan, without the shake)."""
        mid = (CANVAS_W - VIEW[0]) / 2
        return mid + self.pan_px * math.sin(2 * math.pi * t / self.pan_period_s)

    def face_x(self, p: Placement, shot: Shot, t: float) -> float:
        """A placement's face centre on the canvas at ``t``: walking in from / out to the nearer canvas edge."""
        edge = -0.6 * p.face_px if p.x < CANVAS_W / 2 else CANVAS_W + 0.6 * p.face_px
        if p.enters and t < shot.start + ENTER_S:
            return edge + (p.x - edge) * max(0.0, t - shot.start) / ENTER_S
        if p.leaves and t > shot.end - ENTER_S:
            return p.x + (edge - p.x) * min(1.0, (t - (shot.end - ENTER_S)) / ENTER_S)
        return p.x

    def in_view(self, t: float) -> list[tuple[str, tuple[float, float, float, float]]]:
        """(person, face box x1, y1, x2, y2 in view pixels) of every face wholly in the view at ``t``."""
        i = self.shot_at(t)
        if i is None:
            return []
        shot, x0 = self.shots[i], self.view_x0(t)
        out = []
        for p in shot.people:
            cx = self.face_x(p, shot, t) - x0
            w = p.face_px * math.cos(math.radians(p.yaw))
            y1 = face_top(p.face_px)
            box = (cx - w / 2, y1, cx + w / 2, y1 + p.face_px)
            if box[0] >= 0 and box[2] <= VIEW[0]:
                out.append((p.person, box))
        return out

    def talker_at(self, t: float) -> str | None:
        return next((u.person for u in self.turns if u.speech[0] <= t <= u.speech[1]), None)

    def signs_in_view(self, t: float) -> list[Sign]:
        """The signs wholly in the view at ``t`` (a sign's width: :func:`sign_width`)."""
        x0 = self.view_x0(t)
        return [s for s in self.signs if s.x - x0 >= 0 and s.x + sign_width(s) - x0 <= VIEW[0]]


def face_top(face_px: int) -> float:
    """A face's top edge in the view (pinhole camera, faces EYE_ABOVE_CAMERA_M above its axis): a farther person's
    face is nearer the horizon (the view's middle row); feet are always below the frame."""
    centre = VIEW[1] / 2 - FOCAL_PX * EYE_ABOVE_CAMERA_M * face_px / (FOCAL_PX * FACE_M)
    return centre - face_px / 2


def sign_width(s: Sign) -> int:
    """The sign board's width: Hershey simplex capitals are about 0.9 of their height wide, plus margins."""
    return int(round(len(s.text) * s.text_px * 0.95 + 1.2 * s.text_px))


def _sign_text(rng: random.Random, used: set[str]) -> str:
    while True:
        word = rng.choice(SIGN_WORDS)
        tail = rng.choice((str(rng.randint(1, 99)), f"{rng.randint(1, 9)}{rng.choice('ABCDEFGH')}",
                           f"{rng.choice('ABCDEFGH')}{rng.randint(1, 9)}"))
        text = f"{word} {tail}"
        if text not in used:
            used.add(text)
            return text


def _signs(rng: random.Random) -> list[Sign]:
    """2-3 signs high on the wall, apart from each other, above every head (the nearest face's top is at 120 px,
    its hair at about 80)."""
    used: set[str] = set()
    while True:
        signs = []
        for _ in range(rng.randint(2, 3)):
            px = rng.randint(20, 40)
            s = Sign(_sign_text(rng, used), 0, rng.randint(8, max(8, 72 - int(1.6 * px))), px)
            s.x = rng.randint(10, CANVAS_W - 10 - sign_width(s))
            signs.append(s)
        spans = sorted((s.x, s.x + sign_width(s)) for s in signs)
        if all(b[0] - a[1] >= 30 for a, b in zip(spans, spans[1:], strict=False)):
            return signs


def _placements(rng: random.Random, people: list[str], entering: set[str], leaving: set[str]) -> list[Placement]:
    """Faces at least 1.3 face widths apart, inside the canvas range the pan keeps in view most of the time."""
    while True:
        out = [Placement(p, rng.uniform(260, CANVAS_W - 260), rng.randint(*FACE_PX),
                         round(rng.uniform(-MAX_YAW, MAX_YAW), 1), p in entering, p in leaving)
               for p in people]
        xs = sorted(out, key=lambda q: q.x)
        if all(b.x - a.x >= 1.3 * 0.8 * (a.face_px + b.face_px) / 2 + 40 for a, b in zip(xs, xs[1:], strict=False)):
            for q in out:
                q.x = round(q.x, 1)
            return out


def make_robot_scene(seed: int, grid_dir: str | Path, quiet: bool = False, onlooker: str | None = None
                     ) -> RobotScene:
    """The seed's scene. ``quiet``: the same scene in a quiet, furnished room (every shot at 20 dB SNR, RT60 0.3 s;
    the bundled demo's), where the noisy rooms of the benchmark's scenes defeat the embedded speech recognition.
    ``onlooker``: with a silent person (:mod:`.onlooker`: "smiling" or "laughing") standing among the people of one
    shot."""
    grid_dir = Path(grid_dir)
    rng = random.Random(seed)
    clips = grid_clips(grid_dir)
    if len(clips) < 3:
        raise ValueError(f"{grid_dir}: needs at least 3 GRID clips with transcripts, found {len(clips)}")
    codes = rng.sample(sorted(clips), min(len(clips), rng.randint(3, 4)))
    people = {LETTERS[i]: c for i, c in enumerate(codes)}
    info = {p: clip_info(str(grid_dir / f"{c}.mpg")) for p, c in people.items()}
    cast = list(people)
    n_shots = rng.randint(3, 4)
    groups: list[list[str]] = [rng.sample(cast, rng.randint(2, min(3, len(cast))))]
    for _ in range(n_shots - 1):   # one person out, one in (or just one in / out), never the same group twice
        prev = groups[-1]
        while True:
            g = [p for p in prev if p != rng.choice(prev)]
            outside = [p for p in cast if p not in g]
            if outside and (len(g) < 2 or rng.random() < 0.7):
                g.append(rng.choice(outside))
            if 2 <= len(g) <= 3 and set(g) != set(prev):
                groups.append(g)
                break
    snrs = [rng.choice(SNR_LEVELS) for _ in groups]
    shots: list[Shot] = []
    turns: list[Turn] = []
    t = 0.0
    for i, g in enumerate(groups):
        entering = set(g) - set(groups[i - 1]) if i else set()
        leaving = set(g) - set(groups[i + 1]) if i + 1 < len(groups) else set()
        start = t
        t += SHOT_PAD_S
        order: list[str] = []
        for _ in range(rng.randint(len(g), len(g) + 2)):   # everyone in view speaks at least once
            opts = [p for p in g if p not in order] or [p for p in g if not order or p != order[-1]]
            order.append(rng.choice(opts))
        for p in order:
            frames, on, off = info[p]
            turns.append(Turn(p, round(t, 4), round(t + frames / FPS, 4), (round(t + on, 4), round(t + off, 4)),
                              clips[people[p]], i))
            t += frames / FPS + round(rng.uniform(0.4, 1.6) * FPS) / FPS
        t += SHOT_PAD_S
        t = round(t * FPS) / FPS
        shots.append(Shot(round(start, 4), round(t, 4), _placements(rng, g, entering, leaving), snrs[i]))
    duration = t
    blur = []
    for _ in range(rng.randint(1, 3)):
        b0 = round(rng.uniform(0, duration - 2), 2)
        blur.append((b0, round(b0 + rng.uniform(0.8, 2.0), 2)))
    scene = RobotScene(seed, people, {p: clips[c] for p, c in people.items()}, shots, turns, _signs(rng),
                       round(duration, 4), round(rng.uniform(60, 180), 1), round(rng.uniform(18, 40), 1),
                       round(rng.uniform(0.0, 3.0), 1), sorted(blur), round(rng.choice((1.0, 0.8, 0.6, 0.45)), 2),
                       {"dims": [round(rng.uniform(6, 9), 1), round(rng.uniform(5, 7), 1), 2.7],
                        "rt60": round(rng.uniform(0.3, 0.7), 2)})
    if quiet:   # after every draw: the same people, shots, signs and camera as the noisy scene of this seed
        for shot in scene.shots:
            shot.snr_db = 20.0
        scene.room["rt60"] = 0.3
    if onlooker:
        add_onlooker(scene, random.Random(seed * 1009 + 17), onlooker)
    return scene


def add_onlooker(scene: RobotScene, rng: random.Random, way: str = "smiling") -> None:
    """A silent person looking on ``way`` (:data:`.onlooker.SEGMENTS`) in one shot (walking in and out with the
    others), drawn with her own random generator after everything else, so the scene's other people, shots and
    sounds stay those of the seed."""
    letter = LETTERS[len(scene.people)]
    for i in rng.sample(range(len(scene.shots)), len(scene.shots)):
        shot = scene.shots[i]
        for _ in range(200):
            p = Placement(letter, round(rng.uniform(260, CANVAS_W - 260), 1), rng.randint(60, 110),
                          round(rng.uniform(-15, 15), 1), i > 0, i + 1 < len(scene.shots))
            if all(abs(p.x - q.x) >= 1.3 * 0.8 * (p.face_px + q.face_px) / 2 + 40 for q in shot.people):
                shot.people.append(p)
                scene.onlookers[letter] = way
                return
    raise ValueError(f"scene {scene.seed}: no room for an onlooker in any shot")
