"""Lip activity: which of the faces in view is moving its mouth, from the clip's motion frames.

Face detection runs at ``sample_fps`` (1 fps by default): too slow to see a mouth move. The clip also keeps
grey *motion frames* at ``motion_fps`` (5 by default, :class:`~m3_memory.ingest.clips.ClipAssembler`). For every
pair of consecutive motion frames and every face cluster detected within ``box_max_dt_s`` of the pair, the face's
box from its nearest detection is used, followed into the pair's two frames (:func:`follow`: where the upper face
of the detection's frame matches best nearby; a box carried unchanged over half a second of a pan or a walk sat on
the face's edge and the room behind it, and scored their movement as the mouth's: a listener in a panning shot led
the lips of everyone in view):

1. the upper face (brows to nose: rigid) of the second frame is aligned to the first by the integer shift of at
   most ``max_shift_px`` that differs least (the camera shakes, the head sways);
2. the score is how much the mouth region (below the nose to below the chin) changes under that shift, divided by
   how much texture the region has (mean absolute grey gradient + ``texture_floor``): a residual over a gradient
   is about how far things moved, in pixels, so a small face, a dim frame or a blurred one is not scored lower
   than a large sharp face for the same mouth movement, and the sub-pixel remainder of a shift that integer
   alignment leaves costs every face about the same.

A talker's score rises on the pairs where the mouth opens or closes; a listener's stays low. What a frame pair does
to every face at once (shake, blur, a change of light) is removed where the scores are compared, against the other
faces in view at the same pair (:func:`m3_memory.store.av_links.lip_credit`), which credits the face that clearly
leads during a speech turn.

Tuned on robot-view scenes, tune split (seeds 600-603, 49 turns with two or more people in view, the talker's true
speech): the talker named in 43, another face in 1 (was 31 and 1 when the score was mouth change minus upper-face
change: a blink or a sway of the talker's own head scored against the mouth).

**Still lips** (:func:`lips_still`): a face alone on camera during a turn is not always the talker. Someone off
camera talks, or the talker stands in view but the detector missed their face (small, turned), and the one face it
found is a listener's. The listener's mouth does not move *with the speech*: its activity during the turn is no
higher than in the seconds around it, and it does not follow the clip's loudness (:class:`Loudness`, the sound
level per 20 ms) over the turn and those seconds. Both together say "still". Robot-view tune scenes (600-603,
610-616, 640-647; 24 turns credited to a face alone on camera): the 9 credited to a listener all read still, 2 of
the 15 talkers' too (a turn is lost, not given to the wrong person); among faces picked by the lips of several in
view neither measure separates talkers from listeners, so it is used for the lone face only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class LipParams:
    max_pair_dt_s: float = 0.5       # consecutive motion frames further apart are no pair (dropped frames)
    box_max_dt_s: float = 0.75       # a face box is used this long before / after its detection
    max_shift_px: int = 4
    min_face_px: int = 24            # smaller faces give no lip activity
    # the face box is followed from its detection's frame into each pair's frames (the camera pans, the person
    # walks): the best match of the detected face within this fraction of its width around the box, if its
    # normalized correlation is at least follow_min_corr (else the pair gives that face no sample)
    follow_frac: float = 0.6
    follow_min_corr: float = 0.5
    texture_floor: float = 0.5       # grey levels per pixel added to the mouth's gradient (flat regions)
    # still lips (lips_still): the seconds before and after a turn its activity is compared with; how much higher
    # during the turn a talker's must be; the correlation with the loudness below which a mouth does not follow it
    still_window_s: float = 2.0
    still_ratio: float = 1.05
    still_max_corr: float = 0.15
    still_min_inside: int = 2
    still_min_around: int = 3
    still_span_s: float = 0.2        # the sound a sample is compared with: this long, centred on it (a 5 fps pair)


@dataclass(frozen=True)
class Loudness:
    """A clip's sound level: dB of the mean square per ``hop_s`` window, at the windows' centres (stream seconds)."""
    times: np.ndarray
    db: np.ndarray

    @classmethod
    def of(cls, audio: np.ndarray | None, start_time: float, sample_rate: int = 16000, hop_s: float = 0.02
           ) -> Loudness | None:
        if audio is None:
            return None
        a = np.nan_to_num(np.asarray(audio, np.float64).reshape(-1))
        n = max(1, int(round(hop_s * sample_rate)))
        k = len(a) // n
        if k == 0:
            return None
        db = 10.0 * np.log10((a[: k * n].reshape(k, n) ** 2).mean(axis=1) + 1e-10)
        return cls(start_time + (np.arange(k) + 0.5) * n / sample_rate, db)

    def mean(self, t0: float, t1: float) -> float | None:
        """The mean level over the windows whose centres lie in [t0, t1]; None where the clip has no sound."""
        i, j = np.searchsorted(self.times, [t0, t1 + 1e-9])
        return float(self.db[i:j].mean()) if j > i else None


def lips_still(activity: Sequence[tuple[float, float]], start: float, end: float, level: Loudness | None,
               p: LipParams | None = None) -> bool:
    """True when a face's mouth clearly did not talk during [start, end] (module doc): its activity's upper quartile
    during the turn is at most ``still_ratio`` times the one in the ``still_window_s`` around it, *and* its
    activity does not follow the loudness over both (Pearson r below ``still_max_corr``). False when it cannot be
    told: too few samples, no sound level, a flat series."""
    p = p or LipParams()
    w = p.still_window_s
    inside = [a for t, a in activity if start <= t <= end]
    around = [a for t, a in activity if start - w <= t < start or end < t <= end + w]
    if level is None or len(inside) < p.still_min_inside or len(around) < p.still_min_around:
        return False
    if np.percentile(inside, 75) > p.still_ratio * np.percentile(around, 75):
        return False
    xs, ys = [], []
    half = p.still_span_s / 2
    for t, a in activity:
        if start - w <= t <= end + w and (db := level.mean(t - half, t + half)) is not None:
            xs.append(db)
            ys.append(a)
    if len(xs) < p.still_min_inside + p.still_min_around or np.std(xs) == 0 or np.std(ys) == 0:
        return False
    return float(np.corrcoef(xs, ys)[0, 1]) < p.still_max_corr


def _diff(a: np.ndarray, b: np.ndarray, ys: int, ye: int, xs: int, xe: int, dx: int, dy: int) -> float:
    if ys + dy < 0 or xs + dx < 0 or ye + dy > b.shape[0] or xe + dx > b.shape[1] or ye <= ys or xe <= xs:
        return float("inf")
    return float(np.abs(a[ys:ye, xs:xe] - b[ys + dy:ye + dy, xs + dx:xe + dx]).mean())


def _texture(a: np.ndarray, ys: int, ye: int, xs: int, xe: int) -> float:
    r = a[ys:ye, xs:xe]
    return float(np.abs(np.diff(r, axis=0)).mean() + np.abs(np.diff(r, axis=1)).mean()) / 2


def pair_score(a: np.ndarray, b: np.ndarray, box: Sequence[float], p: LipParams,
               moved: tuple[int, int] = (0, 0)) -> float | None:
    """How far the mouth region moved between grey frames ``a`` and ``b`` (float32) for a face box (in ``a``;
    in ``b`` about ``moved`` pixels away), once the upper face is aligned: its residual change over its texture
    (module doc)."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    if h < p.min_face_px:
        return None
    xs, xe = int(x1 + 0.2 * w), int(x2 - 0.2 * w)
    uy = int(y1 + 0.1 * h), int(y1 + 0.55 * h)
    my = int(y1 + 0.62 * h), int(y1 + 1.1 * h)
    r, (mx, mv) = p.max_shift_px, moved
    upper, dx, dy = min((_diff(a, b, *uy, xs, xe, sx, sy), sx, sy) for sx in range(mx - r, mx + r + 1)
                        for sy in range(mv - r, mv + r + 1))
    mouth = min(_diff(a, b, *my, xs, xe, dx + ex, dy + ey) for ex in (-1, 0, 1) for ey in (-1, 0, 1))
    if not np.isfinite(upper) or not np.isfinite(mouth) or my[1] - my[0] < 2 or xe - xs < 2:
        return None
    return mouth / (_texture(a, *my, xs, xe) + p.texture_floor)


