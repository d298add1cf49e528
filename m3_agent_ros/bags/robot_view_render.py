"""Render a robot-view scene (:mod:`.robot_view`): its frames and its sound.

People are cut out of their GRID clips by the studio's blue backdrop (a chroma key) and drawn into a drawn room
at their distance, foreshortened by their head turn, lower bodies carried down past the frame's bottom edge.
The talker plays their clip's frames in step with its sound; everyone else shows their clip's first frame (mouth
shut); a silent onlooker (:mod:`.onlooker`) plays her clip, looped. The frame then gets the camera's shake,
motion blur in the scene's blur spans, the scene's light level and sensor noise. Sound: each turn's clip
convolved with the room's impulse response from the talker's place to the robot's microphone (pyroomacoustics
image-source model), plus pink room noise and mains hum at the shot's SNR, measured over each turn's audible
speech and recorded per turn (``turn_snr``).
"""

from __future__ import annotations

import math
import random
from functools import cache
from pathlib import Path

import numpy as np

from .procedural import SIZE
from .robot_view import CANVAS_W, FACE_M, FOCAL_PX, VIEW, RobotScene, Sign, face_top, sign_width

SR = 16000
CLIP_FPS = 25
MIC_HEIGHT_M = 1.5


# -- people --------------------------------------------------------------------------------------------------------
@cache
def person_sprites(clip: str) -> tuple[list[np.ndarray], np.ndarray, tuple[int, int, int, int]]:
    """(RGBA frames at 25 fps, the clip's 16 kHz float sound, the face box x1, y1, x2, y2 in frame 0) of a GRID
    clip. Alpha is 0 on the studio's blue backdrop (its hue range and saturation read off the first frame's top rows
and side columns), feathered by a pixel."""
    import cv2
    import dlib

    from .compose import _decode

    frames, pcm = _decode(Path(clip), SIZE, CLIP_FPS)
    hsv0 = cv2.cvtColor(frames[0], cv2.COLOR_RGB2HSV)
    h3 = hsv0.shape[0] * 2 // 3   # the backdrop's colour from the frame's top rows and side columns
    border = np.concatenate([hsv0[:20].reshape(-1, 3), hsv0[:h3, :15].reshape(-1, 3), hsv0[:h3, -15:].reshape(-1, 3)])
    h_lo, h_hi = np.percentile(border[:, 0], [2, 98]) + (-5, 5)
    s_min = 0.75 * np.percentile(border[:, 1], 2)
    out = []
    for f in frames:
        hsv = cv2.cvtColor(f, cv2.COLOR_RGB2HSV)
        blue = (hsv[..., 0] >= h_lo) & (hsv[..., 0] <= h_hi) & (hsv[..., 1] > s_min) & (hsv[..., 2] > 50)
        mask = (~blue).astype(np.uint8) * 255
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        mask = cv2.GaussianBlur(mask, (3, 3), 0)
        out.append(np.dstack([f, mask]))
    boxes = dlib.get_frontal_face_detector()(frames[0], 1)
    if not boxes:
        raise ValueError(f"{clip}: no face found in its first frame")
    b = max(boxes, key=lambda r: r.width() * r.height())
    return out, pcm.astype(np.float32) / 32768.0, (b.left(), b.top(), b.right(), b.bottom())


def _sprite(rgba: np.ndarray, face: tuple[int, int, int, int], face_px: int, yaw: float) -> tuple[np.ndarray, float,
                                                                                                   float]:
    """The cut-out scaled so its face is ``face_px`` high and narrowed by the head turn; returns it with the face
    box centre's position inside it."""
    import cv2

    s = face_px / max(1, face[3] - face[1])
    sx = s * math.cos(math.radians(yaw))
    h, w = rgba.shape[:2]
    out = cv2.resize(rgba, (max(2, int(round(w * sx))), max(2, int(round(h * s)))), interpolation=cv2.INTER_AREA)
    return out, (face[0] + face[2]) / 2 * sx, (face[1] + face[3]) / 2 * s


