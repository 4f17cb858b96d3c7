"""MSLR-WEB30K for Lei & Han 2017 (docs/papers/lei2017.md): the 5% stand-in keeps the full
stand-in's shape, a large text file read in pieces equals the file read whole, the published
comparison follows a dataset mapping, and the WEB30K experiments validate and plan."""
from __future__ import annotations

import logging

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrfs.datasets import folds, synthetic
from ltrfs.datasets.registry import load_registry
from ltrfs.pipeline.tables import write_published
from ltrfs.ranking_data import DataError

REPO = Path(__file__).resolve().parents[2]
FULL, PART = "MSLR-WEB30K-standin", "MSLR-WEB30K-standin-0.05"


def sizes_and_labels(generator: dict) -> tuple[np.ndarray, np.ndarray]:
    """The query sizes and labels ``synthetic.make`` draws first (the same draws, without the
    136 feature columns)."""
    p = {**synthetic.generator_parameters(), **generator}
    sizes, _, _, _, y, _ = synthetic._queries_and_labels(
        np.random.default_rng(p["seed"]), p["n_queries"], p["docs_median"], p["docs_sigma"], p["docs_min"],
        p["docs_max"], p["query_shift"], p["n_levels"], p["relevant_fraction"], p["level_ratio"],
        p["label_fractions"])
    return sizes, y


def test_the_five_percent_stand_in_keeps_the_shape_of_the_full_one():
    registry = load_registry(REPO / "config/datasets.yaml")
    full, part = registry[FULL], registry[PART]
    assert part["generator"]["n_queries"] == round(0.05 * full["generator"]["n_queries"]) == 1577
    rest = lambda gen: {k: v for k, v in gen.items() if k != "n_queries"}  # noqa: E731
    assert rest(part["generator"]) == rest(full["generator"])
    for key in ("layout", "n_features", "label_levels", "convention", "feature_names", "folds"):
        assert part[key] == full[key], key
    (full_sizes, full_y), (part_sizes, part_y) = sizes_and_labels(full["generator"]), sizes_and_labels(part["generator"])
    assert len(full_sizes) == 31531 and len(part_sizes) == 1577
    assert 3.7e6 < full_sizes.sum() < 3.85e6 and 180_000 < part_sizes.sum() < 200_000
    # documents per query: the same mean (about 120) and spread within 3%
    assert abs(part_sizes.mean() / full_sizes.mean() - 1) < 0.03 and 118 < full_sizes.mean() < 122
    assert abs(np.median(part_sizes) / np.median(full_sizes) - 1) < 0.03
    # labels 0-4 in MSLR-WEB10K's proportions: within 0.3 percentage points at full size, 1.5 in the
    # 5% (labels vary together within a query: 1,577 queries draw them less evenly), and the rare
    # levels 3 and 4 within a tenth of their share
    target = np.array(full["generator"]["label_fractions"])
    shares = [np.bincount(y, minlength=5) / len(y) for y in (full_y, part_y)]
    assert np.abs(shares[0] - target).max() < 0.003 and np.abs(shares[1] - target).max() < 0.015
    assert (np.abs(shares[1][3:] / target[3:] - 1) < 0.1).all()
    # five query-level folds, Fold 1: 3/1/1 of the queries (947 training queries of 1,577)
    subsets = folds.query_subsets(1577, 5, seed=0)
    rot = folds.rotation(1, 5)
    n = {split: sum(len(subsets[s - 1]) for s in rot[split]) for split in ("train", "vali", "test")}
    assert n == {"train": 947, "vali": 315, "test": 315}


@pytest.fixture
def generated(tmp_path):
    entry = load_registry(REPO / "config/datasets.yaml")["synthetic-tiny"]
    synthetic.generate(tmp_path, **{**entry["generator"], "n_queries": 80})
    return entry, tmp_path


def test_a_large_file_read_in_pieces_equals_the_file_read_whole(generated, monkeypatch):
    entry, root = generated
    whole = folds.load_fold(entry, root, 1)
    monkeypatch.setattr(folds, "PIECE_BYTES", 8000)  # about 20 lines a piece: dozens of pieces
    assert folds._in_pieces(root / "all.txt", folds.PIECE_BYTES)
    with open(root / "all.txt", "rb") as fh:  # the first cut: at a line whose query is new
        cut = folds._next_query_start(fh, 8000)
        fh.seek(cut - 1)
        before, after = fh.read(1), fh.readline()
    lines = (root / "all.txt").read_bytes()[:cut].splitlines()
    assert before == b"\n" and after.split()[1] != lines[-1].split()[1] and cut > 8000
    pieces = folds.load_fold(entry, root, 1)
    for split in ("train", "vali", "test"):
        a, b = whole[split], pieces[split]
        assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
        assert np.array_equal(a.query_ptr, b.query_ptr) and np.array_equal(a.query_ids, b.query_ids)
        assert np.array_equal(a.docids, b.docids)
    # CRLF line ends: the same data, in pieces too
    lf = folds._read(entry, root / "all.txt", 12, whole=True)
    text = (root / "all.txt").read_bytes()
    (root / "all.txt").write_bytes(text.replace(b"\n", b"\r\n"))
    crlf = folds._read(entry, root / "all.txt", 12)
    assert np.array_equal(crlf.X, lf.X) and np.array_equal(crlf.query_ptr, lf.query_ptr) and crlf.n_queries == 80


