"""The HTML report rendered through Jinja2: real tables, escaped content, traces of any shape, answer sources."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from m3_control.evaluation.report import TEMPLATES, markdown_table, summarize, write_report


class Tables(HTMLParser):
    """Every <table> as rows of cell texts (nested tables/lists flattened into their cell's text), its class,
    the ids of <section>s, and the raw text of <script> elements (there must be none)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self.sections: list[str] = []
        self.scripts = 0
        self.list_items: list[str] = []
        self._li: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._stack.append({"class": a.get("class") or "", "rows": []})
        elif tag == "tr" and self._stack:
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack and self._stack[-1]["rows"]:
            self._stack[-1]["rows"][-1].append("")
        elif tag == "section":
            self.sections.append(a.get("id") or "")
        elif tag == "script":
            self.scripts += 1
        elif tag == "li":
            self._li.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self.tables.append(self._stack.pop())
        elif tag == "li" and self._li:
            self.list_items.append("".join(self._li.pop()).strip())

    def handle_data(self, data: str) -> None:
        for t in self._stack:
            if t["rows"] and t["rows"][-1]:
                t["rows"][-1][-1] += data
        for li in self._li:
            li.append(data)

    def by_class(self, cls: str) -> list[list[list[str]]]:
        return [[[c.strip() for c in row] for row in t["rows"]] for t in self.tables if t["class"] == cls]


ROUNDS = [
    {"round": 1, "action": "search", "content": "what did the man say?", "results": 2, "flags": [],
     "model_s": 0.5, "search_s": 0.01, "result": {"CLIP_3": ["<character_1> says: 'bin blue'", "a man waves"]}},
    {"round": 2, "action": "tool", "tool": "who", "content": "who(30-60)", "results": 1, "flags": ["repeated_query"],
     "model_s": 0.25, "result": [{"id": 7, "kind": "episodic", "text": "the man speaks at 40 s"}, "plain fact"]},
    {"round": 3, "action": "answer", "content": "He said bin blue.", "results": 0, "flags": ["id_in_answer"],
     "model_s": 0.3},
]


def _rows() -> list[dict]:
    return [
        {"question_id": "q1", "types": ["Person Understanding"], "time": 60.0, "correct": True, "latency_s": 1.25,
         "question": "What did the man say? <script>alert(1)</script>", "answer": "He said bin blue.",
         "reference": "bin blue", "judge_detail": "all reference words found, nothing else asserted",
         "answer_source": "model", "rounds": 3, "cited_memory_ids": [7, 9],
         "trace": {"backend": "llama", "counts": {"invalid": 0, "repeated_query": 1}, "rounds": ROUNDS,
                   "provenance": [{"id": 7, "kind": "episodic", "text": "the man speaks at 40 s", "clip_id": 3,
                                   "time": 40.0, "basis": "shown to the model"}, "not a dict"]}},
        {"question_id": "q2", "types": ["Multi-Hop Reasoning"], "time": 90.0, "correct": False, "latency_s": 0.5,
         "question": "How many people came in?", "answer": "[extractive] 3 people & a dog", "reference": "5",
         "judge_detail": "wrong count: answer says 3, reference 5", "answer_source": "fallback",
         "trace_json": json.dumps({"answerer": "extractive", "rounds": [
             {"round": 1, "action": "search", "content": "people",
              "results": [{"clip_id": 2, "score": 0.61, "memories": [{"id": 4, "kind": "semantic",
                                                                      "text": "three people enter", "score": None}]}]},
             None, "a bare string round", {"round": None, "results": None, "result": 17, "flags": "odd",
                                           "model_s": None}]})},
        {"question_id": "q3", "types": ["Multi-Hop Reasoning"], "time": None, "correct": False, "latency_s": None,
         "question": "Where?", "answer": "", "error": "model backend failed", "reference": "kitchen",
         "answer_source": "error", "trace_json": "{not json"},
        {"question_id": "q4", "types": [], "time": 10.0, "correct": True, "latency_s": 0.1, "question": "Old row?",
         "answer": "yes", "reference": "yes"},  # an old row: no trace, no answer_source, no judge_detail
    ]


@pytest.fixture
def report(tmp_path: Path) -> tuple[dict, Tables, str]:
    rows = _rows()
    summary = summarize(rows, "strict-match (offline, no LLM judge configured)", {"memorization_rtf": 0.5,
                                                                                "memory": {"episodic": 3}})
    page = write_report(rows, summary, tmp_path, title="test <report>")
    text = page.read_text(encoding="utf-8")
    parser = Tables()
    parser.feed(text)
    parser.close()
    for name in ("answers.jsonl", "summary.json", "summary.md", "accuracy_per_type.png", "latency.png"):
        assert (tmp_path / name).exists()
    return summary, parser, text


def test_answer_sources_counted(report):
    summary, _, _ = report
    assert summary["answer_sources"] == {"model": 1, "fallback": 1, "extractive": 0, "error": 1}
    md = markdown_table(summary)
    assert "Answers from the model: 1 of 4 (25.0 %), fallback: 1, errors: 1, source not recorded: 1" in md
    s2 = summarize([{"correct": True, "types": [], "answer_source": "model"}], "j")
    assert "Answers from the model: 1 of 1 (100.0 %), fallback: 0, errors: 0" in markdown_table(s2)


def test_summary_tables(report):
    _, p, _ = report
    (summary,) = p.by_class("summary")
    facts = {row[0]: row[1] for row in summary}
    assert facts["judge"].startswith("strict-match") and facts["questions"] == "4" and facts["correct"] == "2"
    assert facts["accuracy"] == "50.0 %"
    assert facts["answers from the model"] == "1 of 4 (25.0 %)"
    assert facts["answers from the fallback"] == "1 of 4 (25.0 %)"
    assert facts["answers that are errors"] == "1 of 4 (25.0 %)"
    assert facts["answer latency p50 / p95 / max"].endswith(" / 1250 ms")
    assert facts["memorization_rtf"] == "0.5" and facts["memory"] == "episodic 3"
    (per_type,) = p.by_class("per-type")
    assert per_type[0] == ["question type", "n", "correct", "accuracy"]
    assert ["Multi-Hop Reasoning", "2", "0", "0.0 %"] in per_type
    (answers,) = p.by_class("answers")
    assert [r[0] for r in answers[1:]] == ["q1", "q2", "q3", "q4"]
    assert [r[3] for r in answers[1:]] == ["right", "wrong", "wrong", "right"]
    assert [r[4] for r in answers[1:]] == ["model", "fallback", "error", ""]


def test_question_sections_and_escaping(report):
    _, p, text = report
    assert p.scripts == 0 and "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "test &lt;report&gt;" in text
    assert "3 people &amp; a dog" in text
    assert p.sections == ["q0", "q1", "q2", "q3"]
    qa = [{row[0]: row[1] for row in t} for t in p.by_class("qa")]
    assert qa[0]["question"] == "What did the man say? <script>alert(1)</script>"  # shown as text
    assert qa[0]["verdict"] == "right: all reference words found, nothing else asserted"
    assert qa[0]["cited memory ids"] == "7, 9" and qa[0]["answer source"] == "model" and qa[0]["latency"] == "1250 ms"
    assert qa[1]["verdict"] == "wrong: wrong count: answer says 3, reference 5"
    assert qa[2]["error"] == "model backend failed" and qa[2]["time"] == "-" and qa[2]["latency"] == "-"
    assert qa[3]["verdict"] == "right" and qa[3]["answer source"] == "-"


def test_trace_tables(report):
    _, p, text = report
    traces = p.by_class("trace")
    assert len(traces) == 2  # q1 (dict trace) and q2 (trace_json); q3's bad JSON and q4 render no round table
    t1 = traces[0]
    assert t1[0] == ["round", "action", "content", "flags", "model s", "search s", "result"]
    main = [r for r in t1[1:] if len(r) == 7]
    assert [r[:2] for r in main] == [["1", "search"], ["2", "tool (who)"], ["3", "answer"]]
    assert main[0][4] == "0.50" and main[0][6] == "2 items" and main[1][3] == "repeated_query"
    assert main[1][6] == "2 items" and main[2][2] == "He said bin blue."
    assert main[2][3] == "id_in_answer" and main[2][6] == ""
    assert "<character_1> says: 'bin blue'" in p.list_items and "plain fact" in p.list_items
    assert "[id 7, kind episodic] the man speaks at 40 s" in p.list_items
    t2 = [r for r in traces[1][1:] if len(r) == 7]
    assert [r[0] for r in t2] == ["1", "2", "3", "4"] and t2[0][6] == "1 item"
    assert t2[2][2] == "a bare string round" and t2[3][3] == "odd" and t2[3][6] == "result: 17"
    assert "[id 4, kind semantic] three people enter" in p.list_items
    assert any(li.startswith("clip 2 (score 0.61)") for li in p.list_items)
    (prov,) = p.by_class("provenance")
    assert prov[0] == ["id", "kind", "clip", "time", "text", "other"]
    assert prov[1] == ["7", "episodic", "3", "40.0", "the man speaks at 40 s", "basis: shown to the model"]
    assert prov[2][4] == "not a dict"
    assert "backend: llama; counts: invalid 0, repeated_query 1" in text
    assert "trace_error: trace_json is not valid JSON" in text


def test_template_is_packaged():
    assert (TEMPLATES / "report.html.j2").is_file()
    setup_py = (Path(__file__).resolve().parents[1] / "setup.py").read_text()
    assert "templates/*.j2" in setup_py
