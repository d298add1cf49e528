"""Question forms stop 76 found answered wrong or unclear, on the hand-built meeting of
tests/test_query_executor.py. Asked at 1:31:

    kitchen 0:00-0:30: Ann 0:02, Bo 0:10 (COFFEE), Ann 0:20
    office  0:30-1:00: Cy 0:35 (TECH), Bo 0:40; Dee seen 0:50, never speaks
    lab     1:00-1:30: Ann 1:05, Cy 1:10, Cy 1:20, Ann 1:25 (each turn 2 s)
"""

from __future__ import annotations

from m3_control.query import check

from .test_query_executor import COFFEE, TECH, ask, ex  # noqa: F401  (ex: the fixture)


def test_a_rank_by_count_behind_a_tie_says_who_tied_ahead(ex):  # noqa: F811
    """"Who spoke the second least?" before 1:15: Bo and Cy twice each, Ann three times. Ranked without gaps Ann is
    second; read as a place in a race nobody is (Bo and Cy share the first two places): the answer names Ann and
    says who tied ahead, with their counts, so neither reading is misled."""
    a, res = ask(ex, "find=who pick=second_least act=spoke to=1:15")
    assert [p.description for p in res.people] == ["Ann"], a
    assert "second least" in a and "3 times" in a, a
    low = a.lower()
    assert f'the person who said "{COFFEE.lower()}"' in low and f'the person who said "{TECH.lower()}"' in low, a
    assert "twice each" in a and "spoke less often" in a, a
    assert not check(a, res), check(a, res)
    # no tie ahead: the answer is as before, naming nobody else
    a, res = ask(ex, "find=who pick=second_most act=spoke")          # Ann 4, Cy 3, Bo 2
    assert "second most" in a and "3 times" in a and COFFEE.lower() not in a.lower() and "Ann" not in a, a
