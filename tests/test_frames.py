import numpy as np
import pytest

from m3_memory.ingest.frames import FrameError, decode_compressed, decode_raw, encode_jpeg, encode_raw_rgb


def _img():
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, size=(6, 8, 3), dtype=np.uint8)


def test_raw_encodings_round_trip():
    rgb = _img()
    enc, h, w, step, data = encode_raw_rgb(rgb)
    assert np.array_equal(decode_raw(enc, h, w, step, data), rgb)
    assert np.array_equal(decode_raw("bgr8", h, w, step, rgb[..., ::-1].tobytes()), rgb)
    rgba = np.concatenate([rgb, np.full((6, 8, 1), 7, np.uint8)], axis=2)
    assert np.array_equal(decode_raw("rgba8", h, w, w * 4, rgba.tobytes()), rgb)
    assert np.array_equal(decode_raw("bgra8", h, w, w * 4, rgba[..., [2, 1, 0, 3]].tobytes()), rgb)
    gray = rgb[..., 0]
    assert np.array_equal(decode_raw("mono8", h, w, w, gray.tobytes())[..., 1], gray)
    # padded rows (step > width * 3)
    padded = np.zeros((6, 8 * 3 + 4), np.uint8)
    padded[:, :24] = rgb.reshape(6, 24)
    assert np.array_equal(decode_raw("rgb8", h, w, 28, padded.tobytes()), rgb)


@pytest.mark.parametrize("args,msg", [
    (("weird", 6, 8, 24, bytes(144)), "unsupported"),
    (("rgb8", 6, 8, 24, bytes(100)), "expected 144"),
    (("rgb8", 0, 8, 24, b""), "invalid image size"),
    (("rgb8", 6, 8, 10, bytes(144)), "step"),
])
def test_raw_errors(args, msg):
    with pytest.raises(FrameError, match=msg):
        decode_raw(*args)


def test_compressed_round_trip_and_corrupt_data():
    rgb = np.zeros((32, 32, 3), np.uint8)
    rgb[:, :16] = (200, 30, 30)
    out = decode_compressed("jpeg", encode_jpeg(rgb, 95))
    assert out.shape == (32, 32, 3) and abs(int(out[5, 5, 0]) - 200) < 12 and out[5, 5, 2] < 50
    with pytest.raises(FrameError, match="could not decode"):
        decode_compressed("jpeg", b"\xff\xd8 definitely not a jpeg")
    with pytest.raises(FrameError, match="empty"):
        decode_compressed("jpeg", b"")


def test_compressed_check_catches_truncated_and_unknown_data_without_decoding():
    import array

    import cv2

    from m3_memory.ingest.frames import check_compressed

    rgb = np.full((24, 24, 3), 90, np.uint8)
    jpg = encode_jpeg(rgb)
    check_compressed("jpeg", jpg)
    check_compressed("jpeg", array.array("B", jpg))  # what rclpy hands over for uint8[]
    ok, png = cv2.imencode(".png", rgb)
    assert ok
    check_compressed("png", png.tobytes())
    with pytest.raises(FrameError, match="truncated JPEG"):
        check_compressed("jpeg", jpg[: len(jpg) // 2])
    with pytest.raises(FrameError, match="no JPEG/PNG"):
        check_compressed("jpeg", b"GIF89a" + b"\x00" * 20)
    with pytest.raises(FrameError, match="empty"):
        check_compressed("jpeg", b"")


@pytest.mark.parametrize("enc", ["rgb8", "bgr8", "rgba8", "bgra8", "yuv422_yuy2", "yuyv", "uyvy", "yuv422",
                                 "bayer_rggb8", "bayer_bggr8", "bayer_gbrg8", "bayer_grbg8"])
def test_each_camera_encoding_decodes_to_the_same_colours(enc):
    """A smooth colour image encoded as a camera driver would: decoded back within the encoding's loss (4:2:2
    chroma, Bayer interpolation); a swapped channel or byte order fails by far."""
    from .test_ros_image_encodings import encode

    y, x = np.mgrid[0:48, 0:64]
    rgb = np.stack([40 + 3 * x, 60 + 2 * y, 200 - 2 * x], axis=2).astype(np.uint8)
    step, data = encode(rgb, enc)
    out = decode_raw(enc, 48, 64, step, data)
    err = np.abs(out[4:-4, 4:-4].astype(int) - rgb[4:-4, 4:-4]).mean(axis=(0, 1))
    assert (err < 6).all(), (enc, err)
