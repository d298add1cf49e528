"""Speech that runs over a clip's end is heard whole by the clip it started in.

Clips are cut every 30 s whatever is being said, so a sentence often straddles two clips. Cut there it became two
fragments, each transcribed and attributed on its own: "bin red by k seven now" said from 29.1 to 31.0 s was stored
as "pin vector." (0.65 s, filed under another person's voice) and "by case seven now." (a new voice). A fragment
gives speech recognition half a sentence and the speaker embedder half a second.

The assembler keeps the first seconds of audio after a clip's end with the clip (``Clip.audio_tail``). The voice
stage then:

1. runs the VAD (as the voice pipeline will) over the end of the clip and its tail; when a speech segment is still
   going on at the clip's end, the clip's audio is extended to where that segment ends (at most the tail), and the
   stage remembers that stretch as heard (:class:`HeardOverEnd`); otherwise the tail is not used;
2. for the next clip, silences its audio up to that point: the clip before has heard it.

The next clip must follow at once (its start is the end the claim was made at); after a restart or a gap nothing
is silenced, so at worst a fragment is heard twice, never lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Segments = Callable[[np.ndarray], list[tuple[float, float]]]   # VAD: speech spans in seconds from the array start

LOOK_BACK_S = 5.0   # seconds before the clip's end the VAD is run from (its state settles well within this)


@dataclass(frozen=True)
class HeardOverEnd:
    clip_end: float    # stream time of the end of the clip that heard past it (the next clip's start)
    until: float       # stream time up to which it heard


def hear_over_end(audio: np.ndarray, tail: np.ndarray | None, start_time: float, sr: int, segments: Segments,
                  pad_s: float = 0.0, look_back_s: float = LOOK_BACK_S) -> tuple[np.ndarray, HeardOverEnd | None]:
    """The clip's audio, extended into ``tail`` up to the end of the speech segment still going on at the clip's
    end (unchanged when there is none), and what it heard past its end. ``pad_s``: the VAD's padding before a
    segment (speech that starts after the end is the next clip's, even when its padding reaches back)."""
    if tail is None or not len(tail) or not len(audio):
        return audio, None
    n = len(audio)
    a = max(0, n - int(round(look_back_s * sr)))
    window = np.concatenate([audio[a:], tail])
    end_s = (n - a) / sr
    over = [b for s, b in segments(window) if s + pad_s < end_s < b]
    if not over:
        return audio, None
    m = min(len(tail), int(round(over[0] * sr)) - (n - a))
    if m <= 0:
        return audio, None
    clip_end = start_time + n / sr
    return np.concatenate([audio, tail[:m]]), HeardOverEnd(clip_end, clip_end + m / sr)


def leave_heard(audio: np.ndarray, start_time: float, sr: int, heard: HeardOverEnd | None,
                tolerance_s: float = 1e-3) -> tuple[np.ndarray, float]:
    """The clip's audio with its first part silenced where the clip before heard it (``heard``, made by the clip
    ending where this one starts), and how many seconds that was."""
    if heard is None or abs(heard.clip_end - start_time) > tolerance_s or heard.until <= start_time:
        return audio, 0.0
    k = min(len(audio), int(round((heard.until - start_time) * sr)))
    if k <= 0:
        return audio, 0.0
    out = np.array(audio, dtype=np.float32, copy=True)
    out[:k] = 0.0
    return out, k / sr
