"""Who is on camera while a voice speaks: face-aware re-identification of a clip's speakers against voice nodes.

A speaker's centroid from a second or two of speech is a weak voice print: two people can score above the
matching threshold, and one person's short turn below it. The camera often knows better. When one face is seen
talking during most of a speaker's turns (the only face on camera, or the one whose lips clearly moved most:
:func:`m3_memory.store.av_links.talker_credit`), the match is checked against who that face is:

* **own voice** — the face is already linked to a voice node that scores at least the embedder's same-speaker
  threshold and within ``margin`` of the best node (or at any distance below it when the best node is someone
  else's who is not talking, as below): that node is taken (the face's own voice, heard again; at 10 dB in a
  reverberant room one person's print can drift closer to another person's node than to their own).
* **someone else's voice** — the best node is linked to another face that is not on camera during the turns
  (or is on camera, but the lips showed it was not the one talking), the talking face has no voice yet (or its own
  scores below the same-speaker threshold), and the score is below ``sure``: a new voice node is made rather than
  filing a new person's words under someone who is not there (or not talking). (Someone off camera talking while
  a new face is on screen loses only the re-identification of that one clip; a wrong match would join two people.)

Anything else keeps the store's plain rule (best node at or above the matching threshold). Every decision
that differs from the plain rule is returned with its reason and logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..store.av_links import AVParams, alone_credit, lip_credit
from ..writing.base import ClipEvidence, FaceEvidence
from .lip_activity import Loudness

log = logging.getLogger(__name__)


@dataclass
class Decision:
    node: int | None          # the voice node to use; None: a new one
    score: float              # the chosen node's score (the best score when new)
    reason: str               # "plain" | "own voice" | "not the talking face's"


def scores(graph, embs: np.ndarray) -> dict[int, float]:  # noqa: ANN001 - ClipWriter
    """Every voice node's score for ``embs`` by the store's matching rule (ClipWriter.entity_scores)."""
    nodes, per = graph.entity_scores("voice", embs)
    return {int(n): float(s) for n, s in zip(nodes.tolist(), per.tolist(), strict=True)}


def on_camera_alone(faces: Sequence[FaceEvidence], frame_times: Sequence[float], turns: Sequence[tuple[float, float]],
                    p: AVParams, loudness: Loudness | None = None) -> int | None:
    """The face seen talking (alone on camera, or with the clearly most lip activity among several) for most of
    these turns (credit over half their length), else None."""
    return talking_face(faces, frame_times, turns, p, loudness)[0]


def talking_face(faces: Sequence[FaceEvidence], frame_times: Sequence[float], turns: Sequence[tuple[float, float]],
                 p: AVParams, loudness: Loudness | None = None) -> tuple[int | None, bool]:
    """(the face seen talking for most of these turns or None, whether its lips decided it: other faces were in
    view and their lips were still)."""
    ev = ClipEvidence(0, 0.0, 0.0, faces=list(faces), frame_times=list(frame_times), loudness=loudness)
    credit: dict[int, float] = {}
    by_lips: dict[int, float] = {}
    for a, b in turns:   # talker_credit's two rules, keeping which one decided
        alone = alone_credit(ev, a, b, p)
        for f, s in alone.items():
            credit[f] = credit.get(f, 0.0) + s
        for f, s in ({} if alone else lip_credit(ev, a, b, p)).items():
            credit[f] = credit.get(f, 0.0) + s
            by_lips[f] = by_lips.get(f, 0.0) + s
    total = sum(b - a for a, b in turns)
    if not credit or total <= 0:
        return None, False
    face, s = max(credit.items(), key=lambda x: x[1])
    if s < 0.5 * total:
        return None, False
    return face, by_lips.get(face, 0.0) >= 0.5 * s


def seen(faces: Sequence[FaceEvidence], turns: Sequence[tuple[float, float]], tol: float = 1e-3) -> set[int]:
    """Faces seen at any sampled frame during the turns."""
    return {f.node_id for f in faces for t in f.times if any(a - tol <= t <= b + tol for a, b in turns)}


def decide(graph, embs: np.ndarray, turns: Sequence[tuple[float, float]], faces: Sequence[FaceEvidence],  # noqa: ANN001
           frame_times: Sequence[float], match: float, same: float, sure: float, margin: float = 0.1,
           p: AVParams | None = None, loudness: Loudness | None = None) -> Decision:
    """Which voice node this clip speaker is (see the module doc)."""
    sc = scores(graph, embs)
    if not sc:
        return Decision(None, 0.0, "plain")
    best, best_s = max(sc.items(), key=lambda x: (x[1], -x[0]))
    plain = Decision(best if best_s >= match else None, best_s, "plain")
    face, by_lips = talking_face(faces, frame_times, turns, p or AVParams(), loudness) if faces else (None, False)
    if face is None:
        return plain
    own = {v: sc[v] for v in graph.linked_entities(face, "voice") if v in sc}
    others = graph.linked_entities(best, "face") if plain.node is not None else set()
    # the best node's face is not the one talking: it is off camera, or on camera with its lips still
    not_theirs = (bool(others) and face not in others and (by_lips or not (others & seen(faces, turns)))
                  and best_s < sure)
    if own:
        v, s = max(own.items(), key=lambda x: x[1])
        if v != best and s >= same and (best_s - s < margin or not_theirs):
            return Decision(v, s, "own voice")
        if v != best and not_theirs:
            return Decision(None, best_s, "not the talking face's")
        return plain
    if not_theirs:
        return Decision(None, best_s, "not the talking face's")
    return plain