def follow(ref: np.ndarray, box: Sequence[float], frame: np.ndarray, p: LipParams) -> tuple[int, int] | None:
    """Where the face in ``box`` of grey frame ``ref`` is in ``frame``: the shift (dx, dy) of its upper part (brows
    to nose, which a talking mouth does not change) by normalized correlation within ``follow_frac`` of its width,
    or None when nothing there matches it well enough."""
    import cv2

    bx1, by1, bx2, by2 = box
    h = by2 - by1
    x1, y1, x2, y2 = int(round(bx1)), int(round(by1 + 0.1 * h)), int(round(bx2)), int(round(by1 + 0.55 * h))
    x1, y1, x2, y2 = max(0, x1), max(0, y1), min(ref.shape[1], x2), min(ref.shape[0], y2)
    if x2 - x1 < 4 or y2 - y1 < 4 or ref.shape != frame.shape:
        return None
    r = max(p.max_shift_px, int(p.follow_frac * (x2 - x1)))
    sx1, sy1 = max(0, x1 - r), max(0, y1 - r)
    sx2, sy2 = min(frame.shape[1], x2 + r), min(frame.shape[0], y2 + r)
    tpl, area = ref[y1:y2, x1:x2], frame[sy1:sy2, sx1:sx2]
    if float(tpl.std()) < 1e-3:
        return None
    res = cv2.matchTemplate(area, tpl, cv2.TM_CCOEFF_NORMED)
    _, best, _, (bx, by) = cv2.minMaxLoc(res)
    if not np.isfinite(best) or best < p.follow_min_corr:
        return None
    return sx1 + bx - x1, sy1 + by - y1


