"""Score what memorization made of a robot-view scene against the scene's ground truth (:mod:`.robot_view`).

Faces are scored per detection, where they are: a detection belongs to the person whose true face box holds its
centre at its frame's time (several people are in view at once, so time alone cannot tell). Purity and coverage
are pyannote's, on a timeline where each matched detection is one unit of time; detection rate is over every
true face at every frame the memorizer sampled, by face size. Voices are scored by time (one talker at a time):
pyannote purity / coverage of the stored voice turns against the turns' audible speech, inside the shots of a
given SNR (purity over the stored time within true speech: :func:`score_voices`). Transcripts: word error rate
per turn (the stored voice turns whose middle lies in the turn's audible span), summed per SNR level. The talking
person: for each turn with two or more people in view, is the voice it was stored under one character with the
face the talker's detections went to? Expressions: per person (the face nodes their detections went to), the
expressions memorization stated against the scene's truth (a silent onlooker's, :mod:`.onlooker`; nobody else's).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from m3_memory.perception.wer import normalize, wer

from .robot_view import RobotScene

SIZE_BANDS = ((40, 60), (60, 90), (90, 121))


@dataclass
class FaceRecord:
    time: float
    bbox: tuple[float, float, float, float]
    node: int


@dataclass
class StoredTurn:
    kind: str            # "voice" | "face"
    entity: int
    start: float
    end: float
    text: str = ""


@dataclass
class Recording:
    """What the memorizer produced for a scene: every face detection with the node it went to, every frame time it
    sampled, the stored turns and each entity's character."""
    faces: list[FaceRecord] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)
    turns: list[StoredTurn] = field(default_factory=list)
    character_of: dict[int, int] = field(default_factory=dict)
    expressions: list[tuple[int, str]] = field(default_factory=list)   # (face node, expression stated in a clip)


def _unit_purity_coverage(pairs: list[tuple[str, str]]) -> tuple[float, float]:
    """pyannote's purity and coverage where each (reference, hypothesis) pair is one unit of time."""
    from pyannote.core import Annotation, Segment
    from pyannote.metrics.diarization import DiarizationCoverage, DiarizationPurity

    ref, hyp = Annotation(), Annotation()
    for i, (r, h) in enumerate(pairs):
        ref[Segment(i, i + 1)] = r
        hyp[Segment(i, i + 1)] = h
    if not pairs:
        return 0.0, 0.0
    return float(DiarizationPurity()(ref, hyp)), float(DiarizationCoverage()(ref, hyp))


def score_faces(scene: RobotScene, rec: Recording) -> dict:
    pairs: list[tuple[str, str]] = []
    false_pos = 0
    found: set[tuple[float, str]] = set()
    for f in rec.faces:
        cx, cy = (f.bbox[0] + f.bbox[2]) / 2, (f.bbox[1] + f.bbox[3]) / 2
        who = [p for p, (x1, y1, x2, y2) in scene.in_view(f.time) if x1 <= cx <= x2 and y1 <= cy <= y2]
        if who:
            pairs.append((who[0], str(f.node)))
            found.add((round(f.time, 3), who[0]))
        else:
            false_pos += 1
    purity, coverage = _unit_purity_coverage(pairs)
    bands: dict[str, list[int]] = {f"{a}-{b - 1}px": [0, 0] for a, b in SIZE_BANDS}
    for t in rec.frame_times:
        sizes = {p.person: p.face_px for s in scene.shots for p in s.people if s.start <= t < s.end}
        for person, _ in scene.in_view(t):
            band = next(f"{a}-{b - 1}px" for a, b in SIZE_BANDS if a <= sizes[person] < b)
            bands[band][1] += 1
            bands[band][0] += (round(t, 3), person) in found
    truth = sum(v[1] for v in bands.values())
    node_person = _majority(pairs)
    chars = {rec.character_of.get(int(n), -int(n)) for n in node_person}
    return {"purity": purity, "coverage": coverage, "detections_matched": len(pairs), "false_detections": false_pos,
            "true_faces": truth, "detection_rate": sum(v[0] for v in bands.values()) / truth if truth else 0.0,
            "detection_rate_by_size": {k: (v[0] / v[1] if v[1] else None) for k, v in bands.items()},
            "face_nodes": len(node_person), "face_characters": len(chars), "people": len(scene.everyone),
            "node_person": node_person}


