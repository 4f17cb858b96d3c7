"""Benchmark: LambdaMART's full-size cost, XGBoost against LightGBM and XGBoost's own settings.

On a prepared fold (``train.npz`` and ``vali.npz`` of a workflow run, e.g. the full
``MSLR-WEB30K-standin`` Fold 1 of ``config/full_fold.yaml``), a seeded share of the training
queries (``--share``, default 0.1; vali whole) is fitted with the project's LambdaMART preset
(``ltrfs.rankers.LambdaMART``: 1000 trees, learning rate 0.1, 10 leaves, early stopping on vali
NDCG@10 after 100 rounds, one thread) on the first ``--k`` features (default all), by:

- ``xgboost``: the reference, the workflow's default (``tree_method=hist``, 256 bins);
- ``lightgbm``: ``backend="lightgbm"`` (LightGBM's lambdarank, the same preset);
- ``xgboost max_bin=64`` and ``xgboost pairs=mean``: XGBoost with fewer histogram bins, and
  with one sampled pair per document (``lambdarank_pair_method="mean"``) instead of the top-k
  pairs;
- ``lightgbm truncation=13``: LightGBM's lambda gradients over the pairs of each query's top 13
  documents instead of its top 30 (``lambdarank_truncation_level``; LightGBM's advice for
  NDCG@10 is a little above 10).

Printed per variant: seconds, trees grown and kept, vali NDCG@10 in the dataset's convention
(``--convention``, default ``mslr``), and the ratio of its seconds to XGBoost's (the
reference, measured in the same run).

Run: ``python bench/bench_lambdamart_backends.py path/to/fold1/data [--share 0.1] [--k 136]``
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ltrfs.metrics import evaluate, mean_metrics
from ltrfs.rankers.lambdamart import LambdaMART

VARIANTS = {
    "xgboost": {},
    "lightgbm": {"backend": "lightgbm"},
    "xgboost max_bin=64": {"params": {"max_bin": 64}},
    "xgboost pairs=mean": {"params": {"lambdarank_pair_method": "mean"}},
    "lightgbm truncation=13": {"backend": "lightgbm", "params": {"lambdarank_truncation_level": 13}},
}


def load(path: Path, share: float = 1.0, seed: int = 0, k: int | None = None):
    """(X, y, qid, query_ptr) of a prepared split, its first ``k`` features, a seeded ``share``
    of its queries (whole queries, in file order)."""
    with np.load(path) as z:
        X, y, ptr = z["X"], z["y"], z["query_ptr"]
    n_q = len(ptr) - 1
    keep = np.arange(n_q)
    if share < 1.0:
        keep = np.sort(np.random.default_rng(seed).choice(n_q, size=max(2, round(share * n_q)), replace=False))
    rows = np.concatenate([np.arange(ptr[q], ptr[q + 1]) for q in keep])
    sizes = np.diff(ptr)[keep]
    X = X[rows][:, :k] if k else X[rows]
    return np.ascontiguousarray(X), y[rows], np.repeat(np.arange(len(keep)), sizes), np.concatenate([[0], np.cumsum(sizes)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a prepared fold's data folder (train.npz, vali.npz)")
    parser.add_argument("--share", type=float, default=0.1, help="share of training queries (default 0.1)")
    parser.add_argument("--k", type=int, default=None, help="the first k features (default all)")
    parser.add_argument("--convention", default="mslr")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args(argv)
    X, y, qid, _ = load(args.data / "train.npz", args.share, k=args.k)
    Xv, yv, qv, ptr_v = load(args.data / "vali.npz", 1.0, k=args.k)
    print(f"train {len(y):,} rows, {qid[-1] + 1:,} queries ({args.share:.0%}); vali {len(yv):,} rows; "
          f"{X.shape[1]} features; one thread")
    reference = None
    for name in args.variants:
        start = time.process_time()
        model = LambdaMART(**VARIANTS[name]).fit(X, y, qid, Xv, yv, qv)
        seconds = time.process_time() - start
        ndcg = mean_metrics(evaluate(yv, model.predict(Xv), ptr_v, args.convention))["NDCG@10"]
        reference = reference or seconds
        grown = max((len(h) for split in model.evals_result_.values() for h in split.values()), default=0)
        print(f"{name:20s} {seconds:8.1f} CPU-s  trees {grown:4d} grown, {model.best_iteration_ + 1:4d} kept  "
              f"vali NDCG@10 {ndcg:.4f}  ratio to xgboost {seconds / reference:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
