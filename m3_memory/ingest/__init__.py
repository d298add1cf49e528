"""Stream intake, ROS-free: stamped frames, audio and poses -> clips -> memories (:mod:`.pipeline`)."""

from .pipeline import IngestSettings, StreamPipeline, SyncResult

__all__ = ["IngestSettings", "StreamPipeline", "SyncResult"]
