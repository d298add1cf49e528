"""Memorization of one clip: perception -> entity matching -> memory writing -> one store transaction.

Perception (slow: detection, embeddings, ASR) runs *before* the write transaction, so the database write lock
is held only for matching and inserting (milliseconds). Clips already committed are skipped, so restarting
on the same database and stream resumes after the last committed clip without duplicates.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from .ingest.clips import Clip
from .perception.expression import look_text
from .store import ClipWriter, MemoryStore
from .store.where import record_poses
from .writing import ClipEvidence, FaceEvidence, MemoryWriter, VoiceTurnEvidence, make_writer

log = logging.getLogger(__name__)


class FaceStage(Protocol):
    name: str

    def analyze(self, clip: Clip) -> Any:
        """Detect, embed and cluster the clip's faces (no store access)."""
        ...

    def attach(self, graph: ClipWriter, analysis: Any) -> list[FaceEvidence]:
        """Match the clusters to face nodes (adding/updating them) inside the clip transaction."""
        ...


class VoiceStage(Protocol):
    name: str

    def analyze(self, clip: Clip) -> Any:
        """VAD, speaker turns, embeddings and ASR of the clip's audio (no store access)."""
        ...

    def attach(self, graph: ClipWriter, analysis: Any, faces: list[FaceEvidence] | None = None,
               frame_times: list[float] | None = None) -> list[VoiceTurnEvidence]:
        """Match the speakers to voice nodes; the clip's matched faces (if any) may inform the match."""
        ...

    # optional: ``committed(analysis)``, called once the clip is stored (speech heard over its end, clip_edges.py)


@dataclass
class ClipResult:
    clip_id: int
    start_time: float
    end_time: float
    skipped: bool = False                 # already committed (resume)
    node_ids: list[int] = field(default_factory=list)
    node_types: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)   # seconds per stage
    errors: list[str] = field(default_factory=list)
    posed_turns: int = 0                  # turns given the robot's pose (0 without a pose source)
    # speech the voice stage heard but could not attribute (turns shorter than its min_turn_s): stream spans,
    # reported by the caller (the node records them as lost ``short_speech``), never dropped silently
    short_speech: list[tuple[float, float]] = field(default_factory=list)
    # speech the diarizer heard but gave no speaker (``unattributed_speech``), reported the same way
    unattributed_speech: list[tuple[float, float]] = field(default_factory=list)

    @property
    def unattributed_by_cause(self) -> list[tuple[str, list[tuple[float, float]]]]:
        """Heard speech that got no voice or transcript, per loss cause (stream_ledger.py): the one list the clip
        row's ``extra`` and the node's gaps ledger both report."""
        return [("short_speech", self.short_speech), ("unattributed_speech", self.unattributed_speech)]

    @property
    def processing_s(self) -> float:
        return sum(self.timings.values())


