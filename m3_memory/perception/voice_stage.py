"""The memorizer's voice stage: clip audio -> speaker turns with transcripts -> voice nodes (+ evidence).

Each voice node also keeps one short voice sample (``voice_wav`` content: 16 kHz 16-bit mono WAV of at most
``snippet_s`` seconds, cut from the speaker's longest turn of the clip), so a person can hear who it is (memory
browser). The store keeps the longest sample seen (``StoreConfig.max_voice_snippets``, 1); forget deletes it.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ingest.clips import Clip
from ..store import ClipWriter
from ..writing import ClipEvidence, FaceEvidence, VoiceTurnEvidence
from . import voice_prior
from .clip_edges import HeardOverEnd, hear_over_end, leave_heard
from .cut_sentences import join_cut_sentences, move_cut_pieces
from .lip_activity import Loudness
from .talker_split import split_by_lips
from .voices import SR, Speaker, Transcriber, VoiceConfig, VoicePipeline, VoiceTurn, make_voice_embedder

log = logging.getLogger(__name__)


@dataclass
class VoiceAnalysis:
    turns: list[VoiceTurn] = field(default_factory=list)
    speakers: dict[int, Speaker] = field(default_factory=dict)
    snippets: dict[int, tuple[bytes, float]] = field(default_factory=dict)   # speaker -> (WAV, seconds of speech)
    short_turns: list[tuple[float, float]] = field(default_factory=list)  # speech too short to attribute (stream s)
    unattributed: list[tuple[float, float]] = field(default_factory=list)  # speech the diarizer gave no speaker
    audio: np.ndarray | None = None      # the clip's 16 kHz audio (voice samples of speakers split at attach)
    clip_start: float = 0.0
    heard: HeardOverEnd | None = None    # speech running over the clip's end, heard from the next clip's audio
    left_to_previous_s: float = 0.0      # this clip's first seconds, heard by the clip before (clip_edges.py)
    loudness: Loudness | None = None     # the sound level of the clip and the audio past its end, none silenced

    @property
    def heard_past_end_s(self) -> float:
        return self.heard.until - self.heard.clip_end if self.heard else 0.0


SNIPPET_S = 3.0   # seconds of a voice sample kept per voice node
# a match this far above the matching threshold is kept even when the camera disagrees (voice_prior.py)
SURE_MARGIN = 0.1


def voice_snippet(audio: np.ndarray, clip_start: float, turn: VoiceTurn, max_s: float = SNIPPET_S
                  ) -> tuple[bytes, float]:
    """The first ``max_s`` seconds of ``turn`` (stream times) cut from the clip's 16 kHz audio, as WAV bytes,
    with its length in seconds."""
    import soundfile

    a = max(0, int(round((turn.start - clip_start) * SR)))
    b = min(len(audio), a + int(round(max_s * SR)), int(round((turn.end - clip_start) * SR)))
    piece = np.clip(np.asarray(audio[a:b], dtype=np.float32), -1.0, 1.0)
    buf = io.BytesIO()
    soundfile.write(buf, piece, SR, format="WAV", subtype="PCM_16")
    return buf.getvalue(), len(piece) / SR


class VoiceStage:
    def __init__(self, pipeline: VoicePipeline, match_threshold: float | None = None,
                 snippet_s: float = SNIPPET_S) -> None:
        self.pipeline = pipeline
        self.snippet_s = snippet_s
        self.name = f"voices:{pipeline.embedder.name}"
        # mean cosine of the speaker's centroid against the node's stored centroids (the store's rule)
        self.match_threshold = (match_threshold if match_threshold is not None
                                else pipeline.embedder.match_threshold)
        # speech the last committed clip heard past its end (clip_edges.py), left out of the next clip
        self._heard: HeardOverEnd | None = None

    @classmethod
    def create(cls, backend: str, model_dir: str = "", asr_model: str = "tiny.en", sample_rate: int = SR,
               **kw: Any) -> VoiceStage:
        if sample_rate != SR:
            raise ValueError(f"the voice stage works at {SR} Hz; set sample_rate: {SR}")
        cfg = VoiceConfig(**{k: v for k, v in kw.items() if k in VoiceConfig.__dataclass_fields__})
        asr = Transcriber(asr_model) if asr_model != "none" else None
        return cls(VoicePipeline(make_voice_embedder(backend, model_dir), asr, cfg), kw.get("match_threshold"),
                   kw.get("snippet_s", SNIPPET_S))

    def analyze(self, clip: Clip) -> VoiceAnalysis:
        if clip.audio is None:
            return VoiceAnalysis()
        if clip.sample_rate != SR:
            raise ValueError(f"clip audio is {clip.sample_rate} Hz, the voice stage needs {SR} Hz")
        short: list[tuple[float, float]] = []
        unassigned: list[tuple[float, float]] = []
        audio, left = leave_heard(clip.audio, clip.start_time, SR, self._heard)
        audio, heard = hear_over_end(audio, clip.audio_tail, clip.start_time, SR,
                                           lambda w: self.pipeline.vad.segments(w, self.pipeline.cfg),
                                           pad_s=self.pipeline.cfg.speech_pad_s or 0.0)
        turns, speakers = self.pipeline.turns(audio, clip.start_time, short=short, unassigned=unassigned)
        # each turn's own print: the lips may split a speaker at attach (talker_split.py), which needs lip activity,
        # so only for clips with motion frames; one turn per call (Resemblyzer cuts a batch to its shortest input)
        for spk in speakers.values() if clip.motion_frames else ():
            if len(spk.turns) >= 2:
                for t in spk.turns:
                    a, b = max(0, int((t.start - clip.start_time) * SR)), int((t.end - clip.start_time) * SR)
                    t.embedding = self.pipeline.embedder.embed([audio[a:b]])[0]
        tail = clip.audio_tail if clip.audio_tail is not None else np.zeros(0, np.float32)
        an = VoiceAnalysis(turns, speakers, {}, short, unassigned, audio, clip.start_time, heard, left,
                           Loudness.of(np.concatenate([np.asarray(clip.audio, np.float32).reshape(-1),
                                                       np.asarray(tail, np.float32).reshape(-1)]), clip.start_time))
        self._snippets(an)
        return an

    def _runs_on(self, an: VoiceAnalysis, around_s: float = 0.15) -> Callable[[float], bool]:
        """t (stream s) -> whether speech runs on through ``around_s`` either side of t (the VAD heard no pause):
        computed once per clip, when first asked."""
        probs: list[np.ndarray] = []
        vad, threshold = self.pipeline.vad, self.pipeline.cfg.vad_threshold or 0.5

        def runs_on(t: float) -> bool:
            if an.audio is None:
                return False
            if not probs:
                probs.append(vad.probabilities(np.asarray(an.audio, np.float32)))
            step = vad.window / SR
            rel = t - an.clip_start
            near = probs[0][max(0, int((rel - around_s) / step)) : int((rel + around_s) / step) + 1]
            return len(near) > 0 and float(near.min()) >= threshold

        return runs_on

    def committed(self, analysis: VoiceAnalysis | None) -> None:
        """The clip ``analysis`` came from is in the store: what it heard past its end is left out of the next
        clip. Only then: a clip that failed to commit (recorded as lost up to its end) leaves nothing out, so the
        next clip keeps the speech after that end."""
        self._heard = analysis.heard if analysis is not None else None

    def _snippets(self, an: VoiceAnalysis) -> None:
        if self.snippet_s <= 0 or an.audio is None:
            return
        for k, spk in an.speakers.items():
            if k not in an.snippets:
                longest = max(spk.turns, key=lambda t: (t.end - t.start, -t.start))
                an.snippets[k] = voice_snippet(an.audio, an.clip_start, longest, self.snippet_s)

    def check_store(self, graph: ClipWriter) -> None:
        """Voice nodes of one store must come from one speaker embedder (their spaces are not comparable: a
        Resemblyzer centroid against a CAM++ one means nothing, and eres2netv2/campplus even share 192-d). The
        first clip with speakers records the embedder in the store's meta (``voice_embedder``); a later stage
        with another embedder is refused. Stores from before this record: voice nodes of another width are
        refused by the store's dim check; a store with voice nodes and no record is taken as Resemblyzer's
        (the only embedded backend then)."""
        store = getattr(graph, "store", None)
        if store is None or not hasattr(store, "meta"):
            return
        mine = self.pipeline.embedder.name
        have = store.meta("voice_embedder")
        if have is None:
            have = "resemblyzer" if store.has_nodes("voice") else None
        if have is not None and have != mine:
            raise ValueError(f"this store's voice nodes were made with the {have!r} speaker embedder; the voice "
                             f"stage uses {mine!r} (voice_backend): their embeddings cannot be matched. Use "
                             f"voice_backend: {have} for this store, or a new store (db_path)")
        if have is None:
            store.set_meta("voice_embedder", mine)

    def attach(self, graph: ClipWriter, analysis: VoiceAnalysis, faces: list[FaceEvidence] | None = None,
               frame_times: list[float] | None = None) -> list[VoiceTurnEvidence]:
        """Match the clip's speakers to voice nodes (adding/updating them). With the clip's faces (matched
        first), who is alone on camera while a speaker talks informs the match (voice_prior.py)."""
        out: list[VoiceTurnEvidence] = []
        if analysis.speakers:
            self.check_store(graph)
        loudness = analysis.loudness
        splits: list[tuple[int, list[int]]] = []
        ev = ClipEvidence(0, 0.0, 0.0, faces=list(faces or []), frame_times=list(frame_times or []),
                          loudness=loudness) if faces and frame_times else None
        # pieces the diarizer cut from a sentence go back to its speaker first: split by the lips, the speaker they
        # were filed under could keep one piece (too few to move on the timing alone)
        analysis.speakers, moves = move_cut_pieces(analysis.speakers, self._runs_on(analysis), ev)
        if faces and frame_times:
            analysis.speakers, splits = split_by_lips(analysis.speakers, faces, frame_times,
                                                      apart_below=self.match_threshold, loudness=loudness)
        analysis.speakers, joins = join_cut_sentences(analysis.speakers, ev)
        changed = {k for k, _ in splits + joins} | {k for m in moves for k in m[:2]}
        for k in changed:      # each part gets a sample of its own speech
            analysis.snippets.pop(k, None)
        if changed:
            self._snippets(analysis)
        used: set[int] = set()
        emb = self.pipeline.embedder
        for k, spk in sorted(analysis.speakers.items()):
            # one L2-normalised centroid per speaker per clip: averaging the 1.6 s windows removes much of the
            # content/noise variation (see the thresholds in voices.py)
            centroid = np.mean(np.stack(spk.embeddings), axis=0, keepdims=True)
            embs = centroid / np.linalg.norm(centroid)
            if faces and frame_times:
                d = voice_prior.decide(graph, embs, [(t.start, t.end) for t in spk.turns], faces, frame_times,
                                       match=self.match_threshold, same=emb.same_speaker_threshold,
                                       sure=self.match_threshold + SURE_MARGIN, loudness=loudness)
                node, score = d.node, d.score
                if d.reason != "plain":
                    log.info("speaker at %.1f-%.1f s -> %s (%s, score %.3f)", spk.turns[0].start, spk.turns[-1].end,
                             f"voice node {node}" if node is not None else "a new voice node", d.reason, score)
            else:
                node, score = graph.match_entity("voice", embs, threshold=self.match_threshold)
            texts = [t.text for t in spk.turns if t.text]
            if node is None or node in used:
                node = graph.add_entity("voice", embs, texts)
            else:
                graph.update_entity(node, embs, texts)
            if k in analysis.snippets:  # the longest sample wins (score = seconds of speech)
                wav, seconds = analysis.snippets[k]
                graph.update_entity(node, contents=[wav], content_kind="voice_wav", scores=[seconds])
            used.add(node)
            log.debug("speaker with %d turns -> voice node %d (score %.3f)", len(spk.turns), node, score)
            out += [VoiceTurnEvidence(node, t.start, t.end, t.text, t.overlapped, t.language) for t in spk.turns]
        return sorted(out, key=lambda v: v.start)
