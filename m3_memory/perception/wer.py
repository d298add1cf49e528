"""Word error rate with the normalisation ASR evaluations need (case, punctuation, digits vs number words)."""

from __future__ import annotations

import re

# Words a transcript has to spell one way although they sound the same ("lay blue by c to again" is how "... c two
# again" sounds): one spelling each, for judging spoken words (evaluation.judge) and matching quotes (control.query).
HOMOPHONES = {"to": "two", "too": "two", "for": "four", "fore": "four", "won": "one", "ate": "eight", "read": "red",
              "been": "bin", "see": "c", "sea": "c", "tea": "t", "tee": "t", "why": "y", "you": "u", "are": "r",
              "ex": "x", "pea": "p", "pee": "p", "queue": "q", "jay": "j", "kay": "k", "bee": "b", "eye": "i"}

_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def normalize(text: str) -> list[str]:
    t = (text or "").lower().replace("'", "")
    t = re.sub(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])", " ", t)      # "x4" -> "x 4"
    t = re.sub(r"\d", lambda m: f" {_DIGITS[int(m.group(0))]} ", t)  # digit by digit, as GRID speaks them
    return re.findall(r"[a-z]+", t)


def wer(reference: str, hypothesis: str) -> float:
    r, h = normalize(reference), normalize(hypothesis)
    if not r:
        return 0.0 if not h else 1.0
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(h)] / len(r)