def _paste(view: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    """Alpha-blend ``sprite`` at (x, y); its bottom row is carried down to the frame's bottom (the lower body)."""
    H, W = view.shape[:2]
    h = sprite.shape[0]
    if y + h < H:   # the body below the clip's bottom edge: its last rows stretched down
        tail = np.repeat(sprite[-2:-1], H - (y + h), axis=0)
        sprite = np.concatenate([sprite, tail], axis=0)
    h, w = sprite.shape[:2]
    x1, y1, x2, y2 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 >= x2 or y1 >= y2:
        return
    part = sprite[y1 - y:y2 - y, x1 - x:x2 - x]
    a = part[..., 3:4].astype(np.float32) / 255.0
    view[y1:y2, x1:x2] = (a * part[..., :3] + (1 - a) * view[y1:y2, x1:x2]).astype(np.uint8)


# -- the room ------------------------------------------------------------------------------------------------------
def backdrop(scene: RobotScene) -> np.ndarray:
    """The room across the canvas: a lit wall with texture, a door, shelves, a skirting board, the floor, signs."""
    import cv2

    rng = np.random.default_rng(scene.seed)
    H = VIEW[1]
    wall = np.array(rng.integers(150, 225, 3), np.float32)
    img = np.zeros((H, CANVAS_W, 3), np.float32)
    light = 0.75 + 0.25 * np.cos(np.linspace(-1.2, 1.6, CANVAS_W))[None, :, None]
    img[:] = wall * light
    img += rng.normal(0, 4, img.shape)
    floor_y = int(H * 0.62)
    img[floor_y:] = np.array(rng.integers(60, 130, 3), np.float32) * (0.8 + 0.2 * light[:, :, :])
    img[floor_y - 6:floor_y] = 90
    for _ in range(int(rng.integers(1, 3))):   # doors and shelves
        x = int(rng.integers(0, CANVAS_W - 160))
        if rng.random() < 0.5:
            cv2.rectangle(img, (x, 110), (x + 110, floor_y), tuple(float(v) for v in rng.integers(70, 160, 3)), -1)
            cv2.circle(img, (x + 95, 250), 5, (200, 190, 60), -1)
        else:
            for k in range(3):
                cv2.rectangle(img, (x, 140 + 45 * k), (x + 150, 146 + 45 * k), (110, 80, 50), -1)
    img = np.clip(img, 0, 255).astype(np.uint8)
    for s in scene.signs:
        draw_sign(img, s)
    return img


def draw_sign(img: np.ndarray, s: Sign) -> None:
    """A board with the text in black capitals ``s.text_px`` high (Hershey simplex, as cv2 draws it)."""
    import cv2

    w, h = sign_width(s), int(round(1.6 * s.text_px))
    cv2.rectangle(img, (s.x, s.y), (s.x + w, s.y + h), (235, 235, 225), -1)
    cv2.rectangle(img, (s.x, s.y), (s.x + w, s.y + h), (40, 40, 40), max(1, s.text_px // 12))
    scale = s.text_px / 22.0   # FONT_HERSHEY_SIMPLEX capitals are 22 px high at scale 1
    tw = cv2.getTextSize(s.text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, s.text_px // 10))[0][0]
    cv2.putText(img, s.text, (s.x + (w - tw) // 2, s.y + (h + s.text_px) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (20, 20, 20), max(1, s.text_px // 10), cv2.LINE_AA)


# -- frames --------------------------------------------------------------------------------------------------------
class FrameRenderer:
    def __init__(self, scene: RobotScene, grid_dir: str | Path) -> None:
        self.scene = scene
        self.sprites = {p: person_sprites(str(Path(grid_dir) / f"{c}.mpg")) for p, c in scene.people.items()}
        if scene.onlookers:
            from .onlooker import onlooker_sprites

            for p, way in scene.onlookers.items():
                frames, face = onlooker_sprites(way)
                self.sprites[p] = (frames, np.zeros(0, np.float32), face)
        self.room = backdrop(scene)
        self.rng = random.Random(scene.seed * 7919 + 1)

    def frame(self, t: float) -> np.ndarray:
        import cv2

        sc = self.scene
        dx, dy = (self.rng.gauss(0, sc.shake_px), self.rng.gauss(0, sc.shake_px)) if sc.shake_px else (0.0, 0.0)
        x0 = int(round(sc.view_x0(t) + dx))
        view = self.room[:, max(0, x0):max(0, x0) + VIEW[0]].copy()
        i = sc.shot_at(t)
        if i is not None:
            shot = sc.shots[i]
            talking = next((u for u in sc.turns if u.start <= t < u.end and u.shot == i), None)
            for p in sorted(shot.people, key=lambda q: q.face_px):   # the farthest first
                frames, _, face = self.sprites[p.person]
                if p.person in sc.onlookers:   # her clip plays (looped) all the time she is in the shot
                    k = int((t - shot.start) * CLIP_FPS) % len(frames)
                else:
                    k = int((t - talking.start) * CLIP_FPS) if talking and talking.person == p.person else 0
                sprite, fx, fy = _sprite(frames[min(k, len(frames) - 1)], face, p.face_px, p.yaw)
                cx = sc.face_x(p, shot, t) - x0
                cy = face_top(p.face_px) + p.face_px / 2 + dy
                _paste(view, sprite, int(round(cx - fx)), int(round(cy - fy)))
        if any(a <= t < b for a, b in sc.blur_spans):
            view = cv2.blur(view, (9, 1))   # a quick pan: horizontal motion blur
        out = view.astype(np.float32) * sc.light + np.random.default_rng(int(t * 1000)).normal(0, 3, view.shape)
        return np.clip(out, 0, 255).astype(np.uint8)


# -- sound ---------------------------------------------------------------------------------------------------------
def _rir(scene: RobotScene, x_view: float, distance: float) -> np.ndarray:
    import pyroomacoustics as pra

    dims = scene.room["dims"]
    absorption, max_order = pra.inverse_sabine(scene.room["rt60"], dims)
    room = pra.ShoeBox(dims, fs=SR, materials=pra.Material(absorption), max_order=min(max_order, 12))
    mic = np.array([0.4, dims[1] / 2, MIC_HEIGHT_M])
    az = math.atan((x_view - VIEW[0] / 2) / FOCAL_PX)
    src = mic + np.array([distance * math.cos(az), distance * math.sin(az), FACE_M / 2])
    src = np.clip(src, 0.2, np.array(dims) - 0.2)
    room.add_source(src.tolist())
    room.add_microphone(mic.tolist())
    room.compute_rir()
    return np.asarray(room.rir[0][0], np.float32)


def _pink(rng: np.random.Generator, n: int) -> np.ndarray:
    spec = np.fft.rfft(rng.normal(0, 1, n))
    f = np.fft.rfftfreq(n, 1 / SR)
    spec /= np.sqrt(np.maximum(f, 20.0))
    x = np.fft.irfft(spec, n)
    t = np.arange(n) / SR
    x = x / (x.std() + 1e-12) + 0.3 * sum(np.sin(2 * np.pi * h * 50 * t + h) / h for h in (1, 2, 3))
    return (x / (x.std() + 1e-12)).astype(np.float32)


def render_audio(scene: RobotScene, grid_dir: str | Path) -> tuple[np.ndarray, list[float]]:
    """The scene's 16 kHz mono int16 sound and each turn's SNR in dB (speech power over its audible part, after
    the room, against the noise)."""
    from scipy.signal import fftconvolve

    n = int(round(scene.duration * SR))
    speech = np.zeros(n, np.float32)
    spans: list[tuple[int, int]] = []
    rirs: dict[tuple[int, str], np.ndarray] = {}
    for u in scene.turns:
        shot = scene.shots[u.shot]
        p = next(q for q in shot.people if q.person == u.person)
        key = (u.shot, u.person)
        if key not in rirs:
            rirs[key] = _rir(scene, p.x - (CANVAS_W - VIEW[0]) / 2, p.distance_m)
        _, pcm, _ = person_sprites(str(Path(grid_dir) / f"{scene.people[u.person]}.mpg"))
        wet = fftconvolve(pcm, rirs[key])[: len(pcm) + SR // 2].astype(np.float32)
        a = int(round(u.start * SR))
        wet = wet[: max(0, n - a)]
        speech[a:a + len(wet)] += wet
        spans.append((int(u.speech[0] * SR), int(u.speech[1] * SR)))
    rng = np.random.default_rng(scene.seed)
    noise = _pink(rng, n)
    gain = np.zeros(n, np.float32)
    for i, shot in enumerate(scene.shots):   # the noise level per shot: its turns' median SNR at the shot's level
        powers = [float(np.mean(speech[a:b] ** 2)) for (a, b), u in zip(spans, scene.turns, strict=True)
                  if u.shot == i and b > a]
        level = math.sqrt(float(np.median(powers)) / 10 ** (shot.snr_db / 10)) if powers else 0.0
        gain[int(shot.start * SR):int(shot.end * SR)] = level
    ramp = int(0.3 * SR)
    gain = np.convolve(gain, np.ones(ramp) / ramp, "same").astype(np.float32)
    noise *= gain
    snrs = [round(10 * math.log10(float(np.mean(speech[a:b] ** 2)) / max(1e-20, float(np.mean(noise[a:b] ** 2)))), 1)
            for a, b in spans]
    mix = speech + noise
    mix *= 0.8 / max(1e-9, float(np.abs(mix).max()))
    return (mix * 32767).astype(np.int16), snrs
