"""Question forms stop 98 left open and stop 99's held-out probes (842-847) found.

The meeting of tests/test_query_held_forms_98.py (asked at 1:31, 90 seconds recorded; quarters end at 0:22.5, 0:45,
1:07.5; a voice turn belongs to the part its speaking began in, 0.4 s before it was detected):

    Ann 0:02-0:03.9; Bo 0:08-0:09.4; Cy 0:15-0:16.9; Bo 0:30-0:31.5; Cy 0:40-0:41.9; Ann 0:50-0:51.9;
    Bo 1:10-1:11.5, 1:20-1:21.5, 1:26.2-1:27.7
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .test_query_also import answer
from .test_query_held_forms_83 import seconds_meeting
from .test_query_held_forms_98 import BO, CY, SCRIPT, _has


@pytest.fixture
def ox(db_at) -> Iterator[object]:
    with seconds_meeting(db_at("one_speaker.db"), script=SCRIPT) as ex:
        yield ex


# ==== which of two parts holds one person's turn: in neither where a part not named holds it ====

@pytest.mark.parametrize("question, named, absent", [
    # Bo's shortest turn (1.4 s) lies in the first quarter; the third quarter has none of Bo's, the last 1.5 s
    (f"Was {BO}'s shortest turn in the third quarter or in the last quarter of the recording?",
     ["In neither: the shortest turn of", "was 1.4 seconds, in another part", "1.5 seconds in the last quarter",
      "there was none in the third quarter"], ["cannot compare"]),
    # Cy spoke in the first two quarters only: neither named part has a turn of theirs
    (f"Was {CY}'s longest turn in the third quarter or in the last quarter?",
     ["In neither: the longest turn of", "1.9 seconds, in another part",
      "there was none in the third quarter and the last quarter"], ["cannot compare"]),
    # (kept) the one part that holds it, the other with none
    (f"Was {CY}'s longest turn before or after the middle of the recording?",
     ["In the first half (before the middle of the recording)", "there was none in the second half"], []),
])
def test_part_holding_one_turn_says_neither(ox, question, named, absent):
    _has(answer(ox, question, "find=who act=spoke").answer, named, absent)
