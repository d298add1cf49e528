"""A weakly alike memory is evidence only where it shares a word with what was asked (held-out 703: "Who has a red
car?" answered 'Someone said "Lay blue by C to again"', a 0.22 match)."""

from __future__ import annotations

import numpy as np

from m3_control.search_evidence import VALUE_SCORE, WEAK_SCORE, is_evidence
from m3_control.tool_loop import ToolReasoningLoop
from m3_memory.store import MemoryStore

from .test_tool_loop import Scripted

LAY, READ = 'someone says: "Lay blue by C to again."', 'someone says: "Been read by K7 now."'


def test_a_weak_match_needs_a_shared_word_a_strong_one_does_not():
    assert not is_evidence(LAY, 0.22, "red car", "Who has a red car?")
    assert is_evidence(READ, 0.22, "red", "Did anyone say red?")             # "read" sounds like "red"
    assert not is_evidence(READ, 0.22, "red car", "Who has a red car?")       # ... but a red car is more than red
    assert is_evidence(LAY, 0.22, "letter c", "What was said with the letter c?")   # a spoken letter
    assert is_evidence(LAY, WEAK_SCORE, "red car", "Who has a red car?")       # strong: shown as found
    # the frame of a memory ("says", "appears in the scene", tags) is no shared word
    assert not is_evidence("<face_1> appears in the scene.", 0.25, "who appears", "Who appeared in the kitchen?")
    assert not is_evidence(LAY, 0.22, "what did someone say", "What did someone say?")
    # a colour, letter or number alone is evidence only for a question about such values (held-out 705)
    assert not is_evidence('someone says: "Lay blue at X4 now."', 0.25, "blue bike", "Who owns a blue bike?")
    assert is_evidence('someone says: "Lay blue at X4 now."', 0.25, "blue x", "What was said about blue and x?")
    assert is_evidence(READ, 0.25, "red letter k", "What did someone say about red and the letter k?")
    assert is_evidence('someone says: "My bike is blue."', 0.25, "blue bike", "Who owns a blue bike?")
    # the one shared colour lifts the score over the edge (0.32 measured): still no evidence, up to VALUE_SCORE
    assert not is_evidence('someone says: "Lay blue at X4 now."', 0.32, "blue bike", "Who owns a blue bike?")
    assert is_evidence('someone says: "Lay blue at X4 now."', VALUE_SCORE, "blue bike", "Who owns a blue bike?")
    assert is_evidence('someone says: "It is pouring outside."', 0.35, "weather", "What was said about the weather?")


def test_a_search_shows_no_memory_alike_in_form_only(db_at):
    store = MemoryStore(db_at("weak.db"))
    texts = ['<voice_1> says: "Lay blue by C to again."', '<voice_2> says: "Been read by K7 now."',
             '<voice_3> says: "My car is red and it is parked outside."']
    with store.begin_clip(0, 0.0, 30.0) as w:
        for i in (1, 2, 3):
            w.add_entity("voice", np.eye(192, dtype=np.float32)[i])
        lay, _, car = [r.node_id for r in w.add_memories(texts, "episodic")]
    loop = ToolReasoningLoop(store, Scripted([]))
    found = {int(m.id): float(m.score or 0) for m in store.search_nodes("red car", topk=10, before_time=31.0)}
    assert loop.min_score <= found[lay] < WEAK_SCORE, found      # the embedder puts it on the edge (0.22)
    shown: dict[int, dict] = {}
    lines = loop._search("red car", 31.0, shown, "Who has a red car?")
    assert car in shown and lay not in shown, lines
    # only the edge match in memory: the model picking it cites a memory it was never shown, and no answer names it
    be = Scripted(["Search: red car", f"Answer: [{lay}]"], grammar_ok=False)
    a = ToolReasoningLoop(store, be).run("Who owns a red car?", before_time=31.0)
    assert "Lay blue" not in (a.answer or ""), a.answer
    store.close()
