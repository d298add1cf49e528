"""A small meeting written through the production turn-recording path (record_turns), without perception.

Clip 0 (0-30 s):  Ann "put the red folder on the desk" (2 s), Bo "the coffee machine is broken" (10 s),
                  Ann "put the red folder on the desk" again (20 s).
Clip 1 (30-60 s): Cy "I will call the technician" (35 s), Bo "the coffee machine is broken" (40 s),
                  Dee is seen (50-52 s) and never speaks.
Clip 2 (60-90 s): Ann "thanks for the help" (65 s), Cy "I will call the technician" (70 s), Cy "see you
                  tomorrow" (80 s), Ann "bye everyone" (85 s).
Totals: Ann 4 turns, Cy 3, Bo 2, Dee 0; four people. Ann's name is known ("<voice>'s name is Ann.").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from m3_memory import MemoryStore
from m3_memory.memorize import record_turns
from m3_memory.poses import Pose
from m3_memory.store.where import record_poses
from m3_memory.writing import ClipEvidence, FaceEvidence, VoiceTurnEvidence

from .store_copies import built_once
from .store_helpers import unit

SCRIPT = [  # clip, person, start, end, words
    (0, "ann", 2.0, 4.0, "Put the red folder on the desk."),
    (0, "bo", 10.0, 12.0, "The coffee machine is broken."),
    (0, "ann", 20.0, 22.0, "Put the red folder on the desk."),
    (1, "cy", 35.0, 37.0, "I will call the technician."),
    (1, "bo", 40.0, 42.0, "The coffee machine is broken."),
    (2, "ann", 65.0, 67.0, "Thanks for the help."),
    (2, "cy", 70.0, 72.0, "I will call the technician."),
    (2, "cy", 80.0, 82.0, "See you tomorrow."),
    (2, "ann", 85.0, 87.0, "Bye everyone."),
]
SILENT = [(1, "dee", 50.0, 52.0)]


def meeting_store(path: Path, poses: Callable[[int], list[Pose]] | None = None, script: list | None = None,
                  silent: list | None = None, wall_origin: float | None = None, zone: str = "UTC",
                  looks: dict[str, str] | None = None) -> tuple[MemoryStore, dict[str, dict[str, int]]]:
    """``poses(clip)``: the robot's pose samples during that clip (stored with its turns), or no poses at all.
    ``script`` / ``silent``: another meeting in the same form as :data:`SCRIPT` / :data:`SILENT`.
    ``wall_origin``: a live robot's meeting, stream time 0 at that epoch second in ``zone``. ``looks``: person ->
    the expression their face showed (as the face stage states a clear one)."""
    script = SCRIPT if script is None else script
    silent = SILENT if silent is None else silent
    track = None if poses is None else [poses(clip) for clip in range(3)]
    key = repr(("meeting_store", script, silent, track, wall_origin, zone, sorted((looks or {}).items())))
    return built_once(path, key, lambda at: _meeting(at, track, script, silent, wall_origin, zone, looks))


def _meeting(path: Path | str, track: list[list[Pose]] | None, script: list, silent: list, wall_origin: float | None,
             zone: str, looks: dict[str, str] | None) -> tuple[MemoryStore, dict[str, dict[str, int]]]:
    rng = np.random.default_rng(3)
    store = MemoryStore(path)
    if wall_origin is not None:
        store.anchor_wall_clock(wall_origin, zone)
    ids: dict[str, dict[str, int]] = {}
    for clip in range(3):
        with store.begin_clip(clip, 30.0 * clip, 30.0 * (clip + 1)) as w:
            ev = ClipEvidence(clip, 30.0 * clip, 30.0 * (clip + 1))
            turns = [s for s in script if s[0] == clip]
            seen = [(c, who, a, b) for c, who, a, b, _ in turns] + [s for s in silent if s[0] == clip]
            for _, who, start, end in seen:
                if who not in ids:
                    ids[who] = {"face": w.add_entity("face", unit(rng, 1, 128))}
                f = ids[who]["face"]
                old = next((x for x in ev.faces if x.node_id == f), None)
                times = [start, (start + end) / 2, end]
                if old:
                    old.times += times
                else:
                    look = (looks or {}).get(who)
                    ev.faces.append(FaceEvidence(f, b"", times, expression=(look, 0.95) if look else None))
            for _, who, start, end, words in turns:
                if "voice" not in ids[who]:
                    ids[who]["voice"] = w.add_entity("voice", unit(rng, 1, 192))
                ev.voices.append(VoiceTurnEvidence(ids[who]["voice"], start, end, words))
            texts = [f"{f.tag} appears in the scene." for f in ev.faces]
            texts += [f"{f.tag} looks {f.expression[0]}." for f in ev.faces if f.expression]
            texts += [f'{t.tag} says: "{t.text}"' for t in ev.voices]
            results = w.add_memories(texts, "episodic")
            record_turns(w, ev, [(r.node_id, t) for r, t in zip(results, texts, strict=True)])
            if track is not None:
                record_poses(w, track[clip])
            for who in sorted({s[1] for s in turns}):
                w.add_memory(f"Equivalence: <face_{ids[who]['face']}>, <voice_{ids[who]['voice']}>", "semantic")
            if clip == 0 and "ann" in ids and "voice" in ids["ann"]:
                w.add_memory(f"<voice_{ids['ann']['voice']}>'s name is Ann.", "semantic")
    return store, ids
