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
    assert set(shared) <= set.intersection(*(set(c.names()) for c in CLASSES.values()))   # every node has them
    assert {"db_path", "robot_name"} <= set(shared) or name != "default.yaml"
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


def test_the_shipped_defaults_are_the_parameter_defaults():
    """One source of defaults: every value config/default.yaml sets is the parameter's default in
    m3_agent_ros/params.py (so a node started without a params file behaves as the documented configuration), and
    every parameter is in the file."""
    import dataclasses

    cfg = yaml.safe_load((CONFIG / "default.yaml").read_text())
    shared = cfg.get("/**", {}).get("ros__parameters", {})
    for cls, section in ((MemorizationParams, "m3_agent_memorization"), (ControlParams, "m3_agent_control")):
        values = {**shared, **cfg[section]["ros__parameters"]}
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}
        assert not set(values) - set(defaults), f"{section}: unknown keys {set(values) - set(defaults)}"
        assert not set(defaults) - set(values), f"{section}: undocumented parameters {set(defaults) - set(values)}"
        differ = {k: (defaults[k], v) for k, v in values.items() if k != "db_path" and defaults[k] != v}
        assert not differ, f"{section}: params.py default vs default.yaml: {differ}"
