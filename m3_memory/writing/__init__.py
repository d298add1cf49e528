"""Memory writing: turn one clip's evidence (video, face crops with ids, voice turns with ids) into episodic and
semantic memory strings. Backends share one interface (:class:`MemoryWriter`). No ROS imports."""

from .base import ClipEvidence, FaceEvidence, MemoryWriter, VoiceTurnEvidence, WrittenMemories
from .factory import make_writer
from .parse import MemoryParseError, parse_memory_output

__all__ = [
    "ClipEvidence", "FaceEvidence", "MemoryParseError", "MemoryWriter", "VoiceTurnEvidence", "WrittenMemories",
    "make_writer", "parse_memory_output",
]
