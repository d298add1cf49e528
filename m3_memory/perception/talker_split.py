"""One clip speaker, two talking faces: split a diarization cluster whose turns the lips give to different people;
two clip speakers, one talking face: join them.

In a reverberant room two people's voices can sound alike enough for the clip's diarizer to file them under one
speaker (robot-view tune scenes: A's and B's alternate turns in one 30 s clip, one cluster). The camera may know
better: when two or more faces are in view during a turn, lip activity names the talker
(:func:`m3_memory.store.av_links.lip_credit`, which declines when unsure). A speaker whose turns the lips give to
two or more different faces is split into one speaker per face; its turns without a lip verdict stay with the face
that has the most of its speech. Each part's voice print is the mean of its turns' own prints (``VoiceTurn.
embedding``, one embedding of each turn's audio, made by the voice stage for speakers with several turns).

Then clip speakers all of whose lip verdicts name the same one face are joined into one (the one with the most
speech keeps its key): the diarizer also cuts one person's sentence in two, a 0.5 s head filed under another voice
(robot-view tune scene 600: "set blue" / "with e five now"), and the lips see one mouth talking through both.

A face alone on camera during a turn (and no lip verdict) counts for a split only where the voice agrees: the
turns given to different faces must not sound like one person (the mean cosine of their turn prints below the
embedder's matching threshold, under which the store would not file them under one voice node either). Someone
off camera talking while first one person, then another is alone in view sounds like one person throughout and
stays one speaker; two people the diarizer filed under one speaker in a 30 s clip, each alone on camera while
talking (procedural fresh scene 511: "bin blue at f two now" and "set blue with e five now", turn prints 0.44
apart, one speaker for two people), are split. Joins still need the lips: a face alone on camera names nobody's
voice on its own. A speaker whose turns lack prints is left as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from ..store.av_links import AVParams, alone_credit, lip_credit
from ..writing.base import ClipEvidence, FaceEvidence
from .lip_activity import Loudness
from .voices import Speaker

log = logging.getLogger(__name__)


def _sound_apart(spk: Speaker, talker: list[int | None], below: float) -> bool:
    """Do the turns given to different faces not sound like one person? Every pair of faces' turns: the mean
    cosine of their prints below ``below``."""
    prints: dict[int, np.ndarray] = {}
    for f in set(talker) - {None}:
        m = np.stack([np.asarray(t.embedding, dtype=np.float64) for t, g in zip(spk.turns, talker, strict=True)
                      if g == f])
        prints[f] = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    faces = sorted(prints)
    return all(float((prints[a] @ prints[b].T).mean()) < below
               for i, a in enumerate(faces) for b in faces[i + 1:])


def split_by_lips(speakers: dict[int, Speaker], faces: Sequence[FaceEvidence], frame_times: Sequence[float],
                  p: AVParams | None = None, apart_below: float | None = None, loudness: Loudness | None = None
                  ) -> tuple[dict[int, Speaker], list[tuple[int, list[int]]]]:
    """(the speakers with every lip-divided one split and every lip-joined group joined, [(original key, keys it
    became)] of the splits and joins made: a join is (kept key, [kept key, joined keys...])). With
    ``apart_below`` (the embedder's matching threshold), a face alone on camera also names a turn's talker, for
    splits whose turns do not sound like one person (module doc)."""
    p = p or AVParams()
    ev = ClipEvidence(0, 0.0, 0.0, faces=list(faces), frame_times=list(frame_times), loudness=loudness)
    out: dict[int, Speaker] = {}
    splits: list[tuple[int, list[int]]] = []
    next_key = max(speakers, default=-1) + 1
    sole: dict[int, int] = {}      # speaker key -> the one face its lip verdicts name
    for k, spk in sorted(speakers.items()):
        lips, seen = [], []        # per turn: the face its lips name; that or the face alone on camera
        for t in spk.turns:
            credit = {} if t.overlapped else lip_credit(ev, t.start, t.end, p)
            lips.append(next(iter(credit)) if credit else None)
            if lips[-1] is None and apart_below is not None and not t.overlapped:
                credit = alone_credit(ev, t.start, t.end, p)
            seen.append(next(iter(credit)) if credit else None)
        printed = len(spk.turns) >= 2 and all(t.embedding is not None for t in spk.turns)
        talker = lips
        if seen != lips and len(set(seen) - {None}) >= 2 and printed and _sound_apart(spk, seen, apart_below):
            talker = seen
        said = {f: sum(t.end - t.start for t, g in zip(spk.turns, talker, strict=True) if g == f)
                for f in set(talker) - {None}}
        if len(said) < 2 or not printed:
            out[k] = spk
            if len(set(lips) - {None}) == 1:
                sole[k] = next(iter(set(lips) - {None}))
            continue
        main = max(said, key=lambda f: (said[f], -f))
        keys = []
        for f in sorted(said, key=lambda f: (f != main, f)):
            mine = [t for t, g in zip(spk.turns, talker, strict=True) if g == f or (g is None and f == main)]
            key = k if f == main else next_key
            next_key += key != k
            for t in mine:
                t.speaker = key
            out[key] = Speaker(mine, [np.asarray(t.embedding) for t in mine])
            if f in lips:          # a part the lips named (not only a face alone on camera) may be joined
                sole[key] = f
            keys.append(key)
        splits.append((k, keys))
        log.info("clip speaker %d split by the %s of faces %s: %s", k,
                 "lips" if talker is lips else "lips and faces alone on camera", sorted(said),
                 ", ".join(f"{len(out[x].turns)} turns" for x in keys))
    for f in sorted(set(sole.values())):
        group = [k for k in sorted(sole) if sole[k] == f and k in out]
        if len(group) < 2:
            continue
        keep = max(group, key=lambda k: (sum(t.end - t.start for t in out[k].turns), -k))
        for k in group:
            if k != keep:
                gone = out.pop(k)
                for t in gone.turns:
                    t.speaker = keep
                out[keep].turns = sorted(out[keep].turns + gone.turns, key=lambda t: t.start)
                out[keep].embeddings = out[keep].embeddings + gone.embeddings
        for t in out[keep].turns:
            t.speaker = keep
        splits.append((keep, [keep] + [k for k in group if k != keep]))
        log.info("clip speakers %s joined: the lips of face %d say all of them", group, f)
    return out, splits
