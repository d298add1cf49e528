import numpy as np
import pytest

from m3_memory.ingest.audio_msg import AudioError, StreamResampler, decode_chunk


def test_decode_encodings_and_channels():
    s16 = np.array([0, 16384, -32768, 32767], "<i2")
    assert np.allclose(decode_chunk("s16le", 1, 16000, s16.tobytes()), [0, 0.5, -1, 32767 / 32768])
    stereo = np.array([[0.5, -0.5], [1.0, 0.0]], "<f4")
    assert np.allclose(decode_chunk("f32le", 2, 48000, stereo.tobytes()), [0.0, 0.5])


@pytest.mark.parametrize("enc,ch,sr,data,msg", [
    ("mp3", 1, 16000, b"\0\0", "unsupported"),
    ("s16le", 1, 100, b"\0\0", "outside"),
    ("s16le", 2, 16000, b"\0\0\0", "whole number"),
    ("f32le", 1, 16000, np.array([np.nan], "<f4").tobytes(), "NaN"),
    ("s16le", 0, 16000, b"", "channel"),
])
def test_bad_chunks(enc, ch, sr, data, msg):
    with pytest.raises(AudioError, match=msg):
        decode_chunk(enc, ch, sr, data)


def test_stream_resampling_keeps_time_and_frequency():
    sr_in = 48000
    t = np.arange(sr_in * 2) / sr_in
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    rs = StreamResampler(sr_in, 16000)
    outs, starts = [], []
    for i in range(0, len(tone), 4800):  # 0.1 s chunks
        s, y = rs.push(10.0 + i / sr_in, tone[i : i + 4800])
        starts.append(s)
        outs.append(y)
    y = np.concatenate(outs)
    assert starts[0] == 10.0 and abs(len(y) - 32000) < 200
    spec = np.abs(np.fft.rfft(y[2000:18000]))
    assert abs(np.argmax(spec) * 16000 / 16000 - 440) < 3
    assert StreamResampler(16000, 16000).push(1.0, tone[:10])[1].shape == (10,)
