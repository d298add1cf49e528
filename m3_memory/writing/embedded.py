"""The embedded (CPU, offline, no multimodal LLM) memory writer: honest memories from what perception found.

It writes only what the evidence supports:

* episodic: who was seen (``<face_3> appears in the scene.``), who was seen together
  (``<face_3> and <face_5> are in the scene at the same time.``) and who said what
  (``<voice_1> says: "..."``, one memory per speech turn);
* semantic: self-introductions heard in speech (``<voice_1>'s name is Anna.`` from "my name is Anna" /
  "I'm Anna") and face-voice equivalences (``Equivalence: <face_3>, <voice_1>``).

Equivalence rule (audio-visual co-occurrence, accumulated across clips in the store, so it survives restarts):
for every speech turn, the sampled frames inside the turn are checked; when one face is the *only* face on
camera in at least ``alone_fraction`` of them, the turn's duration times that fraction is credited to the
(face, voice) pair. A pair is declared equivalent when its credit is at least ``min_overlap_s`` seconds, covers
at least ``min_share`` of everything the voice said, and each is the other's best partner. Repeating the
statement in later clips reinforces it (upstream's semantics). Limitation: without lip-activity detection a
silent person alone on camera while someone off camera talks earns credit too; the thresholds and the mutual
best-partner test keep that from deciding on its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .base import ClipEvidence, WrittenMemories

if TYPE_CHECKING:
    from ..store import ClipWriter

_NAME = re.compile(r"\b(?:my name is|my name's|i am|i'm|call me|this is)\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)")
_NOT_NAMES = {"Sorry", "Fine", "Good", "Here", "Going", "Not", "Just", "So", "Really", "Okay", "Ok", "Sure",
              "The", "A", "An", "It", "That", "This", "Very", "Glad", "Happy", "Back", "Done", "Ready"}


class EmbeddedWriter:
    name = "embedded"

    def __init__(self, alone_fraction: float = 0.6, min_overlap_s: float = 1.5, min_share: float = 0.5,
                 frame_tolerance_s: float = 1e-3) -> None:
        self.alone_fraction = alone_fraction
        self.min_overlap_s = min_overlap_s
        self.min_share = min_share
        self.tol = frame_tolerance_s

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        out = WrittenMemories(backend=self.name, raw_output=None)
        faces = sorted(evidence.faces, key=lambda f: (f.times[0] if f.times else 0.0, f.node_id))
        for f in faces:
            out.episodic.append(f"{f.tag} appears in the scene.")
        together = self._seen_together(evidence)
        for a, b in together:
            out.episodic.append(f"<face_{a}> and <face_{b}> are in the scene at the same time.")
        for turn in sorted(evidence.voices, key=lambda t: t.start):
            text = " ".join(turn.text.split())
            if text:
                out.episodic.append(f'{turn.tag} says: "{text}"')
                for name in self._names(text):
                    out.semantic.append(f"{turn.tag}'s name is {name}.")
        if graph is not None:
            out.semantic.extend(self._equivalences(evidence, graph))
        out.semantic = list(dict.fromkeys(out.semantic))
        return out

    def _visible(self, evidence: ClipEvidence, t: float) -> list[int]:
        return [f.node_id for f in evidence.faces if any(abs(x - t) <= self.tol for x in f.times)]

    def _seen_together(self, evidence: ClipEvidence) -> list[tuple[int, int]]:
        pairs: dict[tuple[int, int], None] = {}
        for t in evidence.frame_times:
            ids = sorted(self._visible(evidence, t))
            for i in range(len(ids)):
                for j in range(i + 1, len(ids)):
                    pairs[(ids[i], ids[j])] = None
        return list(pairs)

    @staticmethod
    def _names(text: str) -> list[str]:
        return [m.group(1) for m in _NAME.finditer(text) if m.group(1).split()[0] not in _NOT_NAMES]

    def _equivalences(self, evidence: ClipEvidence, graph: ClipWriter) -> list[str]:
        conn = graph.conn
        touched: set[int] = set()
        for turn in evidence.voices:
            dur = max(0.0, turn.end - turn.start)
            conn.execute("INSERT INTO voice_speech (voice_id, speech_s) VALUES (?, ?) ON CONFLICT (voice_id) "
                         "DO UPDATE SET speech_s = speech_s + excluded.speech_s", (turn.node_id, dur))
            touched.add(turn.node_id)
            frames = [t for t in evidence.frame_times if turn.start - self.tol <= t <= turn.end + self.tol]
            if not frames:
                continue
            alone: dict[int, int] = {}
            for t in frames:
                vis = self._visible(evidence, t)
                if len(vis) == 1:
                    alone[vis[0]] = alone.get(vis[0], 0) + 1
            for face_id, n in alone.items():
                frac = n / len(frames)
                if frac >= self.alone_fraction:
                    conn.execute(
                        "INSERT INTO av_evidence (face_id, voice_id, overlap_s) VALUES (?, ?, ?) ON CONFLICT "
                        "(face_id, voice_id) DO UPDATE SET overlap_s = overlap_s + excluded.overlap_s",
                        (face_id, turn.node_id, dur * frac))
        out = []
        for voice_id in sorted(touched):
            row = conn.execute("SELECT face_id, overlap_s FROM av_evidence WHERE voice_id = ? ORDER BY overlap_s DESC,"
                               " face_id LIMIT 1", (voice_id,)).fetchone()
            if not row:
                continue
            face_id, overlap = row
            speech = conn.execute("SELECT speech_s FROM voice_speech WHERE voice_id = ?", (voice_id,)).fetchone()[0]
            best_voice = conn.execute("SELECT voice_id FROM av_evidence WHERE face_id = ? ORDER BY overlap_s DESC, "
                                      "voice_id LIMIT 1", (face_id,)).fetchone()[0]
            if overlap >= self.min_overlap_s and overlap >= self.min_share * speech and best_voice == voice_id:
                out.append(f"Equivalence: <face_{face_id}>, <voice_{voice_id}>")
        return out
