"""Every paper configuration (config/papers/*.yaml) validates and dry-runs, and names only
datasets, methods and rankers the project has; the published numbers load and name only
papers that have a configuration."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
PAPERS = ["gupta2012", "geng2007", "lei2017", "pahikkala2010", "lai2013"]


def test_there_is_one_config_per_paper():
    assert sorted(p.stem for p in (REPO / "config/papers").glob("*.yaml")) == sorted(PAPERS)


@pytest.mark.parametrize("paper", PAPERS)
def test_paper_config_dry_runs(paper, tmp_path):
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO),
                             "--configfile", str(REPO / f"config/papers/{paper}.yaml"), "--dry-run", "--quiet"],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr[-2000:]
    config = yaml.safe_load((REPO / f"config/papers/{paper}.yaml").read_text())
    assert config["run"] and set(config["run"]) <= set(config["experiments"])


def test_published_numbers_load():
    frames = [pd.read_csv(p) for p in sorted((REPO / "config/published").glob("*.csv"))]
    table = pd.concat(frames, ignore_index=True)
    assert list(frames[0].columns) == ["paper", "table", "dataset", "method", "ranker", "k", "metric", "value",
                                       "convention", "note"]
    assert set(table.paper) <= set(PAPERS)
    # SPEC section 5's MQ2008 FSMRank row (Lai et al. Table II)
    row = table[(table.paper == "lai2013") & (table.table == "Table II") & (table.dataset == "MQ2008")
                & (table.method == "fsmrank")].set_index("metric")["value"]
    assert row[["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP"]].tolist() == [0.3686, 0.4399, 0.4791, 0.2327, 0.4771]
    check = subprocess.run([sys.executable, str(REPO / "config/published/check.py")], capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.strip().endswith("OK"), check.stdout[-1000:] + check.stderr[-1000:]
