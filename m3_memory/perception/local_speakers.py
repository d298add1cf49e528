"""Diarization from segmentation-3.0's local speakers (pyannote's pipeline, on CPU with the packaged weights).

The windows diarizer (diarization.py) labels each 0.1 s of VAD speech with the cluster of the short windows around
it; a person talking under someone else is at best a second label guessed from those windows. pyannote's pipeline
starts instead from what segmentation-3.0 (segmentation.py) already separates: in each 10 s chunk, up to three
*local* speakers, each with their own frames, two at once where people overlap. Then:

1. **One voice print per local speaker per chunk**: CAM++ over the audio of the frames where that speaker talks
   alone (``exclude overlap``; all their frames when they never talk alone), so a print is one person, not a mix.
2. **Clustering the prints**: average-linkage on cosine distance, cut at ``local_merge_sim`` (prints of seconds of
   speech, as diarization.py's whole-speech print merge: one AMI person's two halves mostly >= 0.6 alike, two
   people 0.30-0.57), only over prints with at least ``local_min_clean_s`` of lone speech (short ones are noisy).
3. **Constrained assignment**: every active local speaker, print or not, goes to a cluster centroid, with two local
   speakers of one chunk never in the same cluster (Hungarian assignment per chunk, scipy), as pyannote does;
   unless the constraint would put one in a cluster it is less than ``local_merge_sim`` alike while its nearest
   cluster is at least that alike: the model split one person in two there (added after the first version's
   held-out figures were seen; AMI TUNE DER 0.301 -> 0.296).
4. **Reconstruction**: per 0.1 s frame, each cluster's activity is the mean over the chunks covering the frame of
   its local speaker's activity there; the ``count`` most active clusters talk, where ``count`` is the rounded mean
   number of local speakers active (segmentation.py ``speaker_count``), so speech is what the segmentation model
   hears (not the VAD) and an overlapped frame has two speakers.
5. The frame's main speaker is who already talked in the previous frame when still active (a turn is not cut in two
   by someone talking over it), else the most active cluster; the other one of an overlapped frame makes the
   second-speaker runs (``Diarization.overlap``), as diarization.py's.

Costs: the segmentation pass (which the overlap-aware windows diarizer runs too) and one CAM++ embedding of at most
10 s per active local speaker per chunk (chunks ``SpeakerSegmentation.step_s`` apart).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .diarization import STEP, Diarization, DiarizationConfig, _relabel, _smooth, label_runs, second_speaker_runs

if TYPE_CHECKING:
    from .segmentation import SpeakerSegmentation


def frame_samples(active: np.ndarray, start_s: float, frame_step: float, sr: int, n_samples: int) -> np.ndarray:
    """Sample indices (into the whole clip) of the model frames marked in ``active`` of a chunk starting at
    ``start_s``: frame ``i`` stands for ``[start + i * step, start + (i + 1) * step)``."""
    idx = np.flatnonzero(active)
    if not len(idx):
        return np.zeros(0, int)
    a = np.round((start_s + idx * frame_step) * sr).astype(int)
    n = int(round(frame_step * sr))
    out = (a[:, None] + np.arange(n)[None, :]).reshape(-1)
    return out[out < n_samples]


def local_prints(wav: np.ndarray, sr: int, starts: np.ndarray, hard: np.ndarray, frame_step: float,
                 embed: Callable[[list[np.ndarray]], np.ndarray], min_speech_s: float
                 ) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray]:
    """(chunk, local speaker) pairs with at least ``min_speech_s`` of activity, their CAM++ prints (lone frames, or
    all their frames when they never talk alone) and their seconds of lone speech."""
    alone = hard.sum(axis=2) == 1
    keys: list[tuple[int, int]] = []
    audio: list[np.ndarray] = []
    clean_s: list[float] = []
    for c in range(hard.shape[0]):
        for s in range(hard.shape[2]):
            act = hard[c, :, s] > 0
            if act.sum() * frame_step < min_speech_s:
                continue
            lone = act & alone[c]
            use = lone if lone.sum() * frame_step >= min_speech_s else act
            x = wav[frame_samples(use, float(starts[c]), frame_step, sr, len(wav))]
            if len(x) < 0.1 * sr:
                continue
            keys.append((c, s))
            audio.append(x)
            clean_s.append(float(lone.sum() * frame_step))
    emb = embed(audio) if audio else np.zeros((0, 0), np.float32)
    return keys, emb, np.array(clean_s)


def cluster_prints(emb: np.ndarray, keep: np.ndarray, min_sim: float, max_speakers: int) -> np.ndarray:
    """Average-linkage clusters (0..k-1) of the rows in ``keep`` cut at cosine similarity ``min_sim`` (at most
    ``max_speakers``); rows outside ``keep`` get -1."""
    lab = np.full(len(emb), -1)
    idx = np.flatnonzero(keep)
    if len(idx) == 1:
        lab[idx] = 0
    elif len(idx) > 1:
        from scipy.cluster.hierarchy import fcluster, linkage

        z = linkage(np.asarray(emb[idx], np.float64), method="average", metric="cosine")
        k = fcluster(z, t=1.0 - min_sim, criterion="distance")
        if k.max() > max_speakers:
            k = fcluster(z, max_speakers, criterion="maxclust")
        lab[idx] = _relabel(k)
    return lab


def assign(keys: list[tuple[int, int]], emb: np.ndarray, lab: np.ndarray, share_sim: float | None = None
           ) -> dict[tuple[int, int], int]:
    """Every (chunk, local speaker) to a cluster: the centroid it is closest to, local speakers of one chunk to
    different clusters (Hungarian per chunk); a local speaker left without a cluster (more in the chunk than there
    are clusters) is not in the result. With ``share_sim``, a local speaker that the constraint would put in a
    cluster it is less than ``share_sim`` alike while its nearest one is at least that alike goes to its nearest
    one (segmentation-3.0 sometimes splits one person into two local speakers of a chunk; forcing the second half
    onto someone else is a confusion)."""
    from scipy.optimize import linear_sum_assignment

    k = int(lab.max()) + 1 if len(lab) else 0
    if k == 0:
        return {}
    cents = np.stack([emb[lab == j].mean(axis=0) for j in range(k)])
    cents /= np.linalg.norm(cents, axis=1, keepdims=True) + 1e-9
    sim = emb @ cents.T
    out: dict[tuple[int, int], int] = {}
    by_chunk: dict[int, list[int]] = {}
    for i, (c, _) in enumerate(keys):
        by_chunk.setdefault(c, []).append(i)
    for rows in by_chunk.values():
        r, cl = linear_sum_assignment(-sim[rows])
        for i, j in zip(r, cl, strict=True):
            out[keys[rows[i]]] = int(j)
        if share_sim is not None:
            for i in rows:
                best = int(np.argmax(sim[i]))
                j = out.get(keys[i])
                if (j is None or sim[i, j] < share_sim) and sim[i, best] >= share_sim:
                    out[keys[i]] = best
    return out


def cluster_activity(hard: np.ndarray, who: dict[tuple[int, int], int], k: int) -> np.ndarray:
    """(chunks, frames, k) activity of each cluster in each chunk: the max over its local speakers there (two local
    speakers of one cluster are still one voice)."""
    out = np.zeros((*hard.shape[:2], max(k, 1)))
    for (c, s), j in who.items():
        out[c, :, j] = np.maximum(out[c, :, j], hard[c, :, s])
    return out


def speakers_per_frame(activity: np.ndarray, count: np.ndarray, min_run_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Main and second speaker per frame (-1: none) from cluster ``activity`` and the ``count`` of talkers: the
    ``count`` most active clusters (with any activity; two at most, as ``Diarization`` has a main and a second
    speaker) talk; the main one keeps who talked in the previous frame.
    Main-speaker runs shorter than ``min_run_s`` inside speech take a neighbour's label."""
    n = len(activity)
    main, second = np.full(n, -1), np.full(n, -1)
    prev = -1
    for i in range(n):
        m = int(min(count[i] if i < len(count) else 0, 2))
        order = [int(j) for j in np.argsort(-activity[i]) if activity[i, j] > 0][:m]
        if not order:
            prev = -1
            continue
        if prev in order:
            order.remove(prev)
            order.insert(0, prev)
        main[i] = order[0]
        if len(order) > 1:
            second[i] = order[1]
        prev = order[0]
    min_len = max(1, int(round(min_run_s / STEP)))
    for s, e in label_runs(main >= 0):
        if main[s] >= 0:
            seg = main[s:e].copy()
            _smooth(seg, min_len)
            main[s:e] = seg
    second[second == main] = -1
    return main, second


