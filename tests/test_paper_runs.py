"""Paper reproductions on the real data of ../shared/data, checked against the published
numbers with the tolerances the README states, or against the shapes of the papers' figures
where they give no numbers. Runs of many minutes are marked ``paper`` and not run by default
(``pytest -m paper``); each test skips, with a message, when the archives are absent."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import SHARED_DATA
from ltrfs import published

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

#: Lai et al. cells allowed past the tolerance, with the reason the README gives: OHSUMED's test
#: folds have 21-22 queries, so one query moves the 5-fold NDCG@1 mean by about 0.009
LAI_WIDER = {("OHSUMED", "NDCG@1"): 0.03}


def run_paper(paper: str, workdir: Path, archives=("OHSUMED.zip", "MQ2008.zip")) -> None:
    missing = [name for name in archives if not (SHARED_DATA / name).exists()]
    if missing:
        pytest.skip(f"paper run skipped: {', '.join(str(SHARED_DATA / m) for m in missing)} absent")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--cores", "2",
         "--configfile", str(REPO / "config/config.yaml"), str(REPO / f"config/papers/{paper}.yaml"),
         "--config", f"mirror={SHARED_DATA}", "datasets_present_only=true",
         f"datasets_file={REPO / 'config/datasets.yaml'}"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.paper
def test_lai2013_tables_within_the_stated_tolerance(tmp_path):
    """Every experiment's published cells within its config's ``published.tolerance`` (Table II:
    NDCG@10 and MAP, as the README states; OHSUMED's NDCG@1 within ``LAI_WIDER``)."""
    run_paper("lai2013", tmp_path)
    config = yaml.safe_load((REPO / "config/papers/lai2013.yaml").read_text())
    numbers = published.load("lai2013", REPO / "config/published")
    for dataset in ("OHSUMED", "MQ2008"):
        for experiment in config["run"]:
            spec = config["experiments"][experiment]["published"]
            ours = pd.read_csv(tmp_path / f"results/{dataset}/tables/{experiment}.csv",
                               dtype={"k": str, "k_chosen": str})
            cells = published.beside(ours, numbers, dataset, spec["tables"], spec.get("rows"))
            metrics = ["NDCG@10", "MAP"] if spec["tables"] == ["Table II"] else spec["metrics"]
            cells = cells[cells.metric.isin(metrics)]
            if spec["tables"] == ["Table III"] and dataset == "MQ2008":  # the paper's Table III has no MQ2008 rows
                assert cells.empty
                continue
            assert len(cells) and cells.ours.notna().all(), (dataset, experiment)
            bound = cells.metric.map(lambda m: LAI_WIDER.get((dataset, m), spec["tolerance"]))
            off = cells[cells.difference.abs() > bound]
            assert off.empty, off.to_string()

def test_pahikkala2010_curves_within_the_papers_ranges(tmp_path):
    """The paper gives curves only: its MAP and MeanNDCG panels span 0.455-0.480 and 0.480-0.500.
    On MQ2008 (52 s) every point of every lambda's path lies there (with 0.002 of room), and 3
    features already reach the MAP of RankRLS on all features for at least three lambdas."""
    run_paper("pahikkala2010", tmp_path, ("MQ2008.zip",))
    path = pd.read_csv(tmp_path / "results/figures/pahikkala2010/features/MQ2008_path_greedy_rankrls.csv")
    assert set(path["lambda"]) == {"2^-7", "2^2", "2^6", "2^8"} and set(path.k) == set(range(1, 47))
    assert path.MAP.between(0.455 - 0.002, 0.480 + 0.002).all(), path.MAP.describe()
    assert path.MeanNDCG.between(0.480 - 0.002, 0.500 + 0.002).all(), path.MeanNDCG.describe()
    table = pd.read_csv(tmp_path / "results/MQ2008/tables/pahikkala2010.csv", dtype={"k": str})
    all_features = table[(table.method == "waf") & (table.ranker == "rankrls")].MAP.iloc[0]
    assert (path[path.k == 3].MAP >= all_features).sum() >= 3