def test_an_error_in_a_piece_names_the_file_and_its_line(generated, monkeypatch, caplog):
    entry, root = generated
    monkeypatch.setattr(folds, "PIECE_BYTES", 8000)
    path = root / "all.txt"
    lines = path.read_text().splitlines()
    assert len(lines) > 700
    bad = lines.copy()
    bad[700] = bad[700].replace(" 5:", " 5:x", 1)
    path.write_text("\n".join(bad) + "\n")
    with pytest.raises(DataError, match=rf"^{path}:701: bad value 'x"):
        folds._read(entry, path, 12)
    bad = lines.copy()
    bad[650] = "7" + bad[650][1:]
    path.write_text("\n".join(bad) + "\n")
    with pytest.raises(DataError, match=rf"^{path}:651: label 7 outside the declared levels 0..2"):
        folds._read(entry, path, 12)
    # a repeated row deep in the file: the warning names the file and its own lines, not a piece
    bad = lines[:701] + lines[700:]
    path.write_text("\n".join(bad) + "\n")
    with caplog.at_level(logging.WARNING, logger="ltrfs.io.reader"):
        folds._read(entry, path, 12)
    assert f"{path}: 1 duplicate rows" in caplog.text and "line 702 repeats line 701" in caplog.text
    # a query whose rows come back after other queries, in a later piece
    first = [line for line in lines if line.split()[1] == "qid:1"]
    path.write_text("\n".join(lines + first[:1]) + "\n")
    with pytest.raises(DataError, match=rf"^{path}: the rows of query 1 are not contiguous"):
        folds._read(entry, path, 12)


def test_published_rows_of_another_dataset_by_the_datasets_mapping(tmp_path):
    """Lei & Han's Tables 3.6-3.7 say MSLR-WEB10K; our run on MSLR-WEB30K is compared with them
    through ``published.datasets``; a stand-in (not in the mapping) with nothing."""
    ours = pd.DataFrame({"method": ["l1_logistic_10k"], "ranker": ["own"], "k": ["136"], "k_chosen": ["136"],
                         "P@1": [0.30], "NDCG@1": [0.25]})
    ours.to_csv(tmp_path / "ours.csv", index=False)
    spec = {"paper": "lei2017", "tables": ["Table 3.6"], "tolerance": 0.02,
            "datasets": {"MSLR-WEB30K": "MSLR-WEB10K"}, "rows": {"l1_logistic/own": "l1_logistic_10k/own"}}
    sizes = {}
    for dataset in ("MSLR-WEB30K", "MSLR-WEB30K-standin"):
        out = {ext: tmp_path / f"{dataset}.{ext}" for ext in ("md", "html", "csv")}
        write_published(spec, REPO / "config/published", {"mslr": tmp_path / "ours.csv"}, dataset, "t", out)
        sizes[dataset] = len(out["csv"].read_text().strip().splitlines()) - 1
    assert sizes == {"MSLR-WEB30K": 4, "MSLR-WEB30K-standin": 0}  # Table 3.6's four P@1 cells; none
    comparison = pd.read_csv(tmp_path / "MSLR-WEB30K.csv")
    row = comparison[comparison.ours.notna()].iloc[0]
    assert (row.method, row.metric, row.published, round(row.ours - row.published, 6)) == ("l1_logistic", "P@1", 0.283, 0.017)
    assert "publishes no number for this dataset" in (tmp_path / "MSLR-WEB30K-standin.md").read_text()


def test_the_web30k_experiments_plan_on_the_stand_ins(tmp_path):
    """Without the archives the two WEB30K experiments plan on the full stand-in (the 10,000-row
    sample) and on the 5% one (RankLib's eight models), each with its published comparison."""
    overlay = {"datasets_present_only": True, "results_dir": str(tmp_path / "results"),
               "resources_dir": str(tmp_path / "resources"), "run": ["lei2017_web30k", "lei2017_appendix_web30k"],
               "train_batch": False}
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO),
                             "--configfile", str(REPO / "config/config.yaml"), str(REPO / "config/papers/lei2017.yaml"),
                             str(tmp_path / "overlay.yaml"), "--dry-run"], capture_output=True, text=True, cwd=REPO)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "running MSLR-WEB30K-standin in place of MSLR-WEB30K (its registry stand_in)" in out
    results = tmp_path / "results"
    for path in (f"{FULL}/tables/lei2017_web30k_published.md", f"{PART}/tables/lei2017_appendix_web30k_published.md",
                 f"{FULL}/fold1/runs/svm_rfe_10k/own.tsv", f"{PART}/fold1/runs/waf/coord_ascent.tsv"):
        assert str(results / path) in out, path
    trains = [line for line in out.splitlines() if line.startswith("train ")]
    assert trains and int(trains[0].split()[1]) == 5 + 8  # five own models, eight RankLib models
