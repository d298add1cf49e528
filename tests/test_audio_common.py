"""audio_common_msgs payloads -> float32 mono (m3_memory.ingest.audio_common, ROS-free): every sample format the two
audio_common message sets carry, interleaved channels, any rate through the StreamResampler, and the refusals."""

from __future__ import annotations

import array

import numpy as np
import pytest

from m3_memory.ingest.audio_common import (
    PA_FLOAT32,
    PA_INT8,
    PA_INT16,
    PA_INT24,
    PA_INT32,
    PA_UINT8,
    ArrivalStamper,
    AudioDataDecoder,
    AudioRefused,
    decode_typed,
    parse_info,
    parse_sample_format,
)
from m3_memory.ingest.audio_msg import StreamResampler

# a few exact values in [-1, 1): each format represents them exactly (8-bit: multiples of 1/128)
VALUES = np.array([0.0, 0.5, -0.5, -1.0, 0.25, -0.75], np.float64)


def _ints(x: np.ndarray, bits: int) -> np.ndarray:
    return np.round(x * 2 ** (bits - 1)).astype(np.int64)


def _typed(fmt: int, x: np.ndarray) -> tuple[str, object]:
    """Interleaved float samples as the AudioData array (field, array.array as rclpy delivers it) for ``fmt``."""
    if fmt == PA_FLOAT32:
        return "float32_data", array.array("f", x.astype(np.float32).tolist())
    if fmt == PA_INT32:
        return "int32_data", array.array("i", np.clip(_ints(x, 32), -2**31, 2**31 - 1).tolist())
    if fmt == PA_INT16:
        return "int16_data", array.array("h", _ints(x, 16).tolist())
    if fmt == PA_INT8:
        return "int8_data", array.array("b", _ints(x, 8).tolist())
    return "uint8_data", array.array("B", (_ints(x, 8) + 128).tolist())


