"""Scores of an evaluation run: accuracy overall and per question type, latency, real-time factor, where the
answers came from (model, fallback, error); written as JSONL (every answer), summary.json, summary.md, PNG plots
and one self-contained HTML page rendered by Jinja2 from ``templates/report.html.j2`` (autoescaped), with one
section per question: verdict and the judge's reason, cited memories and the reasoning trace as tables."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

ANSWER_SOURCES = ("model", "fallback", "extractive", "error")
TEMPLATES = Path(__file__).with_name("templates")
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
    a question counts toward each of its types (as the paper's breakdown). ``answer_source`` (model | fallback |
    error), where a record has it, is counted into ``answer_sources``."""
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
        "answer_sources": {s: sum(r.get("answer_source") == s for r in records) for s in ANSWER_SOURCES},
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
    src = summary.get("answer_sources")
    if src is not None:
        if lines[-1].startswith("|"):
            lines.append("")
        n, model = summary["questions"], src.get("model", 0)
        unrecorded = n - sum(src.get(s, 0) for s in ANSWER_SOURCES)
        lines.append(f"Answers from the model: {model} of {n} ({100 * model / n if n else 0:.1f} %), "
                     f"fallback: {src.get('fallback', 0)}, errors: {src.get('error', 0)}"
                     + (f", extractive answerer: {src['extractive']}" if src.get("extractive") else "")
                     + (f", source not recorded: {unrecorded}" if unrecorded > 0 else ""))
    if summary.get("memorization_rtf") is not None:
        lines.append(f"Memorization real-time factor: {summary['memorization_rtf']:.2f}")
    lost = summary.get("input_not_memorized")
    if isinstance(lost, dict):
        lines.append("Input not memorized (store gaps table): " + ", ".join(f"{k}: {v}" for k, v in lost.items())
                     + f"; unaccounted stream time: {summary.get('unaccounted_stream_s', '?')} s")
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



# -- the HTML page ---------------------------------------------------------------------------------------------------
_MAX_ITEMS = 100  # retrieved memories/facts listed per group; the rest are counted


def _num(value: Any, fmt: str = "{:.2f}", scale: float = 1.0) -> str:
    return fmt.format(value * scale) if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"


def _parse_trace(r: dict) -> dict | None:
    """``trace`` (a dict, or JSON text) or ``trace_json``; None when absent, a stand-in when unreadable."""
    raw = r.get("trace")
    if raw is None or raw == "":
        raw = r.get("trace_json")
    if isinstance(raw, str):
        if not raw.strip():
            return None
        try:
            raw = json.loads(raw)
        except ValueError:
            return {"trace_error": "trace_json is not valid JSON"}
    if raw is None:
        return None
    return raw if isinstance(raw, dict) else {"trace_error": f"trace is a {type(raw).__name__}, not an object"}


def _fact_text(x: Any) -> str:
    if isinstance(x, dict):
        text = x.get("text", x.get("content"))
        tags = [f"{k} {x[k]}" for k in ("id", "kind", "clip_id", "clip", "time", "start_time") if x.get(k) is not None]
        if isinstance(x.get("score"), (int, float)):
            tags.append(f"score {x['score']:.2f}")
        body = str(text) if text is not None else json.dumps(x, ensure_ascii=False, default=str)
        return f"[{', '.join(tags)}] {body}" if tags and text is not None else body
    return str(x)


def _group(label: str, values: Any) -> dict:
    items = [_fact_text(v) for v in values] if isinstance(values, (list, tuple)) else [_fact_text(values)]
    return {"label": label, "entries": items[:_MAX_ITEMS], "more": max(0, len(items) - _MAX_ITEMS), "n": len(items)}


