"""The council benchmark's turn-taking clips (benchmarks/voices_council.py), built here from LibriSpeech readers laid
out as two "sessions": the reference says who talks when, turns alternate between different people of the session,
and the audio under each turn is that person's own speech in order."""

from __future__ import annotations

import numpy as np
import pytest

from .media import LIBRI, need, rttm_turns


@pytest.fixture(scope="module")
def built(tmp_path_factory):  # noqa: ANN201 - (folder, names, sessions)
    from benchmarks.voices_council import turn_taking_clips

    need(LIBRI)
    root = tmp_path_factory.mktemp("council")
    data, out = root / "diarized", root / "clips"
    out.mkdir()
    sessions = {"s1": ["1688", "1998", "2033"], "s2": ["1688", "367"]}
    for s, members in sessions.items():
        for m in members:
            (data / s / m).mkdir(parents=True)
            for f in sorted((LIBRI / m).glob("*.flac")):
                (data / s / m / f.name).symlink_to(f)
    return out, turn_taking_clips(data, out, 20.0, seed=3), sessions


def _ref(folder, name):  # noqa: ANN001, ANN202
    return rttm_turns(folder / f"{name}.rttm", name)


def test_clips_hold_two_or_more_people_of_their_session_taking_turns(built):
    import soundfile as sf

    folder, names, sessions = built
    assert names and {n.split("_")[0] for n in names} == set(sessions)
    for n in names:
        ref = _ref(folder, n)
        wav, sr = sf.read(folder / f"{n}.wav")
        assert sr == 16000 and len(wav) / sr <= 20.0 + 1e-6
        who = [m for _, _, m in ref]
        assert len(set(who)) >= 2 and set(who) <= set(sessions[n.split("_")[0]])
        assert all(a != b for a, b in zip(who, who[1:], strict=False)), "a turn follows the same person"
        for (_, b, _), (c, _, _) in zip(ref, ref[1:], strict=False):
            assert 0.2 - 1e-3 <= c - b <= 0.8 + 1e-3                      # a pause of silence between turns
            assert np.abs(wav[int(b * sr) + 16 : int(c * sr) - 16]).max(initial=0.0) == 0.0   # RTTM: 1 ms
        assert all(b <= len(wav) / sr + 1e-3 for _, b, _ in ref)


def test_turns_are_the_speakers_own_speech_in_order(built):
    import soundfile as sf

    from m3_memory.perception.voices import load_wav

    folder, names, sessions = built
    n = names[0]
    first = _ref(folder, n)[0]
    wav, sr = sf.read(folder / f"{n}.wav", dtype="float32")
    own = np.concatenate([load_wav(f) for f in sorted((LIBRI / first[2]).glob("*.flac"))])
    piece = wav[int(first[0] * sr) : int(first[1] * sr)]
    assert np.allclose(piece[:1000], own[:1000], atol=1e-4)           # the session's first turn of that reader


def test_with_an_overlap_share_turns_start_before_the_previous_one_ends(tmp_path):
    import soundfile as sf

    from benchmarks.voices_council import OVERLAP_S, turn_taking_clips

    need(LIBRI)
    for m in ("1688", "1998"):
        (tmp_path / "in" / "s" / m).mkdir(parents=True)
        for f in sorted((LIBRI / m).glob("*.flac")):
            (tmp_path / "in" / "s" / m / f.name).symlink_to(f)
    out = tmp_path / "out"
    out.mkdir()
    names = turn_taking_clips(tmp_path / "in", out, 20.0, seed=1, overlap_share=1.0)
    assert names
    overlaps = 0
    for n in names:
        ref = _ref(out, n)
        wav, sr = sf.read(out / f"{n}.wav", dtype="float32")
        for (a, b, _), (c, d, _) in zip(ref, ref[1:], strict=False):
            assert c < b, "every turn after the first starts before the previous one ends"
            assert b - c <= min(OVERLAP_S[1], (b - a) / 2, (d - c) / 2) + 1e-3
            overlaps += 1
        assert np.abs(wav).max() <= 1.0
    assert overlaps >= len(names)