def _majority(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """node -> the person most of its matched detections belong to."""
    by: dict[str, Counter] = {}
    for person, node in pairs:
        by.setdefault(node, Counter())[person] += 1
    return {n: c.most_common(1)[0][0] for n, c in by.items()}


def score_voices(scene: RobotScene, rec: Recording, snrs: list[float], min_snr: float) -> dict:
    """Who spoke, inside the shots whose nominal SNR is at least ``min_snr`` (both annotations cropped to them):

    * purity: pyannote's, over the stored turns' time *within the true speech*: does each voice hold one person?
      A stored turn runs past the truth's speech edges by the VAD's padding and the room's echo (the truth is where
      the dry clip is within 20 dB of its peak); that time holds nobody, and pyannote would count it as another
      person's (perfect labels scored 0.75-0.78 that way);
    * coverage: pyannote's, over each person's true speech: is it in one voice? (speech nothing was stored for
      counts as not covered);
    * ``outside_speech``: the share of stored voice time outside the true speech, reported beside them.

    pyannote's purity and coverage ignore a ``uem``, so the crop is done here."""
    from pyannote.core import Annotation, Segment, Timeline
    from pyannote.metrics.diarization import DiarizationCoverage, DiarizationPurity

    uem = Timeline([Segment(s.start, s.end) for s in scene.shots if s.snr_db >= min_snr]).support()
    if not uem:
        return {"purity": None, "coverage": None, "outside_speech": None, "turns": 0}
    ref, hyp = Annotation(), Annotation()
    for u in scene.turns:
        ref[Segment(*u.speech)] = u.person
    for k, t in enumerate(x for x in rec.turns if x.kind == "voice"):
        if t.end > t.start:
            hyp[Segment(t.start, t.end), k] = str(t.entity)
    ref, hyp = ref.crop(uem, mode="intersection"), hyp.crop(uem, mode="intersection")
    in_speech = hyp.crop(ref.get_timeline().support(), mode="intersection")
    stored = hyp.get_timeline().support().duration()
    return {"purity": float(DiarizationPurity()(ref, in_speech)) if in_speech else None,
            "coverage": float(DiarizationCoverage()(ref, hyp)) if ref else None,
            "outside_speech": 1.0 - in_speech.get_timeline().support().duration() / stored if stored else None,
            "turns": sum(1 for u in scene.turns if scene.shots[u.shot].snr_db >= min_snr)}


def score_transcripts(scene: RobotScene, rec: Recording) -> dict[str, dict]:
    """Word error rate per nominal SNR level: errors summed over the level's turns / their reference words."""
    out: dict[str, list[float]] = {}
    for u in scene.turns:
        said = " ".join(t.text for t in sorted(rec.turns, key=lambda x: x.start)
                        if t.kind == "voice" and u.speech[0] - 0.3 <= (t.start + t.end) / 2 <= u.speech[1] + 0.3)
        n = len(normalize(u.text))
        acc = out.setdefault(f"{scene.shots[u.shot].snr_db:g}", [0.0, 0.0, 0.0])
        acc[0] += wer(u.text, said) * n
        acc[1] += n
        acc[2] += 1
    return {k: {"wer": v[0] / v[1] if v[1] else None, "turns": int(v[2])} for k, v in sorted(out.items(),
                                                                                         key=lambda kv: float(kv[0]))}


def score_talkers(scene: RobotScene, rec: Recording, node_person: dict[str, str]) -> dict:
    """Of the turns with two or more people in view: right (the voice is one character with the talker's face),
    another face (one character with someone else's face), no face (the voice is linked to no face in view), no
    voice (nothing stored for the turn)."""
    faces_of: dict[str, set[int]] = {}
    for node, person in node_person.items():
        faces_of.setdefault(person, set()).add(rec.character_of.get(int(node), -int(node)))
    counts = Counter()
    for u in scene.turns:
        mid = (u.speech[0] + u.speech[1]) / 2
        if len(scene.in_view(mid)) < 2:
            continue
        best, overlap = None, 0.0
        for t in rec.turns:
            ov = min(t.end, u.speech[1]) - max(t.start, u.speech[0])
            if t.kind == "voice" and ov > overlap:
                best, overlap = t, ov
        if best is None:
            counts["no_voice"] += 1
            continue
        c = rec.character_of.get(best.entity, -best.entity)
        if c in faces_of.get(u.person, set()):
            counts["right"] += 1
        elif any(c in chars for p, chars in faces_of.items() if p != u.person):
            counts["another_face"] += 1
        else:
            counts["no_face"] += 1
    n = sum(counts.values())
    return {"turns": n, "right_rate": counts["right"] / n if n else None, **dict(counts)}


def score_text(scene: RobotScene, frames_read: list[float], readings: list[tuple[float, str]]) -> dict:
    """Of every sign wholly in view at a frame the scene-text stage read: the share read exactly (upper case,
    single spaces); readings that are no sign in view; signs read at least once."""
    from m3_memory.perception.scene_text import normalize_text

    at: dict[float, set[str]] = {}
    for t, text in readings:
        at.setdefault(round(t, 3), set()).add(normalize_text(text))
    shown = exact = 0
    read_once: set[str] = set()
    for t in frames_read:
        got = at.get(round(t, 3), set())
        for s in scene.signs_in_view(t):
            shown += 1
            if s.text in got:
                exact += 1
                read_once.add(s.text)
    visible = {s.text for t in frames_read for s in scene.signs_in_view(t)}
    stray = sum(1 for t, text in readings if normalize_text(text) not in {s.text for s in scene.signs_in_view(t)})
    return {"shown": shown, "exact_rate": exact / shown if shown else None, "stray_readings": stray,
            "signs_read": len(read_once), "signs_visible": len(visible)}


def score_expressions(scene: RobotScene, rec: Recording, node_person: dict[str, str]) -> dict:
    """Of the people with a true expression (onlookers): how many had it stated at least once; and every
    statement that is not the person's truth (a talker is neutral: any expression stated of one is wrong). A face
    node no detection of a true face went to counts as nobody's (its statements are wrong)."""
    stated: dict[str, set[str]] = {}
    wrong = 0
    for node, label in rec.expressions:
        person = node_person.get(str(node))
        if person is None or scene.look_of(person) != label:
            wrong += 1
        stated.setdefault(person or "?", set()).add(label)
    right = sum(1 for p in scene.onlookers if scene.look_of(p) in stated.get(p, set()))
    return {"expected": len(scene.onlookers), "stated_right": right, "wrong_statements": wrong,
            "right_rate": right / len(scene.onlookers) if scene.onlookers else None}
