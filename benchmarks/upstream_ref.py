"""Upstream M3-Agent's memory graph and retrieval code, run side by side with the store on the same clips.

No upstream code is copied here. :class:`Upstream` imports ``mmagent.videograph``, ``mmagent.memory_processing``
and ``mmagent.retrieve`` from a checkout of https://github.com/ByteDance-Seed/m3-agent (Apache-2.0) without
running the package ``__init__`` (which loads the face and voice models), with stand-ins for the two helper
modules they import but this benchmark does not exercise (the OpenAI client wrapper, the moviepy helpers); the
text-embedding API returns the benchmark's own vectors. Ingest goes through upstream's own entity search
(``search_img_nodes`` / ``search_voice_nodes`` then ``add_*_node`` / ``update_node``) and ``process_memories``
(its semantic reinforce/weaken rule); a ``[Search]`` is what ``m3_agent/control.py`` does per search action:
``load_video_graph`` (unpickle), ``truncate_memory_by_clip`` when the question has a time, ``refresh_equivalences``,
``retrieve.search(..., threshold=0.5, topk=2)``.

    git clone https://github.com/ByteDance-Seed/m3-agent /tmp/m3-agent
    python benchmarks/store_bench.py --upstream /tmp/m3-agent
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import time
import types
from pathlib import Path

import numpy as np
from synth import ClipPlan, World


class Upstream:
    def __init__(self, checkout: str | Path) -> None:
        root = Path(checkout).resolve()
        if not (root / "mmagent" / "videograph.py").exists():
            raise FileNotFoundError(f"{root}: not an m3-agent checkout (no mmagent/videograph.py)")
        self.next: list[list[float]] = []   # what the stand-in embedding API returns next
        os.environ.setdefault("MPLBACKEND", "Agg")

        def embed(model: str, texts: list[str], timeout: int = 15) -> tuple[list, int]:
            out, self.next = self.next[: len(texts)], self.next[len(texts):]
            assert len(out) == len(texts), "the benchmark did not prepare vectors for these texts"
            return out, 0

        def unavailable(*a: object, **k: object) -> None:
            raise RuntimeError("not available in the benchmark")

        pkg = types.ModuleType("mmagent")
        pkg.__path__ = [str(root / "mmagent")]  # type: ignore[attr-defined]
        utils = types.ModuleType("mmagent.utils")
        utils.__path__ = [str(root / "mmagent" / "utils")]  # type: ignore[attr-defined]
        chat = types.ModuleType("mmagent.utils.chat_api")
        chat.parallel_get_embedding = embed  # type: ignore[attr-defined]
        chat.get_embedding_with_retry = lambda model, text, timeout=15: embed(model, [text])[0][0]  # type: ignore
        for name in ("generate_messages", "get_response_with_retry", "parallel_get_whisper", "get_response",
                     "parallel_get_response"):
            setattr(chat, name, unavailable)
        general = types.ModuleType("mmagent.utils.general")
        general.validate_and_fix_python_list = lambda s: s  # type: ignore[attr-defined]
        general.load_video_graph = self.load  # type: ignore[attr-defined]
        for name in [m for m in sys.modules if m == "mmagent" or m.startswith("mmagent.")]:
            del sys.modules[name]  # a fresh import binds this instance's stand-ins
        sys.modules.update({"mmagent": pkg, "mmagent.utils": utils, "mmagent.utils.chat_api": chat,
                            "mmagent.utils.general": general})
        cwd = os.getcwd()
        os.chdir(root)  # upstream modules read configs/processing_config.json at import
        try:
            self.videograph = importlib.import_module("mmagent.videograph")
            self.memory = importlib.import_module("mmagent.memory_processing")
            self.retrieve = importlib.import_module("mmagent.retrieve")
        finally:
            os.chdir(cwd)
        self.ids: dict[int, tuple[int, int]] = {}  # person -> upstream (face node, voice node)

    @staticmethod
    def load(path: str | Path) -> object:
        with open(path, "rb") as f:
            return pickle.load(f)

    def new_graph(self) -> object:
        return self.videograph.VideoGraph()

    def write(self, g: object, world: World, plan: ClipPlan) -> float:
        """Ingest one clip as upstream memorization does; returns the seconds spent in upstream code."""
        t = time.perf_counter()
        for i, who in enumerate(plan.present):
            face = {"embeddings": [plan.faces[i].tolist()], "contents": ["<face crop>"]}
            voice = {"embeddings": [plan.voices[i].tolist()], "contents": ["<voice turn>"]}
            ids = []
            for info, search, add in ((face, g.search_img_nodes, g.add_img_node),  # type: ignore[attr-defined]
                                      (voice, g.search_voice_nodes, g.add_voice_node)):  # type: ignore[attr-defined]
                found = search(info)
                if found:
                    g.update_node(found[0][0], info)  # type: ignore[attr-defined]
                    ids.append(found[0][0])
                else:
                    ids.append(add(info))
            self.ids.setdefault(who, (ids[0], ids[1]))
        spent = time.perf_counter() - t
        ids = {w: self.ids[w] for w in self.ids}
        for kind, items in (("episodic", plan.episodic), ("semantic", plan.semantic)):
            texts = [world.text(tpl, who, ids) for tpl, who, _ in items]
            self.next = [v.tolist() for _, _, v in items]
            t = time.perf_counter()
            self.memory.process_memories(g, texts, plan.clip_id, kind)
            spent += time.perf_counter() - t
        return spent

    def per_search(self, pickle_path: Path, query: str, qvec: np.ndarray, before_clip: int | None = None) -> float:
        """Seconds of one control.py [Search] action (model and embedding API time excluded)."""
        t = time.perf_counter()
        g = self.load(pickle_path)
        if before_clip is not None:
            g.truncate_memory_by_clip(before_clip, False)  # type: ignore[attr-defined]
        g.refresh_equivalences()  # type: ignore[attr-defined]
        self.next = [qvec.tolist()]
        self.retrieve.search(g, query, [], threshold=0.5, topk=2, before_clip=before_clip)
        return time.perf_counter() - t

    @staticmethod
    def dump(g: object, path: Path) -> None:
        with open(path, "wb") as f:
            pickle.dump(g, f)
