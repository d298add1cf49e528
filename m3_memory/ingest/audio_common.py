"""Audio in the robot's format: ``audio_common_msgs`` payloads -> float32 mono (ROS-free).

Robot microphone drivers publish one of two unrelated message sets, both in a package named ``audio_common_msgs``:

* audio_common 4.x (github.com/mgonzs13/audio_common, ``audio_capturer_node``): ``AudioStamped`` = header +
  ``Audio`` (``AudioData`` with one typed array per sample format, ``AudioInfo`` with a PortAudio format constant,
  channels, rate, chunk). :func:`decode_typed` converts one message.
* the ros-drivers/audio_common ROS 2 port (``audio_capture``): ``AudioData`` (``uint8[] data``, or
  ``AudioDataStamped`` with a header) on one topic and ``AudioInfo`` (channels, sample_rate, sample_format such as
  ``S16LE``, bitrate, coding_format ``wave`` or ``mp3``) on another. :class:`AudioDataDecoder` holds the latest
  AudioInfo and converts the data messages: raw PCM in any GStreamer sample format listed in :func:`parse_sample_format`
  (interleaved channels), or an MP3 stream (PyAV, decoder state kept across messages).

Every sample rate and channel count is accepted (rate in ``MIN_RATE..MAX_RATE``); the result is float32 mono at the
input's rate (channels averaged), for :class:`.audio_msg.StreamResampler`. What cannot be converted raises
:class:`AudioRefused` with a ``cause`` for the loss ledger (``bad``; ``no_info`` for data before any AudioInfo) and
a ``key`` naming the kind of refusal (one gap row keeps each kind's reason).

Messages without a header (ros-drivers ``AudioData``) get the receiver's clock at arrival: :class:`ArrivalStamper`
turns arrival times into sample-continuous stamps (transport jitter does not restart the resampler).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from m3_memory.ingest.audio_msg import MAX_RATE, MIN_RATE, AudioError

MAX_CHANNELS = 32


class AudioRefused(AudioError):
    """Audio that cannot be used, with its ledger ``cause`` and a ``key`` for the kind of refusal."""

    def __init__(self, message: str, cause: str = "bad", key: str = "") -> None:
        super().__init__(message)
        self.cause = cause
        self.key = key or message


# PortAudio sample formats (portaudio.h: paFloat32 0x1, paInt32 0x2, paInt24 0x4, paInt16 0x8, paInt8 0x10,
# paUInt8 0x20), as audio_common 4.x's AudioInfo.format carries them, and the AudioData array holding each.
PA_FLOAT32, PA_INT32, PA_INT24, PA_INT16, PA_INT8, PA_UINT8 = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
PA_FORMATS: dict[int, tuple[str, str, str]] = {   # format -> (name, AudioData field, numpy dtype)
    PA_FLOAT32: ("paFloat32", "float32_data", "=f4"),   # native order: ROS arrays arrive as host arrays
    PA_INT32: ("paInt32", "int32_data", "=i4"),
    PA_INT16: ("paInt16", "int16_data", "=i2"),
    PA_INT8: ("paInt8", "int8_data", "i1"),
    PA_UINT8: ("paUInt8", "uint8_data", "u1"),
}
TYPED_FIELDS = tuple(f for _, f, _ in PA_FORMATS.values())


def _check_layout(channels: int, rate: int) -> None:
    if not 1 <= int(channels) <= MAX_CHANNELS:
        raise AudioRefused(f"invalid channel count {channels}", key="channels")
    if not MIN_RATE <= int(rate) <= MAX_RATE:
        raise AudioRefused(f"sample rate {rate} Hz outside {MIN_RATE}..{MAX_RATE}", key="rate")


def to_float_mono(x: np.ndarray, channels: int) -> np.ndarray:
    """Interleaved samples of any integer/float dtype -> float32 mono in [-1, 1] (channels averaged)."""
    if len(x) % channels:
        raise AudioRefused(f"{len(x)} samples is not a whole number of {channels}-channel frames", key="frames")
    if x.dtype.kind == "f":
        y = x.astype(np.float32)
        if not np.isfinite(y).all():
            raise AudioRefused("audio contains NaN or infinite samples", key="nan")
    elif x.dtype.kind == "u":
        half = float(2 ** (8 * x.dtype.itemsize - 1))
        y = ((x.astype(np.float64) - half) / half).astype(np.float32)
    else:
        y = (x.astype(np.float64) / float(2 ** (8 * x.dtype.itemsize - 1))).astype(np.float32)
    y = y.reshape(-1, channels)
    return y.mean(axis=1, dtype=np.float32) if channels > 1 else y[:, 0].copy()


def _as_array(values: Any, dtype: str) -> np.ndarray:
    """A ROS array field (array.array, numpy array, list) as a numpy array of ``dtype``, without a copy if it can."""
    try:
        return np.frombuffer(memoryview(values), dtype=np.dtype(dtype))
    except (TypeError, ValueError):
        return np.asarray(list(values), dtype=np.dtype(dtype))


def decode_typed(fmt: int, channels: int, rate: int, arrays: Mapping[str, Sequence[Any]]) -> np.ndarray:
    """audio_common 4.x ``Audio``: ``info.format`` (PortAudio constant) picks the ``audio_data`` array holding the
    interleaved samples; ``arrays`` maps the AudioData field names to their values."""
    fmt, channels, rate = int(fmt), int(channels), int(rate)
    if fmt not in PA_FORMATS:
        known = ", ".join(f"{n} ({v})" for v, (n, _, _) in PA_FORMATS.items())
        extra = " (paInt24: no AudioData array carries it)" if fmt == PA_INT24 else ""
        raise AudioRefused(f"unsupported audio_common format {fmt}{extra}; supported: {known}", key=f"format {fmt}")
    _check_layout(channels, rate)
    name, field, dtype = PA_FORMATS[fmt]
    data = arrays.get(field, ())
    if not len(data):
        others = [f for f in TYPED_FIELDS if f != field and len(arrays.get(f, ()))]
        if others:
            raise AudioRefused(f"format {name} ({fmt}) but the samples are in {others[0]}, not {field}",
                               key=f"mismatch {fmt}")
        return np.zeros(0, np.float32)
    return to_float_mono(_as_array(data, dtype), channels)


# -- ros-drivers/audio_common: AudioInfo + AudioData ---------------------------------------------------------------
_GST_FORMAT = re.compile(r"^([SUF])(8|16|24|32|64)(?:_(32))?(LE|BE)?$")
RAW_CODINGS = frozenset({"", "wave", "wav", "pcm", "raw"})
DECODED_CODINGS = frozenset({"mp3"})


@dataclass(frozen=True)
class SampleFormat:
    """A raw PCM sample format: numpy dtype of one sample, or packed 24-bit (3 bytes)."""

    name: str
    dtype: np.dtype
    packed24: bool = False   # S24LE / S24BE: 3 bytes per sample (GStreamer's packed 24-bit)
    big_endian: bool = False
    left_shift: int = 0      # S24_32: 24 bits in the low bits of a 32-bit container

    @property
    def size(self) -> int:
        return 3 if self.packed24 else self.dtype.itemsize

    def decode(self, raw: memoryview, channels: int) -> np.ndarray:
        if len(raw) % (self.size * channels):
            raise AudioRefused(f"{len(raw)} bytes is not a whole number of {channels}-channel {self.name} frames",
                               key="frames")
        if self.packed24:
            b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
            lo, mid, hi = (b[:, 2], b[:, 1], b[:, 0]) if self.big_endian else (b[:, 0], b[:, 1], b[:, 2])
            x = ((lo | (mid << 8) | (hi << 16)) << 8).astype(np.int32)   # sign in bit 31: a 32-bit sample
            return to_float_mono(x, channels)
        x = np.frombuffer(raw, self.dtype)
        if self.left_shift:
            x = (x.astype(np.int32) << self.left_shift).astype(np.int32)
        return to_float_mono(x, channels)


def parse_sample_format(name: str) -> SampleFormat:
    """GStreamer raw audio format names, as ros-drivers' AudioInfo.sample_format carries them (case-insensitive):
    S8, U8, S16LE/BE, U16LE/BE, S24LE/BE (packed 3 bytes), S24_32LE/BE, S32LE/BE, U32LE/BE, F32LE/BE, F64LE/BE."""
    m = _GST_FORMAT.match((name or "").strip().upper())
    if not m:
        raise AudioRefused(f"unknown sample_format {name!r} (GStreamer raw formats: S16LE, S32LE, F32LE, U8, ...)",
                           key=f"sample_format {name}")
    kind, bits, container, endian = m.group(1), int(m.group(2)), m.group(3), m.group(4)
    if bits == 8 and endian:
        raise AudioRefused(f"unknown sample_format {name!r}: 8-bit formats have no byte order", key=f"sf {name}")
    if bits > 8 and not endian:
        raise AudioRefused(f"unknown sample_format {name!r}: needs LE or BE", key=f"sf {name}")
    order = "<" if endian != "BE" else ">"
    if kind == "F":
        if bits not in (32, 64) or container:
            raise AudioRefused(f"unsupported sample_format {name!r}", key=f"sf {name}")
        return SampleFormat(name.upper(), np.dtype(f"{order}f{bits // 8}"))
    if bits == 64:
        raise AudioRefused(f"unsupported sample_format {name!r}", key=f"sf {name}")
    if bits == 24:
        if kind == "U":
            raise AudioRefused(f"unsupported sample_format {name!r}", key=f"sf {name}")
        if container:
            return SampleFormat(name.upper(), np.dtype(f"{order}i4"), left_shift=8)
        return SampleFormat(name.upper(), np.dtype(f"{order}i4"), packed24=True, big_endian=endian == "BE")
    if container:
        raise AudioRefused(f"unsupported sample_format {name!r}", key=f"sf {name}")
    return SampleFormat(name.upper(), np.dtype(f"{order}{'i' if kind == 'S' else 'u'}{bits // 8}"))


@dataclass(frozen=True)
class AudioFormat:
    """What an AudioInfo says about the data messages: ``sample`` for raw PCM, None for a decoded coding (mp3)."""

    channels: int
    rate: int
    coding: str
    sample: SampleFormat | None

    def describe(self) -> str:
        what = self.sample.name if self.sample is not None else self.coding
        return f"{what}, {self.channels} ch, {self.rate} Hz" + (f" ({self.coding})" if self.sample is not None else "")


def parse_info(channels: int, sample_rate: int, sample_format: str, coding_format: str) -> AudioFormat:
    """An AudioInfo's fields -> AudioFormat; AudioRefused with the reason when data in that format is unusable."""
    coding = (coding_format or "").strip().lower()
    if coding in DECODED_CODINGS:   # the stream carries its own rate and channels
        return AudioFormat(int(channels), int(sample_rate), coding, None)
    if coding not in RAW_CODINGS:
        raise AudioRefused(f"unsupported coding_format {coding_format!r} (supported: wave (raw PCM), mp3)",
                           key=f"coding {coding}")
    _check_layout(channels, sample_rate)
    return AudioFormat(int(channels), int(sample_rate), coding or "wave", parse_sample_format(sample_format))


