"""Two judges side by side: the strict offline judge's verdicts beside an LLM judge's, and how often they agree."""

from __future__ import annotations

from collections.abc import Sequence

from .judge import Judge


def second_opinion(rows: Sequence[dict], judge: Judge, key: str = "llm") -> None:
    """Judge every row again with ``judge``; adds ``{key}_correct`` and ``{key}_detail`` to each row."""
    for r in rows:
        v = judge.judge(r.get("question", ""), r.get("reference", ""), r.get("answer", "") or "")
        r[f"{key}_correct"], r[f"{key}_detail"] = v.correct, v.detail


def agreement(rows: Sequence[dict], a: str = "correct", b: str = "llm_correct") -> dict:
    """Counts of the four verdict pairs, the agreement rate and Cohen's kappa over ``rows``."""
    pairs = [(bool(r[a]), bool(r[b])) for r in rows if a in r and b in r]
    n = len(pairs)
    both = sum(x and y for x, y in pairs)
    neither = sum(not x and not y for x, y in pairs)
    only_a = sum(x and not y for x, y in pairs)
    only_b = sum(y and not x for x, y in pairs)
    agree = (both + neither) / n if n else None
    kappa = None
    if n:
        pa, pb = (both + only_a) / n, (both + only_b) / n
        chance = pa * pb + (1 - pa) * (1 - pb)
        kappa = (agree - chance) / (1 - chance) if chance < 1 else 1.0
    return {"n": n, "both_correct": both, "both_wrong": neither, "only_first": only_a, "only_second": only_b,
            "agreement": agree, "kappa": kappa}


def agreement_table(stats: dict, first: str, second: str) -> str:
    """Markdown: each judge's score and their agreement."""
    n = stats["n"]
    if not n:
        return f"{first} vs {second}: no questions judged by both"
    pct = f"{100 * stats['agreement']:.1f} %"
    kappa = "-" if stats["kappa"] is None else f"{stats['kappa']:.2f}"
    return "\n".join([
        "| judge | correct | accuracy |", "| --- | ---: | ---: |",
        f"| {first} | {stats['both_correct'] + stats['only_first']} / {n} | "
        f"{100 * (stats['both_correct'] + stats['only_first']) / n:.1f} % |",
        f"| {second} | {stats['both_correct'] + stats['only_second']} / {n} | "
        f"{100 * (stats['both_correct'] + stats['only_second']) / n:.1f} % |",
        "", f"Agreement: {stats['both_correct'] + stats['both_wrong']} of {n} ({pct}, Cohen's kappa {kappa}); "
            f"both right {stats['both_correct']}, both wrong {stats['both_wrong']}, only {first} right "
            f"{stats['only_first']}, only {second} right {stats['only_second']}"])
