"""Benchmark: ltrfs Coordinate Ascent (RankLib's search, NDCG@10 letor4 objective) on MQ2008.

For each of the 5 folds: fit ``CoordinateAscent()`` (RankLib defaults: 5 restarts, 25 steps per
direction, tolerance 0.001) on train.txt with vali.txt choosing the restart, then score
test.txt. Printed per fold: test NDCG@10 and MAP (LETOR 4.0 convention, ``ltrfs.metrics.evaluate``
then ``mean_metrics``), train / vali NDCG@10 of the kept weights, passes, metric evaluations,
seconds per restart and per pass; then the 5-fold means next to the published MQ2008 numbers
(Lai et al. 2013, Table II; there is no published Coordinate Ascent number for MQ2008, RankSVM
is the reference).

Speed of the hot loop, on Fold 1 train: one line search (25 trial weights of one feature) scored
by ``MetricContext.trials`` vs the naive way, one ``metric_per_query`` call per trial; the ratio
is printed (evaluations per second of both).

Usage: python bench/bench_coord_ascent.py [path/to/MQ2008.zip] [--folds 1 2 ...]
       [--restart-init random|uniform] [--n-jobs N]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metric_context import MetricContext
from ltrfs.metrics import evaluate, mean_metrics, metric_per_query
from ltrfs.rankers.coord_ascent import CoordinateAscent, _trial_totals

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
PUBLISHED = {  # Lai et al. 2013, Table II, MQ2008, test, mean of 5 folds (NDCG@10, MAP)
    "RankSVM-primal": (0.2309, 0.4744),
    "RankBoost": (0.2255, 0.4775),
    "ListNet": (0.2303, 0.4775),
    "AdaRank-NDCG": (0.2307, 0.4824),
    "FSMRank": (0.2327, 0.4771),
}


def load(root: Path, fold: int, split: str):
    data = read_letor(root / f"Fold{fold}" / f"{split}.txt")
    qid = np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))
    return data.X, data.y.astype(np.int64), data.query_ptr, qid


def eval_speed(X, y, ptr, repeat: int = 5):
    """(evaluations/s of the kernel, evaluations/s naive, agreement max |diff|) on one line search."""
    ctx = MetricContext(y, ptr, "ndcg@10", "letor4")
    d = X.shape[1]
    XT = np.ascontiguousarray(X.T, dtype=np.float64)
    w = np.full(d, 1.0 / d)
    s = w @ XT
    f = int(np.argmax(XT.std(axis=1)))
    steps = _trial_totals(w[f], 1, 25, 0.05, 2.0)
    ctx.trials(s, XT[f], steps)  # compiled / warm
    best_fast = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fast = ctx.trials(s, XT[f], steps)
        best_fast = min(best_fast, time.perf_counter() - t0)
    best_naive = np.inf
    for _ in range(max(1, repeat // 2)):
        t0 = time.perf_counter()
        naive = np.array([metric_per_query(y, s + t * XT[f], ptr, "ndcg@10", "letor4").mean() for t in steps])
        best_naive = min(best_naive, time.perf_counter() - t0)
    return len(steps) / best_fast, len(steps) / best_naive, float(np.abs(fast - naive).max())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--restart-init", default="random", choices=["random", "uniform"])
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_coord_ascent: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"

        X, y, ptr, _ = load(root, args.folds[0], "train")
        fast, naive, diff = eval_speed(X, y, ptr)
        print(f"metric evaluation, Fold{args.folds[0]} train ({X.shape[0]} rows, {len(ptr) - 1} queries), "
              f"NDCG@10 letor4, one 25-trial line search:")
        print(f"  MetricContext.trials {fast:10.0f} evals/s   naive metric_per_query {naive:8.0f} evals/s   "
              f"ratio {fast / naive:6.1f}x   max |diff| {diff:.1e}")

        print(f"\nCoordinateAscent(restart_init={args.restart_init!r}, n_jobs={args.n_jobs}), RankLib defaults, "
              "restart chosen on vali NDCG@10 (letor4)")
        header = (f"{'fold':>4} {'test N@10':>9} {'test MAP':>8} {'train N@10':>10} {'vali N@10':>9} "
                  f"{'kept':>4} {'passes':>6} {'evals':>7} {'evals/s':>8} {'s/restart':>9} {'s/pass':>7} {'fit s':>7}")
        print(header)
        rows = []
        for fold in args.folds:
            X, y, ptr, qid = load(root, fold, "train")
            Xv, yv, ptr_v, qid_v = load(root, fold, "vali")
            Xt, yt, ptr_t, _ = load(root, fold, "test")
            model = CoordinateAscent(restart_init=args.restart_init, n_jobs=args.n_jobs)
            model.fit(X, y, qid, Xv, yv, qid_v)
            mm = mean_metrics(evaluate(yt, model.predict(Xt), ptr_t, "letor4"))
            rows.append((mm["NDCG@10"], mm["MAP"]))
            print(f"{fold:4d} {mm['NDCG@10']:9.4f} {mm['MAP']:8.4f} {model.train_score_:10.4f} "
                  f"{model.vali_score_:9.4f} {model.best_restart_ + 1:4d} {model.n_iter_:6d} {model.n_evals_:7d} "
                  f"{model.n_evals_ / model.seconds_:8.0f} {model.seconds_per_restart_.mean():9.2f} "
                  f"{model.seconds_per_restart_.sum() / model.n_iter_:7.3f} {model.seconds_:7.2f}", flush=True)
        mean = np.mean(rows, axis=0)
        print(f"mean over folds {args.folds}: test NDCG@10 {mean[0]:.4f}  MAP {mean[1]:.4f}")
        print("published (Lai et al. 2013, Table II, MQ2008 test, 5-fold mean; no Coordinate Ascent entry):")
        for name, (nd, mp) in PUBLISHED.items():
            print(f"  {name:15s} NDCG@10 {nd:.4f}  MAP {mp:.4f}   ours - published: "
                  f"{mean[0] - nd:+.4f} / {mean[1] - mp:+.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
