"""bench/bench_job_start.py times a job script's own top-level imports in a fresh interpreter,
with a cold and a warm Numba cache (structure and sane values only: no timing thresholds)."""
import math
from pathlib import Path

import pytest

from conftest import bench_script

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    return bench_script("bench_job_start")


def test_only_the_top_level_imports_are_read(bench, tmp_path):
    script = tmp_path / "job.py"
    script.write_text("import os\nfrom pathlib import Path\nx = 1\n\ndef f():\n    import json\n"
                      "if x:\n    import csv\n")
    assert bench.import_lines(script) == "import os\nfrom pathlib import Path"


def test_one_script_is_measured_cold_and_warm(bench):
    result = bench.measure_script(REPO / "workflow" / "scripts" / "rescore.py", repeats=1)
    assert result["script"] == "rescore" and result["goal"] == 0.4
    assert "from ltrfs.pipeline.train import rescore" in result["imports"]
    assert len(result["runs"]) == 1
    for key in ("cold", "warm"):
        assert math.isfinite(result[key]) and result[key] > 0
    assert set(bench.GOALS) <= {p.stem for p in (REPO / "workflow" / "scripts").glob("*.py")}
