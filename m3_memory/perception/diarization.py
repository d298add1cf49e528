"""Speaker diarization of one clip from speech segments and a window speaker embedder.

1. Sliding windows (``window_s`` long, ``hop_s`` apart) over every speech segment, so a segment in which two
   people talk yields windows of each; a segment shorter than a window gets one window centred on it (extended
   into its surroundings up to ``window_s``), so every window has the same length and one batch embeds them.
2. Clustering of the window embeddings, one of:
   - ``clustering="spectral"`` (3D-Speaker's recipe for CAM++, after speechbrain): each window keeps its
     ``spectral_neighbours`` most similar windows (cosine), the rest of the affinity is zeroed; the largest gap
     among the smallest eigenvalues of the graph Laplacian gives the speaker count (1..``max_speakers``) and k-means
     on the first eigenvectors the labels; clusters of fewer than ``min_cluster_windows`` windows join the nearest
     larger one. Neighbourhoods instead of distances: one window is noisy, but its nearest neighbours are mostly the
     same person's, whatever the room does to absolute similarities (pyannote's two-person sample: 1 voice with
     the average-linkage cut, 2 with this).
   - ``clustering="ahc"``: average-linkage agglomerative clustering on cosine distance (scipy). The cut adapts
     to the clip: among 1..``max_speakers`` clusters the one with the best silhouette wins, bounded by two global
     distances: merges closer than ``merge_distance`` are never split (one voice varies that much), merges farther
     than ``split_distance`` are always split (no one voice varies that much). A split that nothing forces is kept
     only if its silhouette reaches ``min_silhouette`` (otherwise one voice whose windows vary would always be cut
     in two: the silhouette is undefined for one cluster).
   Then (``print_merge_sim``) clusters are joined while the voice prints of their whole speech (up to
   ``print_merge_max_s`` of each cluster's frames, one embedding) are at least that alike: a print of seconds of
   speech is far steadier than window averages (AMI: one person's two halves 0.47-0.93, mostly >= 0.6; two people
   0.30-0.57), so this undoes a split of one clean voice that window neighbourhoods make.
   Then (``merge_glued``) a cluster that never talks on its own is joined to the one it is glued to: when every
   run of it sits inside a VAD segment directly against another cluster's run (no pause between), it is a piece of
   that person's speech that the windows' content split off (the demo's GRID speakers: the first and second halves of
   each sentence became two voices), since people mostly take turns at pauses. Only with ``overlap`` and never
   below the overlap model's count (``min_k``), which keeps a talker who only ever speaks over someone else (without
   that floor, AMI FRESH purity fell from 0.91 to 0.67: interjections were joined to whoever they interrupted),
   and (``glued_max_s``) only a cluster with less speech than that: a fragment of a sentence is short, while a
   cluster that talks for seconds, each time right after someone else, is a person taking quick turns (broadcast
   news: interviewer and guests, 9 people found as 3 when every glued cluster was joined).
3. Clusters whose centroids are at least ``centroid_merge_sim`` alike are joined (a centroid is a much steadier
   voice print than one window, so this undoes window-level splits of one voice).
4. Windows are re-assigned to the nearest cluster centroid, each 0.1 s speech frame takes the label of the
   windows covering it (votes weighted by closeness to the window centre), and runs shorter than ``min_run_s``
   take the label of a neighbour; so a speaker change inside a VAD segment is where the frame labels change.
   Runs stop ``turn_trim_s`` inside the padded segment edges (the pad is context for the windows, not speech).
4b. (``unlike_segment_max_s``) A short speech segment that the windows split between clusters, whose whole print is
   unlike each of those clusters' prints without it (< ``print_merge_sim``), becomes a speaker of its own: someone
   who speaks once, briefly, between others has too few windows to form a cluster.
5. Overlap (``overlap``, off by default): segmentation-3.0 (segmentation.py) says how many people talk in each frame
   and how many the clip has at least. The cut in 2-3 never goes below that many clusters, and a frame where two
   talk also gets the cluster that its covering windows score next best (pyannote's count-guided assignment), so a
   talker under someone else becomes a turn of their own instead of nobody.
6. (voice_prints) each speaker's embeddings for matching across clips can come from longer windows over its runs
   (``print_window_s``) than the short windows that place the changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

STEP = 0.1   # frame step of the label smoothing, seconds


@dataclass
class DiarizationConfig:
    window_s: float = 1.5
    hop_s: float = 0.5
    merge_distance: float = 0.2      # cosine distance; 1 - cosine similarity
    split_distance: float = 0.5
    max_speakers: int = 8
    centroid_merge_sim: float = 0.78 # clusters whose centroids are at least this cosine-similar are one voice
    min_run_s: float = 0.3
    min_silhouette: float = -1.0     # an unforced split (k_min <= 1) needs at least this silhouette
    turn_trim_s: float = 0.0         # turns stop this far inside each padded VAD segment edge (not at clip edges)
    # voice prints (the per-speaker embeddings matched across clips) from windows this long over each speaker's
    # runs; None: the diarization windows themselves
    print_window_s: float | None = None
    clustering: str = "ahc"          # "ahc" or "spectral" (module doc step 2)
    spectral_neighbours: int = 8     # spectral: affinities kept per window
    min_cluster_windows: int = 2     # spectral: smaller clusters join the nearest larger one
    print_merge_sim: float | None = None   # join clusters whose whole-speech prints are this alike (None: off)
    print_merge_max_s: float = 10.0
    print_merge_min_s: float = 0.5   # a cluster with less speech has no print (too short to be steady)
    merge_glued: bool = False        # join a cluster none of whose runs stands alone in its segment (needs overlap)
    # a speech segment at most this long that the windows split between clusters, whose print is unlike each of
    # theirs without it (< print_merge_sim), is one more speaker (step 4b; None: off)
    unlike_segment_max_s: float | None = None
    glued_max_s: float | None = None # ... only when it has less speech than this (None: any)
    # overlap-aware (segmentation-3.0; module doc step 5): a lower bound on the speaker count from the model's local
    # speakers with >= min_local_speech_s each, and a second speaker on overlapped frames (runs >= min_overlap_run_s)
    overlap: bool = False
    min_local_speech_s: float = 0.3
    min_overlap_run_s: float = 0.3
    # "windows" (this module) or "local": segmentation-3.0's local speakers, one print each, clustered and put back
    # together frame by frame (pyannote's pipeline, local_speakers.py; needs the segmentation model)
    speakers_from: str = "windows"
    # local: prints at least this alike (average linkage) are one voice; prints with less lone speech are assigned,
    # not clustered. Chosen on the AMI TUNE excerpts only (2026-11-25; 0.5-0.8 x 1-4 s x average / centroid /
    # complete linkage: DER 0.300-0.401, average 0.6-0.7 with 1 s at 0.301)
    local_merge_sim: float = 0.6
    local_min_clean_s: float = 1.0


def sliding_windows(segments: list[tuple[float, float]], duration: float, window_s: float,
                    hop_s: float) -> list[tuple[float, float]]:
    """Equal-length windows over the speech segments (seconds); short segments get one centred window."""
    w = min(window_s, duration)
    out: list[tuple[float, float]] = []
    for a, b in segments:
        if b - a <= w:
            c = (a + b) / 2
            s = min(max(0.0, c - w / 2), duration - w)
            out.append((s, s + w))
            continue
        n = int(np.ceil((b - a - w) / hop_s)) + 1
        starts = np.linspace(a, b - w, n) if n > 1 else np.array([a])
        out += [(float(s), float(s) + w) for s in starts]
    return out


def choose_clusters(emb: np.ndarray, cfg: DiarizationConfig, min_k: int = 1) -> np.ndarray:
    """Cluster labels (0..k-1) of L2-normalised rows with the clip-adaptive cut described in the module doc; never
    fewer than ``min_k`` clusters (the segmentation model's lower bound overrides ``merge_distance``)."""
    n = len(emb)
    if n < 2:
        return np.zeros(n, int)
    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.metrics import silhouette_score

    z = linkage(emb, method="average", metric="cosine")
    heights = z[:, 2]                       # ascending: merge j joins n-j clusters into n-j-1
    k_min = 1 + int(np.sum(heights > cfg.split_distance))
    k_max = 1 + int(np.sum(heights > cfg.merge_distance))
    k_min, k_max = max(k_min, min_k), max(k_max, min_k)
    k_max = min(k_max, cfg.max_speakers, n - 1)
    k_min = min(k_min, k_max)
    if k_max <= 1:
        return np.zeros(n, int)
    best_k, best_s = k_min, -2.0
    for k in range(max(2, k_min), k_max + 1):
        lab = fcluster(z, k, criterion="maxclust")
        if len(set(lab)) < 2:
            continue
        s = float(silhouette_score(emb, lab, metric="cosine"))
        if s > best_s:
            best_k, best_s = k, s
    if k_min <= 1 and best_s < cfg.min_silhouette:
        best_k = 1
    lab = fcluster(z, best_k, criterion="maxclust") if best_k > 1 else np.ones(n, int)
    return _relabel(lab)


def spectral_clusters(emb: np.ndarray, cfg: DiarizationConfig, min_k: int = 1) -> np.ndarray:
    """Cluster labels (0..k-1) of L2-normalised rows by spectral clustering of the pruned cosine affinity (module
    doc step 2); the eigengap count is never below ``min_k``."""
    n = len(emb)
    if n < max(3 * cfg.min_cluster_windows, 6):     # under ~2 s of speech: one voice
        return np.zeros(n, int)
    from sklearn.cluster import KMeans

    aff = np.clip(emb @ emb.T, 0.0, None)
    keep = min(cfg.spectral_neighbours, n - 1)
    drop = np.argsort(aff, axis=1)[:, : n - keep]            # all but each row's ``keep`` most similar
    np.put_along_axis(aff, drop, 0.0, axis=1)
    aff = 0.5 * (aff + aff.T)
    np.fill_diagonal(aff, 0.0)
    lap = np.diag(aff.sum(axis=1)) - aff
    eig, vec = np.linalg.eigh(lap)
    k_max = min(cfg.max_speakers, n - 1)
    k = int(np.argmax(np.diff(eig[: k_max + 1]))) + 1
    k = min(max(k, min_k), k_max)
    if k <= 1:
        return np.zeros(n, int)
    lab = KMeans(n_clusters=k, random_state=0, n_init=10).fit_predict(vec[:, :k])
    sizes = np.bincount(lab, minlength=k)
    big = np.flatnonzero(sizes >= cfg.min_cluster_windows)
    if len(big) == 0:
        return np.zeros(n, int)
    cents = np.stack([emb[lab == j].mean(axis=0) for j in big])
    small = sizes[lab] < cfg.min_cluster_windows
    lab[small] = big[np.argmax(emb[small] @ cents.T, axis=1)]
    return _relabel(lab)


def print_audio(wav: np.ndarray, sr: int, spans: list[tuple[float, float]], cfg: DiarizationConfig
                ) -> np.ndarray | None:
    """The audio a cluster's print is made of: its ``spans`` joined, up to ``print_merge_max_s``; None when that is
    shorter than ``print_merge_min_s`` (too short for a steady print)."""
    parts = [wav[int(a * sr) : int(b * sr)] for a, b in spans]
    x = np.concatenate(parts)[: int(cfg.print_merge_max_s * sr)] if parts else np.zeros(0, np.float32)
    return x if len(x) >= cfg.print_merge_min_s * sr else None


def merge_by_prints(wav: np.ndarray, sr: int, segments: list[tuple[float, float]], windows: list[tuple[float, float]],
                    labels: np.ndarray, embed: Callable[[list[np.ndarray]], np.ndarray], cfg: DiarizationConfig,
                    min_k: int = 1) -> np.ndarray:
    """Join the two clusters whose whole-speech prints (one embedding of up to ``print_merge_max_s`` of each
    cluster's frames) are most alike while that similarity is >= ``cfg.print_merge_sim`` and more than ``min_k``
    clusters are left (module doc step 2)."""
    labels = _relabel(labels)
    duration = len(wav) / sr
    while cfg.print_merge_sim is not None and labels.max() + 1 > max(1, min_k):
        runs = frame_turns(segments, windows, labels, cfg.min_run_s, cfg.turn_trim_s, duration)
        audio: dict[int, np.ndarray] = {}
        for k in range(int(labels.max()) + 1):
            x = print_audio(wav, sr, [(a, b) for a, b, lab in runs if lab == k], cfg)
            if x is not None:
                audio[k] = x
        if len(audio) < 2:
            break
        ks = sorted(audio)
        prints = embed([audio[k] for k in ks])
        sim = prints @ prints.T
        np.fill_diagonal(sim, -2.0)
        i, j = np.unravel_index(int(np.argmax(sim)), sim.shape)
        if sim[i, j] < cfg.print_merge_sim:
            break
        labels = _relabel(np.where(labels == ks[j], ks[i], labels))
    return labels


def merge_glued_clusters(segments: list[tuple[float, float]], windows: list[tuple[float, float]], labels: np.ndarray,
                         cfg: DiarizationConfig, duration: float, min_k: int = 1) -> np.ndarray:
    """Join, smallest first, each cluster none of whose runs stands alone (every run touches another cluster's run
    inside its VAD segment) to the cluster its runs touch longest, while more than ``min_k`` clusters are left
    (module doc step 2)."""
    labels = _relabel(labels)
    while labels.max() + 1 > max(1, min_k):
        runs = frame_turns(segments, windows, labels, cfg.min_run_s, cfg.turn_trim_s, duration)
        touching: dict[tuple[int, int], float] = {}
        alone: set[int] = set()
        for i, (a, b, k) in enumerate(runs):
            near = [runs[j][2] for j in (i - 1, i + 1)
                    if 0 <= j < len(runs) and (abs(runs[j][1] - a) < 1e-6 or abs(runs[j][0] - b) < 1e-6)]
            if not near:
                alone.add(k)
            for other in near:
                touching[(k, other)] = touching.get((k, other), 0.0) + (b - a)
        speech = {k: sum(b - a for a, b, lab in runs if lab == k) for k in {k for k, _ in touching}}
        glued = {k for k in speech if k not in alone and (cfg.glued_max_s is None or speech[k] < cfg.glued_max_s)}
        if not glued:
            break
        k = min(sorted(glued), key=lambda g: speech[g])
        into = max(sorted(o for g, o in touching if g == k), key=lambda o: touching[(k, o)])
        labels = _relabel(np.where(labels == k, into, labels))
    return labels


def separate_unlike_segments(wav: np.ndarray, sr: int, segments: list[tuple[float, float]],
                             windows: list[tuple[float, float]], labels: np.ndarray,
                             embed: Callable[[list[np.ndarray]], np.ndarray], cfg: DiarizationConfig) -> np.ndarray:
    """Step 4b: a speech segment of at most ``unlike_segment_max_s`` that the windows split between two or more
    clusters becomes a speaker of its own when its whole print is unlike the print of each of those clusters taken
    without it (< ``print_merge_sim``). Someone who speaks once, briefly, between others has too few windows for a
    cluster: they went to the neighbours (a 1.4 s GRID sentence cut in two, each half filed under the speaker
    before or after it; whole-segment print 0.47 / 0.55 against theirs, a speaker's own segments 0.77-0.93). A
    cluster with no print outside the segment leaves it as it is."""
    duration = len(wav) / sr
    runs = frame_turns(segments, windows, labels, cfg.min_run_s, cfg.turn_trim_s, duration)
    centres = np.array([(a + b) / 2 for a, b in windows])
    out, new = labels.copy(), int(labels.max()) + 1
    for a, b in segments:
        if not cfg.print_merge_min_s <= b - a <= (cfg.unlike_segment_max_s or 0.0):
            continue
        ks = sorted({k for ra, rb, k in runs if ra < b and rb > a})
        if len(ks) < 2:
            continue
        others = [print_audio(wav, sr, [(ra, rb) for ra, rb, kk in runs if kk == k and not (ra < b and rb > a)], cfg)
                  for k in ks]
        if any(x is None for x in others):
            continue
        prints = embed([wav[int(a * sr) : int(b * sr)][: int(cfg.print_merge_max_s * sr)], *others])
        if float(np.max(prints[1:] @ prints[0])) < cfg.print_merge_sim:
            out[(centres >= a) & (centres <= b)] = new
            new += 1
    return _relabel(out)


def _relabel(lab: np.ndarray) -> np.ndarray:
    """Labels 0..k-1 in order of first appearance."""
    order: dict[int, int] = {}
    for x in lab:
        order.setdefault(int(x), len(order))
    return np.array([order[int(x)] for x in lab], int)


def centroids(emb: np.ndarray, labels: np.ndarray) -> np.ndarray:
    cents = np.stack([emb[labels == k].mean(axis=0) for k in range(int(labels.max()) + 1)])
    return cents / (np.linalg.norm(cents, axis=1, keepdims=True) + 1e-9)


def merge_close_centroids(emb: np.ndarray, labels: np.ndarray, min_sim: float, min_k: int = 1) -> np.ndarray:
    """Join the two clusters with the most similar centroids while that similarity is >= ``min_sim`` (and more than
    ``min_k`` clusters are left): a centroid averages out what a single window varies by, so one voice split by the
    window-level cut is joined again."""
    labels = _relabel(labels)
    while labels.max() + 1 > max(1, min_k):
        sim = centroids(emb, labels)
        sim = sim @ sim.T
        np.fill_diagonal(sim, -2.0)
        i, j = np.unravel_index(int(np.argmax(sim)), sim.shape)
        if sim[i, j] < min_sim:
            break
        labels = _relabel(np.where(labels == max(i, j), min(i, j), labels))
    return labels


def nearest_centroid(emb: np.ndarray, labels: np.ndarray) -> np.ndarray:
    ks = sorted(set(labels.tolist()))
    cents = np.stack([emb[labels == k].mean(axis=0) for k in ks])
    cents /= np.linalg.norm(cents, axis=1, keepdims=True) + 1e-9
    return np.array(ks)[np.argmax(emb @ cents.T, axis=1)]


def frame_turns(segments: list[tuple[float, float]], windows: list[tuple[float, float]], labels: np.ndarray,
                min_run_s: float, trim_s: float = 0.0, duration: float | None = None
                ) -> list[tuple[float, float, int]]:
    """(start, end, label) runs inside the speech segments from the labels of the covering windows; with
    ``trim_s`` the runs stop that far inside each segment edge that is not an edge of the clip (``duration``):
    the VAD pad gives the windows context but is mostly silence, and a turn over silence is one nobody spoke."""
    out: list[tuple[float, float, int]] = []
    wa = np.array([w[0] for w in windows])
    wb = np.array([w[1] for w in windows])
    end = duration if duration is not None else max(b for _, b in segments)
    for a, b in segments:
        if trim_s > 0 and b - a > 2 * trim_s + STEP:
            a, b = (a + trim_s if a > 1e-6 else a), (b - trim_s if b < end - 1e-6 else b)
        n = max(1, int(round((b - a) / STEP)))
        centers = a + (np.arange(n) + 0.5) * (b - a) / n
        lab = np.empty(n, int)
        for i, t in enumerate(centers):
            cover = (wa <= t) & (wb >= t)
            if not cover.any():                          # nearest window by centre
                cover = np.abs((wa + wb) / 2 - t) == np.abs((wa + wb) / 2 - t).min()
            # votes weighted by closeness to the window centre: a window straddling a speaker change is mostly
            # right about its middle, not its edges
            w = 1.0 - np.abs((wa[cover] + wb[cover]) / 2 - t) / np.maximum((wb[cover] - wa[cover]) / 2, 1e-6)
            votes = np.bincount(labels[cover], weights=np.maximum(w, 1e-3))
            lab[i] = int(np.argmax(votes))
        _smooth(lab, max(1, int(round(min_run_s / STEP))))
        edges = np.linspace(a, b, n + 1)
        s = 0
        for i in range(1, n + 1):
            if i == n or lab[i] != lab[s]:
                out.append((float(edges[s]), float(edges[i]), int(lab[s])))
                s = i
    return out


def _smooth(lab: np.ndarray, min_len: int) -> None:
    """Runs shorter than ``min_len`` frames take the label of the longer neighbouring run (in place)."""
    changed = True
    while changed:
        changed = False
        runs = label_runs(lab)
        if len(runs) < 2:
            return
        for j, (s, e) in enumerate(runs):
            if e - s >= min_len:
                continue
            left = runs[j - 1] if j > 0 else None
            right = runs[j + 1] if j + 1 < len(runs) else None
            nb = max((r for r in (left, right) if r is not None), key=lambda r: r[1] - r[0])
            lab[s:e] = lab[nb[0]]
            changed = True
            break


def label_runs(lab: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) index pairs of the runs of equal labels in ``lab``."""
    out, s = [], 0
    for i in range(1, len(lab) + 1):
        if i == len(lab) or lab[i] != lab[s]:
            out.append((s, i))
            s = i
    return out


def voice_prints(wav: np.ndarray, sr: int, runs: list[tuple[float, float, int]],
                 embed: Callable[[list[np.ndarray]], np.ndarray], window_s: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings and labels of ``window_s`` windows (half overlapping) over each speaker's runs: short windows
    place speaker changes finely but are poorer voice prints (1 s CAM++ windows of two LibriSpeech readers average
    up to 0.68 alike, 1.5 s ones up to 0.62), so the prints matched across clips come from longer ones."""
    duration = len(wav) / sr
    wins: list[tuple[float, float]] = []
    labs: list[int] = []
    # a run shorter than half a window would get a window that is mostly its neighbours: used only for a speaker
    # that has nothing longer
    longest = {lab: max(b - a for a, b, k in runs if k == lab) for _, _, lab in runs}
    for a, b, lab in runs:
        if b - a < window_s / 2 <= longest[lab]:
            continue
        for w in sliding_windows([(a, b)], duration, window_s, window_s / 2):
            wins.append(w)
            labs.append(lab)
    if not wins:
        return np.zeros((0, 0), np.float32), np.zeros(0, int)
    n = int(round(min(window_s, duration) * sr))
    emb = embed([wav[int(round(a * sr)) : int(round(a * sr)) + n] for a, _ in wins])
    return emb, np.array(labs, int)


def overlap_runs(runs: list[tuple[float, float, int]], windows: list[tuple[float, float]], emb: np.ndarray,
                 labels: np.ndarray, count: np.ndarray, min_run_s: float) -> list[tuple[float, float, int]]:
    """Second-speaker runs: each ``STEP`` frame of a run where ``count`` (people talking per frame) is >= 2 also
    gets the other cluster whose centroid the frame's covering windows score highest; runs of at least
    ``min_run_s``. Nothing when there is one cluster (no second voice to name)."""
    k = int(labels.max()) + 1 if len(labels) else 0
    if k < 2 or not len(count):
        return []
    cents = centroids(emb, labels)
    wa = np.array([w[0] for w in windows])
    wb = np.array([w[1] for w in windows])
    second = np.full(len(count), -1)
    for a, b, lab in runs:
        for i in range(int(round(a / STEP)), min(len(count), int(round(b / STEP)))):
            t = (i + 0.5) * STEP
            cover = (wa <= t) & (wb >= t)
            if count[i] < 2 or not cover.any():
                continue
            score = (emb[cover] @ cents.T).mean(axis=0)
            score[lab] = -np.inf
            second[i] = int(np.argmax(score))
    return second_speaker_runs(second, min_run_s)


def second_speaker_runs(second: np.ndarray, min_run_s: float) -> list[tuple[float, float, int]]:
    """(start, end, label) runs of at least ``min_run_s`` in per-``STEP``-frame second-speaker labels (-1: none)."""
    min_len = max(1, int(round(min_run_s / STEP)))
    return [(s * STEP, e * STEP, int(second[s])) for s, e in label_runs(second) if second[s] >= 0 and e - s >= min_len]


@dataclass
class Diarization:
    runs: list[tuple[float, float, int]]          # (start, end, label): one label per speech frame
    overlap: list[tuple[float, float, int]]       # second-speaker runs on overlapped frames (cfg.overlap)
    windows: list[tuple[float, float]]
    embeddings: np.ndarray
    labels: np.ndarray                            # per window
    # what the diarizer heard as speech (VAD segments; local design: frames the model says someone talks in): every
    # part of it is in a run, or reported by the voice pipeline as unattributed (``unattributed``)
    speech: list[tuple[float, float]] = field(default_factory=list)


def unattributed(speech: list[tuple[float, float]], turns: list[tuple[float, float]], min_s: float
                 ) -> list[tuple[float, float]]:
    """The pieces of ``speech`` (seconds) that no turn covers, at least ``min_s`` long, on the ``STEP`` grid."""
    end = max([b for _, b in speech] + [b for _, b in turns] + [0.0])
    n = int(np.ceil(end / STEP)) + 1
    left = np.zeros(n, bool)
    for a, b in speech:
        left[max(0, int(round(a / STEP))) : max(0, int(round(b / STEP)))] = True
    for a, b in turns:
        left[max(0, int(np.floor(a / STEP))) : max(0, int(np.ceil(b / STEP)))] = False
    min_len = max(1, int(round(min_s / STEP)))
    return [(s * STEP, min(e * STEP, end)) for s, e in label_runs(left) if left[s] and e - s >= min_len]


def diarize(wav: np.ndarray, sr: int, segments: list[tuple[float, float]],
            embed: Callable[[list[np.ndarray]], np.ndarray], cfg: DiarizationConfig,
            segmentation: Callable[[np.ndarray, float], tuple[np.ndarray, int]] | None = None) -> Diarization:
    """Speaker runs, second-speaker runs on overlapped frames, the windows, their embeddings and their labels.
    ``segmentation``: ``SpeakerSegmentation.analyze`` (needed for ``cfg.overlap``)."""
    duration = len(wav) / sr
    wins = sliding_windows(segments, duration, cfg.window_s, cfg.hop_s)
    if not wins:
        return Diarization([], [], [], np.zeros((0, 0), np.float32), np.zeros(0, int), speech=list(segments))
    count, min_k = np.zeros(0, int), 1
    if cfg.overlap:
        if segmentation is None:
            raise ValueError("overlap-aware diarization needs the segmentation model (SpeakerSegmentation)")
        count, min_k = segmentation(wav, cfg.min_local_speech_s)
    emb = embed([wav[int(round(a * sr)) : int(round(a * sr)) + int(round((b - a) * sr))] for a, b in wins])
    if cfg.clustering == "spectral":
        labels = spectral_clusters(emb, cfg, min_k)
    elif cfg.clustering == "ahc":
        labels = choose_clusters(emb, cfg, min_k)
    else:
        raise ValueError(f"clustering {cfg.clustering!r}: ahc or spectral")
    if cfg.print_merge_sim is not None and labels.max() > 0:
        labels = merge_by_prints(wav, sr, segments, wins, labels, embed, cfg, min_k)
    if cfg.merge_glued and cfg.overlap and labels.max() > 0:   # only above the overlap model's floor
        labels = merge_glued_clusters(segments, wins, labels, cfg, duration, min_k)
    labels = merge_close_centroids(emb, labels, cfg.centroid_merge_sim, min_k)
    if labels.max() > 0:
        labels = merge_close_centroids(emb, nearest_centroid(emb, labels), cfg.centroid_merge_sim, min_k)
    if cfg.unlike_segment_max_s and cfg.print_merge_sim is not None and labels.max() > 0:
        labels = separate_unlike_segments(wav, sr, segments, wins, labels, embed, cfg)
    runs = frame_turns(segments, wins, labels, cfg.min_run_s, cfg.turn_trim_s, duration)
    extra = overlap_runs(runs, wins, emb, labels, count, cfg.min_overlap_run_s) if cfg.overlap else []
    return Diarization(runs, extra, wins, emb, labels, speech=list(segments))