class AudioDataDecoder:
    """ros-drivers AudioData payloads in the format of the latest AudioInfo -> (rate, float32 mono).

    Before any AudioInfo the format is unknown: data is refused with cause ``no_info``. An AudioInfo whose format is
    unusable makes the data refused with its reason (cause ``bad``) until a usable one arrives. MP3 is decoded with
    PyAV (libavcodec's mp3 decoder), its state kept across messages (a frame split over two messages is joined); a
    message with an undecodable frame is refused whole, and MP3_SILENT_BYTES of data without a single frame (not an
    MP3 stream) are refused too, so nothing disappears in the decoder unnoticed."""

    MP3_SILENT_BYTES = 16384   # > 10 of the largest MP3 frames (1441 bytes)

    def __init__(self) -> None:
        self.format: AudioFormat | None = None
        self.refusal: AudioRefused | None = None
        self.info_seen = False
        self._mp3: Any = None
        self._mp3_rate = 0
        self._mp3_pending = 0     # bytes fed since the decoder last gave a frame

    def set_info(self, channels: int, sample_rate: int, sample_format: str, coding_format: str) -> bool:
        """Take an AudioInfo; True when what it says changed (for logging). Raises nothing: an unusable format is
        kept as :attr:`refusal` and raised for each data message until a usable AudioInfo arrives."""
        try:
            fmt, refusal = parse_info(channels, sample_rate, sample_format, coding_format), None
        except AudioRefused as e:
            fmt, refusal = None, e
        changed = (not self.info_seen or fmt != self.format
                   or (str(refusal) if refusal else None) != (str(self.refusal) if self.refusal else None))
        if changed:
            self._mp3, self._mp3_pending = None, 0
        self.info_seen, self.format, self.refusal = True, fmt, refusal
        return changed

    @property
    def compressed(self) -> bool:
        """The current format is a coding that is decoded (mp3): output lags the messages by a frame or so."""
        return self.format is not None and self.format.sample is None

    def decode(self, data: bytes | bytearray | memoryview) -> tuple[int, np.ndarray]:
        if not self.info_seen:
            raise AudioRefused("no AudioInfo received yet: the sample format is unknown", cause="no_info",
                               key="no_info")
        if self.refusal is not None:
            raise self.refusal
        fmt = self.format
        assert fmt is not None
        raw = memoryview(data).cast("B")
        if fmt.sample is not None:
            return fmt.rate, fmt.sample.decode(raw, fmt.channels)
        return self._decode_mp3(bytes(raw))

    def _decode_mp3(self, data: bytes) -> tuple[int, np.ndarray]:
        import av

        if self._mp3 is None:
            self._mp3 = av.CodecContext.create("mp3", "r")
        parts: list[np.ndarray] = []
        error = ""
        for packet in self._mp3.parse(data):
            try:
                frames = self._mp3.decode(packet)
            except av.FFmpegError as e:   # the decoder goes on with the next frame
                error = error or str(e)
                continue
            for frame in frames:
                x, ch = frame.to_ndarray(), frame.layout.nb_channels
                parts.append(to_float_mono(x.T.reshape(-1) if frame.format.is_planar else x.reshape(-1), ch))
                self._mp3_rate = int(frame.sample_rate)
        if error:
            raise AudioRefused(f"could not decode mp3: {error}", key="mp3")
        if not parts:
            self._mp3_pending += len(data)
            if self._mp3_pending > self.MP3_SILENT_BYTES:
                n, self._mp3, self._mp3_pending = self._mp3_pending, None, 0
                raise AudioRefused(f"{n} bytes of mp3 data gave no audio frame (not an MP3 stream?)", key="mp3")
            return self._mp3_rate or max(self.format.rate if self.format else 0, MIN_RATE), np.zeros(0, np.float32)
        self._mp3_pending = 0
        _check_layout(1, self._mp3_rate)
        return self._mp3_rate, np.concatenate(parts)


