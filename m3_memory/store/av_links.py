"""Face = voice links from audio-visual evidence accumulated over clips (the embedded writer's equivalences).

Evidence, per speech turn: the sampled frames inside the turn are checked; a face that is the *only* face on
camera in at least ``alone_fraction`` of them earns the turn's duration times that fraction as *credit* for the
(face, voice) pair, unless its lips were still while the voice spoke (perception/lip_activity.py ``lips_still``:
someone off camera talks, or the detector missed the talker's face and found only a listener's). Credit, the number
of clips it came from and every voice's total speech are kept in the store (``av_evidence``, ``voice_speech``), so
evidence adds up across clips and restarts: a person who says two words per clip is linked once their words add
up, not never.

Decision, for every voice heard in the clip: its best face F (most credit) must have it as F's own best voice
(mutual best partners), and the credit must cover at least ``min_share`` of everything the voice said. Then
the credit is *pooled* over F's voices that pass the same tests and sound alike (mean cosine of their stored
embeddings >= the speaker embedder's same-speaker threshold): one person's short turns are sometimes filed
under two voice nodes (a 1 s turn is a weak voice print), and their evidence counts together. F is linked to
each of them when the pooled credit reaches ``min_overlap_s``.

Confidence in [0, 1], kept on the link (``av_evidence.confidence``) and shown with it (``m3-memory links``):
``support * share * exclusivity`` with support = pooled credit / (2 * min_overlap_s) capped at 1, share = the
pair's credit / the voice's speech, exclusivity = the pair's credit / the voice's credit with every face.

Several faces on camera during a turn (a robot's view of a room): the face whose lips moved clearly most over the
turn (``lip_credit``, from the motion frames' lip activity, perception/lip_activity.py) earns the turn's duration;
none does when no face stands out or a face in view has too few activity samples to rule it out. Each face's
activity is taken relative to the other faces in view at the same frame pair (minus their median), so what a pair
does to every face (the camera shakes, blurs, the light changes) does not count.

Limitation: a silent person alone on camera while someone off camera talks earns credit too (the alone rule does
not look at the lips); the share and mutual-best-partner tests keep that from deciding on its own, and the
confidence says how strong the evidence was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..perception.lip_activity import lips_still
from ..writing.base import ClipEvidence


@dataclass
class AVParams:
    alone_fraction: float = 0.6   # of a turn's frames in which the face must be the only one on camera
    min_overlap_s: float = 1.2    # pooled credit needed for a link
    min_share: float = 0.5        # of the voice's speech its credit must cover
    frame_tolerance_s: float = 1e-3
    # several robots share the memory: one robot's camera and another's microphone count as one scene only while
    # both robots' poses (same frame) are this close; without poses no evidence crosses robots
    colocated_m: float = 6.0
    # several faces in view during a turn: the face whose lips moved clearly most earns it (perception/
    # lip_activity.py): the upper quartile of its activity over the turn, each pair's taken relative to the other
    # faces' median at that pair, at least lip_min, and lip_margin above every other face's (a talker's mouth
    # changes between some frame pairs, not all; a listener's in almost none)
    lip_min: float = 0.2
    lip_margin: float = 0.2
    lip_min_samples: int = 2
    lip_view_pad_s: float = 0.5   # faces seen this close to the turn count as in view during it
    # a face alone on camera earns nothing when its lips were still while the voice spoke (needs the clip's
    # loudness; perception/lip_activity.py lips_still)
    still_lips_earn_nothing: bool = True


@dataclass
class AVLink:
    face_id: int
    voice_id: int
    credit_s: float        # this pair's credit
    pooled_s: float        # credit of the face's sound-alike voices together
    clips: int             # clips that gave this pair credit
    confidence: float

    @property
    def statement(self) -> str:
        return f"Equivalence: <face_{self.face_id}>, <voice_{self.voice_id}>"


def visible(ev: ClipEvidence, t: float, tol: float) -> list[int]:
    return [f.node_id for f in ev.faces if any(abs(x - t) <= tol for x in f.times)]


def alone_credit(ev: ClipEvidence, start: float, end: float, p: AVParams) -> dict[int, float]:
    """face id -> seconds of credit for speech in [start, end] of this clip. A span with no sampled frame in it
    (shorter than the frame interval: a short turn, or the part of a sentence on one side of a clip boundary) is
    judged by the frame nearest it, if that one is within half an interval: the frame stands for that moment."""
    frames = [t for t in ev.frame_times if start - p.frame_tolerance_s <= t <= end + p.frame_tolerance_s]
    if not frames:
        frames = nearest_frame(ev.frame_times, start, end)
        if not frames:
            return {}
    alone: dict[int, int] = {}
    for t in frames:
        vis = visible(ev, t, p.frame_tolerance_s)
        if len(vis) == 1:
            alone[vis[0]] = alone.get(vis[0], 0) + 1
    dur = max(0.0, end - start)
    out = {f: dur * n / len(frames) for f, n in alone.items() if n / len(frames) >= p.alone_fraction}
    if out and p.still_lips_earn_nothing and ev.loudness is not None:
        activity = {f.node_id: f.activity for f in ev.faces}
        out = {f: s for f, s in out.items() if not lips_still(activity.get(f, ()), start, end, ev.loudness)}
    return out


def nearest_frame(times: Sequence[float], start: float, end: float) -> list[float]:
    """The sampled frame nearest to [start, end] when it lies within half the frame interval (the median gap of
    ``times``) of it; [] otherwise, or with fewer than two frames (no interval to go by)."""
    if len(times) < 2 or end < start:
        return []
    half = float(np.median(np.diff(sorted(times)))) / 2.0
    best = min(times, key=lambda t: max(start - t, t - end, 0.0))
    return [best] if max(start - best, best - end, 0.0) <= half else []


def lip_credit(ev: ClipEvidence, start: float, end: float, p: AVParams) -> dict[int, float]:
    """face id -> seconds of credit for speech in [start, end] when two or more faces were in view: the turn's
    duration to the face whose lips moved clearly most (upper quartile of its activity), nothing when any face in
    view has too few activity samples (it cannot be ruled out) or no face stands out. A sample counts relative to
    the other faces' median at the same frame pair (module doc)."""
    pad = p.lip_view_pad_s
    frames = [t for t in ev.frame_times if start - pad <= t <= end + pad]
    in_view = {f for t in frames for f in visible(ev, t, p.frame_tolerance_s)}
    if len(in_view) < 2:
        return {}
    series: dict[int, dict[float, float]] = {}
    for f in ev.faces:
        if f.node_id in in_view:
            series[f.node_id] = {t: s for t, s in f.activity if start <= t <= end}
            if len(series[f.node_id]) < p.lip_min_samples:
                return {}
    relative: dict[int, list[float]] = {f: [] for f in series}
    for t in sorted({t for xs in series.values() for t in xs}):
        here = {f: xs[t] for f, xs in series.items() if t in xs}
        for f, s in here.items():
            if len(here) >= 2:
                relative[f].append(s - float(np.median([v for g, v in here.items() if g != f])))
    if any(len(v) < p.lip_min_samples for v in relative.values()):
        return {}
    means = {f: float(np.percentile(v, 75)) for f, v in relative.items()}
    ranked = sorted(means.items(), key=lambda kv: -kv[1])
    (best, top), second = ranked[0], ranked[1][1]
    if top < p.lip_min or top - second < p.lip_margin:
        return {}
    return {best: max(0.0, end - start)}


