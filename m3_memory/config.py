"""Store configuration (thresholds and caps default to upstream's memory_config.json)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass
class StoreConfig:
    max_face_embeddings: int = 10          # upstream max_img_embeddings
    max_voice_embeddings: int = 20         # upstream max_audio_embeddings
    max_contents_per_entity: int = 20      # face crops / voice turns kept per entity node (upstream: unbounded)
    face_match_threshold: float = 0.3      # mean pairwise cosine to attach a face cluster to a node
    voice_match_threshold: float = 0.6     # same for voice segments
    semantic_reinforce_threshold: float = 0.85   # near-duplicate semantic memory -> reinforce instead of insert
    semantic_weaken_threshold: float | None = 0.0  # cosine below -> weaken the old memory (None disables)
    search_threshold: float = 0.5          # min clip score for search_clips (upstream control loop 0.5)
    hnsw_min_size: int = 20000             # exact (BLAS) search below this many text nodes, faiss HNSW above
    exact_max_floats: int = 50_000_000     # ... unless nodes x dim stays below this (100k x 384 is exact)
    hnsw_m: int = 32
    hnsw_ef_search: int = 128
    hnsw_ef_construction: int = 80
    exact_subset_max: int = 20000          # filtered searches with at most this many allowed nodes stay exact
    synchronous: str = "NORMAL"            # SQLite synchronous pragma in WAL mode (FULL survives power loss too)
    busy_timeout_ms: int = 30000

    @classmethod
    def from_dict(cls, d: dict | None) -> StoreConfig:
        d = dict(d or {})
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown store config keys: {sorted(unknown)}")
        return cls(**d)

    def to_dict(self) -> dict:
        return asdict(self)
