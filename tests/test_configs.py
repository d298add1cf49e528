"""Every shipped params file parses, names only declared parameters, with the declared types."""

from pathlib import Path

import pytest
import yaml

from m3_agent_ros.params import ControlParams, MemorizationParams

CONFIG = Path(__file__).resolve().parents[1] / "config"
CLASSES = {"m3_agent_control": ControlParams, "m3_agent_memorization": MemorizationParams}


@pytest.mark.parametrize("name", ["default.yaml", "gpu_workstation.yaml", "jetson.yaml"])
def test_params_files(name):
    doc = yaml.safe_load((CONFIG / name).read_text())
    assert set(doc) <= {"/**", *CLASSES}
    shared = doc.get("/**", {}).get("ros__parameters", {})
    assert set(shared) <= {"db_path"}
    for node, cls in CLASSES.items():
        params = doc.get(node, {}).get("ros__parameters", {})
        defaults = cls()
        for key, value in params.items():
            assert key in cls.names(), f"{name}: {node}.{key} is not a parameter"
            assert type(value) is type(getattr(defaults, key)), f"{name}: {node}.{key} has the wrong type"
        merged = cls(**{**{k: getattr(defaults, k) for k in cls.names()}, **params, "db_path": "x.db"})
        merged.check()


def test_launch_files_compile():
    for f in (CONFIG.parent / "launch").glob("*.launch.py"):
        compile(f.read_text(), str(f), "exec")


def test_local_speakers_diarizer_needs_the_campplus_backend():
    base = {k: getattr(MemorizationParams(), k) for k in MemorizationParams.names()}
    assert base["voice_diarizer"] == "windows"
    MemorizationParams(**{**base, "db_path": "x.db", "voice_diarizer": "local"}).check()
    with pytest.raises(ValueError, match="voice_diarizer local needs voice_backend campplus"):
        MemorizationParams(**{**base, "db_path": "x.db", "voice_diarizer": "local", "voice_backend": "resemblyzer",
                              "voice_overlap_aware": False}).check()
    with pytest.raises(ValueError, match="windows or local"):
        MemorizationParams(**{**base, "db_path": "x.db", "voice_diarizer": "pyannote"}).check()


def test_overlap_aware_voices_need_the_campplus_backend():
    base = {k: getattr(MemorizationParams(), k) for k in MemorizationParams.names()}
    MemorizationParams(**{**base, "db_path": "x.db", "voice_overlap_aware": True}).check()   # campplus: fine
    with pytest.raises(ValueError, match="voice_overlap_aware needs voice_backend campplus"):
        MemorizationParams(**{**base, "db_path": "x.db", "voice_overlap_aware": True,
                              "voice_backend": "resemblyzer"}).check()
    # on by default; no voices at all is fine with it, another backend with it off too
    assert base["voice_overlap_aware"] is True
    MemorizationParams(**{**base, "db_path": "x.db", "voice_backend": "none"}).check()
    MemorizationParams(**{**base, "db_path": "x.db", "voice_overlap_aware": False,
                          "voice_backend": "eres2netv2"}).check()


@pytest.mark.parametrize("cls", [ControlParams, MemorizationParams], ids=lambda c: c.__name__)
def test_every_declared_choice_is_accepted_and_nothing_else(cls):
    base = {k: getattr(cls(), k) for k in cls.names()} | {"db_path": "x.db"}
    if cls is MemorizationParams:
        base["voice_overlap_aware"] = False        # so every voice_backend choice is valid on its own
    choices = {n: r.choices for n, r in cls.RULES.items() if r.choices}
    assert choices
    for name, allowed in choices.items():
        for value in allowed:
            cls(**{**base, name: value}).check()
        with pytest.raises(ValueError, match=f"unknown {name} 'bogus'"):
            cls(**{**base, name: "bogus"}).check()
