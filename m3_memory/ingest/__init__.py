"""Stream intake, ROS-free: stamped frames, audio and poses -> clips -> memories.

``pipeline.StreamPipeline`` is what the memorization node drives; the other modules are its stages: message
decoding (``frames``, ``audio_msg``, ``audio_common``), stream time (``stream_clock``), clip assembly (``clips``) and
the loss ledger (``stream_ledger``). Nothing is imported here, so that a stage (``clips`` for the Memorizer) can be
imported without the pipeline, which itself imports the Memorizer."""
