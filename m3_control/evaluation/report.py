"""Scores of an evaluation run: accuracy overall and per question type, latency, real-time factor; written as
JSONL (every answer), summary.json, summary.md, PNG plots and one self-contained HTML page."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

QUESTION_TYPES = ("Multi-Detail Reasoning", "Multi-Hop Reasoning", "Cross-Modal Reasoning", "Person Understanding",
                  "General Knowledge Extraction")


def percentiles(values: Iterable[float]) -> dict[str, float | None]:
    v = np.array([x for x in values if x is not None], dtype=float)
    if not len(v):
        return {"p50": None, "p95": None, "p99": None, "mean": None, "max": None}
    return {"p50": float(np.percentile(v, 50)), "p95": float(np.percentile(v, 95)),
            "p99": float(np.percentile(v, 99)), "mean": float(v.mean()), "max": float(v.max())}


def summarize(records: list[dict], judge: str, extra: dict | None = None) -> dict:
    """``records``: dicts with at least ``correct`` (bool), ``types`` (list), ``latency_s``. Types are multi-label:
    a question counts toward each of its types (as the paper's breakdown)."""
    n = len(records)
    per_type: dict[str, dict] = {}
    for t in list(QUESTION_TYPES) + sorted({t for r in records for t in r.get("types", [])} - set(QUESTION_TYPES)):
        rs = [r for r in records if t in r.get("types", [])]
        if rs:
            per_type[t] = {"n": len(rs), "correct": sum(bool(r["correct"]) for r in rs),
                           "accuracy": sum(bool(r["correct"]) for r in rs) / len(rs)}
    return {
        "judge": judge,
        "questions": n,
        "correct": sum(bool(r["correct"]) for r in records),
        "accuracy": (sum(bool(r["correct"]) for r in records) / n) if n else None,
        "errors": sum(bool(r.get("error")) for r in records),
        "per_type": per_type,
        "latency_s": percentiles(r.get("latency_s") for r in records),
        "rounds": percentiles(r.get("rounds") for r in records),
        **(extra or {}),
    }


def markdown_table(summary: dict) -> str:
    acc = summary["accuracy"]
    lines = [f"Judge: {summary['judge']}", "", "| question type | n | accuracy |", "| --- | ---: | ---: |"]
    for t, s in summary["per_type"].items():
        lines.append(f"| {t} | {s['n']} | {100 * s['accuracy']:.1f} % |")
    lines.append(f"| **overall** | {summary['questions']} | {'-' if acc is None else f'{100 * acc:.1f} %'} |")
    lat = summary["latency_s"]
    if lat["p50"] is not None:
        lines += ["", f"Answer latency: p50 {lat['p50'] * 1000:.0f} ms, p95 {lat['p95'] * 1000:.0f} ms, "
                  f"max {lat['max'] * 1000:.0f} ms"]
    if summary.get("memorization_rtf") is not None:
        lines.append(f"Memorization real-time factor: {summary['memorization_rtf']:.2f}")
    return "\n".join(lines)


def _plots(records: list[dict], summary: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    types = list(summary["per_type"])
    if types:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        accs = [100 * summary["per_type"][t]["accuracy"] for t in types]
        ax.barh(types[::-1], accs[::-1], color="#4C72B0")
        for i, (a, t) in enumerate(zip(accs[::-1], types[::-1], strict=True)):
            ax.text(a + 1, i, f"{a:.0f} % (n={summary['per_type'][t]['n']})", va="center", fontsize=8)
        ax.set_xlim(0, 110)
        ax.set_xlabel("accuracy (%)")
        ax.set_title(f"Accuracy per question type, overall {100 * (summary['accuracy'] or 0):.1f} %")
        fig.tight_layout()
        paths.append(out / "accuracy_per_type.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    lat = [r["latency_s"] * 1000 for r in records if r.get("latency_s") is not None]
    if lat:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        ax.hist(lat, bins=min(30, max(5, len(lat) // 2)), color="#55A868")
        ax.set_xlabel("answer latency (ms)")
        ax.set_ylabel("questions")
        ax.set_title("Query latency")
        fig.tight_layout()
        paths.append(out / "latency.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def write_report(records: list[dict], summary: dict, out_dir: str | Path,
                 title: str = "m3-agent-ros evaluation") -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    md = markdown_table(summary)
    (out / "summary.md").write_text(md + "\n")
    imgs = "".join(f'<img alt="{p.stem}" src="data:image/png;base64,{base64.b64encode(p.read_bytes()).decode()}">'
                   for p in _plots(records, summary, out))
    rows = "".join(
        f"<tr class={'ok' if r['correct'] else 'bad'}><td>{html.escape(str(r.get('question_id', '')))}</td>"
        f"<td>{r.get('time', 0):.0f}</td><td>{html.escape(r.get('question', ''))}</td>"
        f"<td>{html.escape(r.get('answer', '') or r.get('error', ''))}</td>"
        f"<td>{html.escape(r.get('reference', ''))}</td>"
        f"<td>{'yes' if r['correct'] else 'no'}</td><td>{1000 * (r.get('latency_s') or 0):.0f}</td></tr>"
        for r in records)
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>
body{{font-family:sans-serif;margin:2em;max-width:1200px}} table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:4px 6px;vertical-align:top}} tr.ok td:nth-child(6){{background:#d4edda}}
tr.bad td:nth-child(6){{background:#f8d7da}} img{{margin:8px 8px 8px 0}} pre{{background:#f6f6f6;padding:8px}}
</style></head><body><h1>{html.escape(title)}</h1><pre>{html.escape(md)}</pre>{imgs}
<h2>Answers</h2><table><tr><th>id</th><th>t (s)</th><th>question</th><th>answer</th><th>reference</th>
<th>correct</th><th>ms</th></tr>{rows}</table></body></html>"""
    (out / "report.html").write_text(page)
    return out / "report.html"
