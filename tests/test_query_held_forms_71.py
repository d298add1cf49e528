"""Question forms stop 71's held-out probes (seeds 661, 663-664) found answered wrong, on the hand-built meeting of
tests/test_query_executor.py (Ann in the kitchen and the lab, Bo in the kitchen and the office, Cy in the office and
the lab; a scripted model writes the frame the small model wrote there). Asked at 1:31.
"""

from __future__ import annotations

import pytest

from .test_query_also import BO, CY
from .test_query_also import check_frame as _check
from .test_query_executor import COFFEE, TECH, ex  # noqa: F401  (ex: the fixture)

# ---- "was C heard in P before B?" where B never spoke in P: that, and C's turns there (or none) ----

@pytest.mark.parametrize("question, frame, named, absent", [
    # Bo never spoke in the lab; Cy did, at 1:10 and 1:20: both facts, not the first alone
    (f"Was {CY} heard in the lab before {BO}?", f'find=yes who="{TECH}" other="{COFFEE}" rel=before',
     [f'I did not hear the person who said "{COFFEE}" in the lab', "spoke there at 01:10 and 01:20"], ["01:05"]),
    # Ann never spoke in the office; Cy did, at 0:35
    (f"Was {CY} heard in the office before Ann?", f'find=yes who="{TECH}" other="Ann" rel=before',
     ["I did not hear Ann in the office", "spoke there at 00:35"], ["00:40"]),
])
def test_before_someone_never_there(ex, question, frame, named, absent):  # noqa: F811
    _check(ex, question, frame, "I did not hear", named, absent)
