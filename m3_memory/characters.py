"""Face/voice equivalences resolved into characters with ids that stay stable.

The rule (documented in docs/store.md, 'Characters with stable ids'):

* Every face or voice node gets a *seed* when it is created: the next value of a persistent counter
  (``meta.next_character_seed``), never reused. A node alone is character ``<character_{seed}>``.
* Equivalence memories ("Equivalence: <face_3>, <voice_1>") whose edges still have positive weight join
  their entities (union-find over all statements, as upstream).
* A joined group's character id is the **smallest seed among its members**, i.e. the oldest entity's
  character. Merging two characters therefore keeps the older id; the younger id becomes an alias that
  still resolves (``resolve_alias``) to the merged character.
* Nothing about the numbering depends on process lifetime, processing order of a refresh, or which
  equivalences were seen first, so ids are identical after a restart and only change by a merge into an
  older character. If an equivalence is removed (``forget``, weakened to zero) the group splits and each part
  again takes its own smallest seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Characters:
    of_entity: dict[int, int] = field(default_factory=dict)        # entity node id -> character id
    members: dict[int, list[tuple[str, int]]] = field(default_factory=dict)  # character -> [(kind, node id)]
    seed_of: dict[int, int] = field(default_factory=dict)          # entity node id -> its own seed

    def character_of(self, entity_id: int) -> int | None:
        return self.of_entity.get(entity_id)

    def member_tags(self, character_id: int) -> list[str]:
        return [f"<{kind}_{nid}>" for kind, nid in self.members.get(character_id, [])]

    def of_tag(self, kind: str, node_id: int) -> int | None:
        """The character a tag names: ``<character_k>`` through its alias, ``<face_n>`` / ``<voice_n>`` through their
        entity."""
        return self.resolve_alias(node_id) if kind == "character" else self.character_of(node_id)

    def resolve_alias(self, character_id: int) -> int | None:
        """A character id that was merged away resolves to the character that absorbed it."""
        if character_id in self.members:
            return character_id
        for entity, seed in self.seed_of.items():
            if seed == character_id:
                return self.of_entity.get(entity)
        return None


def resolve(entities: Iterable[tuple[int, str, int]], groups: Iterable[Iterable[int]]) -> Characters:
    """``entities``: (node id, kind, seed); ``groups``: entity ids stated equivalent by one memory."""
    kind_of: dict[int, str] = {}
    seed_of: dict[int, int] = {}
    for nid, kind, seed in entities:
        kind_of[nid] = kind
        seed_of[nid] = seed
    parent = {nid: nid for nid in kind_of}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for group in groups:
        ids = [g for g in group if g in parent]
        for other in ids[1:]:
            a, b = find(ids[0]), find(other)
            if a != b:
                # keep the root with the smaller seed so the root always carries the group's min seed
                if seed_of[a] <= seed_of[b]:
                    parent[b] = a
                else:
                    parent[a] = b
    out = Characters(seed_of=seed_of)
    for nid in sorted(kind_of):
        cid = seed_of[find(nid)]
        out.of_entity[nid] = cid
        out.members.setdefault(cid, []).append((kind_of[nid], nid))
    return out