def lip_activity(tracks: Sequence[Sequence[tuple[float, Sequence[float]]]], times: Sequence[float],
                 grays: Sequence[np.ndarray], p: LipParams | None = None) -> list[list[tuple[float, float]]]:
    """``tracks``: per face, its detections as (time, box). Returns per face (time, score) samples, one per
    motion-frame pair the face was detected near. The nearest detection's box is followed into the pair's two
    frames from the motion frame nearest the detection (:func:`follow`): a box carried over half a second of a
    pan or a walk would otherwise score the face's edge moving past, not its mouth."""
    p = p or LipParams()
    out: list[list[tuple[float, float]]] = [[] for _ in tracks]
    frames = [g.astype(np.float32) if g.dtype != np.float32 else g for g in grays]
    ts = np.asarray(times, dtype=np.float64)
    cache: dict[tuple[int, int, int], tuple[int, int] | None] = {}

    def shift(k: int, d: int, j: int, box: Sequence[float], i: int) -> tuple[int, int] | None:
        if i == j:
            return 0, 0
        if (k, d, i) not in cache:
            cache[(k, d, i)] = follow(frames[j], box, frames[i], p)
        return cache[(k, d, i)]

    for i in range(len(times) - 1):
        t0, t1 = times[i], times[i + 1]
        if not 0 < t1 - t0 <= p.max_pair_dt_s or frames[i].shape != frames[i + 1].shape:
            continue
        mid = (t0 + t1) / 2
        for k, dets in enumerate(tracks):
            if not dets:
                continue
            d = min(range(len(dets)), key=lambda n: abs(dets[n][0] - mid))
            t, box = dets[d]
            if abs(t - mid) > p.box_max_dt_s:
                continue
            j = int(np.argmin(np.abs(ts - t)))          # the motion frame the face was detected in (or nearest)
            if frames[j].shape != frames[i].shape:
                continue
            a, b = shift(k, d, j, box, i), shift(k, d, j, box, i + 1)
            if a is None or b is None:
                continue
            moved = (a[0] + box[0], a[1] + box[1], a[0] + box[2], a[1] + box[3])
            s = pair_score(frames[i], frames[i + 1], moved, p, (b[0] - a[0], b[1] - a[1]))
            if s is not None:
                out[k].append((round(mid, 3), round(s, 3)))
    return out
