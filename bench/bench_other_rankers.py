"""Benchmark: RankRLS, linear_regression, logistic, MART and Random Forests on MQ2008, 5 folds.

Protocol (the project's common rules): for every fold, fit on train.txt with vali.txt as the
validation split; a ranker with a default grid (rankrls: lam, logistic: C) is fitted at every
grid point and the point with the best vali NDCG@10 (letor4) is kept; MART early-stops on vali
NDCG@10. Printed: mean test NDCG@1/3/5/10 and MAP over the 5 folds (LETOR 4.0 convention,
``ltrfs.metrics.evaluate`` then ``mean_metrics``), the published MQ2008 numbers of SPEC.md
section 5 (Lai et al. 2013, Table II) for comparison, and seconds (per fit, per fold, total).

Usage: python bench/bench_other_rankers.py [path/to/MQ2008.zip] [--rankers rankrls,mart,...]
       [--folds 1,2,3,4,5] [--n-jobs 1]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metrics import evaluate, mean_metrics, metric_per_query
from ltrfs.rankers.pointwise import LinearRegressionRanker, LogisticRanker
from ltrfs.rankers.rankrls import RankRLS
from ltrfs.rankers.trees import MART, RandomForest

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP",
                                  Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"))
RANKERS = {cls.name: cls for cls in (RankRLS, LinearRegressionRanker, LogisticRanker, MART, RandomForest)}
# Lai et al. 2013, Table II, MQ2008 test, mean of 5 folds (SPEC.md section 5)
PUBLISHED = {
    "RankSVM-primal": (0.3725, 0.4333, 0.4765, 0.2309, 0.4744),
    "RankBoost": (0.3856, 0.4288, 0.4666, 0.2255, 0.4775),
    "ListNet": (0.3754, 0.4324, 0.4747, 0.2303, 0.4775),
    "AdaRank-NDCG": (0.3826, 0.4420, 0.4821, 0.2307, 0.4824),
    "FSMRank": (0.3686, 0.4399, 0.4791, 0.2327, 0.4771),
}
KEYS = ("NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP")


def grid_points(grid: dict):
    if not grid:
        yield {}
        return
    names = list(grid)
    for values in itertools.product(*(grid[n] for n in names)):
        yield dict(zip(names, values))


def run_fold(cls, train, vali, test, n_jobs):
    """Fit (grid on vali NDCG@10 when the ranker has a default grid); test metrics, seconds."""
    best = None
    fit_seconds = []
    start = time.perf_counter()
    for point in grid_points(cls.default_grid):
        model = cls(**point, n_jobs=n_jobs)
        t0 = time.perf_counter()
        model.fit(train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
        fit_seconds.append(time.perf_counter() - t0)
        score = float(metric_per_query(vali.y, model.predict(vali.X), vali.query_ptr, "ndcg@10", "letor4").mean())
        if best is None or score > best[0]:
            best = (score, point, model)
    seconds = time.perf_counter() - start
    _, point, model = best
    metrics = mean_metrics(evaluate(test.y, model.predict(test.X), test.query_ptr, "letor4"))
    extra = ""
    if hasattr(model, "best_iteration_"):
        extra = (f" best_iteration={model.best_iteration_} of {model.n_iter_} grown, "
                 f"{1000 * model.seconds_ / model.n_iter_:.1f} ms/round")
    return metrics, point, seconds, fit_seconds, extra


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--rankers", default=",".join(RANKERS))
    parser.add_argument("--folds", default="1,2,3,4,5")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_other_rankers: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0
    names = [n.strip() for n in args.rankers.split(",") if n.strip()]
    unknown = [n for n in names if n not in RANKERS]
    if unknown:
        print(f"bench_other_rankers: unknown ranker(s) {unknown}; valid: {', '.join(RANKERS)}")
        return 2
    folds = [int(f) for f in args.folds.split(",")]

    total_start = time.perf_counter()
    results = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        for fold in folds:
            split = {s: read_letor(root / f"Fold{fold}" / f"{s}.txt") for s in ("train", "vali", "test")}
            for name in names:
                metrics, point, seconds, fit_seconds, extra = run_fold(RANKERS[name], split["train"], split["vali"],
                                                                       split["test"], args.n_jobs)
                results[name].append((metrics, seconds))
                print(f"Fold{fold} {name:18s} NDCG@10 {metrics['NDCG@10']:.4f} MAP {metrics['MAP']:.4f} "
                      f"chosen {point or '(no grid)'} {seconds:.2f} s ({len(fit_seconds)} fits, "
                      f"{np.mean(fit_seconds):.3f} s each){extra}", flush=True)

    print()
    print(f"MQ2008 test, mean of folds {folds}, letor4 convention (n_jobs={args.n_jobs})")
    print(f"{'model':22s} " + " ".join(f"{k:>8s}" for k in KEYS) + f" {'s/fold':>8s}")
    for name in names:
        mean = {k: np.mean([m[k] for m, _ in results[name]]) for k in KEYS}
        secs = np.mean([s for _, s in results[name]])
        print(f"{name:22s} " + " ".join(f"{mean[k]:8.4f}" for k in KEYS) + f" {secs:8.2f}")
    print("published (Lai et al. 2013, Table II):")
    for name, values in PUBLISHED.items():
        print(f"  {name:20s} " + " ".join(f"{v:8.4f}" for v in values))
    print(f"total {time.perf_counter() - total_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