def talker_credit(ev: ClipEvidence, start: float, end: float, p: AVParams) -> dict[int, float]:
    """The face seen talking during [start, end]: alone on camera, else the one whose lips moved clearly most."""
    return alone_credit(ev, start, end, p) or lip_credit(ev, start, end, p)


def record_clip(conn: sqlite3.Connection, ev: ClipEvidence, p: AVParams, robot: str = "") -> set[int]:
    """Add this clip's speech and credit to the store; returns the voices heard (and, for a named robot, the
    voices other robots heard while this robot saw a face alone: see :func:`cross_robot_credit`)."""
    credit: dict[tuple[int, int], float] = {}
    heard: set[int] = set()
    if robot:
        credit, heard = cross_robot_credit(conn, robot, ev, p)
    for turn in ev.voices:
        conn.execute("INSERT INTO voice_speech (voice_id, speech_s) VALUES (?, ?) ON CONFLICT (voice_id) "
                     "DO UPDATE SET speech_s = speech_s + excluded.speech_s",
                     (turn.node_id, max(0.0, turn.end - turn.start)))
        heard.add(turn.node_id)
        if turn.overlapped:      # the face alone on camera is most likely the other talker's
            continue
        # a turn may run over the clip's end (perception/clip_edges.py): this clip's frames judge its part here,
        # the next clip's frames the rest (:func:`ran_on_into`)
        for face_id, s in talker_credit(ev, turn.start, min(turn.end, ev.end_time), p).items():
            credit[(face_id, turn.node_id)] = credit.get((face_id, turn.node_id), 0.0) + s
    for voice_id, start, end in ran_on_into(conn, ev, robot):
        heard.add(voice_id)
        for face_id, s in talker_credit(ev, max(start, ev.start_time), min(end, ev.end_time), p).items():
            credit[(face_id, voice_id)] = credit.get((face_id, voice_id), 0.0) + s
    for (face_id, voice_id), s in credit.items():
        conn.execute("INSERT INTO av_evidence (face_id, voice_id, overlap_s, clips) VALUES (?, ?, ?, 1) ON CONFLICT "
                     "(face_id, voice_id) DO UPDATE SET overlap_s = overlap_s + excluded.overlap_s, clips = clips + 1",
                     (face_id, voice_id, s))
    return heard


