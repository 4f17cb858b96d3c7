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


def test_datasets_present_only_skips_what_cannot_be_had_offline(tmp_path):
    """A dataset without an archive here (HP2004) stops only its own jobs: with
    datasets_present_only the plan keeps the generated dataset, prints the registry's one-line
    message, and asks for the published comparison table."""
    config = {"run": ["mixed"], "datasets_file": str(REPO / "config/datasets.yaml"), "resources_dir": str(tmp_path / "r"),
              "results_dir": str(tmp_path / "results"),
              "experiments": {"mixed": {"datasets": ["synthetic-tiny", "HP2004"], "methods": ["waf"],
                                        "rankers": ["ranksvm"], "k": [5],
                                        "published": {"paper": "lai2013", "tables": ["Table II"]}}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    base = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO), "--configfile",
            str(tmp_path / "c.yaml"), "--dry-run"]
    result = subprocess.run(base + ["--config", "datasets_present_only=true"], capture_output=True, text=True, cwd=REPO)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-2000:]
    assert "skipping dataset HP2004 (datasets_present_only): HP2004: no source to fetch from; download Gov.rar" in out
    assert "results/synthetic-tiny/tables/mixed_published.md" in out and "results/HP2004" not in out
    # without the option the plan includes HP2004's jobs (its download job fails with the same message)
    result = subprocess.run(base, capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0 and "HP2004" in result.stdout + result.stderr