class ArrivalStamper:
    """Stamps for audio messages that carry none: the receiver's clock at arrival, kept sample-continuous.

    A message of ``n`` samples arriving at ``arrival`` nominally started at ``arrival - n / rate``. While that stays
    within ``tolerance_s`` of where the previous message ended, the stamp continues the stream sample by sample
    (transport jitter would otherwise restart the resampler at every message); beyond it (a microphone gap, a
    stall, a drifting sample clock) the stream is re-anchored at the nominal time and :attr:`reanchors` counts it.
    ``start=True``: ``arrival`` is a start time already (the header stamp of compressed audio, whose decoded samples
    do not line up with its messages), kept continuous the same way.
    """

    def __init__(self, tolerance_s: float = 0.5) -> None:
        self.tolerance_s = float(tolerance_s)
        self._next: float | None = None
        self.reanchors = 0

    def stamp(self, arrival: float, n: int, rate: int, start: bool = False) -> float:
        dur = n / float(rate)
        nominal = arrival if start else arrival - dur
        if self._next is not None and abs(nominal - self._next) <= self.tolerance_s:
            t = self._next
        else:
            if self._next is not None:
                self.reanchors += 1
            t = nominal
        self._next = t + dur
        return t


class InfoWait:
    """ros-drivers AudioData that arrives before the first AudioInfo is held, not refused at once: a latched AudioInfo
    reaches a new subscriber only once discovery has matched it, often after the first data messages. Held up to
    ``hold_s`` wall seconds from the first one (at most ``max_held`` messages), then handed back in arrival order:
    :meth:`offer` returns what to deliver now (everything held once the AudioInfo has come or the wait is over),
    :meth:`drain` empties it (the AudioInfo came; shutdown), :meth:`expired` once the wait is over (polled: no more
    data may come). What is delivered without an AudioInfo is then refused (``no_info``) and counted, never dropped
    here. Thread-safe (callbacks, a timer and shutdown run on different threads)."""

    def __init__(self, hold_s: float = 2.0, max_held: int = 256, clock: Any = None) -> None:
        import threading
        import time

        self.hold_s, self.max_held, self.clock = hold_s, max_held, clock or time.monotonic
        self._held: list[Any] = []
        self._first: float | None = None
        self._closed = False               # after drain(closing=True) nothing is held any more
        self._lock = threading.Lock()

    def _waiting(self) -> bool:
        """Is the wait that began with the first held message still on? (Under the lock.)"""
        return self._first is not None and self.clock() - self._first < self.hold_s

    def offer(self, item: Any, info_seen: bool) -> list[Any]:
        with self._lock:
            if not info_seen and not self._closed:
                if self._first is None:
                    self._first = self.clock()
                if self._waiting() and len(self._held) < self.max_held:
                    self._held.append(item)
                    return []
            out, self._held = self._held + [item], []
            return out

    def drain(self, closing: bool = False) -> list[Any]:
        """Everything held. ``closing``: and hold nothing from now on (a callback still running at shutdown hands
        its message straight on instead of leaving it here, uncounted)."""
        with self._lock:
            self._closed = self._closed or closing
            out, self._held = self._held, []
            return out

    def expired(self) -> list[Any]:
        """Everything held, if the wait is over; else nothing."""
        with self._lock:
            if not self._held or self._waiting():
                return []
            out, self._held = self._held, []
            return out