def ran_on_into(conn: sqlite3.Connection, ev: ClipEvidence, robot: str) -> list[tuple[int, float, float]]:
    """(voice id, start, end) of this robot's voice turns from the clip before that ran on into this one: the
    clip a sentence started in hears it whole (perception/clip_edges.py), while who was on camera for its last part
    is in this clip's frames. Not transcribed again, not counted as speech again: only credited."""
    rows = conn.execute(
        "SELECT t.entity_id, t.start_time, t.end_time FROM turns t JOIN clips c ON c.id = t.clip_id "
        "WHERE t.kind = 'voice' AND t.start_time >= ? AND t.start_time < ? AND t.end_time > ? AND t.clip_id <> ? "
        "AND coalesce(c.robot, '') = ?",
        (2 * ev.start_time - ev.end_time, ev.end_time, ev.start_time, ev.clip_id, robot or "")).fetchall()
    return [(int(v), float(a), float(b)) for v, a, b in rows]


def cross_robot_credit(conn: sqlite3.Connection, robot: str, ev: ClipEvidence, p: AVParams
                       ) -> tuple[dict[tuple[int, int], float], set[int]]:
    """Face = voice credit across robots sharing one memory, for the clip ``robot`` is committing: its speech while
    another robot had one face alone on camera, and another robot's speech while this robot had one face alone,
    from the other robots' committed turns (the later of two overlapping clips counts the pair, so once). Only
    while both robots were close (``colocated_m``, poses in one frame): a camera in the kitchen and a microphone in
    the bedroom do not see and hear one person. Returns (credit, the other robots' voices credited)."""
    from ..poses import pose_at

    credit: dict[tuple[int, int], float] = {}
    voices: set[int] = set()
    if not ev.poses:
        return credit, voices
    rows = conn.execute(
        "SELECT t.kind, t.entity_id, t.start_time, t.end_time, c.robot, t.text IS NOT NULL FROM turns t "
        "JOIN clips c ON c.id = t.clip_id WHERE c.robot IS NOT NULL AND c.robot <> ? AND t.end_time >= ? "
        "AND t.start_time <= ?", (robot, ev.start_time, ev.end_time)).fetchall()
    if not rows:
        return credit, voices
    poses: dict[str, list] = {}

    def together(other: str, a: float, b: float) -> bool:
        if other not in poses:
            poses[other] = _track(conn, other, ev.start_time - 5.0, ev.end_time + 5.0)
        mid = (a + b) / 2
        mine, theirs = pose_at(ev.poses, mid, max_gap_s=5.0), pose_at(poses[other], mid, max_gap_s=5.0)
        return (mine is not None and theirs is not None and (mine.frame or "") == (theirs.frame or "")
                and float(np.hypot(mine.x - theirs.x, mine.y - theirs.y)) <= p.colocated_m)

    faces_of: dict[str, list[tuple[int, float, float]]] = {}
    for kind, nid, a, b, other, _ in rows:
        if kind == "face":
            faces_of.setdefault(other, []).append((int(nid), float(a), float(b)))
    for turn in ev.voices:   # this robot heard it; did another robot see one face alone meanwhile?
        if turn.overlapped:
            continue
        for other, faces in faces_of.items():
            if together(other, turn.start, turn.end):
                for face_id, s in _alone_in_spans(faces, turn.start, turn.end, p).items():
                    credit[(face_id, turn.node_id)] = credit.get((face_id, turn.node_id), 0.0) + s
    mine = {t.node_id for t in ev.voices}   # a voice this robot heard too: its own turns count it already
    for kind, voice_id, a, b, other, transcribed in rows:   # another robot heard it; did this one see one face?
        if kind != "voice" or not transcribed or int(voice_id) in mine or not together(other, a, b):
            continue
        for face_id, s in alone_credit(ev, max(a, ev.start_time), min(b, ev.end_time), p).items():
            credit[(face_id, int(voice_id))] = credit.get((face_id, int(voice_id)), 0.0) + s
            voices.add(int(voice_id))
    return credit, voices


def _track(conn: sqlite3.Connection, robot: str, t0: float, t1: float) -> list:
    from ..poses import Pose

    return [Pose(r[0], r[1], r[2], r[3] or 0.0, 0.0, r[4] or "") for r in conn.execute(
        "SELECT t, x, y, yaw, frame FROM poses WHERE robot = ? AND t >= ? AND t <= ? ORDER BY t", (robot, t0, t1))]