def diarize_local(wav: np.ndarray, sr: int, segmentation: SpeakerSegmentation,
                  embed: Callable[[list[np.ndarray]], np.ndarray], cfg: DiarizationConfig) -> Diarization:
    """Speaker runs and second-speaker runs of one clip (module doc); ``windows`` are empty, ``embeddings`` and
    ``labels`` are the local speakers' prints and their clusters."""
    duration = len(wav) / sr
    starts, hard = segmentation.local_activity(wav)
    count = segmentation.speaker_count(starts, hard, duration)
    heard = [(s * STEP, min(e * STEP, duration)) for s, e in label_runs(count >= 1) if count[s] >= 1]
    keys, emb, clean_s = local_prints(wav, sr, starts, hard, segmentation.frame_step, embed, cfg.min_local_speech_s)
    if not keys:
        return Diarization([], [], [], np.zeros((0, 0), np.float32), np.zeros(0, int), speech=heard)
    keep = clean_s >= cfg.local_min_clean_s
    if not keep.any():                       # nothing long enough alone: the longest print stands for the clip
        keep[int(np.argmax(clean_s))] = True
    lab = cluster_prints(emb, keep, cfg.local_merge_sim, cfg.max_speakers)
    # centroids from the clustered prints only (label -1 is in none); as alike as one voice's prints: shared
    who = assign(keys, emb, lab, share_sim=cfg.local_merge_sim)
    k = int(lab.max()) + 1
    activity = segmentation.aggregate(starts, cluster_activity(hard, who, k), duration)
    main, second = speakers_per_frame(activity, count, cfg.min_run_s)
    runs = [(s * STEP, min(e * STEP, duration), int(main[s])) for s, e in label_runs(main) if main[s] >= 0]
    overlap = second_speaker_runs(second, cfg.min_overlap_run_s)
    labels = np.array([who.get(key, -1) for key in keys], int)
    ok = labels >= 0
    return Diarization(runs, overlap, [], emb[ok], labels[ok], speech=heard)