class Memorizer:
    def __init__(self, store: MemoryStore, faces: FaceStage | None = None, voices: VoiceStage | None = None,
                 writer: MemoryWriter | dict | str | None = None, source: str | None = None,
                 texts: Any = None) -> None:
        self.store = store
        self.faces = faces
        self.voices = voices
        self.texts = texts      # scene text (perception.scene_text.SceneTextStage) or None
        self.writer = writer if hasattr(writer, "write") else make_writer(writer)  # type: ignore[arg-type]
        self.source = source

    def is_committed(self, clip_id: int) -> bool:
        return self.store.has_clip(clip_id)

    def _analyze(self, name: str, stage: Any, clip: Clip, res: ClipResult) -> Any:
        """One perception stage on the clip, timed (``res.timings[name]``); None without the stage. A failure loses
        this modality for this clip, not the clip: it is logged and kept in ``res.errors``."""
        if stage is None:
            return None
        t = time.perf_counter()
        try:
            return stage.analyze(clip)
        except Exception as e:
            res.errors.append(f"{name}: {e}")
            log.exception("clip %d: %s failed", clip.clip_id, name)
            return None
        finally:
            res.timings[name] = time.perf_counter() - t

    def process(self, clip: Clip) -> ClipResult:
        res = ClipResult(clip.clip_id, clip.start_time, clip.end_time)
        if self.is_committed(clip.clip_id):
            res.skipped = True
            return res
        face_an = self._analyze("faces", self.faces, clip, res) if clip.frames else None
        voice_an = self._analyze("voices", self.voices, clip, res) if clip.audio is not None else None
        if voice_an is not None:
            res.short_speech = list(getattr(voice_an, "short_turns", None) or [])
            res.unattributed_speech = list(getattr(voice_an, "unattributed", None) or [])
        text_an = self._analyze("scene_text", self.texts, clip, res) if clip.frames else None
        t = time.perf_counter()
        extra: dict = {"frames": len(clip.frames), "audio_coverage": round(clip.audio_coverage, 4)}
        if text_an is not None:   # every reading kept with its times; the frames read say where none was found
            extra["scene_text"] = {"frames_read": len(text_an.frames_read),
                                   "sightings": [s.to_json() for s in text_an.sightings]}
            if text_an.bad_frames:
                extra["scene_text"]["bad_frames"] = text_an.bad_frames
        if res.errors:
            extra["errors"] = res.errors
        edges = {k: round(float(getattr(voice_an, k + "_s", 0.0) or 0.0), 3)
                 for k in ("heard_past_end", "left_to_previous")}   # speech over a clip edge (clip_edges.py)
        if any(edges.values()):
            extra["speech_over_edges_s"] = edges
        for key, spans in res.unattributed_by_cause:
            if spans:
                extra[key] = {"turns": len(spans), "seconds": round(sum(b - a for a, b in spans), 3)}
        with self.store.begin_clip(clip.clip_id, clip.start_time, clip.end_time, source=self.source,
                                   extra=extra) as w:
            res.clip_id = w.clip_id   # the store's id (a named robot's clips are numbered by the shared store)
            ev = ClipEvidence(w.clip_id, clip.start_time, clip.end_time, frame_times=list(clip.frame_times),
                              frames=list(clip.frames), video_path=clip.video_path, poses=list(clip.poses or []),
                              texts=list(text_an.sightings) if text_an is not None else [],
                              loudness=getattr(voice_an, "loudness", None))
            if face_an is not None and self.faces is not None:
                ev.faces = self.faces.attach(w, face_an)
            if voice_an is not None and self.voices is not None:
                ev.voices = self.voices.attach(w, voice_an, faces=ev.faces, frame_times=ev.frame_times)
            tw = time.perf_counter()
            written = self.writer.write(ev, graph=w)
            res.timings["writer"] = time.perf_counter() - tw
            res.errors += written.errors
            episodic = w.add_memories(written.episodic, "episodic") if written.episodic else []
            record_turns(w, ev, [(r.node_id, t) for r, t in zip(episodic, written.episodic, strict=True)
                                 if r.node_id is not None])
            for text in written.semantic:
                w.add_memory(text, "semantic")
            if clip.poses:
                res.posed_turns = record_poses(w, clip.poses)
            w.extra["timings_s"] = {k: round(v, 4) for k, v in res.timings.items()}
            w.extra["memories"] = {"episodic": len(written.episodic), "semantic": len(written.semantic)}
            rows = self.store.node_kinds_and_texts(w.node_ids)
        committed = getattr(self.voices, "committed", None)   # the clip is stored: speech over its end is its own
        if committed is not None:
            committed(voice_an)
        res.timings["store"] = time.perf_counter() - t - res.timings["writer"]
        for nid, typ, text in rows:
            res.node_ids.append(nid)
            res.node_types.append(typ)
            res.texts.append(text)
        return res



def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def record_turns(w: ClipWriter, ev: ClipEvidence, episodic: list[tuple[int, str]]) -> None:
    """Store the clip's who-said-what-when facts: every voice turn (its text: the transcript) and face appearance
    (its text: "looks happy" when the face showed a clear expression in the clip), each linked to the episodic
    memories written from it (those naming its tag; for speech, preferably the ones quoting its transcript)."""
    used: set[int] = set()
    for turn in sorted(ev.voices, key=lambda t: t.start):
        tagged = [(nid, text) for nid, text in episodic if turn.tag in text]
        said = _norm(turn.text)
        # the memory quoting this turn (the same words said twice in a clip: one memory each, in order)
        quoting = [nid for nid, text in tagged if said and said in _norm(text) and nid not in used][:1]
        used.update(quoting)
        w.add_turn("voice", turn.node_id, turn.start, turn.end, " ".join(turn.text.split()) or None,
                   quoting or [nid for nid, text in tagged if not any(_norm(v.text) in _norm(text)
                                                                      for v in ev.voices if v.text.strip())],
                   language=turn.language if turn.text.strip() else None)
    step = _frame_step(ev.frame_times)
    for face in ev.faces:
        tagged = [nid for nid, text in episodic if face.tag in text]
        looks = look_text(face.expression[0]) if face.expression is not None else None   # a clear expression
        for start, end in appearances(face.times, max_gap=max(2.5, 2.5 * step)):
            w.add_turn("face", face.node_id, start, end, looks, tagged)


def _frame_step(times: list[float]) -> float:
    diffs = [b - a for a, b in zip(times, times[1:], strict=False) if b > a]
    return sorted(diffs)[len(diffs) // 2] if diffs else 1.0


def appearances(times: list[float], max_gap: float) -> list[tuple[float, float]]:
    """Frame times a face was seen at -> (start, end) runs; a gap longer than ``max_gap`` starts a new run."""
    runs: list[tuple[float, float]] = []
    for t in sorted(times):
        if runs and t - runs[-1][1] <= max_gap:
            runs[-1] = (runs[-1][0], t)
        else:
            runs.append((t, t))
    return runs