def _groups(value: Any) -> list[dict]:
    """Retrieved memories/facts of a round, whatever shape they were recorded in: {"CLIP_3": [text, ...]},
    a list of facts (strings or dicts with text), or clip hits ({"clip_id", "score", "memories": [...]})."""
    if isinstance(value, dict):
        if isinstance(value.get("memories"), list):
            label = f"clip {value.get('clip_id', '?')}" + (f" (score {value['score']:.2f})"
                                                          if isinstance(value.get("score"), (int, float)) else "")
            return [_group(label, value["memories"])]
        if "text" in value or "content" in value:
            return [_group("", [value])]
        return [_group(str(k), v) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        hits = [v for v in value if isinstance(v, dict) and isinstance(v.get("memories"), list)]
        rest = [v for v in value if not (isinstance(v, dict) and isinstance(v.get("memories"), list))]
        return [g for h in hits for g in _groups(h)] + ([_group("", rest)] if rest else [])
    return []


def _round_view(i: int, item: Any) -> dict:
    if not isinstance(item, dict):
        item = {"content": item}
    groups = _groups(item.get("result")) + _groups(item.get("results"))
    n_items = sum(g["n"] for g in groups)
    if groups:
        summary = f"{n_items} item{'s' * (n_items != 1)}" + (f" in {len(groups)} groups" if len(groups) > 1 else "")
    elif item.get("result") not in (None, "") and _scalar(item.get("result")):
        summary = f"result: {item['result']}"
    elif item.get("action") == "answer":
        summary = ""
    elif isinstance(item.get("results"), int) and not isinstance(item.get("results"), bool):
        summary = f"{item['results']} results"
    elif item.get("action") in ("search", "tool") or "result" in item:
        summary = "nothing found"
    else:
        summary = ""
    if item.get("error"):
        summary = f"error: {item['error']}"
    flags = item.get("flags")
    return {"round": i + 1 if item.get("round") is None else item["round"],
            "action": item.get("action") or ("error" if item.get("error") else ""),
            "tool": str(item.get("tool") or item.get("query") or ""),
            "content": str(item.get("content") or item.get("reply") or "")[:2000],
            "flags": ", ".join(map(str, flags)) if isinstance(flags, (list, tuple)) else str(flags or ""),
            "model_s": _num(item.get("model_s")), "search_s": _num(item.get("search_s")),
            "summary": summary, "groups": groups}


def _provenance_view(entries: Any) -> list[dict]:
    rows = []
    for e in entries if isinstance(entries, (list, tuple)) else []:
        if not isinstance(e, dict):
            rows.append({"id": "", "kind": "", "clip": "", "time": "", "text": str(e), "other": ""})
            continue
        clip = e.get("clip_id", e.get("clip"))
        time = e.get("time", e.get("start_time"))
        shown = {"id", "kind", "clip_id", "clip", "time", "start_time", "text"}
        other = ", ".join(f"{k}: {_num(v) if isinstance(v, float) else v}" for k, v in e.items() if k not in shown)
        rows.append({"id": "" if e.get("id") is None else str(e["id"]), "kind": str(e.get("kind") or ""),
                     "clip": "" if clip is None else str(clip),
                     "time": _num(time, "{:.1f}") if isinstance(time, (int, float)) else str(time or ""),
                     "text": "" if e.get("text") is None else str(e["text"]), "other": other})
    return rows


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def trace_view(trace: dict | None) -> dict | None:
    """A reasoning trace as the trace tables show it (trace.html.j2; also the memory browser's ask page)."""
    if trace is None:
        return None
    rounds = trace.get("rounds")
    facts = {k: v for k, v in trace.items() if k not in ("question", "rounds", "provenance") and _scalar(v)
             and v not in (None, "")}
    facts |= {k: ", ".join(f"{a} {b}" for a, b in v.items()) for k, v in trace.items()
              if isinstance(v, dict) and v and all(_scalar(b) for b in v.values())}
    return {"rounds": [_round_view(i, x) for i, x in enumerate(rounds)] if isinstance(rounds, (list, tuple)) else [],
            "provenance": _provenance_view(trace.get("provenance")), "facts": {k: str(v) for k, v in facts.items()}}


def _question_view(i: int, r: dict) -> dict:
    cited = r.get("cited_memory_ids")
    return {"anchor": f"q{i}", "id": str(r.get("question_id", i)), "time": _num(r.get("time"), "{:.0f} s"),
            "question": str(r.get("question") or ""), "answer": str(r.get("answer") or ""),
            "error": str(r.get("error") or ""), "reference": str(r.get("reference") or ""),
            "correct": bool(r.get("correct")), "judge_detail": str(r.get("judge_detail") or ""),
            "latency_ms": _num(r.get("latency_s"), "{:.0f} ms", 1000.0), "source": str(r.get("answer_source") or ""),
            "types": ", ".join(map(str, r.get("types") or [])), "rounds": "" if r.get("rounds") is None
            else str(r["rounds"]), "cited": ", ".join(map(str, cited)) if isinstance(cited, (list, tuple)) else "",
            "trace": trace_view(_parse_trace(r))}


def _summary_view(summary: dict) -> dict:
    acc, lat, rounds = summary.get("accuracy"), summary.get("latency_s") or {}, summary.get("rounds") or {}
    n = summary.get("questions") or 0
    rows = [("judge", summary.get("judge", "")), ("questions", n), ("correct", summary.get("correct", 0)),
            ("accuracy", _num(acc, "{:.1f} %", 100.0)), ("errors", summary.get("errors", 0)),
            ("answer latency p50 / p95 / max", " / ".join(_num(lat.get(k), "{:.0f} ms", 1000.0)
                                                          for k in ("p50", "p95", "max"))),
            ("rounds p50 / max", " / ".join(_num(rounds.get(k), "{:.1f}") for k in ("p50", "max")))]
    src = summary.get("answer_sources")
    if isinstance(src, dict):
        rows += [(f"answers from the {s}" if s != "error" else "answers that are errors",
                  f"{src.get(s, 0)} of {n}" + (f" ({100 * src.get(s, 0) / n:.1f} %)" if n else ""))
                 for s in ANSWER_SOURCES]
    shown = {"judge", "questions", "correct", "accuracy", "errors", "latency_s", "rounds", "answer_sources", "per_type"}
    extra = [(k, _num(v, "{:.3g}") if isinstance(v, float) else v) for k, v in summary.items()
             if k not in shown and _scalar(v)]
    extra += [(k, ", ".join(f"{a} {_num(b, '{:.3g}') if isinstance(b, float) else b}" for a, b in v.items()))
              for k, v in summary.items() if k not in shown and isinstance(v, dict) and v
              and all(_scalar(b) for b in v.values())]
    per_type = [{"type": t, "n": s.get("n", 0), "correct": s.get("correct", 0),
                 "accuracy": _num(s.get("accuracy"), "{:.1f} %", 100.0)}
                for t, s in (summary.get("per_type") or {}).items() if isinstance(s, dict)]
    return {"rows": [(k, str(v)) for k, v in rows + extra], "per_type": per_type}


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True)


def render_html(records: list[dict], summary: dict, images: Iterable[Path], title: str) -> str:
    """The report page: summary tables, plots (inlined PNG), one section per question with its trace."""
    plots = [{"name": p.stem, "data": base64.b64encode(p.read_bytes()).decode()} for p in images]
    return _environment().get_template("report.html.j2").render(
        title=title, summary=_summary_view(summary), markdown=markdown_table(summary), plots=plots,
        questions=[_question_view(i, r) for i, r in enumerate(records)])


def write_report(records: list[dict], summary: dict, out_dir: str | Path,
                 title: str = "m3-agent-ros evaluation") -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    (out / "summary.md").write_text(markdown_table(summary) + "\n")
    page = render_html(records, summary, _plots(records, summary, out), title)
    (out / "report.html").write_text(page, encoding="utf-8")
    return out / "report.html"
