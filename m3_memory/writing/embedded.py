"""The embedded (CPU, offline, no multimodal LLM) memory writer: honest memories from what perception found.

It writes only what the evidence supports:

* episodic: who was seen (``<face_3> appears in the scene.``), how they looked (``<face_3> looks happy.``, a clear
  expression only), who was seen together
  (``<face_3> and <face_5> are in the scene at the same time.``) and who said what
  (``<voice_1> says: "..."``, one memory per speech turn);
* semantic: self-introductions heard in speech (``<voice_1>'s name is Anna.`` from "my name is Anna" /
  "I'm Anna") and face-voice equivalences (``Equivalence: <face_3>, <voice_1>``).

Equivalences come from audio-visual evidence accumulated across clips in the store (so it survives restarts):
seconds a voice spoke while one face was alone on camera, pooled over one person's sound-alike voice nodes, with
a confidence kept on the link; see :mod:`m3_memory.writing.av_links` for the rule and its limitation (no
lip-activity detection). Repeating the statement in later clips reinforces it (upstream's semantics).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..perception.expression import look_text
from ..store import av_links
from .base import ClipEvidence, WrittenMemories

if TYPE_CHECKING:
    from ..store import ClipWriter

_NAME = re.compile(r"\b(?:my name is|my name's|i am|i'm|call me|this is)\s+([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)")
_NOT_NAMES = {"Sorry", "Fine", "Good", "Here", "Going", "Not", "Just", "So", "Really", "Okay", "Ok", "Sure",
              "The", "A", "An", "It", "That", "This", "Very", "Glad", "Happy", "Back", "Done", "Ready"}


class EmbeddedWriter:
    name = "embedded"

    def __init__(self, alone_fraction: float = 0.6, min_overlap_s: float = 1.2, min_share: float = 0.5,
                 frame_tolerance_s: float = 1e-3) -> None:
        self.av = av_links.AVParams(alone_fraction=alone_fraction, min_overlap_s=min_overlap_s, min_share=min_share,
                                    frame_tolerance_s=frame_tolerance_s)
        self.tol = frame_tolerance_s

    def write(self, evidence: ClipEvidence, graph: ClipWriter | None = None) -> WrittenMemories:
        out = WrittenMemories(backend=self.name, raw_output=None)
        faces = sorted(evidence.faces, key=lambda f: (f.times[0] if f.times else 0.0, f.node_id))
        for f in faces:
            out.episodic.append(f"{f.tag} appears in the scene.")
            if f.expression is not None:
                out.episodic.append(f"{f.tag} {look_text(f.expression[0])}.")
        together = self._seen_together(evidence)
        for a, b in together:
            out.episodic.append(f"<face_{a}> and <face_{b}> are in the scene at the same time.")
        for turn in sorted(evidence.voices, key=lambda t: t.start):
            text = " ".join(turn.text.split())
            if text:
                out.episodic.append(f'{turn.tag} says: "{text}"')
                for name in self._names(text):
                    out.semantic.append(f"{turn.tag}'s name is {name}.")
        for sighting in evidence.texts:   # what is written on signs, labels, screens in view
            out.episodic.append(f'Text reading "{sighting.text}" is in view.')
        if graph is not None:
            out.semantic.extend(self._equivalences(evidence, graph))
        out.semantic = list(dict.fromkeys(out.semantic))
        return out

    def _visible(self, evidence: ClipEvidence, t: float) -> list[int]:
        return av_links.visible(evidence, t, self.tol)

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
        heard = graph.record_av_evidence(evidence, self.av)
        store = getattr(graph, "store", None)
        embedder = store.meta("voice_embedder") if store is not None and hasattr(store, "meta") else None
        return [link.statement for link in graph.av_links_now(sorted(heard), self.av, _same_speaker(embedder))]


def _same_speaker(embedder: str | None) -> float:
    """The same-speaker cosine of the store's speaker embedder (its class attribute); unknown or none recorded:
    the strictest of the embedded ones."""
    from ..perception.voices import voice_embedder_class

    names = ("resemblyzer", "campplus", "eres2netv2")
    if embedder in names:
        return float(voice_embedder_class(embedder).same_speaker_threshold)
    return max(float(voice_embedder_class(n).same_speaker_threshold) for n in names)