def _alone_in_spans(faces: list[tuple[int, float, float]], start: float, end: float, p: AVParams,
                    step: float = 0.1) -> dict[int, float]:
    """face id -> credit for speech in [start, end], from another robot's face appearances (spans): the share of
    the speech during which that face was the only one in view, as :func:`alone_credit` counts frames."""
    times = np.arange(start, end + 1e-9, step)
    if not len(times):
        return {}
    alone: dict[int, int] = {}
    for t in times:
        vis = {f for f, a, b in faces if a - p.frame_tolerance_s <= t <= b + p.frame_tolerance_s}
        if len(vis) == 1:
            f = vis.pop()
            alone[f] = alone.get(f, 0) + 1
    dur = max(0.0, end - start)
    return {f: dur * n / len(times) for f, n in alone.items() if n / len(times) >= p.alone_fraction}


def _speech(conn: sqlite3.Connection, voice_id: int) -> float:
    row = conn.execute("SELECT speech_s FROM voice_speech WHERE voice_id = ?", (voice_id,)).fetchone()
    return float(row[0]) if row else 0.0


def _best_face(conn: sqlite3.Connection, voice_id: int) -> tuple[int, float, float] | None:
    """(best face, its credit, the voice's credit with every face)"""
    rows = conn.execute("SELECT face_id, overlap_s FROM av_evidence WHERE voice_id = ? ORDER BY overlap_s DESC, "
                        "face_id", (voice_id,)).fetchall()
    if not rows:
        return None
    return int(rows[0][0]), float(rows[0][1]), float(sum(r[1] for r in rows))


def _voices_of(conn: sqlite3.Connection, face_id: int) -> list[tuple[int, float, int]]:
    return [(int(v), float(s), int(c)) for v, s, c in conn.execute(
        "SELECT voice_id, overlap_s, clips FROM av_evidence WHERE face_id = ? ORDER BY overlap_s DESC, voice_id",
        (face_id,))]


def _vectors(conn: sqlite3.Connection, node_id: int) -> np.ndarray:
    rows = [np.frombuffer(b, dtype=np.float32) for (b,) in
            conn.execute("SELECT vector FROM embeddings WHERE node_id = ? ORDER BY id", (node_id,))]
    if not rows:
        return np.zeros((0, 0), np.float32)
    m = np.stack(rows).astype(np.float64)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def voice_similarity(conn: sqlite3.Connection, a: int, b: int) -> float:
    """Mean pairwise cosine of two voice nodes' stored embeddings (the store's matching rule); 0 without."""
    va, vb = _vectors(conn, a), _vectors(conn, b)
    if not va.size or not vb.size or va.shape[1] != vb.shape[1]:
        return 0.0
    return float((va @ vb.T).mean())


def decide(conn: sqlite3.Connection, clip_id: int, heard: Sequence[int], p: AVParams, same_speaker: float
           ) -> list[AVLink]:
    """The links the evidence in the store supports now, for the faces whose best voice partner spoke in this
    clip (restated for the voices heard, stated for members not linked before). Each decided link's confidence
    is written to ``av_evidence``."""

    def qualifies(voice_id: int, face_id: int) -> tuple[float, float] | None:
        """(the voice's speech, its credit with every face), when ``face_id`` is its best face and explains
        enough of it"""
        best = _best_face(conn, voice_id)
        if best is None or best[0] != face_id:
            return None
        speech = _speech(conn, voice_id)
        return (speech, best[2]) if speech > 0 and best[1] >= p.min_share * speech else None

    faces = {b[0] for v in set(heard) if (b := _best_face(conn, v)) is not None}
    out: list[AVLink] = []
    for face_id in sorted(faces):
        mine = _voices_of(conn, face_id)
        anchor = mine[0][0]
        q = qualifies(anchor, face_id)
        if q is None:
            continue                                    # not mutual best partners, or too little of its speech
        group = [(*mine[0], q)]                         # (voice, credit, clips, (speech, total credit))
        for v, s, c in mine[1:]:                        # the face's other voices that qualify and sound alike
            if (q := qualifies(v, face_id)) is not None and voice_similarity(conn, anchor, v) >= same_speaker:
                group.append((v, s, c, q))
        pooled = sum(s for _, s, _, _ in group)
        if pooled < p.min_overlap_s:
            continue
        support = min(1.0, pooled / (2.0 * p.min_overlap_s))
        for v, s, c, (speech, total) in group:
            share = min(1.0, s / max(speech, 1e-9))
            conf = round(support * share * (s / max(total, 1e-9)), 3)
            linked = conn.execute("SELECT confidence IS NOT NULL FROM av_evidence WHERE face_id = ? AND voice_id = ?",
                                  (face_id, v)).fetchone()[0]
            conn.execute("UPDATE av_evidence SET confidence = ?, linked_clip = coalesce(linked_clip, ?) "
                         "WHERE face_id = ? AND voice_id = ?", (conf, clip_id, face_id, v))
            if v in heard or not linked:
                out.append(AVLink(face_id, v, s, pooled, c, conf))
    return out
