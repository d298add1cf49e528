"""Entity tags in memory text: ``<face_3>``, ``<voice_12>``, ``<character_2>``.

Replacement works on whole tags (regex with the closing ``>``), so ``<face_1>`` never touches ``<face_12>``
(upstream's plain ``str.replace`` had that bug).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping

TAG_RE = re.compile(r"<(face|voice|character)_(\d+)>")
EQUIVALENCE_RE = re.compile(r"^\s*equivalence\b", re.IGNORECASE)


def entity_tag(kind: str, node_id: int) -> str:
    return f"<{kind}_{node_id}>"


def character_tag(character_id: int) -> str:
    return f"<character_{character_id}>"


def find_tags(text: str) -> list[tuple[str, int]]:
    """All tags in order of appearance, duplicates removed: ``[("face", 3), ("voice", 1)]``."""
    seen: dict[tuple[str, int], None] = {}
    for m in TAG_RE.finditer(text or ""):
        seen[(m.group(1), int(m.group(2)))] = None
    return list(seen)


def is_equivalence(text: str) -> bool:
    return bool(EQUIVALENCE_RE.match(text or ""))


def replace_tags(text: str, fn: Callable[[str, int], str | None]) -> str:
    """Replace each whole tag by ``fn(kind, id)``; ``None`` keeps the tag unchanged."""

    def sub(m: re.Match[str]) -> str:
        out = fn(m.group(1), int(m.group(2)))
        return m.group(0) if out is None else out

    return TAG_RE.sub(sub, text or "")


def back_translate(text: str, members: Mapping[int, Iterable[str]], limit: int = 100) -> list[str]:
    """Query variants with every ``<character_k>`` replaced by each of its member tags.

    ``members`` maps character id -> member tags (``"<face_3>"``). Several characters give the Cartesian
    product; more than ``limit`` variants are cut deterministically (first ``limit`` of the product).
    A character with no known members stays as written.
    """
    chars = [cid for kind, cid in find_tags(text) if kind == "character" and list(members.get(cid, ()))]
    if not chars:
        return [text]
    options = [sorted(members[cid]) for cid in chars]
    variants: list[str] = []
    for combo in itertools.islice(itertools.product(*options), limit):
        chosen = dict(zip(chars, combo, strict=True))
        variants.append(replace_tags(text, lambda k, i, c=chosen: c.get(i) if k == "character" else None))
    return variants
