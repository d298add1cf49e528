"""A synthetic memorization stream for the store benchmarks: a household of recurring people, 30 s clips.

Text vectors come from :class:`TextSpace`, a model of sentence-embedding geometry: a direction all texts share,
topic centres in a 64-d subspace with a decaying spectrum, and isotropic noise. Pairwise cosine of unrelated
memories ~0.19 (sd 0.13, 7 % negative), same topic ~0.6, nearest neighbours ~0.7 -- like text-embedding-3 vectors
of everyday sentences. ``kind="random"`` gives isotropic vectors instead (plus the shared direction): the worst
case for an approximate index, reported next to it.

A clip (:meth:`World.plan`) has 2-3 of ``people`` present (each a face and a voice node, created at their first
appearance, updated with a new embedding at every later one), 14 episodic memories naming one or two of them, and
6 semantic memories: the equivalence of a present person's face and voice (re-stated: reinforced), and facts about
present people, half of them re-statements of a fact already known (cosine ~0.93: the reinforce path), a fifth of
them about two people (the multi-entity path).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

EPISODIC, SEMANTIC = 14, 6
FACE_DIM, VOICE_DIM = 512, 192


def unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class TextSpace:
    def __init__(self, dim: int, rng: np.random.Generator, kind: str = "structured", topics: int = 4096,
                 rank: int = 64) -> None:
        self.dim, self.rng, self.kind = dim, rng, kind
        self.shared = unit(rng.standard_normal(dim))
        basis, _ = np.linalg.qr(rng.standard_normal((dim, rank)))
        self.basis = basis.astype(np.float32)
        self.spec = (1.0 / np.sqrt(np.arange(1, rank + 1))).astype(np.float32)
        self.centers = unit((rng.standard_normal((topics, rank)).astype(np.float32) * self.spec) @ self.basis.T)

    def sample(self, n: int) -> np.ndarray:
        rng = self.rng
        iso = unit(rng.standard_normal((n, self.dim)))
        if self.kind == "random":
            return unit(iso + 0.35 * self.shared)
        low = unit((rng.standard_normal((n, len(self.spec))).astype(np.float32) * self.spec) @ self.basis.T)
        topic = self.centers[rng.integers(0, len(self.centers), n)]
        return unit(0.4 * self.shared + 0.6 * topic + 0.3 * low + 0.5 * iso)

    def near(self, v: np.ndarray, cos: float) -> np.ndarray:
        """Unit vectors at cosine ``cos`` to each row of ``v`` (a re-statement, or a query about it)."""
        v = unit(np.atleast_2d(v))
        noise = self.rng.standard_normal(v.shape).astype(np.float32)
        noise -= (noise * v).sum(axis=1, keepdims=True) * v
        return unit(cos * v + np.sqrt(1 - cos * cos) * unit(noise))


@dataclass
class Person:
    face_vec: np.ndarray
    voice_vec: np.ndarray
    eq_vec: np.ndarray
    face: int | None = None     # node ids once written
    voice: int | None = None
    facts: list[np.ndarray] = field(default_factory=list)


@dataclass
class ClipPlan:
    clip_id: int
    start: float
    end: float
    present: list[int]
    episodic: list[tuple[str, list[int], np.ndarray]]   # text template, people named, vector
    semantic: list[tuple[str, list[int], np.ndarray]]
    faces: np.ndarray       # this clip's face / voice embedding of each present person
    voices: np.ndarray


class World:
    def __init__(self, dim: int, seed: int = 0, people: int = 40, kind: str = "structured",
                 repeat_fact: float = 0.5, household: int | None = None) -> None:
        """``household``: a seed for the text space and the people, shared by several writers (robots of one home:
        one embedder, the same people); ``seed`` then drives only what each writer's clips hold."""
        self.rng = np.random.default_rng(seed)
        home = np.random.default_rng(household) if household is not None else self.rng
        self.space = TextSpace(dim, home, kind)
        self.repeat_fact = repeat_fact
        self.people = [Person(unit(home.standard_normal(FACE_DIM)), unit(home.standard_normal(VOICE_DIM)),
                              self.space.sample(1)[0]) for _ in range(people)]
        self.space.rng = self.rng
        self.clip = 0

    def plan(self) -> ClipPlan:
        rng, c = self.rng, self.clip
        self.clip += 1
        p = len(self.people)
        # person i first appears in clip i; afterwards 2-3 people at random
        present = sorted({c % p if c < p else int(rng.integers(p)) for _ in range(int(rng.integers(2, 4)))})
        vecs = self.space.sample(EPISODIC)
        episodic = []
        for i in range(EPISODIC):
            who = list(dict.fromkeys([present[i % len(present)], present[(i + 1) % len(present)]][: 1 + (i % 3 == 0)]))
            if i % 4 == 1:  # a line somebody says (a voice tag: the turns benchmarks count speech from these)
                episodic.append((f"clip {c} event {i}: {{voice0}} says something", who[:1], vecs[i]))
                continue
            episodic.append((f"clip {c} event {i}: {{0}} does something" + (" with {1}" if len(who) > 1 else ""),
                             who, vecs[i]))
        semantic = []
        first = present[0]
        semantic.append(("Equivalence: {face0}, {voice0}", [first],
                         self.space.near(self.people[first].eq_vec, 0.97)[0]))
        for i in range(SEMANTIC - 1):
            who = present[i % len(present)]
            person = self.people[who]
            if person.facts and rng.random() < self.repeat_fact:
                base = person.facts[int(rng.integers(len(person.facts)))]
                vec = self.space.near(base, 0.93)[0]
            else:
                vec = self.space.sample(1)[0]
                person.facts.append(vec)
            pair = list(dict.fromkeys([who, present[(i + 1) % len(present)]][: 1 + (i % 5 == 4)]))
            semantic.append((f"clip {c} fact {i}: {{0}} likes something" + (" with {1}" if len(pair) > 1 else ""),
                             pair, vec))
        faces = unit(np.stack([self.people[w].face_vec for w in present])
                     + 0.3 * unit(rng.standard_normal((len(present), FACE_DIM))))
        voices = unit(np.stack([self.people[w].voice_vec for w in present])
                      + 0.3 * unit(rng.standard_normal((len(present), VOICE_DIM))))
        return ClipPlan(c, 30.0 * c, 30.0 * (c + 1), present, episodic, semantic, faces, voices)

    def text(self, template: str, who: list[int], ids: dict[int, tuple[int, int]] | None = None) -> str:
        """The memory text with each person's tags (their node ids in this store, or in ``ids``)."""
        node = ids or {w: (self.people[w].face, self.people[w].voice) for w in who}
        tags = [f"<face_{node[w][0]}>" for w in who]
        return template.format(*tags, face0=f"<face_{node[who[0]][0]}>", voice0=f"<voice_{node[who[0]][1]}>")

    def write(self, store, plan: ClipPlan, match: bool = True) -> dict:
        """Write one clip through the store's real write path; returns what happened to its memories."""
        out = {"inserted": 0, "reinforced": 0, "weakened": 0, "memories": 0}
        with store.begin_clip(plan.clip_id, plan.start, plan.end) as w:
            for i, who in enumerate(plan.present):
                person = self.people[who]
                face, voice = plan.faces[i : i + 1], plan.voices[i : i + 1]
                if person.face is None:
                    person.face = w.add_entity("face", face)
                    person.voice = w.add_entity("voice", voice)
                else:
                    if match:  # perception asks the store which node these are
                        w.match_entity("face", face)
                        w.match_entity("voice", voice)
                    w.update_entity(person.face, face)
                    w.update_entity(person.voice, voice)
            texts = [self.text(t, who) for t, who, _ in plan.episodic]
            res = w.add_memories(texts, "episodic", vectors=np.stack([v for _, _, v in plan.episodic]))
            for t, who, v in plan.semantic:
                res.append(w.add_memory(self.text(t, who), "semantic", vector=v))
        for r in res:
            out["memories"] += 1
            out["inserted"] += r.action == "inserted"
            out["reinforced"] += r.action == "reinforced"
            out["weakened"] += len(r.weakened)
        return out
