"""Did someone say this? A quote against a transcript, word by word in order.

Character ratios over whole sentences are too lenient for this: two different sentences built from the same
words ("lay blue by m five again" / "lay blue by c two again") score as high as a sentence and its mis-heard
transcript ("bin blue at f two now" / "Bimblue F2 now"). Here the quote's words are aligned in order with the
transcript's (dynamic programming), one or two words on either side at a time, so that words speech recognition
merged or split still pair up ("bin blue" / "bimblue"); a pair counts when it is spelled alike (character ratio
>= 0.75, homophones as one word) or sounds alike: speech recognition errs by sound, so "bin blue" heard as "bimbloo"
pairs through the words' phonetic keys (jellyfish: Metaphone, NYSIIS; a key match counts ``SOUND_WEIGHT``, a little
less than a spelling match). The score is the share of the quote's words paired. A whole word that differs is
unpaired, however similar the rest of the sentence.
"""

from __future__ import annotations

import difflib
from functools import lru_cache

import jellyfish

from m3_memory.perception.wer import HOMOPHONES as _HOMOPHONES
from m3_memory.perception.wer import normalize

PAIR_RATIO = 0.75
SOUND_WEIGHT = 0.9   # a pair that only sounds alike
MAX_WORDS = 40
# words speech recognition drops without changing what was said: a pair may swallow one of them
_SMALL_WORDS = frozenset(("a", "an", "the", "at", "by", "in", "on", "of", "to", "with", "and", "is", "it"))


def spoken(text: str) -> tuple[str, ...]:
    return tuple(_HOMOPHONES.get(w, w) for w in normalize(text))[:MAX_WORDS]


@lru_cache(maxsize=65536)
def _pair(a: str, b: str) -> float:
    if a == b:
        return 1.0
    if min(len(a), len(b)) < 3:
        return 0.0
    r = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    if r >= PAIR_RATIO:
        return r
    return SOUND_WEIGHT * _sounds(a, b)


def _sounds(a: str, b: str) -> float:
    """How alike two spellings sound: the best ratio of their Metaphone or NYSIIS keys, 0 below ``PAIR_RATIO`` or
    for keys under three letters (too short to tell words apart)."""
    best = 0.0
    for key in (jellyfish.metaphone, jellyfish.nysiis):
        ka, kb = key(a), key(b)
        if min(len(ka), len(kb)) >= 3:
            best = max(best, difflib.SequenceMatcher(None, ka, kb, autojunk=False).ratio())
    return best if best >= PAIR_RATIO else 0.0


@lru_cache(maxsize=65536)
def _merge_ok(parts: tuple[str, ...], other: str) -> bool:
    """Two words heard as one (or one said as two): each of the two words has at least half its letters in the
    other side's word, in order, or is a small word speech recognition drops ("blue at" / "blue": "Big blue F2 now"
    for "bin blue at f two now"). "bin blue" / "bimbloo" pair; "b five" / "five" do not (the "b" is not in it: a
    different letter, swallowed by the next word)."""
    joined = "".join(parts)
    hit = [False] * len(joined)
    for a, _, n in difflib.SequenceMatcher(None, joined, other, autojunk=False).get_matching_blocks():
        hit[a:a + n] = [True] * n
    pos = 0
    for w in parts:
        if 2 * sum(hit[pos:pos + len(w)]) < len(w) and w not in _SMALL_WORDS:
            return False
        pos += len(w)
    return True


@lru_cache(maxsize=65536)
def _align(q: tuple[str, ...], t: tuple[str, ...]) -> float:
    n, m = len(q), len(t)
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            v = max(best[i + 1][j], best[i][j + 1])
            for di in (1, 2):
                for dj in (1, 2):
                    if i + di <= n and j + dj <= m and (di, dj) != (2, 2):
                        s = _pair("".join(q[i:i + di]), "".join(t[j:j + dj]))
                        if s and di + dj == 3 and not (_merge_ok(q[i:i + di], "".join(t[j:j + dj])) if di == 2
                                                       else _merge_ok(t[j:j + dj], "".join(q[i:i + di]))):
                            s = 0.0
                        if s:
                            v = max(v, s * di + best[i + di][j + dj])
            best[i][j] = v
    return best[0][0] / n


def quote_score(quote: str, transcript: str) -> float:
    """Share of the quote's words heard in the transcript, in order (0..1)."""
    q, t = spoken(quote), spoken(transcript)
    if not q or not t:
        return 0.0
    return _align(q, t)
