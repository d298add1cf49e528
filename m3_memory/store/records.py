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
    action: str              # inserted | reinforced | refused (an equivalence of entities a user split apart)
    reinforced: list[int] = field(default_factory=list)
    weakened: list[int] = field(default_factory=list)
    entities: list[int] = field(default_factory=list)


@dataclass
class ForgetReport:
    character_id: int
    entities: list[int] = field(default_factory=list)            # face/voice nodes deleted
    deleted_memories: list[int] = field(default_factory=list)    # memories about only them (and equivalences)
    redacted_memories: list[int] = field(default_factory=list)   # kept memories whose text was rewritten
    deleted_turns: int = 0
    names_redacted: int = 0        # occurrences of the person's names replaced by <redacted>
    texts_rewritten: int = 0       # rows of nodes/contents/turns whose text changed (tags or names)
    reembedded: list[int] = field(default_factory=list)      # rewritten memories with a new vector
    needs_reembed: list[int] = field(default_factory=list)   # ... whose old vector was dropped (other embedder)
    vacuumed: bool = False
    checkpointed: bool = False     # WAL checkpointed and truncated: no deleted bytes left in the files
    open_readers_blocking: bool = False   # other connections kept the checkpoint from finishing
    checkpoint: tuple[int, int, int] = (1, -1, -1)   # PRAGMA wal_checkpoint row: busy, log, checkpointed
    remains: str = ""              # what the engine may still hold of the person outside the store's reach


@dataclass
class CheckpointResult:
    ok: bool                       # busy == 0: WAL fully copied into the database file and truncated
    busy: int
    log_frames: int
    checkpointed_frames: int
    attempts: int = 1
    waited_s: float = 0.0