@pytest.mark.parametrize("fmt", [PA_FLOAT32, PA_INT32, PA_INT16, PA_INT8, PA_UINT8],
                         ids=["float32", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("channels", [1, 2, 6])
def test_typed_formats_and_interleaved_channels(fmt: int, channels: int) -> None:
    # channel c of frame i is VALUES[i] * (c + 1) / channels: the mean over channels is VALUES[i] * (channels+1) / 2ch
    gains = (np.arange(channels) + 1) / channels
    frames = VALUES[:, None] * gains[None, :]
    field, arr = _typed(fmt, frames.reshape(-1))
    y = decode_typed(fmt, channels, 48000, {field: arr})
    assert y.dtype == np.float32 and y.shape == (len(VALUES),)
    tol = 1.0 / 128 if fmt in (PA_INT8, PA_UINT8) else 1e-4
    assert np.allclose(y, frames.mean(axis=1), atol=tol), (y, frames.mean(axis=1))


def test_typed_refusals() -> None:
    with pytest.raises(AudioRefused, match="paInt24"):
        decode_typed(PA_INT24, 1, 16000, {})
    with pytest.raises(AudioRefused, match="unsupported audio_common format 999"):
        decode_typed(999, 1, 16000, {"int16_data": array.array("h", [0])})
    with pytest.raises(AudioRefused, match="samples are in float32_data"):
        decode_typed(PA_INT16, 1, 16000, {"float32_data": array.array("f", [0.0]), "int16_data": array.array("h")})
    with pytest.raises(AudioRefused, match="channel count 0"):
        decode_typed(PA_INT16, 0, 16000, {"int16_data": array.array("h", [0])})
    with pytest.raises(AudioRefused, match="sample rate 100 Hz"):
        decode_typed(PA_INT16, 1, 100, {"int16_data": array.array("h", [0])})
    with pytest.raises(AudioRefused, match="whole number of 2-channel"):
        decode_typed(PA_INT16, 2, 16000, {"int16_data": array.array("h", [0, 1, 2])})
    with pytest.raises(AudioRefused, match="NaN"):
        decode_typed(PA_FLOAT32, 1, 16000, {"float32_data": array.array("f", [0.0, float("nan")])})
    # an empty message is no audio, not an error
    assert decode_typed(PA_INT16, 2, 16000, {"int16_data": array.array("h")}).shape == (0,)
    e = pytest.raises(AudioRefused, decode_typed, 999, 1, 16000, {}).value
    assert e.cause == "bad" and e.key == "format 999"


def _encode_raw(name: str, x: np.ndarray) -> bytes:
    """Float samples in the GStreamer raw format ``name`` (independent of the decoder's code)."""
    n = name.upper()
    be = n.endswith("BE")
    if n.startswith("F"):
        return x.astype((">" if be else "<") + ("f4" if "32" in n else "f8")).tobytes()
    if n in ("S8", "U8"):
        v = _ints(x, 8) + (128 if n == "U8" else 0)
        return v.astype("u1" if n == "U8" else "i1").tobytes()
    if n.startswith("S24_32"):
        return _ints(x, 24).astype(">i4" if be else "<i4").tobytes()
    if n.startswith("S24"):
        out = bytearray()
        for v in _ints(x, 24):
            b = int(v & 0xFFFFFF).to_bytes(3, "big" if be else "little")
            out += b
        return bytes(out)
    bits = int(n[1:3])
    v = np.clip(_ints(x, bits), -(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if n.startswith("U"):
        v = v + 2 ** (bits - 1)
    return v.astype((">" if be else "<") + ("u" if n.startswith("U") else "i") + str(bits // 8)).tobytes()


RAW_FORMATS = ["S8", "U8", "S16LE", "S16BE", "U16LE", "U16BE", "S24LE", "S24BE", "S24_32LE", "S24_32BE", "S32LE",
               "S32BE", "U32LE", "F32LE", "F32BE", "F64LE", "F64BE", "s16le"]


@pytest.mark.parametrize("name", RAW_FORMATS)
@pytest.mark.parametrize("channels", [1, 2])
def test_raw_sample_formats(name: str, channels: int) -> None:
    frames = np.stack([VALUES, -VALUES / 2][:channels], axis=1) if channels == 2 else VALUES[:, None]
    fmt = parse_sample_format(name)
    y = fmt.decode(memoryview(_encode_raw(name, frames.reshape(-1))), channels)
    tol = 1.0 / 128 if name.upper() in ("S8", "U8") else 1e-4
    assert np.allclose(y, frames.mean(axis=1), atol=tol), (name, y)


@pytest.mark.parametrize("name", ["S12LE", "F16LE", "S16", "U8LE", "U24LE", "F32_32LE", "S64LE", "mulaw", ""])
def test_unknown_sample_formats_are_refused(name: str) -> None:
    with pytest.raises(AudioRefused, match="sample_format"):
        parse_sample_format(name)


def test_info_codings() -> None:
    assert parse_info(2, 48000, "S16LE", "wave").sample.name == "S16LE"
    assert parse_info(1, 16000, "S16LE", "WAVE").describe() == "S16LE, 1 ch, 16000 Hz (wave)"
    assert parse_info(1, 16000, "", "mp3").sample is None
    with pytest.raises(AudioRefused, match="unsupported coding_format 'opus'"):
        parse_info(1, 48000, "S16LE", "opus")
    with pytest.raises(AudioRefused, match="sample rate 1000000"):
        parse_info(1, 1_000_000, "S16LE", "wave")


def test_audio_data_decoder_needs_info_first_and_follows_changes() -> None:
    d = AudioDataDecoder()
    with pytest.raises(AudioRefused) as e:
        d.decode(b"\0\0")
    assert e.value.cause == "no_info"
    assert d.set_info(2, 44100, "S16LE", "wave") is True
    assert d.set_info(2, 44100, "S16LE", "wave") is False   # the driver repeats it every 5 s: no news
    rate, y = d.decode(np.array([1000, 3000, -2000, -2000], "<i2").tobytes())
    assert rate == 44100 and np.allclose(y, [2000 / 32768, -2000 / 32768])
    assert d.set_info(1, 8000, "F32LE", "wave") is True
    assert d.decode(np.array([0.5], "<f4").tobytes()) == (8000, pytest.approx(np.array([0.5], np.float32)))
    assert d.set_info(1, 8000, "X99", "wave") is True          # unusable: refused with the reason, cause bad
    with pytest.raises(AudioRefused, match="unknown sample_format 'X99'") as e:
        d.decode(b"\0\0")
    assert e.value.cause == "bad"
    d.set_info(2, 8000, "S16LE", "wave")
    with pytest.raises(AudioRefused, match="whole number"):
        d.decode(b"\0\0\0")


def _tone(rate: int, seconds: float, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.4 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _peak_hz(y: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(y * np.hanning(len(y))))
    return float(np.argmax(spec) * rate / len(y))


def _mp3(x: np.ndarray, rate: int, channels: int) -> bytes:
    """Raw MP3 frames (as GStreamer's lamemp3enc hands them to ros-drivers' audio_capture: no ID3/Xing header)."""
    import av

    enc = av.CodecContext.create("libmp3lame", "w")
    enc.sample_rate, enc.layout, enc.format, enc.bit_rate = rate, "stereo" if channels == 2 else "mono", "s16p", 96000
    enc.open()
    pcm = (np.clip(x, -1, 1) * 32767).astype(np.int16)
    out = bytearray()
    for i in range(0, len(pcm), enc.frame_size):
        blk = np.pad(pcm[i: i + enc.frame_size], (0, max(0, enc.frame_size - len(pcm[i: i + enc.frame_size]))))
        fr = av.AudioFrame.from_ndarray(np.stack([blk] * channels), format="s16p", layout=enc.layout.name)
        fr.sample_rate = rate
        for pkt in enc.encode(fr):
            out += bytes(pkt)
    for pkt in enc.encode(None):
        out += bytes(pkt)
    return bytes(out)


@pytest.mark.parametrize("rate,channels", [(44100, 2), (16000, 1)])
def test_mp3_stream_split_anywhere_is_decoded_with_its_state(rate: int, channels: int) -> None:
    x = _tone(rate, 2.0, 700.0)
    data = _mp3(x, rate, channels)
    d = AudioDataDecoder()
    d.set_info(channels, rate, "", "mp3")
    assert d.compressed
    outs, rates = [], set()
    for i in range(0, len(data), 333):   # messages that cut MP3 frames in two
        r, y = d.decode(data[i: i + 333])
        rates.add(r)
        outs.append(y)
    y = np.concatenate(outs)
    assert rates == {rate}
    assert abs(len(y) - len(x)) < 3 * 1152, (len(y), len(x))    # the decoder holds back at most a frame or two
    assert abs(_peak_hz(y[2000:], rate) - 700.0) < 5
    # not an MP3 stream: refused (with its reason) once it is clear no frame comes out, never swallowed silently
    d2 = AudioDataDecoder()
    d2.set_info(1, 16000, "", "mp3")
    with pytest.raises(AudioRefused, match="no audio frame"):
        for _ in range(20):
            d2.decode(b"\x00garbage" * 128)


@pytest.mark.parametrize("rate", [8000, 11025, 22050, 32000, 44100, 48000, 96000])
@pytest.mark.parametrize("fmt,channels", [(PA_INT16, 2), (PA_FLOAT32, 1), (PA_INT32, 4), (PA_UINT8, 1)],
                         ids=["int16x2", "float32x1", "int32x4", "uint8x1"])
def test_any_rate_and_layout_reaches_the_pipeline_at_16k(rate: int, fmt: int, channels: int) -> None:
    """decode + StreamResampler in 0.1 s messages: 16 kHz mono of the right length, time and pitch."""
    x = _tone(rate, 1.5, 440.0)
    frames = np.repeat(x[:, None], channels, axis=1)
    rs = StreamResampler(rate, 16000)
    outs, starts = [], []
    step = rate // 10
    for i in range(0, len(x), step):
        field, arr = _typed(fmt, frames[i: i + step].reshape(-1))
        y = decode_typed(fmt, channels, rate, {field: arr})
        s, out = rs.push(100.0 + i / rate, y)
        starts.append(s)
        outs.append(out)
    y = np.concatenate(outs)
    assert starts[0] == 100.0 and rs.resyncs == 0
    assert abs(len(y) - 24000) < 200, len(y)
    assert abs(_peak_hz(y[1000:], 16000) - 440.0) < 4


def test_arrival_stamps_are_sample_continuous_and_reanchor_after_a_gap() -> None:
    st = ArrivalStamper(tolerance_s=0.5)
    rng = np.random.default_rng(0)
    stamps = []
    for k in range(50):   # 0.1 s messages arriving with up to 80 ms of jitter
        stamps.append(st.stamp(1000.0 + 0.1 * (k + 1) + rng.uniform(0, 0.08), 4800, 48000))
    assert stamps[0] == pytest.approx(1000.0, abs=0.09)
    assert np.allclose(np.diff(stamps), 0.1) and st.reanchors == 0
    # the microphone was off for 3 s: the next message starts at its own (arrival) time
    t = st.stamp(1000.0 + 8.1, 4800, 48000)
    assert t == pytest.approx(1008.0) and st.reanchors == 1
    assert st.stamp(1000.0 + 8.2, 4800, 48000) == pytest.approx(1008.1)


def test_data_before_the_first_audio_info_is_held_then_delivered_in_order() -> None:
    """A latched AudioInfo reaches a new subscriber after discovery matches it, often after the first data: that
    data waits (up to hold_s) and goes on in order once the AudioInfo is there; without one it is handed on when the
    wait is over (to be refused as no_info and counted), and drain() empties it at shutdown."""
    from m3_memory.ingest.audio_common import InfoWait

    now = [0.0]
    wait = InfoWait(hold_s=2.0, max_held=3, clock=lambda: now[0])
    assert wait.offer("a", info_seen=False) == [] and wait.offer("b", info_seen=False) == []
    assert wait.drain() == ["a", "b"] and wait.drain() == []          # the AudioInfo came: delivered in order
    assert wait.offer("c", info_seen=True) == ["c"]
    wait = InfoWait(hold_s=2.0, max_held=3, clock=lambda: now[0])
    assert [wait.offer(x, info_seen=False) for x in "abc"] == [[], [], []]
    assert wait.offer("d", info_seen=False) == ["a", "b", "c", "d"]   # full: nothing waits past max_held
    wait = InfoWait(hold_s=2.0, clock=lambda: now[0])
    assert wait.offer("e", info_seen=False) == []
    now[0] += 2.0
    assert wait.offer("f", info_seen=False) == ["e", "f"]              # the wait is over: on to be refused
    assert wait.offer("g", info_seen=False) == ["g"]                   # ... and no new wait starts
    now[0] = 0.0
    wait = InfoWait(hold_s=2.0, clock=lambda: now[0])
    assert wait.expired() == [] and wait.offer("h", info_seen=False) == [] and wait.expired() == []
    now[0] += 2.0
    assert wait.expired() == ["h"] and wait.expired() == []           # polled: no further data needed
    wait = InfoWait(hold_s=2.0, clock=lambda: now[0])
    assert wait.offer("i", info_seen=False) == [] and wait.drain(closing=True) == ["i"]
    assert wait.offer("j", info_seen=False) == ["j"]                   # shut down: nothing is held any more
