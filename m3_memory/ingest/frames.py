"""Decode camera frames as they arrive in sensor_msgs/Image and sensor_msgs/CompressedImage (ROS-free).

Both functions return an RGB ``uint8`` array of shape (H, W, 3) or raise :class:`FrameError` with a message that
says what was wrong (unknown encoding, size mismatch, undecodable JPEG/PNG), so a node can log it, drop the
message and keep running.
"""

from __future__ import annotations

import numpy as np


class FrameError(ValueError):
    """A frame that cannot be decoded."""


_CHANNELS = {"rgb8": 3, "bgr8": 3, "rgba8": 4, "bgra8": 4, "mono8": 1, "8uc1": 1, "8uc3": 3, "mono16": 1,
             "16uc1": 1, "yuv422": 2, "uyvy": 2, "yuyv": 2, "yuv422_yuy2": 2,
             "bayer_rggb8": 1, "bayer_bggr8": 1, "bayer_gbrg8": 1, "bayer_grbg8": 1}
# OpenCV names a Bayer pattern by its second row's first two pixels: ROS "rggb" is OpenCV's BG pattern
_BAYER = {"bayer_rggb8": "COLOR_BayerBG2RGB", "bayer_bggr8": "COLOR_BayerRG2RGB", "bayer_gbrg8": "COLOR_BayerGR2RGB",
          "bayer_grbg8": "COLOR_BayerGB2RGB"}
MAX_PIXELS = 8192 * 8192


def check_raw(encoding: str, height: int, width: int, step: int, nbytes: int) -> None:
    """Raise FrameError for a raw image that cannot be decoded (encoding, size, step, data length), without
    decoding it: every received frame is checked, also those the sampling skips, so none is lost unaccounted."""
    enc = (encoding or "").lower()
    if enc not in _CHANNELS:
        raise FrameError(f"unsupported image encoding {encoding!r} (supported: {', '.join(sorted(_CHANNELS))})")
    if height <= 0 or width <= 0 or height * width > MAX_PIXELS:
        raise FrameError(f"invalid image size {width}x{height}")
    bpp = _CHANNELS[enc] * (2 if enc in ("mono16", "16uc1") else 1)
    if step < width * bpp:
        raise FrameError(f"step {step} is smaller than width*bytes_per_pixel {width * bpp}")
    if nbytes < step * height:
        raise FrameError(f"image data has {nbytes} bytes, expected {step * height} ({width}x{height}, {encoding})")


def decode_raw(encoding: str, height: int, width: int, step: int, data: bytes | bytearray | memoryview,
               is_bigendian: bool = False) -> np.ndarray:
    buf = np.frombuffer(memoryview(data), dtype=np.uint8)
    check_raw(encoding, height, width, step, buf.size)
    enc = (encoding or "").lower()
    ch = _CHANNELS[enc]
    bpp = ch * (2 if enc in ("mono16", "16uc1") else 1)
    rows = buf[: step * height].reshape(height, step)[:, : width * bpp]
    if enc in ("mono16", "16uc1"):
        px = rows.view(">u2" if is_bigendian else "<u2").reshape(height, width)
        gray = (px >> 8).astype(np.uint8)
        return np.repeat(gray[..., None], 3, axis=2)
    img = rows.reshape(height, width, ch)
    if enc in ("rgb8", "8uc3"):
        return np.ascontiguousarray(img)
    if enc == "bgr8":
        return np.ascontiguousarray(img[..., ::-1])
    if enc == "rgba8":
        return np.ascontiguousarray(img[..., :3])
    if enc == "bgra8":
        return np.ascontiguousarray(img[..., 2::-1])
    if enc in ("mono8", "8uc1"):
        return np.repeat(img, 3, axis=2)
    import cv2

    if enc in _BAYER:
        return cv2.cvtColor(np.ascontiguousarray(img[..., 0]), getattr(cv2, _BAYER[enc]))

    code = cv2.COLOR_YUV2RGB_UYVY if enc in ("yuv422", "uyvy") else cv2.COLOR_YUV2RGB_YUY2
    return cv2.cvtColor(np.ascontiguousarray(img), code)


_SIGNATURES = ((b"\xff\xd8\xff", "jpeg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"RIFF", "webp"), (b"BM", "bmp"),
               (b"II*\x00", "tiff"), (b"MM\x00*", "tiff"))


def check_compressed(fmt: str, data: bytes | bytearray | memoryview) -> None:
    """Raise FrameError for a compressed image that is certainly undecodable (empty, no known image signature,
    JPEG without its end-of-image marker, i.e. truncated), without decoding it: cheap enough for every frame,
    also those the sampling skips, so a broken camera is noticed whatever the sample rate."""
    head = bytes(memoryview(data)[:8])
    if not head:
        raise FrameError("compressed image is empty")
    kind = next((k for sig, k in _SIGNATURES if head.startswith(sig)), None)
    if kind is None:
        raise FrameError(f"could not decode compressed image (format {fmt!r}): no JPEG/PNG/WebP/BMP/TIFF signature")
    if kind == "jpeg":
        tail = bytes(memoryview(data)[-64:])
        if b"\xff\xd9" not in tail:
            raise FrameError(f"could not decode compressed image (format {fmt!r}): truncated JPEG "
                             f"({len(memoryview(data))} bytes, no end-of-image marker)")


def decode_compressed(fmt: str, data: bytes | bytearray | memoryview) -> np.ndarray:
    import cv2

    check_compressed(fmt, data)
    buf = np.frombuffer(memoryview(data), dtype=np.uint8)
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None:
        raise FrameError(f"could not decode compressed image (format {fmt!r}, {buf.size} bytes)")
    return np.ascontiguousarray(img[..., ::-1])


def encode_raw_rgb(rgb: np.ndarray) -> tuple[str, int, int, int, bytes]:
    """(encoding, height, width, step, data) of an RGB frame, for building sensor_msgs/Image."""
    h, w = rgb.shape[:2]
    return "rgb8", h, w, w * 3, np.ascontiguousarray(rgb, dtype=np.uint8).tobytes()


def encode_jpeg(rgb: np.ndarray, quality: int = 85) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(rgb[..., ::-1]), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise FrameError("JPEG encoding failed")
    return buf.tobytes()
