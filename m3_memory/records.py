"""Plain records returned by the store."""

from __future__ import annotations

from dataclasses import dataclass, field

TEXT_KINDS = ("episodic", "semantic")
ENTITY_KINDS = ("face", "voice")
NODE_KINDS = ENTITY_KINDS + TEXT_KINDS


@dataclass
class Memory:
    id: int
    kind: str            # episodic | semantic
    text: str            # raw ids: <face_3>, <voice_1>
    clip_id: int | None
    start_time: float | None
    end_time: float | None
    weight: float = 1.0
    score: float | None = None


@dataclass
class ClipHit:
    clip_id: int
    score: float
    memories: list[Memory] = field(default_factory=list)


@dataclass
class Entity:
    id: int
    kind: str            # face | voice
    seed: int
    character_id: int
    clip_id: int | None
    start_time: float | None
    end_time: float | None
    n_embeddings: int = 0
    n_contents: int = 0
    score: float | None = None

    @property
    def tag(self) -> str:
        return f"<{self.kind}_{self.id}>"


@dataclass
class InsertResult:
    node_id: int | None      # the new node, or None when the memory reinforced an existing one
    action: str              # inserted | reinforced
    reinforced: list[int] = field(default_factory=list)
    weakened: list[int] = field(default_factory=list)
    entities: list[int] = field(default_factory=list)


@dataclass
class ForgetReport:
    character_id: int
    entities: list[int] = field(default_factory=list)
    deleted_memories: list[int] = field(default_factory=list)
    redacted_memories: list[int] = field(default_factory=list)
