"""Store configuration (thresholds and caps default to upstream's memory_config.json)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

VECTOR_SEARCH = ("local", "server")   # StoreConfig.vector_search, and the nodes' parameter of that name


@dataclass
class StoreConfig:
    max_face_embeddings: int = 10          # upstream max_img_embeddings
    max_voice_embeddings: int = 20         # upstream max_audio_embeddings
    max_contents_per_entity: int = 20      # face crops / voice turns kept per entity node (upstream: unbounded)
    max_face_crops: int = 4                # JPEG face crops (kind face_jpeg) kept per face node, best quality first
    max_voice_snippets: int = 1            # short WAV voice samples (kind voice_wav) kept per voice node
    face_match_threshold: float = 0.3      # mean pairwise cosine to attach a face cluster to a node
    voice_match_threshold: float = 0.6     # same for voice segments
    semantic_reinforce_threshold: float = 0.85   # near-duplicate semantic memory -> reinforce instead of insert
    semantic_weaken_threshold: float | None = 0.0  # cosine below -> weaken the old memory (None disables)
    search_threshold: float = 0.5          # min clip score for search_clips (upstream control loop 0.5)
    # vector index (vector_index.py; parameters chosen by measured recall@10 >= 0.95, benchmarks/store_bench.py)
    hnsw_min_size: int = 8192              # exact (BLAS) search below this many text nodes, faiss HNSW segments above
    exact_max_floats: int = 4_000_000      # ... unless nodes x dim stays below this (10k x 384, 1.3k x 3072)
    hnsw_m: int = 16
    hnsw_ef_search: int = 128
    hnsw_ef_construction: int = 64          # 40 gave recall@10 0.943-0.971 at 1M (benchmarks/hnsw_sweep.py)
    exact_subset_max: int = 32768          # filtered searches with at most this many allowed nodes stay exact
    index_dtype: str = "float32"           # HNSW segments' vectors: float32 | float16 | int8 (2x / 4x smaller)
    index_segment_rows: int = 4096         # newest rows searched exactly until this many are sealed into a segment
    index_max_segment_rows: int = 262144   # segments are merged (in the background) up to this size
    index_persist: bool = True             # keep the index in <db>.index/ (loaded at open, changes replayed)
    # PostgreSQL: the server holds the rows, each machine its own copy of the index (per store id) in this folder
    # ("" = ~/.cache/m3_agent/index), loaded at open and brought up to date from the change log like SQLite's
    index_cache_dir: str = ""
    index_background: bool = True          # build segments in a background thread (False: inline)
    # threads one search walks its HNSW segments with (faiss releases the GIL): at 1M rows in 8 segments, 2 threads
    # take search p50 from 9.3 to 5.8 ms on 2 cores (docs/benchmarks.md 'opens ready'); 1 = one after another
    search_threads: int = 2
    # a writer keeps the vector index as it writes (from its first commit) and saves it at close, so the next reader
    # opens it ready instead of rebuilding it from the database (issue 29: 15 s at 100k, minutes at 1M)
    index_on_write: bool = True
    index_close_wait_s: float = 600.0      # ... at close a writer finishes its index builds for up to this long
    # where text memories are searched: "local" (each process its own faiss index, above) or "server" (PostgreSQL
    # only: pgvector's HNSW in the database, one index for every robot and reader; store/pg/server_index.py)
    vector_search: str = "local"
    cache_mb: int = 64                     # SQLite page cache per connection
    checkpoint_interval_s: float = 1.0     # WAL checkpoints by a background thread of the writer (0: in commits)
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

    def __post_init__(self) -> None:
        if self.vector_search not in VECTOR_SEARCH:
            raise ValueError(f"vector_search: {' or '.join(map(repr, VECTOR_SEARCH))}, got {self.vector_search!r}")

    def to_dict(self) -> dict:
        return asdict(self)
