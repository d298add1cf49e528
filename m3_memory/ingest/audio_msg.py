"""Decode m3_agent/msg/AudioChunk payloads and bring them to the pipeline's format (float32 mono 16 kHz).

``decode_chunk`` validates and converts one chunk (encoding, channel count, NaN/inf, size). ``StreamResampler``
keeps libswresample state (PyAV) across chunks, so a 44.1/48 kHz microphone stream is resampled without clicks at
chunk boundaries, and reports the stream time of the samples it returns. Every chunk's stamp is honoured: a chunk
that does not continue the previous one (a microphone gap, dropped chunks, a re-anchored clock) restarts the
resampler at its own stamp, so speech after a gap lands at its true time and the gap stays silence.
"""

from __future__ import annotations

import numpy as np


class AudioError(ValueError):
    """An audio chunk that cannot be used."""


ENCODINGS = {"s16le": "<i2", "pcm_s16le": "<i2", "s32le": "<i4", "f32le": "<f4", "pcm_f32le": "<f4", "u8": "u1"}
MIN_RATE, MAX_RATE = 4000, 192000


def decode_chunk(encoding: str, channels: int, sample_rate: int, data: bytes | bytearray | memoryview) -> np.ndarray:
    enc = (encoding or "s16le").lower()
    if enc not in ENCODINGS:
        raise AudioError(f"unsupported audio encoding {encoding!r} (supported: {', '.join(sorted(ENCODINGS))})")
    if not MIN_RATE <= int(sample_rate) <= MAX_RATE:
        raise AudioError(f"sample_rate {sample_rate} Hz outside {MIN_RATE}..{MAX_RATE}")
    if not 1 <= int(channels) <= 32:
        raise AudioError(f"invalid channel count {channels}")
    dt = np.dtype(ENCODINGS[enc])
    raw = memoryview(data).cast("B")
    if len(raw) % (dt.itemsize * channels):
        raise AudioError(f"{len(raw)} bytes is not a whole number of {channels}-channel {enc} samples")
    x = np.frombuffer(raw, dtype=dt).reshape(-1, channels)
    if dt.kind == "f":
        x = x.astype(np.float32)
        if not np.isfinite(x).all():
            raise AudioError("audio contains NaN or infinite samples")
    elif dt.kind == "u":
        x = (x.astype(np.float32) - 128.0) / 128.0
    else:
        x = x.astype(np.float32) / float(np.iinfo(dt).max + 1)
    return x.mean(axis=1) if channels > 1 else x[:, 0].copy()


class StreamResampler:
    """float32 mono at ``in_rate`` -> float32 mono at ``out_rate``, stateful across chunks."""

    def __init__(self, in_rate: int, out_rate: int = 16000, resync_s: float = 0.05) -> None:
        self.in_rate, self.out_rate, self.resync_s = int(in_rate), int(out_rate), float(resync_s)
        self._rs = None
        self._t_out: float | None = None   # stream time of the next output sample
        self._t_in: float | None = None    # stream time the next input chunk should start at
        self.resyncs = 0
        self._reset()

    def _reset(self) -> None:
        self._rs = None
        if self.in_rate != self.out_rate:
            import av

            self._rs = av.AudioResampler(format="flt", layout="mono", rate=self.out_rate)

    def push(self, t0: float, x: np.ndarray) -> tuple[float, np.ndarray]:
        """Feed samples starting at stream time ``t0``; returns (time of first returned sample, samples)."""
        if self._t_in is not None and abs(t0 - self._t_in) > self.resync_s:
            self.resyncs += 1
            self._reset()      # the resampler's few buffered samples belong before the gap: dropped with it
            self._t_out = None
        if self._t_out is None:
            self._t_out = t0
        self._t_in = t0 + len(x) / self.in_rate
        if self._rs is None:
            out = np.asarray(x, np.float32)
        else:
            import av

            frame = av.AudioFrame.from_ndarray(np.asarray(x, np.float32).reshape(1, -1), format="flt", layout="mono")
            frame.sample_rate = self.in_rate
            parts = [f.to_ndarray().reshape(-1) for f in self._rs.resample(frame)]
            out = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        start = self._t_out
        self._t_out += len(out) / self.out_rate
        return start, out
